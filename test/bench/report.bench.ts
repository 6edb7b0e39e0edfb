// Large case reports against `veracity serve` (issue 23, item 8): two cases, of 50 and 200 files (jobs of 10 distinct
// 3-megapixel JPEGs, analysed without the model so the run is about the report, not the analysis), then
// GET /app/cases/{id}/report.pdf of each, cold (every file's preview drawn first, in the probe worker), then warm
// (previews kept), then GET .../report.json of the larger. Meanwhile GET /v1/jobs/{id}?wait=false is polled back to
// back over keep-alive, 10 ms apart, on the same server. Every 25 ms the RSS of the server process, of the report's
// builder (a child process whose command line names report-process; a builder inside the server has no figure of its
// own) and of the other workers are sampled apart, so the server's growth is seen against the case's size.
// Writes test/bench/results/report.json. Run: node --import tsx test/bench/report.bench.ts
// (BENCH_REPORT_SIZES=50,100,200 for other case sizes.)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { photoRgb } from '../unit/analysis/fixtures.js';
import { childPids, cmdlineOf, MiB, percentile, round, rssBytes, startServer, tempDir, waitJob, writeResult } from './bench-support.js';

const SIZES = (process.env.BENCH_REPORT_SIZES ?? '50,200').split(',').map(Number);
const PER_JOB = 10;
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

/** Peaks of the server's own RSS, of its report builder process, and of its other children, sampled every `ms`. */
function sampleApart(pid: number, ms: number) {
  const peak = { server: 0, builder: 0, workers: 0, serverAtHeaders: 0 };
  let headers = false;
  const t = setInterval(() => {
    const own = rssBytes(pid)?.rss ?? 0;
    let builder = 0;
    let workers = 0;
    for (const c of childPids(pid)) {
      const rss = rssBytes(c)?.rss ?? 0;
      if (/report-process/.test(cmdlineOf(c))) builder += rss;
      else workers += rss;
    }
    peak.server = Math.max(peak.server, own);
    if (!headers) peak.serverAtHeaders = Math.max(peak.serverAtHeaders, own);
    peak.builder = Math.max(peak.builder, builder);
    peak.workers = Math.max(peak.workers, workers);
  }, ms);
  return {
    headers: () => (headers = true),
    stop: () => {
      clearInterval(t);
      return peak;
    },
  };
}

const dir = tempDir('veracity-bench-report-');
const server = await startServer({ modelsDir: tempDir('veracity-bench-nomodel-') });
try {
  // Distinct files (a preview is drawn per stored file whatever its bytes, but distinct bytes keep it honest).
  const rgb = await photoRgb(2000, 1500);
  let n = 0;
  const cases: { size: number; name: string; jobIds: string[]; id?: string }[] = [];
  for (const size of SIZES) {
    const name = `BENCH-REPORT-${size}`;
    const jobIds: string[] = [];
    for (let j = 0; j < size / PER_JOB; j++) {
      const part: { path: string; name: string }[] = [];
      for (let i = 0; i < PER_JOB; i++, n++) {
        const p = path.join(dir, `f${n}.jpg`);
        fs.writeFileSync(p, await sharp(rgb, { raw: { width: 2000, height: 1500, channels: 3 } }).modulate({ brightness: 0.8 + (n % 40) / 100 }).jpeg({ quality: 85 }).toBuffer());
        part.push({ path: p, name: path.basename(p) });
      }
      jobIds.push(await assessWithCase(name, part));
    }
    cases.push({ size, name, jobIds });
  }
  for (const c of cases) for (const id of c.jobIds) await waitJob(server, server.imagesKey, id);
  const ui = { authorization: `Bearer ${server.uiToken}` };
  const listed = (await (await fetch(`${server.base}/app/cases?pageSize=100`, { headers: ui })).json()) as { cases: { id: string; name: string }[] };
  for (const c of cases) c.id = listed.cases.find((x) => x.name === c.name)!.id;
  const pollUrl = `${server.base}/v1/jobs/${cases[0].jobIds[0]}?wait=false`;
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
  const largest = cases.at(-1)!;
  // The JSON is a fraction of a second: five downloads in a row, so that some polls fall while it is made.
  const runs = [
    ...cases.map((c) => ({ c, label: 'cold', ext: 'pdf', times: 1 })),
    ...cases.map((c) => ({ c, label: 'warm', ext: 'pdf', times: 1 })),
    { c: largest, label: 'json', ext: 'json', times: 5 },
  ];
  for (const { c, label, ext, times } of runs) {
    const latencies: number[] = [];
    let building = true;
    const poller = (async () => {
      while (building) {
        const r = await get(pollUrl, { authorization: `Bearer ${server.imagesKey}` });
        if (building) latencies.push(r.ms);
        await new Promise((x) => setTimeout(x, 10));
      }
    })();
    const before = rssBytes(server.pid)!.rss;
    const rss = sampleApart(server.pid, 25);
    const t0 = performance.now();
    let res: Response | undefined;
    let body = Buffer.alloc(0);
    let firstByteMs = 0;
    for (let i = 0; i < times; i++) {
      res = await fetch(`${server.base}/app/cases/${c.id}/report.${ext}`, { headers: ui });
      if (i === 0) firstByteMs = performance.now() - t0;
      if (i === times - 1) rss.headers();
      body = Buffer.from(await res.arrayBuffer());
    }
    const totalMs = performance.now() - t0;
    building = false;
    await poller;
    const mem = rss.stop();
    const s = [...latencies].sort((a, b) => a - b);
    builds.push({
      build: label,
      files: c.size,
      status: res!.status,
      downloads: times,
      bodyMiB: round(body.length / MiB, 2),
      headersMs: round(firstByteMs, 0),
      totalMs: round(totalMs, 0),
      polls: s.length,
      pollP50Ms: round(percentile(s, 50)),
      pollP99Ms: round(percentile(s, 99)),
      pollMaxMs: round(s.at(-1) ?? NaN),
      serverBeforeMiB: round(before / MiB, 1),
      serverPeakRssMiB: round(mem.server / MiB, 1),
      serverGrowthMiB: round((mem.server - before) / MiB, 1),
      serverGrowthBeforeHeadersMiB: round((mem.serverAtHeaders - before) / MiB, 1),
      serverOverIdleMiB: round((mem.server - idleRss) / MiB, 1),
      builderPeakRssMiB: mem.builder ? round(mem.builder / MiB, 1) : null,
      workersPeakRssMiB: round(mem.workers / MiB, 1),
    });
    console.log(`[bench] ${JSON.stringify(builds.at(-1))}`);
  }
  writeResult(
    'report',
    { sizes: SIZES, idleRssMiB: round(idleRss / MiB, 1), idlePolls, builds, loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim() },
    [
      `GET /app/cases/{id}/report.pdf of cases of ${SIZES.join(' and ')} files, cold (previews drawn) then warm, then report.json of the ${largest.size}-file case; polls of GET /v1/jobs/{id} on the same server meanwhile.`,
      'serverGrowthMiB: the server process RSS peak during the build less its RSS just before; builderPeakRssMiB: the report process apart (null: the builder is a thread inside the server).',
    ],
    { pollP99Ms: '< 20' },
  );

  async function assessWithCase(caseName: string, part: { path: string; name: string }[]): Promise<string> {
    const boundary = `----report${Math.random().toString(16).slice(2)}`;
    const chunks: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify({ case: caseName })}\r\n`)];
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
