// Responsiveness: latency of GET /v1/jobs/{jobId}?wait=false, sequential polls over keep-alive 10 ms apart, while a
// 20-file job of 12-MP JPEGs is being analysed (only polls answered while it is still processing count), against the
// same polls with the machine idle. Several rounds, pooled: one round is a few seconds on this machine.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { HAS_MODEL, assess, jpegs12mp, percentile, round, startServer, writeResult } from './bench-support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_POLLS = 200;
const GAP_MS = 10;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, key: string): Promise<{ ms: number; status: number; processing: boolean }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, processing: body.includes('"status":"processing"') }));
      })
      .on('error', reject);
  });
}

/** Time the server's main (event-loop) thread spent runnable but waiting for a CPU, in ms (/proc schedstat). */
function runQueueWaitMs(pid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

const pause = (ms: number) => new Promise((x) => setTimeout(x, ms));
const stats = (lat: number[]) => {
  const s = [...lat].sort((a, b) => a - b);
  return { polls: s.length, p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), maxMs: round(s.at(-1) ?? NaN) };
};

const files = (await jpegs12mp(20)).map((p, i) => ({ path: p, name: `f${i}${path.extname(p)}` }));
const server = await startServer();
const notes: string[] = [];
if (!HAS_MODEL) notes.push('NO MODEL: the job ends at once, so there is hardly a busy phase.');
const busyAll: number[] = [];
const idleAll: number[] = [];
const rounds: unknown[] = [];
const statuses = new Set<number>();
const waited = { busyMs: 0, busyS: 0, idleMs: 0, idleS: 0 };
try {
  for (let r = 0; r < ROUNDS; r++) {
    const res = await assess(server, server.imagesKey, files, false);
    const url = `${server.base}/v1/jobs/${res.body.jobId}?wait=false`;
    const busy: number[] = [];
    let q0 = runQueueWaitMs(server.pid);
    let t0 = performance.now();
    for (;;) {
      const p = await get(url, server.imagesKey);
      statuses.add(p.status);
      if (!p.processing) break;
      busy.push(p.ms);
      await pause(GAP_MS);
    }
    waited.busyMs += runQueueWaitMs(server.pid) - q0;
    waited.busyS += (performance.now() - t0) / 1000;
    await pause(1000);
    q0 = runQueueWaitMs(server.pid);
    t0 = performance.now();
    const idle: number[] = [];
    for (let i = 0; i < IDLE_POLLS; i++) {
      const p = await get(url, server.imagesKey);
      statuses.add(p.status);
      idle.push(p.ms);
      await pause(GAP_MS);
    }
    waited.idleMs += runQueueWaitMs(server.pid) - q0;
    waited.idleS += (performance.now() - t0) / 1000;
    busyAll.push(...busy);
    idleAll.push(...idle);
    rounds.push({ busy: stats(busy), idle: stats(idle) });
  }
  // How long the server's event-loop thread was ready to run but had no CPU: separates the server's own work from
  // contention for the 2 cores (our nice-10 workers, and whatever else the machine runs).
  const serverRunQueueWait = { busyMsPerSecond: round(waited.busyMs / waited.busyS, 1), idleMsPerSecond: round(waited.idleMs / waited.idleS, 1) };
  writeResult('responsiveness', { rounds: ROUNDS, busy: stats(busyAll), idle: stats(idleAll), serverRunQueueWait, statuses: [...statuses], perRound: rounds }, notes, { busyP99Ms: '< 20' });
} finally {
  await server.stop();
  agent.destroy();
}
