// The pipeline scores the model's own fixtures exactly as PyTorch did at export (models/veracity-detector/parity.json):
// the same pixels, tiling, normalisation, sigmoid and top-k aggregation, through analyseFile itself.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
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

const parity: { fixtures: ParityFixture[] } | null = existsSync(PARITY) ? JSON.parse(readFileSync(PARITY, 'utf8')) : null;
afterAll(() => closeAnalysis());

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
      expect(Math.abs(ai.score - fx.fileScore)).toBeLessThan(1e-4);
    });
  }
});
