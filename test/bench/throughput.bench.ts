// Throughput: N files in one POST /v1/assess?wait=true, end to end through HTTP (upload, probe, queue, worker
// processes, result writes, polling past the 30 s window), against the raw cost of the same work in this one
// process (analyseFile: decode + tile + onnxruntime, sequentially, with the server's total thread count).
// For 12-MP JPEGs, photo PDFs and 12-MP HEICs. Both sides run after a warm-up, so model loading is not counted.
import os from 'node:os';
import path from 'node:path';
import { analyseFile, closeAnalysis } from '../../src/analysis/index.js';
import type { MediaType } from '../../src/api/schemas.js';
import { HAS_MODEL, MODELS, assess, hasHeifEnc, heics12mp, jpegs12mp, photoPdfs, round, startServer, waitJob, writeResult, type Server } from './bench-support.js';

const WORKERS = Math.max(1, Math.min(2, os.availableParallelism())); // the server's default analysisWorkers
const THREADS = WORKERS * 1; // x threadsPerWorker (default 1): the same total thread count in the raw run

interface Kind {
  label: string;
  mediaType: MediaType;
  files: string[];
  key: (s: Server) => string;
}

async function raw(kind: Kind): Promise<{ seconds: number; errors: number }> {
  await analyseFile(kind.files[0], kind.mediaType, { modelsDir: MODELS, threads: THREADS }).catch(() => undefined); // warm-up
  const t0 = performance.now();
  let errors = 0;
  for (const f of kind.files) await analyseFile(f, kind.mediaType, { modelsDir: MODELS, threads: THREADS }).catch(() => errors++);
  return { seconds: (performance.now() - t0) / 1000, errors };
}

async function endToEnd(server: Server, kind: Kind): Promise<{ seconds: number; errors: number; status: number }> {
  // Warm-up: one file per worker, so each worker process has loaded the model.
  const warm = kind.files.slice(0, WORKERS).map((p, i) => ({ path: p, name: `warm-${i}${path.extname(p)}` }));
  await assess(server, kind.key(server), warm, true).then((r) => (r.status === 202 ? waitJob(server, kind.key(server), r.body.jobId) : r.body));
  const t0 = performance.now();
  const res = await assess(server, kind.key(server), kind.files.map((p, i) => ({ path: p, name: `f${i}${path.extname(p)}` })), true);
  if (res.status !== 200 && res.status !== 202) throw new Error(`assess answered ${res.status}: ${JSON.stringify(res.body)}`);
  const job = res.status === 202 ? await waitJob(server, kind.key(server), res.body.jobId) : res.body;
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, errors: job.results.filter((r) => r.status !== 'completed').length, status: res.status };
}

const notes: string[] = [];
if (!HAS_MODEL) notes.push('NO MODEL in models/veracity-detector: every analysis ends in result_unavailable at once; these figures measure nothing.');
const nJpeg = Number(process.env.BENCH_JPEGS ?? 20);
const kinds: Kind[] = [{ label: 'jpeg-12mp', mediaType: 'image/jpeg', files: await jpegs12mp(nJpeg), key: (s) => s.imagesKey }];
kinds.push({ label: 'pdf-photo', mediaType: 'application/pdf', files: await photoPdfs(Number(process.env.BENCH_PDFS ?? 10)), key: (s) => s.pdfsKey });
if (hasHeifEnc()) kinds.push({ label: 'heic-12mp', mediaType: 'image/heic', files: await heics12mp(Number(process.env.BENCH_HEICS ?? 6)), key: (s) => s.imagesKey });
else notes.push('heif-enc is absent (apt-get install libheif-examples): no HEIC figures');

const figures: Record<string, unknown> = { workers: WORKERS, threadsPerWorker: 1, rawThreads: THREADS };
for (const kind of kinds) {
  const r = await raw(kind);
  await closeAnalysis();
  const server = await startServer();
  let e: Awaited<ReturnType<typeof endToEnd>>;
  try {
    e = await endToEnd(server, kind);
  } finally {
    await server.stop();
  }
  const n = kind.files.length;
  figures[kind.label] = {
    files: n,
    rawSeconds: round(r.seconds),
    rawFilesPerSecond: round(n / r.seconds, 3),
    endToEndSeconds: round(e.seconds),
    endToEndFilesPerSecond: round(n / e.seconds, 3),
    ratio: round(r.seconds / e.seconds, 3),
    firstAnswer: e.status,
    errors: { raw: r.errors, endToEnd: e.errors },
  };
  if (r.errors || e.errors) notes.push(`${kind.label}: ${r.errors} raw and ${e.errors} end-to-end files did not complete`);
  console.log(`[bench] throughput ${kind.label}: ${JSON.stringify(figures[kind.label])}`);
}
writeResult('throughput', figures, notes, { ratio: 'end-to-end rate >= 0.85 x raw rate' });
