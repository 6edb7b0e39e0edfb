// Reference run of nsfwjs 4.4.0's MobileNetV2 in TF.js (pure-JS CPU backend) on the 224x224 inputs that
// parity.py wrote; prints nothing but writes per-endpoint outputs as float32 files next to the inputs.
//   NODE_PATH=/tmp/tfjs/node_modules node parity_tfjs.mjs PKG_DIR WORK_DIR N
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';
const require = createRequire(import.meta.url);
const tf = require('@tensorflow/tfjs');
const [pkg, work, nStr] = process.argv.slice(2);
const n = Number(nStr);
const name = process.env.MODEL || 'mobilenet_v2';
await tf.setBackend('cpu');
const dir = path.join(pkg, 'package', 'dist', 'models', name);
const m = require(path.join(dir, 'model.min.js'));
const shards = fs.readdirSync(dir).filter((f) => f.startsWith('group1-shard') && f.endsWith('.min.js'))
  .sort((a, b) => Number(a.split('shard')[1].split('of')[0]) - Number(b.split('shard')[1].split('of')[0]));
const bufs = shards.map((s) => Buffer.from(require(path.join(dir, s)), 'base64'));
const all = Buffer.concat(bufs);
const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
const model = await tf.loadLayersModel(tf.io.fromMemory({ modelTopology: m.modelTopology, weightSpecs: m.weightsManifest[0].weights, weightData }));
const ends = (process.env.ENDPOINTS || '').split(',').filter(Boolean);
const x = tf.tensor4d(new Float32Array(fs.readFileSync(path.join(work, 'in.bin')).buffer.slice(0)), [n, 224, 224, 3]);
const outs = [model.output.name ? model.layers[model.layers.length - 1].name : 'out'];
const sub = tf.model({ inputs: model.inputs, outputs: [...ends.map((e) => model.getLayer(e).output), model.outputs[0]] });
const t0 = Date.now();
let res = sub.predict(x);
if (!Array.isArray(res)) res = [res];
const names = [...ends, 'final'];
for (let i = 0; i < res.length; i++) {
  fs.writeFileSync(path.join(work, `tfjs-${names[i]}.bin`), Buffer.from(res[i].dataSync().buffer));
  fs.writeFileSync(path.join(work, `tfjs-${names[i]}.shape`), JSON.stringify(res[i].shape));
}
console.log('tfjs', tf.version.tfjs, tf.getBackend(), n, 'images', Date.now() - t0, 'ms', outs);
