// Runs a content model's ONNX file (onnxruntime-node, one thread) on a raw file of N SIZExSIZEx3 uint8 NHWC pictures;
// input x = pixel / 255 (float32) as train.py / cache.py feed the model; writes N float32 logits. With TIMES.json the
// pictures go one at a time and each run's milliseconds are written there (export_onnx.py's timing).
//   node onnx_scores.mjs MODEL.onnx IN.u8 N OUT.f32 [SIZE] [TIMES.json]
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';

const [model, inPath, nStr, outPath, sizeStr, timesPath] = process.argv.slice(2);
const n = Number(nStr);
const size = Number(sizeStr ?? 224);
const per = size * size * 3;
const u8 = fs.readFileSync(inPath);
if (u8.length !== n * per) throw new Error(`input has ${u8.length} bytes, expected ${n * per}`);
const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
const [inName] = session.inputNames;
const [outName] = session.outputNames;
const out = new Float32Array(n);
const BATCH = timesPath ? 1 : 16;
const times = [];
for (let b = 0; b < n; b += BATCH) {
  const m = Math.min(BATCH, n - b);
  const x = new Float32Array(m * per);
  for (let i = 0; i < m * per; i++) x[i] = u8[b * per + i] / 255;
  const t0 = process.hrtime.bigint();
  const r = await session.run({ [inName]: new ort.Tensor('float32', x, [m, size, size, 3]) });
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  out.set(r[outName].data, b);
}
fs.writeFileSync(outPath, Buffer.from(out.buffer));
if (timesPath) fs.writeFileSync(timesPath, JSON.stringify(times));
await session.release();
