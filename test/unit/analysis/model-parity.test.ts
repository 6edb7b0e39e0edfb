// The pipeline scores the model's own fixtures exactly as PyTorch did at export (models/veracity-detector/parity.json):
// the same pixels, tiling, normalisation, sigmoid and top-k aggregation, through analyseFile itself.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { fuseScores, semanticLogitOf, topKMean } from '../../../src/analysis/ai-detection.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { getModel } from '../../../src/analysis/model-session.js';
import { REPO } from './fixtures.js';

const MODEL_DIR = join(REPO, 'models', 'veracity-detector');
const PARITY = join(MODEL_DIR, 'parity.json');
const FIXTURES = join(REPO, 'test', 'fixtures', 'model');

interface ParityFixture {
  file: string;
  width: number;
  height: number;
  tiles: number;
  tileProbabilities: number[];
  fileScore: number;
}

type ContentFixtures = { fixtures: Array<{ file: string; logit: number }> };
const parity: { fixtures: ParityFixture[]; semantic?: ContentFixtures; semantic2?: ContentFixtures } | null = existsSync(PARITY) ? JSON.parse(readFileSync(PARITY, 'utf8')) : null;
afterAll(() => closeAnalysis());

/**
 * The content models' logits of the picture at `path`: PyTorch's where `known` gives them (a fixture at the model's own
 * size), else the product's own (its resize); semantic2 only where the manifest has that model.
 */
async function contentLogits(path: string, known: { semantic?: number; semantic2?: number } = {}): Promise<{ semantic: number; semantic2?: number }> {
  const model = await getModel(join(REPO, 'models'), 1);
  const img = await decodeImageBuffer(readFileSync(path), 'image/png');
  const semantic = known.semantic ?? (await semanticLogitOf(model, img));
  if (!model.manifest.semantic2) return { semantic };
  return { semantic, semantic2: known.semantic2 ?? (await semanticLogitOf(model, img, undefined, 'semantic2')) };
}

describe.skipIf(!parity)('parity with the PyTorch scores recorded at export', () => {
  for (const fx of parity?.fixtures ?? []) {
    it(`${fx.file}: ${fx.tiles} tile probabilities and the file score agree within 1e-4`, async () => {
      const path = join(FIXTURES, fx.file);
      expect(existsSync(path), `${path} (made by models/training/export.py)`).toBe(true);
      const r = await analyseFile(path, 'image/png', { modelsDir: join(REPO, 'models') });
      const grid = r.regions[0];
      expect([grid.width, grid.height]).toEqual([fx.width, fx.height]);
      expect(grid.tiles).toHaveLength(fx.tiles);
      grid.tiles.forEach((t, i) => expect(Math.abs(t.score - fx.tileProbabilities[i]), `tile ${i}`).toBeLessThan(1e-4));
      const ai = r.verdict.dimensions.find((d) => d.key === 'ai_detection')!;
      // 1.1: the file score fuses the artefact score (PyTorch's, checked here) with the semantic model's logit of the
      // picture resized to 224 (these fixtures are not 224x224: that resize is the product's own, checked below), and
      // with the second content model's (semantic2, at its own size) where the manifest has one
      const model = await getModel(join(REPO, 'models'), 1);
      const fusion = model.manifest.fusion;
      const expected = fusion ? fuseScores(fusion, { ...(await contentLogits(path)), artefact: fx.fileScore }) : fx.fileScore;
      expect(Math.abs(ai.score - expected)).toBeLessThan(1e-4);
    });
  }

  const contentFixtures = (['semantic', 'semantic2'] as const).flatMap((branch) => (parity?.[branch]?.fixtures ?? []).map((fx) => ({ branch, ...fx })));
  for (const fx of contentFixtures) {
    it(`${fx.file}: the file score is the fusion of the tiles with PyTorch's ${fx.branch} logit (no resize for that model)`, async ({ skip }) => {
      const { manifest } = await getModel(join(REPO, 'models'), 1);
      if (!manifest[fx.branch]) skip(`the manifest has no ${fx.branch} model`); // parity.json ahead of the manifest
      const path = join(FIXTURES, fx.file);
      const r = await analyseFile(path, 'image/png', { modelsDir: join(REPO, 'models') });
      const artefact = topKMean(
        r.regions[0].tiles.map((t) => t.score),
        manifest.aggregation.k,
      );
      // the other content model (if any) reads the fixture resized to its own size, by the product
      const logits = await contentLogits(path, { [fx.branch]: fx.logit });
      const ai = r.verdict.dimensions.find((d) => d.key === 'ai_detection')!;
      expect(Math.abs(ai.score - fuseScores(manifest.fusion!, { ...logits, artefact }))).toBeLessThan(1e-4);
    });
  }
});
