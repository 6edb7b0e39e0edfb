// Team server throughput (issue 15): the same N 12-MP JPEGs in one POST /v1/assess?wait=false, end to end over HTTP,
// on one API node (`veracity serve --database-url`, real PostgreSQL from test/support/postgres.ts) with 1, 2 and 3
// `veracity worker` processes (one analysis process each, VERACITY_ANALYSIS_WORKERS=1), against the single-process
// desktop mode (`veracity serve` on SQLite, its default analysis processes) in the same run. While each job is
// analysed, GET /v1/jobs/{id}?wait=false is polled on the API node every 10 ms (keep-alive): its latencies give the
// poll p50/p99 while the workers are busy, and the first poll that sees the job finished ends the timing. Every side
// is warmed up first (each analysis process has loaded the model). Writes test/bench/results/team.json.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORE_STDIO } from '../../main/core-process.js';
import { parseCoreReady } from '../../src/api/core-ready.js';
import { newKeySecret } from '../../src/team-core.js';
import { startPostgres } from '../support/postgres.js';
import { HAS_MODEL, MODELS, REPO, assess, jpegs12mp, percentile, round, startServer, tempDir, waitJob, writeResult, type Server } from './bench-support.js';

const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');
const N = Number(process.env.BENCH_TEAM_FILES ?? 20);
const WORKER_COUNTS = [1, 2, 3];

interface Run {
  files: number;
  seconds: number;
  filesPerSecond: number;
  errors: number;
  polls: number;
  pollP50Ms: number;
  pollP99Ms: number;
}

/** One timed job: submitted with wait=false, polled every 10 ms until it leaves processing. */
async function timedJob(server: Pick<Server, 'base'>, key: string, files: string[]): Promise<Run> {
  const t0 = performance.now();
  const res = await assess(server as Server, key, files.map((p, i) => ({ path: p, name: `f${i}.jpg` })), false);
  if (res.status !== 202 && res.status !== 200) throw new Error(`assess answered ${res.status}: ${JSON.stringify(res.body)}`);
  const latencies: number[] = [];
  let job: { status: string; results: { status: string }[] };
  for (;;) {
    const p0 = performance.now();
    const r = await fetch(`${server.base}/v1/jobs/${res.body.jobId}?wait=false`, { headers: { authorization: `Bearer ${key}` } });
    job = (await r.json()) as typeof job;
    latencies.push(performance.now() - p0);
    if (job.status !== 'processing') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - t0) / 1000;
  latencies.pop(); // the last poll saw the workers done
  latencies.sort((a, b) => a - b);
  return {
    files: files.length,
    seconds: round(seconds),
    filesPerSecond: round(files.length / seconds, 3),
    errors: job.results.filter((f) => f.status !== 'completed').length,
    polls: latencies.length,
    pollP50Ms: round(percentile(latencies, 50)),
    pollP99Ms: round(percentile(latencies, 99)),
  };
}

async function warmUp(server: Pick<Server, 'base'>, key: string, files: string[]): Promise<void> {
  const r = await assess(server as Server, key, files.map((p, i) => ({ path: p, name: `warm-${i}.jpg` })), false);
  await waitJob(server as Server, key, r.body.jobId);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return exited.finally(() => clearTimeout(t));
}

const notes: string[] = [];
if (!HAS_MODEL) notes.push('NO MODEL in models/veracity-detector: every analysis ends in result_unavailable at once; these figures measure nothing.');
const files = await jpegs12mp(N);

// The desktop: `veracity serve` on SQLite, as the throughput benchmark runs it.
const desktop = await startServer();
let desktopRun: Run;
try {
  await warmUp(desktop, desktop.imagesKey, files.slice(0, 2));
  desktopRun = await timedJob(desktop, desktop.imagesKey, files);
} finally {
  await desktop.stop();
}
console.log(`[bench] team desktop: ${JSON.stringify(desktopRun)}`);

// The team server: one API node and 1, 2, 3 workers on one PostgreSQL and one blob directory.
const pgServer = await startPostgres();
const dir = tempDir('veracity-bench-team-');
const team: Record<string, Run> = {};
const children: ChildProcess[] = [];
try {
  const env = {
    ...process.env,
    VERACITY_DATABASE_URL: await pgServer.createDatabase('team_bench'),
    VERACITY_BLOB_DIR: path.join(dir, 'blobs'),
    VERACITY_KEY_SECRET: newKeySecret(),
    VERACITY_LOG_LEVEL: 'warn',
    VERACITY_RATE_LIMIT_MAX: '1000000',
    VERACITY_ANALYSIS_WORKERS: '1',
  };
  const api = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--models-dir', MODELS], { stdio: CORE_STDIO, env });
  children.push(api);
  api.stdout!.resume();
  let apiErr = '';
  api.stderr!.on('data', (d) => (apiErr = (apiErr + d).slice(-10_000)));
  const base = await new Promise<string>((resolve, reject) => {
    api.on('message', (m) => {
      const ready = parseCoreReady(m);
      if (ready) resolve(ready.baseUrl);
    });
    api.once('exit', (code) => reject(new Error(`API node exited ${code}: ${apiErr}`)));
  });
  const key = (JSON.parse(execFileSync(process.execPath, [BIN, 'keys', 'create', '--kind', 'images', '--name', 'bench'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { apiKey: string }).apiKey;

  const workers: ChildProcess[] = [];
  const startWorker = () =>
    new Promise<void>((resolve, reject) => {
      const w = spawn(process.execPath, [BIN, 'worker', '--models-dir', MODELS], { stdio: ['ignore', 'ignore', 'pipe'], env });
      children.push(w);
      workers.push(w);
      let err = '';
      w.stderr!.on('data', (d) => {
        err = (err + d).slice(-10_000);
        if (err.includes('veracity worker: taking files')) resolve();
      });
      w.once('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
    });
  for (const count of WORKER_COUNTS) {
    while (workers.length < count) await startWorker();
    // Warm-up: enough files that every worker process takes at least one (each loads the model).
    await warmUp({ base }, key, files.slice(0, count * 2));
    team[`workers${count}`] = await timedJob({ base }, key, files);
    console.log(`[bench] team ${count} worker(s): ${JSON.stringify(team[`workers${count}`])}`);
  }
} finally {
  for (const c of children.reverse()) await stopChild(c);
  await pgServer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

const loadavg = fs.readFileSync('/proc/loadavg', 'utf8').trim();
const ratios = Object.fromEntries(WORKER_COUNTS.map((c) => [`workers${c}`, round(team[`workers${c}`].filesPerSecond / desktopRun.filesPerSecond, 3)]));
for (const [k, r] of Object.entries({ desktop: desktopRun, ...team })) if (r.errors) notes.push(`${k}: ${r.errors} files did not complete`);
notes.push(`/proc/loadavg at the end: ${loadavg}. The machine (2 cores) is shared with other engineers' runs: absolute figures move with the load; ratios are taken in one run.`);
writeResult(
  'team',
  {
    files: N,
    input: '12-MP JPEG',
    desktop: { analysisProcesses: Math.max(1, Math.min(2, os.availableParallelism())), ...desktopRun },
    team: { apiNodes: 1, analysisProcessesPerWorker: 1, ...team },
    ratioToDesktop: ratios,
    loadavg,
  },
  notes,
);
