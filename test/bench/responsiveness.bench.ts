// Responsiveness: latency of GET /v1/jobs/{jobId}?wait=false, sequential polls over keep-alive, while a 20-file
// job of 12-MP JPEGs is being analysed, against the same polls with the machine idle (the job finished).
import http from 'node:http';
import path from 'node:path';
import { HAS_MODEL, assess, jpegs12mp, percentile, round, startServer, writeResult } from './bench-support.js';

const N = Number(process.env.BENCH_POLLS ?? 400);
const GAP_MS = 10;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, key: string): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

async function polls(url: string, key: string, until?: () => boolean): Promise<{ lat: number[]; statuses: Set<number>; processingSeen: number }> {
  const lat: number[] = [];
  const statuses = new Set<number>();
  let processingSeen = 0;
  for (let i = 0; i < N && (!until || !until()); i++) {
    const r = await get(url, key);
    statuses.add(r.status);
    const processing = r.body.includes('"status":"processing"');
    // While busy, only the polls answered while the job was still being analysed count.
    if (until && !processing) break;
    if (processing) processingSeen++;
    lat.push(r.ms);
    await new Promise((x) => setTimeout(x, GAP_MS));
  }
  return { lat: lat.sort((a, b) => a - b), statuses, processingSeen };
}

const files = (await jpegs12mp(20)).map((p, i) => ({ path: p, name: `f${i}${path.extname(p)}` }));
const server = await startServer();
const notes: string[] = [];
if (!HAS_MODEL) notes.push('NO MODEL: the job ends at once, so the "busy" polls mostly see an idle machine.');
try {
  const res = await assess(server, server.imagesKey, files, false);
  const url = `${server.base}/v1/jobs/${res.body.jobId}?wait=false`;
  let done = false;
  const busy = await polls(url, server.imagesKey, () => done);
  // Let the job finish, then poll the idle server the same way.
  for (;;) {
    const r = await get(url, server.imagesKey);
    if (!r.body.includes('"status":"processing"')) break;
    await new Promise((x) => setTimeout(x, 200));
  }
  done = true;
  await new Promise((x) => setTimeout(x, 1000));
  const idle = await polls(url, server.imagesKey);
  const fig = (p: typeof busy) => ({ polls: p.lat.length, p50Ms: round(percentile(p.lat, 50)), p99Ms: round(percentile(p.lat, 99)), maxMs: round(p.lat.at(-1) ?? NaN), statuses: [...p.statuses] });
  writeResult('responsiveness', { busy: { ...fig(busy), sawProcessing: busy.processingSeen }, idle: fig(idle) }, notes, { busyP99Ms: '< 20' });
} finally {
  await server.stop();
  agent.destroy();
}
