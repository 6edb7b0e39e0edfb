// API overhead: GET /v1/jobs and GET /v1/jobs/{jobId} of the real core under autocannon, against a bare Fastify route
// answering the same bytes, in the same run on the same machine: closed-loop maximum requests/s, and latency at a
// constant rate (autocannon overallRate, which corrects for coordinated omission).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { HAS_MODEL, makeHistory, round, startServer, tempDir, writeResult } from './bench-support.js';

const DURATION = Number(process.env.BENCH_CANNON_S ?? 8);
const RATE = Number(process.env.BENCH_CANNON_RATE ?? 300);
/** Closed-loop rounds of bare, job and list, interleaved: a shared machine's load (and this virtual machine's speed)
 *  moves within seconds, so each round alternates the three in slices of SLICE seconds, SLICES times, and its ratio
 *  is of the requests each endpoint answered in the same stretch of time; the median round is reported beside every
 *  round's figures. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SLICE = Number(process.env.BENCH_SLICE_S ?? 2);
const SLICES = Math.max(1, Math.round(DURATION / SLICE));
/** Seconds of load on each endpoint before the rounds: the figures are of warm servers (JIT-compiled request path). */
const WARMUP = Number(process.env.BENCH_WARMUP_S ?? 2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}
/** User + system CPU time of a process so far, µs (from /proc; null where there is none). */
function cpuMicros(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / 100; // clock ticks of 1/100 s (USER_HZ)
  } catch {
    return null;
  }
}

interface Sliced extends Run {
  requests: number;
  /** The server process's CPU time per answered request, µs. */
  cpuMicrosPerRequest: number | null;
}
/** One endpoint's share of a round: its slices' requests over their seconds; p99 the worst slice's. */
function total(slices: { run: autocannon.Result; cpu: number | null }[]): Sliced {
  const requests = slices.reduce((a, x) => a + x.run.requests.total, 0);
  const seconds = slices.reduce((a, x) => a + x.run.duration, 0);
  const cpu = slices.every((x) => x.cpu !== null) ? slices.reduce((a, x) => a + x.cpu!, 0) : null;
  return {
    rps: round(requests / seconds, 1),
    requests,
    cpuMicrosPerRequest: cpu === null ? null : round(cpu / requests, 1),
    p50: median(slices.map((x) => x.run.latency.p50)),
    p99: Math.max(...slices.map((x) => x.run.latency.p99)),
    non2xx: slices.reduce((a, x) => a + x.run.non2xx, 0),
    errors: slices.reduce((a, x) => a + x.run.errors + x.run.timeouts, 0),
  };
}

