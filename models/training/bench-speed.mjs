// Times the shipped detector the way the product runs it on a 12-megapixel JPEG: sharp decode to raw sRGB,
// the manifest's tiling (stride grid sampled evenly down to heatmapMaxTiles, every one of them run through the
// model, as the product does for the heatmap), normalisation, onnxruntime-node on 2 threads, sigmoid and top-k mean
// (over all of them here; the product's file score uses the maxTiles subset, the same work). From 1.1 also the
// semantic branch as the product runs it: sharp resize of the decoded pixels to 224x224 (linear), onnxruntime-node,
// and the manifest's fusion of the two scores.
// From 1.5 also the face check behind the portrait thresholds (the product's own src/analysis/face-finder.ts, loaded
// through tsx), started as the product starts it: beside the networks, once the picture is decoded.
// Writes models/veracity-detector/speed.json. BENCH_MODEL_DIR times another model folder (e.g. the previous version's,
// checked out to a temp dir, for a comparison in the same machine state) and BENCH_OUT names the result file then.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { register } from 'tsx/esm/api';

const dir = process.env.BENCH_MODEL_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'veracity-detector');
const outFile = process.env.BENCH_OUT ?? path.join(dir, 'speed.json');
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const threads = Number(process.env.BENCH_THREADS ?? 2);
const W = 4000;
const H = 3000;

