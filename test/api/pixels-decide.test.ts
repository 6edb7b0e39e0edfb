// Issue 21 over real HTTP: with the shipped model (calibration.pixelsDecide, the photo guard), a generated picture
// without provenance is called ai_generated from its pixels, as is, re-encoded, and with a camera's EXIF forged onto
// it; a chart is not judged by its pixels at all; a camera original is never called AI. The AI picture is a modern/
// crop (a generator never trained on), so the test needs ../shared/datasets.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { DATASETS, HAS_DATASETS, MODELS_DIR, REPO } from '../unit/analysis/fixtures.js';
import { exiftool, readFixture, scratch } from '../support/camera-originals.js';
import { assessOverHttp, startCore, startListening } from './helpers.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());
const FLUX = join(DATASETS, 'modern', 'ai', 'comfyui_examples', 'flux__flux_dev_example.png');

describe.skipIf(!HAS_DATASETS)('POST /v1/assess: the pixels decide (real model, real HTTP)', () => {
  it('a FLUX picture is ai_generated from its pixels as is, as JPEG and under forged camera EXIF; a chart is not judged; a camera original is not called AI', { timeout: 180_000 }, async () => {
    const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'veracity-detector', 'manifest.json'), 'utf8'));
    expect(manifest.calibration.pixelsDecide).toBe(true);
    const png = readFileSync(FLUX);
    const jpeg = await sharp(png).removeAlpha().jpeg({ quality: 90 }).toBuffer();
    const forged = join(tmp.dir, 'forged.jpg');
    writeFileSync(forged, jpeg);
    // the Canon original's make, model, dates and maker note copied onto the generated picture
    exiftool('-TagsFromFile', join(REPO, 'test', 'fixtures', 'capture', 'canon-powershot-s50-640x480.jpg'), '-all:all', forged);
    const files = [
      { name: 'flux.png', data: png, type: 'image/png' },
      { name: 'flux.jpg', data: jpeg, type: 'image/jpeg' },
      { name: 'flux-canon-exif.jpg', data: readFileSync(forged), type: 'image/jpeg' },
      { name: 'chart.png', data: readFileSync(join(REPO, 'test', 'fixtures', 'photo-guard', 'chart-563x293.png')), type: 'image/png' },
      { name: 'nikon.jpg', data: readFixture('nikon-coolpix-s3100-640x480.jpg'), type: 'image/jpeg' },
    ];
    const core = await startCore({ modelsDir: MODELS_DIR });
    const base = await startListening(core);
    const job = await assessOverHttp(base, core.imagesKey, files, 'Pixels decide');
    expect(job.status).toBe('completed');
    const by = new Map(job.results.map((r) => [r.file.name, r.verdict!]));
    for (const name of ['flux.png', 'flux.jpg', 'flux-canon-exif.jpg']) {
      const v = by.get(name)!;
      expect(v.assessment, name).toBe('ai_generated');
      expect(v.confidence, name).toBe('medium');
      // the share the manifest's calibration states (1.6.0 and 1.6.1: 2 %, the bar raised by rule C2; 1.5.1: 3 %)
      const share = Math.round(manifest.calibration.realAtHighAi * 100);
      expect(share).toBeLessThanOrEqual(3);
      expect(v.display.description, name).toMatch(new RegExp(`pixel detector's AI score is \\d+%, a level that ${share}% of real photos reached in its validation`));
    }
    const chart = by.get('chart.png')!;
    expect(chart.assessment).toBe('inconclusive');
    expect(chart.display.description).toMatch(/flat colour and hard edges/);
    expect(by.get('nikon.jpg')!.assessment).not.toBe('ai_generated');
  });
});
