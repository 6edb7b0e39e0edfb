// What the pixel detector costs an analysis process in memory: RSS before the model is loaded, once it is loaded
// (every ONNX session the manifest names), and at its peak over three 12-MP JPEGs scored with their heatmap, each
// measured in a process of its own (a fresh heap every time). BENCH_BASELINE_MODELS names another models folder
// (e.g. the previous version's files checked out to /tmp/m/veracity-detector) measured the same way in the same run.
//   node --import tsx test/bench/model-memory.bench.ts      -> test/bench/results/model-memory.json
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { jpegs12mp, round, writeResult } from './bench-support.js';

const REPO = join(import.meta.dirname, '..', '..');

async function child(dir: string, file: string) {
  const { readFileSync } = await import('node:fs');
  const { closeModel, getModel } = await import('../../src/analysis/model-session.js');
  const { scoreImage } = await import('../../src/analysis/ai-detection.js');
  const { decodeImageBuffer } = await import('../../src/analysis/decode-image.js');
  const mib = () => process.memoryUsage().rss / 2 ** 20;
  const before = mib();
  const model = await getModel(dir, 1);
  const loaded = mib();
  let peak = loaded;
  const jpeg = readFileSync(file);
  for (let i = 0; i < 3; i++) {
    await scoreImage(model, await decodeImageBuffer(jpeg, 'image/jpeg'), { kind: 'image' });
    peak = Math.max(peak, mib());
  }
  const sessions = ['model', ...(model.semantic ? ['semantic'] : []), ...(model.semantic2 ? ['semantic2'] : []), ...(model.tileThread ? ['model in the tile thread'] : [])];
  const out = { model: model.version, sessions, beforeMiB: round(before), loadedMiB: round(loaded), peakMiB: round(peak) };
  await closeModel();
  process.stdout.write(JSON.stringify(out));
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4]);
  const [jpeg] = await jpegs12mp(1);
  const dirs: Array<[string, string]> = [['shipped', join(REPO, 'models')]];
  if (process.env.BENCH_BASELINE_MODELS) dirs.unshift(['baseline', process.env.BENCH_BASELINE_MODELS]);
  const figures: Record<string, unknown> = {};
  for (const [name, dir] of dirs) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', dir, jpeg], { encoding: 'utf8', timeout: 5 * 60_000 });
    if (r.status !== 0) throw new Error(`${name}: ${r.stderr}`);
    const m = JSON.parse(r.stdout) as { beforeMiB: number; loadedMiB: number; peakMiB: number };
    figures[name] = { ...m, modelMiB: round(m.loadedMiB - m.beforeMiB), peakOverBeforeMiB: round(m.peakMiB - m.beforeMiB) };
  }
  writeResult('model-memory', figures, ['one ONNX thread (with the tile thread where the code has one: a second session of the artefact network); RSS of a process that loads the model and scores three 12-MP JPEGs with their heatmap (the work of one analysis process)'], { note: 'no fixed target; the worker pool kills an analysis process above 3 GiB' });
}

void main();