// A photo-like 12 MP JPEG made here: smooth gradients plus noise (noise keeps the JPEG large, like a real photo).
const raw = Buffer.alloc(W * H * 3);
let s = 1;
for (let y = 0; y < H; y++) {
  for (let x = 0; x < W; x++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const n = (s % 41) - 20;
    const i = (y * W + x) * 3;
    raw[i] = Math.max(0, Math.min(255, ((x * 255) / W) + n));
    raw[i + 1] = Math.max(0, Math.min(255, ((y * 255) / H) + n));
    raw[i + 2] = Math.max(0, Math.min(255, 128 + n));
  }
}
const jpeg = await sharp(raw, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();

const session = await ort.InferenceSession.create(path.join(dir, manifest.file), {
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
});

// The face finder (1.5: manifest `portraits`), the product's code and the manifest's parameters.
let finder = null;
if (manifest.portraits) {
  register();
  const { loadFaceFinderThread } = await import('../../src/analysis/face-finder-thread.ts');
  const { faceFinderParams } = await import('../../src/analysis/model-session.ts');
  const spec = manifest.portraits.finder;
  // as model-session.ts loads it: turned looks (if the manifest names a search) when no face reaches portraits.minFace
  // (from the twenty-fourth session in its own thread, as the product runs it: face-finder-thread.ts)
  finder = await loadFaceFinderThread(fs.readFileSync(path.join(dir, spec.file)), faceFinderParams(spec, manifest.portraits.minFace));
}

// The content models (1.1: `semantic`; 1.3: also `semantic2`), each run as the product runs it, one after the other.
const sems = ['semantic', 'semantic2'].filter((k) => manifest[k]);
const semSessions = Object.fromEntries(
  await Promise.all(
    sems.map(async (k) => [k, await ort.InferenceSession.create(path.join(dir, manifest[k].file), { intraOpNumThreads: threads, interOpNumThreads: 1 })]),
  ),
);
const semSession = sems.length ? semSessions.semantic : null;

async function contentLogit(k, data, info) {
  const sem = manifest[k];
  const size = sem.input.size;
  const small = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .resize(size, size, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  const x = Float32Array.from(small, (v) => v * sem.input.scale);
  const out = await semSessions[k].run({ [sem.input.name]: new ort.Tensor('float32', x, [1, size, size, 3]) });
  return out[sem.output.name].data[0];
}

async function semantic(data, info, artefact) {
  const f = {};
  for (const k of sems) f[k] = await contentLogit(k, data, info);
  const p = Math.min(1 - manifest.fusion.clip, Math.max(manifest.fusion.clip, artefact));
  f.artefact = Math.log(p / (1 - p));
  const z = manifest.fusion.features.reduce((acc, ft) => acc + (ft.weight * (f[ft.name] - ft.mean)) / ft.std, manifest.fusion.bias);
  return 1 / (1 + Math.exp(-z));
}

async function analyse(buf, maxTiles = manifest.tiling.heatmapMaxTiles ?? manifest.tiling.maxTiles) {
  const t0 = performance.now();
  const { data, info } = await sharp(buf).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const t1 = performance.now();
  // the face check runs while the networks do, as in the product (detectors/ai-detection.ts)
  const faces = finder
    ? (async () => {
        const f0 = performance.now();
        await finder.find({ width: info.width, height: info.height, data });
        return performance.now() - f0;
      })()
    : Promise.resolve(0);
  const t = manifest.input.tileSize;
  const { stride } = manifest.tiling;
  const grid = [];
  for (let y = 0; y + t <= info.height; y += stride) for (let x = 0; x + t <= info.width; x += stride) grid.push([y, x]);
  const origins = grid.length <= maxTiles ? grid : Array.from({ length: maxTiles }, (_, i) => grid[Math.floor((i * grid.length) / maxTiles)]);
  const x = new Float32Array(origins.length * 3 * t * t);
  origins.forEach(([oy, ox], n) => {
    for (let c = 0; c < 3; c++) {
      const m = manifest.input.mean[c];
      const sd = manifest.input.std[c];
      const base = (n * 3 + c) * t * t;
      for (let yy = 0; yy < t; yy++) {
        for (let xx = 0; xx < t; xx++) x[base + yy * t + xx] = (data[((oy + yy) * info.width + ox + xx) * 3 + c] / 255 - m) / sd;
      }
    }
  });
  const t2 = performance.now();
  const out = await session.run({ [manifest.input.name]: new ort.Tensor('float32', x, [origins.length, 3, t, t]) });
  const probs = Array.from(out[manifest.output.name].data, (z) => 1 / (1 + Math.exp(-z)));
  const k = Math.min(manifest.aggregation.k, probs.length);
  const score = probs.sort((a, b) => b - a).slice(0, k).reduce((a, b) => a + b, 0) / k;
  const t3 = performance.now();
  const fused = semSession ? await semantic(data, info, score) : score;
  const t4 = performance.now();
  const facesMs = await faces;
  const t5 = performance.now();
  return { decodeMs: t1 - t0, tilingMs: t2 - t1, inferenceMs: t3 - t2, semanticMs: t4 - t3, facesMs, totalMs: t5 - t0, tiles: origins.length, gridTiles: grid.length, score: fused };
}

// BENCH_MAX_TILES=64,128,256: the same measurement for other tile budgets, interleaved round by round so that
// the machine's load falls on every budget alike; written to speed-maxtiles.json, speed.json is left alone.
const sweep = process.env.BENCH_MAX_TILES?.split(',').map(Number);
if (sweep) {
  for (const n of sweep) await analyse(jpeg, n); // warm-up
  const byN = new Map(sweep.map((n) => [n, []]));
  for (let i = 0; i < 5; i++) for (const n of sweep) byN.get(n).push(await analyse(jpeg, n));
  const rows = sweep.map((n) => {
    const rs = byN.get(n);
    const m = (k) => rs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
    return { maxTiles: n, tiles: rs[0].tiles, pixelsScored: (rs[0].tiles * manifest.input.tileSize ** 2) / (W * H), medianTotalMs: m('totalMs'), medianInferenceMs: m('inferenceMs'), medianDecodeMs: m('decodeMs') };
  });
  const out = { note: 'median of 5 interleaved rounds after a warm-up, one 12-MP JPEG, shared machine', loadAverage1m: os.loadavg()[0], intraOpNumThreads: threads, rows };
  fs.writeFileSync(path.join(dir, 'speed-maxtiles.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
  await session.release();
  for (const k of sems) await semSessions[k].release();
  process.exit(0);
}

await analyse(jpeg); // warm-up
const runs = [];
for (let i = 0; i < 5; i++) runs.push(await analyse(jpeg));
const med = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
const result = {
  note: `median of 5 runs after a warm-up; decode included; semantic = for each content model (${sems.map((k) => `${k} ${manifest[k].input.size} px`).join(', ') || 'none'}) a sharp resize of the decoded picture + the model, then the fusion; faces = the face check's own duration (grey resize + Haar cascade), run beside the networks, so total is not the sum; the machine is shared, so other processes add noise`,
  model: `${manifest.name}@${manifest.version}`,
  image: `${W}x${H} JPEG q90 (${(jpeg.length / 1e6).toFixed(1)} MB), generated`,
  intraOpNumThreads: threads,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  loadAverage1m: os.loadavg()[0],
  tiles: runs[0].tiles,
  gridTiles: runs[0].gridTiles,
  medianMs: { decode: med('decodeMs'), tiling: med('tilingMs'), inference: med('inferenceMs'), semantic: med('semanticMs'), faces: med('facesMs'), total: med('totalMs') },
  maxTotalMs: Math.max(...runs.map((r) => r.totalMs)),
};
fs.writeFileSync(outFile, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify(result, null, 2));
await session.release();
await semSession?.release();
