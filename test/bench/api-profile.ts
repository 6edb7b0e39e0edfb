// Where the time of a request goes: the real `veracity serve` under `node --cpu-prof` while autocannon (10
// connections) hits GET /v1/jobs/{id} or GET /v1/jobs; prints the self time per function and per package.
// Not part of `npm run bench` (a profile slows what it measures): `node --import tsx test/bench/api-profile.ts [job|list|bare]`
// (bare: the benchmark's reference route, test/bench/bare-server.mjs, profiled the same way). It also prints the
// server's busy CPU time per request (idle left out), the figure the closed-loop ratio follows once the client's own
// cost is the same on both sides; with PROFILE_OUT=FILE it writes µs per request by function there, so two targets
// (or two commits) can be compared function by function.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { makeHistory, startServer, tempDir } from './bench-support.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const target = process.argv[2] === 'list' ? 'list' : process.argv[2] === 'bare' ? 'bare' : 'job';
const profDir = tempDir('veracity-prof-');
const dir = tempDir();
// `bare`: the reference route of the api-overhead benchmark (test/bench/bare-server.mjs) under the profiler instead,
// answering the bytes of the same job, for comparing where the two spend their time.
const server = await startServer(target === 'bare' ? {} : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
let rps = 0;
// The load window on the monotonic clock V8 stamps samples with (µs): set-up (uploads, analyses) is left out.
let window = [0, 0];
let bare: ChildProcess | null = null;
try {
  const jobId = await makeHistory(server, dir);
  let url = target === 'list' ? `${server.base}/v1/jobs?applicationId=${server.imagesAppId}&pageSize=20` : `${server.base}/v1/jobs/${jobId}?wait=false`;
  const headers: Record<string, string> = { authorization: `Bearer ${server.imagesKey}` };
  if (target === 'bare') {
    fs.writeFileSync(path.join(dir, 'body.json'), await (await fetch(url, { headers })).text());
    const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, path.join(import.meta.dirname, 'bare-server.mjs')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BARE_BODY_FILE: path.join(dir, 'body.json') },
    });
    bare = child;
    url = `${await new Promise<string>((resolve) => child.stdout!.on('data', (d) => { const m = /bare listening at (\S+)\n/.exec(String(d)); if (m) resolve(m[1]); }))}/bare`;
    delete headers.authorization;
  }
  const t0 = Number(process.hrtime.bigint() / 1000n);
  const r = await autocannon({ url, headers, connections: 10, duration: Number(process.env.BENCH_CANNON_S ?? 8) });
  rps = r.requests.average;
  window = [t0, Number(process.hrtime.bigint() / 1000n)];
} finally {
  if (bare) {
    const exited = new Promise((r) => bare!.once('exit', r));
    bare.kill('SIGTERM'); // it exits cleanly on SIGTERM, which writes its profile
    await exited;
  }
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

// The server's profile is the largest (workers write theirs too).
const files = fs.readdirSync(profDir).map((f) => path.join(profDir, f));
const file = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let t = prof.startTime;
prof.samples.forEach((id, i) => {
  t += prof.timeDeltas[i] ?? 0;
  if (t >= window[0] && t <= window[1]) self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTime = new Map<string, number>();
const pkgTime = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const short = url.replace(/^file:\/\//, '').replace(/.*node_modules\//, '').replace(/.*\/wt-[^/]+\//, '');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  fnTime.set(key, (fnTime.get(key) ?? 0) + us);
  const pkg = url === '' ? functionName : url.startsWith('node:') ? 'node:internal' : /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.includes('/src/') ? `src/${url.split('/src/')[1].split('/')[0]}` : url);
  pkgTime.set(pkg, (pkgTime.get(pkg) ?? 0) + us);
}
const top = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n');
console.log(`GET ${target === 'job' ? '/v1/jobs/{id}' : target === 'list' ? '/v1/jobs' : '/bare (the same bytes as the job)'}: ${rps.toFixed(0)} req/s under the profiler; profile ${file}`);
const requests = rps * ((window[1] - window[0]) / 1e6);
const busy = total - (fnTime.get('(idle) :0') ?? 0);
console.log(`server CPU per request: ${(busy / requests).toFixed(1)} µs busy (${requests.toFixed(0)} requests in the window)`);
if (process.env.PROFILE_OUT) fs.writeFileSync(process.env.PROFILE_OUT, JSON.stringify({ profile: file, window, requests, selfPerRequest: Object.fromEntries([...fnTime].map(([k, us]) => [k, us / requests])) }, null, 1));
console.log(`\nSelf time by package:\n${top(pkgTime, 15)}\n\nSelf time by function:\n${top(fnTime, 30)}`);