async function cannon(url: string, headers: Record<string, string>, rate?: number): Promise<Run> {
  const r = await autocannon({ url, headers, connections: 10, duration: DURATION, ...(rate ? { overallRate: rate } : {}) });
  return { rps: round(r.requests.average, 1), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

const server = await startServer();
const dir = tempDir();
let bare: ReturnType<typeof spawn> | null = null;
try {
  // Some history: 20 jobs of 5 small images each (the list endpoint pages over them), one job to poll.
  const jobId = await makeHistory(server, dir);
  const jobUrl = `${server.base}/v1/jobs/${jobId}?wait=false`;
  const listUrl = `${server.base}/v1/jobs?applicationId=${server.imagesAppId}&pageSize=20`;
  const auth = { authorization: `Bearer ${server.imagesKey}` };
  const jobBody = await (await fetch(jobUrl, { headers: auth })).text();
  fs.writeFileSync(path.join(dir, 'body.json'), jobBody);
  bare = spawn(process.execPath, [path.join(import.meta.dirname, 'bare-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BARE_BODY_FILE: path.join(dir, 'body.json') } });
  const child = bare;
  const bareBase = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /bare listening at (\S+)\n/.exec(out);
      if (m) resolve(m[1]);
    });
  });
  const bareUrl = `${bareBase}/bare`;
  const figures: Record<string, unknown> = { durationSeconds: DURATION, connections: 10, ratePerSecond: RATE, jobBodyBytes: jobBody.length };
  figures.warmupSeconds = WARMUP;
  if (WARMUP > 0) for (const [url, headers] of [[bareUrl, {}], [jobUrl, auth], [listUrl, auth]] as const) await autocannon({ url, headers, connections: 10, duration: WARMUP });
  const rounds: { bare: Sliced; job: Sliced; list: Sliced; jobVsBare: number; listVsBare: number }[] = [];
  const targets = { bare: { url: bareUrl, headers: {}, pid: child.pid! }, job: { url: jobUrl, headers: auth, pid: server.pid }, list: { url: listUrl, headers: auth, pid: server.pid } };
  for (let i = 0; i < ROUNDS; i++) {
    const slices = { bare: [] as { run: autocannon.Result; cpu: number | null }[], job: [] as { run: autocannon.Result; cpu: number | null }[], list: [] as { run: autocannon.Result; cpu: number | null }[] };
    for (let k = 0; k < SLICES; k++) {
      for (const name of ['bare', 'job', 'list'] as const) {
        const t = targets[name];
        const before = cpuMicros(t.pid);
        const run = await autocannon({ url: t.url, headers: t.headers, connections: 10, duration: SLICE });
        const after = cpuMicros(t.pid);
        slices[name].push({ run, cpu: before === null || after === null ? null : after - before });
      }
    }
    const r = { bare: total(slices.bare), job: total(slices.job), list: total(slices.list) };
    rounds.push({ ...r, jobVsBare: round(r.job.rps / r.bare.rps, 3), listVsBare: round(r.list.rps / r.bare.rps, 3) });
  }
  // The round whose job ratio is the median stands for the run (its three figures were measured together).
  const mid = rounds.find((r) => r.jobVsBare === median(rounds.map((x) => x.jobVsBare)))!;
  const max = { bare: mid.bare, job: mid.job, list: mid.list };
  const constant = { bare: await cannon(bareUrl, {}, RATE), job: await cannon(jobUrl, auth, RATE), list: await cannon(listUrl, auth, RATE) };
  figures.rounds = rounds.map((r) => ({
    bareRps: r.bare.rps,
    jobRps: r.job.rps,
    listRps: r.list.rps,
    jobVsBare: r.jobVsBare,
    listVsBare: r.listVsBare,
    cpuMicrosPerRequest: { bare: r.bare.cpuMicrosPerRequest, job: r.job.cpuMicrosPerRequest, list: r.list.cpuMicrosPerRequest },
  }));
  figures.sliceSeconds = SLICE;
  figures.slicesPerRound = SLICES;
  figures.closedLoop = max;
  figures.constantRate = constant;
  figures.jobVsBareRps = median(rounds.map((r) => r.jobVsBare));
  figures.listVsBareRps = median(rounds.map((r) => r.listVsBare));
  const notes = [
    'autocannon runs in the benchmark process on the same 2 cores as the server: closed-loop figures are bounded by both.',
    'cpuMicrosPerRequest: the server process\'s user + system CPU time (/proc) over the requests it answered in the round; the bare server is measured the same way.',
    ...(HAS_MODEL ? [] : ['no model: the polled job holds error results (smaller than completed ones)']),
  ];
  for (const [k, v] of Object.entries({ ...Object.fromEntries(rounds.flatMap((r, i) => [[`bare${i}`, r.bare], [`job${i}`, r.job], [`list${i}`, r.list]])), ...constant })) if (v.non2xx || v.errors) notes.push(`${k}: ${v.non2xx} non-2xx, ${v.errors} errors`);
  writeResult('api-overhead', figures, notes, { closedLoop: 'GET /v1/jobs/{id} and GET /v1/jobs at least 0.5 x the bare route (issue #14)' });
} finally {
  bare?.kill('SIGTERM');
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
