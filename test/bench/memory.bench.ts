// Memory: peak RSS of the server process while it receives 4 concurrent requests of 20 x 25 MiB images (2 GB in
// all, streamed to disk), against its idle RSS. Analysis runs without the model (each file ends at once in
// result_unavailable), so the figure is the receiving path's; the probe/analysis workers are reported apart.
import fs from 'node:fs';
import path from 'node:path';
import { CACHE, MiB, assess, jpegs12mp, rssBytes, round, sampleRss, startServer, tempDir, writeResult } from './bench-support.js';

const SIZE = 25 * MiB; // the largest image accepted (DECISIONS 19)
const [jpeg] = await jpegs12mp(1);
const big = path.join(CACHE, 'photo-25mib.jpg');
if (!fs.existsSync(big) || fs.statSync(big).size !== SIZE) {
  const head = fs.readFileSync(jpeg);
  fs.writeFileSync(big, Buffer.concat([head, Buffer.alloc(SIZE - head.length, 0x5a)])); // trailing bytes after EOI
}
const dataDir = tempDir();
const server = await startServer({ dataDir, modelsDir: tempDir('veracity-bench-nomodel-') });
try {
  await new Promise((r) => setTimeout(r, 1500));
  const idle = rssBytes(server.pid)!.rss;
  const sampler = sampleRss(server.pid, 25);
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: 4 }, (_, r) => assess(server, server.imagesKey, Array.from({ length: 20 }, (_, i) => ({ path: big, name: `r${r}-f${i}.jpg` })), false)),
  );
  const seconds = (performance.now() - t0) / 1000;
  const peak = sampler.stop();
  const statuses = results.map((r) => r.status);
  const hwm = rssBytes(server.pid)!.hwm;
  writeResult(
    'memory',
    {
      idleRssMiB: round(idle / MiB, 1),
      peakRssMiB: round(peak.peak / MiB, 1),
      growthMiB: round((peak.peak - idle) / MiB, 1),
      vmHwmMiB: round(hwm / MiB, 1),
      peakWithWorkersMiB: round(peak.peakWithWorkers / MiB, 1),
      uploadedMiB: 4 * 20 * 25,
      seconds: round(seconds, 1),
      uploadMiBPerSecond: round((4 * 20 * 25) / seconds, 1),
      statuses,
      samples: peak.samples,
    },
    statuses.every((s) => s === 200 || s === 202) ? [] : [`unexpected statuses ${statuses.join(',')}`],
    { growthMiB: '< 300' },
  );
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
