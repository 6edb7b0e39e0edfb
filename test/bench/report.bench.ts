// A large case report against `veracity serve` (issue 23, item 8): 200 files in one case (10 jobs of 20 distinct
// 3-megapixel JPEGs, analysed without the model so the run is about the report, not the analysis), then
// GET /app/cases/{id}/report.pdf twice: cold (every file's preview drawn first, in the probe worker) and warm
// (previews kept). Meanwhile GET /v1/jobs/{id}?wait=false is polled back to back over keep-alive, 10 ms apart, on
// the same server, and the server process's RSS is sampled every 25 ms (its report thread is inside it; the worker
// processes are counted apart). Writes test/bench/results/report.json. Run: node --import tsx test/bench/report.bench.ts
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { photoRgb } from '../unit/analysis/fixtures.js';
import { MiB, percentile, round, rssBytes, sampleRss, startServer, tempDir, waitJob, writeResult } from './bench-support.js';

const JOBS = 10;
const PER_JOB = 20;
const CASE = 'BENCH-REPORT-200';
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, headers: Record<string, string>): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, bytes }));
      })
      .on('error', reject);
  });
}

const dir = tempDir('veracity-bench-report-');
const server = await startServer({ modelsDir: tempDir('veracity-bench-nomodel-') });
try {
  // Distinct files (a preview is drawn per stored file whatever its bytes, but distinct bytes keep it honest).
  const rgb = await photoRgb(2000, 1500);
  const files: string[] = [];
  for (let i = 0; i < JOBS * PER_JOB; i++) {
    const p = path.join(dir, `f${i}.jpg`);
    fs.writeFileSync(p, await sharp(rgb, { raw: { width: 2000, height: 1500, channels: 3 } }).modulate({ brightness: 0.8 + (i % 40) / 100 }).jpeg({ quality: 85 }).toBuffer());
    files.push(p);
  }
  const jobIds: string[] = [];
  for (let j = 0; j < JOBS; j++) {
    const part = files.slice(j * PER_JOB, (j + 1) * PER_JOB).map((p) => ({ path: p, name: path.basename(p) }));
    jobIds.push(await assessWithCase(part));
  }
  for (const id of jobIds) await waitJob(server, server.imagesKey, id);
  const ui = { authorization: `Bearer ${server.uiToken}` };
  const cases = (await (await fetch(`${server.base}/app/cases?pageSize=100`, { headers: ui })).json()) as { cases: { id: string; name: string }[] };
  const caseId = cases.cases.find((c) => c.name === CASE)!.id;
  const pollUrl = `${server.base}/v1/jobs/${jobIds[0]}?wait=false`;
  const idleRss = rssBytes(server.pid)!.rss;

  // The same polls with nothing being built, for the machine's own noise at this moment.
  const idle: number[] = [];
  for (const end = performance.now() + 5000; performance.now() < end; ) {
    idle.push((await get(pollUrl, { authorization: `Bearer ${server.imagesKey}` })).ms);
    await new Promise((x) => setTimeout(x, 10));
  }
  const idleSorted = idle.sort((a, b) => a - b);
  const idlePolls = { polls: idle.length, p50Ms: round(percentile(idleSorted, 50)), p99Ms: round(percentile(idleSorted, 99)), maxMs: round(idleSorted.at(-1) ?? NaN) };
  console.log(`[bench] idle polls ${JSON.stringify(idlePolls)}`);
  const builds: Record<string, unknown>[] = [];
  for (const label of ['cold', 'warm']) {
    const latencies: number[] = [];
    let building = true;
    const poller = (async () => {
      while (building) {
        const r = await get(pollUrl, { authorization: `Bearer ${server.imagesKey}` });
        if (building) latencies.push(r.ms);
        await new Promise((x) => setTimeout(x, 10));
      }
    })();
    const rss = sampleRss(server.pid, 25);
    const t0 = performance.now();
    const res = await fetch(`${server.base}/app/cases/${caseId}/report.pdf`, { headers: ui });
    const firstByteMs = performance.now() - t0;
    const pdf = Buffer.from(await res.arrayBuffer());
    const totalMs = performance.now() - t0;
    building = false;
    await poller;
    const mem = rss.stop();
    const s = [...latencies].sort((a, b) => a - b);
    builds.push({
      build: label,
      status: res.status,
      pdfMiB: round(pdf.length / MiB),
      headersMs: round(firstByteMs, 0),
      totalMs: round(totalMs, 0),
      polls: s.length,
      pollP50Ms: round(percentile(s, 50)),
      pollP99Ms: round(percentile(s, 99)),
      pollMaxMs: round(s.at(-1) ?? NaN),
      serverPeakRssMiB: round(mem.peak / MiB, 1),
      serverGrowthMiB: round((mem.peak - idleRss) / MiB, 1),
      withWorkersPeakMiB: round(mem.peakWithWorkers / MiB, 1),
    });
    console.log(`[bench] ${JSON.stringify(builds.at(-1))}`);
  }
  writeResult(
    'report',
    { files: JOBS * PER_JOB, idleRssMiB: round(idleRss / MiB, 1), idlePolls, builds, loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim() },
    ['GET /app/cases/{id}/report.pdf of a 200-file case, cold (previews drawn) then warm; polls of GET /v1/jobs/{id} on the same server meanwhile.'],
    { pollP99Ms: '< 20' },
  );

  async function assessWithCase(part: { path: string; name: string }[]): Promise<string> {
    const boundary = `----report${Math.random().toString(16).slice(2)}`;
    const chunks: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify({ case: CASE })}\r\n`)];
    for (const f of part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: image/jpeg\r\n\r\n`), fs.readFileSync(f.path), Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    const res = await fetch(`${server.base}/v1/assess?wait=false`, {
      method: 'POST',
      body: new Uint8Array(Buffer.concat(chunks)),
      headers: { authorization: `Bearer ${server.imagesKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    if (res.status !== 202 && res.status !== 200) throw new Error(`assess: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { jobId: string }).jobId;
  }
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
