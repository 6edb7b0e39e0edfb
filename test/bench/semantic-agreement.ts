// Measures how far the product's fused score (sharp decode + sharp linear resize to each content model's size + every
// ONNX model the manifest names) is from the training side's (PIL decode + PIL bilinear resize, PyTorch), file by file,
// on validation and modern/ files: the figure behind analyse.test.ts's tolerance and the model card's "resize agreement".
// A 3-feature run's rows also carry sem2_logit (the manifest's semantic2 model), fused and compared likewise.
//   npx tsx test/bench/semantic-agreement.ts [--every-val 24] [--every-modern 10] [--main /work/main/models/training] [--runs DIR] [--fused RUN: the shipped fusion's run, fuse7-tx for 1.2.0]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { fuseScores, scoreImage } from '../../src/analysis/ai-detection.js';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { closeModel, getModel } from '../../src/analysis/model-session.js';
import { sniff } from '../../src/api/media-kinds.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const REPO = resolve(import.meta.dirname, '..', '..');
const MAIN = arg('main', '/work/main/models/training'); // score files' paths are relative to this checkout
const RUNS = arg('runs', join(REPO, 'models', 'training', 'runs'));
const EVERY: Record<string, number> = { val_raw: Number(arg('every-val', '24')), modern_raw: Number(arg('every-modern', '10')) };

interface Row {
  label: string;
  path: string;
  sem_logit: number;
  art_logit: number;
  /** A 3-feature run's (fuse.py --features all3): the second content model's logit, the manifest's semantic2. */
  sem2_logit?: number;
}

async function main() {
  const model = await getModel(join(REPO, 'models'), 1);
  const fusion = model.manifest.fusion!;
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
  const out: Array<Record<string, number | string>> = [];
  for (const set of ['val_raw', 'modern_raw']) {
    const rows = (JSON.parse(readFileSync(join(RUNS, arg('fused', 'fuse7-tx'), `scores-${set}.json`), 'utf8')) as { rows: Row[] }).rows;
    for (let i = 0; i < rows.length; i += EVERY[set]) {
      const r = rows[i];
      const path = resolve(MAIN, r.path);
      const buf = readFileSync(path);
      const meta = await sharp(buf).metadata();
      if ((meta.orientation ?? 1) !== 1 || meta.icc) continue; // PIL (training) applies neither
      const kind = sniff(buf.subarray(0, 64));
      if (!kind) continue;
      let img;
      try {
        img = await decodeImageBuffer(buf, kind.mediaType);
      } catch {
        continue; // the product refuses it (e.g. a corrupt JPEG); the training loader is more lenient
      }
      if (model.manifest.semantic2 && r.sem2_logit === undefined) {
        throw new Error(`the manifest has a semantic2 model but ${arg('fused', 'fuse7-tx')}'s rows have no sem2_logit: not its fusion's run`);
      }
      const s = await scoreImage(model, img, { kind: 'image' });
      // Python's fused score with the shipped fit (validation rows carry LOSO scores; recompute with the full fit)
      const python = fuseScores(fusion, { semantic: r.sem_logit, semantic2: r.sem2_logit, artefact: sigmoid(r.art_logit) });
      const logit = (p: number) => Math.log(p / (1 - p));
      out.push({
        set,
        file: r.path.replace(/^.*datasets\//, ''),
        product: s.score,
        python,
        diff: Math.abs(s.score - python),
        semLogitDiff: Math.abs(logit(s.semanticScore!) - r.sem_logit),
        ...(s.semantic2Score !== undefined && r.sem2_logit !== undefined ? { sem2LogitDiff: Math.abs(logit(s.semantic2Score) - r.sem2_logit) } : {}),
        artScoreDiff: Math.abs(s.artefactScore - sigmoid(r.art_logit)),
      });
      process.stderr.write(`${set} ${i} ${Math.abs(s.score - python).toFixed(4)}\n`);
    }
  }
  await closeModel();
  const stat = (key: string, set?: string) => {
    const v = out.filter((o) => (!set || o.set === set) && key in o).map((o) => o[key] as number);
    return { n: v.length, max: Math.max(...v), mean: v.reduce((a, b) => a + b, 0) / v.length, over005: v.filter((x) => x > 0.05).length };
  };
  const summary = {
    fused: stat('diff'),
    fusedVal: stat('diff', 'val_raw'),
    fusedModern: stat('diff', 'modern_raw'),
    semanticLogit: stat('semLogitDiff'),
    ...(model.manifest.semantic2 ? { semantic2Logit: stat('sem2LogitDiff') } : {}),
    artefactScore: stat('artScoreDiff'),
  };
  console.log(JSON.stringify({ summary, files: out }, null, 1));
}

void main();
