// The "not a photograph" guard (src/analysis/photo-guard.ts): the product's features reproduce the training side's
// (models/training/guard/features.py, via test/fixtures/photo-guard/photo-guard.json) on pictures decoded by the product's
// own decoder; the shipped constants are the fitted ones; and, with the real model, a chart or a screenshot is read as
// inconclusive whatever its score, while camera photographs keep their reading.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { PHOTO_GUARD, photoGuardFeatures, readPhotoGuard } from '../../../src/analysis/photo-guard.js';
import sharp from 'sharp';
import { HAS_MODEL, MODELS_DIR, pdfWithJpeg, REPO, tempDir } from './fixtures.js';

interface FixtureRow {
  file: string;
  features: { flat: number; step: number; strong: number; top4: number; blocks: number };
  score: number;
  notPhotographic: boolean;
}
const parity = JSON.parse(readFileSync(join(REPO, 'test', 'fixtures', 'photo-guard', 'photo-guard.json'), 'utf8')) as {
  guard: { features: string[]; coef: number[]; intercept: number; threshold: number };
  fixtures: FixtureRow[];
};
const fixturePath = (file: string) => join(REPO, 'test', 'fixtures', file);
const mediaType = (file: string) => (file.endsWith('.png') ? 'image/png' : 'image/jpeg');

describe('photo guard', () => {
  it('uses the constants models/training/guard/fit.py fitted', () => {
    const fitted = JSON.parse(readFileSync(join(REPO, 'models', 'training', 'guard', 'results.json'), 'utf8'));
    expect(fitted.features).toEqual(['flat', 'step', 'strong', 'top4']);
    expect(Object.keys(PHOTO_GUARD.coef)).toEqual(fitted.features);
    expect(Object.values(PHOTO_GUARD.coef)).toEqual(fitted.coef);
    expect(PHOTO_GUARD.intercept).toBe(fitted.intercept);
    expect(PHOTO_GUARD.threshold).toBe(fitted.threshold);
    expect(parity.guard.coef).toEqual(fitted.coef);
  });

  it.each(parity.fixtures.map((f) => [f.file, f] as const))('reproduces features.py on %s', async (file, row) => {
    const img = await decodeImageBuffer(readFileSync(fixturePath(file)), mediaType(file));
    const r = readPhotoGuard(img)!;
    // PNGs decode to the same pixels in sharp and PIL; JPEG decoders may round a pixel differently here and there
    const tol = file.endsWith('.png') ? 1e-12 : 0.01;
    for (const k of ['flat', 'step', 'strong', 'top4'] as const) expect(Math.abs(r.features[k] - row.features[k])).toBeLessThanOrEqual(tol);
    expect(r.features.blocks).toBe(row.features.blocks);
    expect(r.notPhotographic).toBe(row.notPhotographic);
  });

  it('takes the chart and the UI screenshot for non-photographs and none of the camera originals', () => {
    const flagged = parity.fixtures.filter((f) => f.notPhotographic).map((f) => f.file);
    expect(flagged).toContain('photo-guard/chart-563x293.png');
    expect(flagged).toContain('photo-guard/ui-report-497x702.png');
    expect(flagged.filter((f) => f.startsWith('capture/'))).toEqual([]);
  });

  it('samples at most 4096 blocks of a large picture and refuses one under 8x8 pixels', () => {
    const big = { width: 4000, height: 3000, data: Buffer.alloc(4000 * 3000 * 3, 200) };
    const f = photoGuardFeatures(big)!;
    expect(f.blocks).toBeLessThanOrEqual(4096);
    expect(f.flat).toBe(1);
    expect(readPhotoGuard(big)!.notPhotographic).toBe(true);
    expect(photoGuardFeatures({ width: 7, height: 100, data: Buffer.alloc(7 * 100 * 3) })).toBeNull();
  });
});

describe.skipIf(!HAS_MODEL)('photo guard in the analysis, with the real model', () => {
  const tmp = tempDir();
  afterAll(async () => {
    tmp.cleanup();
    await closeAnalysis();
  });

  it('reads a chart and a UI screenshot as inconclusive, with the note, whatever their score', async () => {
    for (const file of ['photo-guard/chart-563x293.png', 'photo-guard/ui-report-497x702.png']) {
      const r = await analyseFile(fixturePath(file), 'image/png', { modelsDir: MODELS_DIR });
      expect(r.verdict.dimensions[0], file).toMatchObject({ key: 'ai_detection', assessment: 'inconclusive', confidence: 'low' });
      expect(r.findings.map((f) => f.code)).toContain('pixels.not_photographic');
      expect(r.findings.map((f) => f.code)).not.toContain('pixels.score.generated');
      expect(r.verdict.assessment).toBe('inconclusive');
      expect(r.verdict.display.description).toMatch(/flat colour and hard edges/);
      // its score, whatever it is, is not said to be "in the uncertain band": it is not read
      expect(r.verdict.display.description, file).toMatch(/The pixel detector's AI score is \d+%, but it is set aside for this picture\./);
      expect(r.verdict.display.description, file).not.toMatch(/uncertain band/);
    }
  });

  it('leaves the reading of camera photographs alone', async () => {
    for (const file of ['capture/nikon-coolpix-s3100-640x480.jpg', 'capture/hp-photosmart-433-640x480.jpg']) {
      const r = await analyseFile(fixturePath(file), 'image/jpeg', { modelsDir: MODELS_DIR });
      expect(r.findings.map((f) => f.code)).not.toContain('pixels.not_photographic');
      expect(r.verdict.display.description, file).not.toMatch(/set aside/);
    }
  });

  it('a PDF whose only image is a chart has no pixel reading, and says the chart was not scored', async () => {
    const jpeg = await sharp(fixturePath('photo-guard/chart-563x293.png')).jpeg({ quality: 85 }).toBuffer();
    const r = await analyseFile(tmp.write('chart.pdf', pdfWithJpeg(jpeg, 563, 293)), 'application/pdf', { modelsDir: MODELS_DIR });
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('pixels.no_raster');
    expect(codes).toContain('pixels.skipped');
    expect(r.verdict.display.description).toMatch(/563x293, a screenshot, chart, graphic or text rather than a photograph/);
    expect(r.regions).toHaveLength(1); // its heatmap is still shown
  });
});
