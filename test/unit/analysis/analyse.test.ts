// analyseFile end to end with the real detector model (models/veracity-detector): verdicts, dimensions, region grids,
// PDFs (worst image named), generator metadata deciding, abort, time/memory bounds, and the real datasets.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RegionGrid, Verdict } from '../../../src/api/schemas.js';
import { AnalysisError, analyseFile, closeAnalysis, probeFile, sniff } from '../../../src/analysis/index.js';
import { getModel } from '../../../src/analysis/model-session.js';
import { DATASETS, HAS_DATASETS, REPO, makeJpeg, makePng, pdfWithJpeg, tEXt, tempDir, textPdf, withPngChunks } from './fixtures.js';

const MODELS = process.env.VERACITY_MODELS_DIR ?? join(REPO, 'models');
const HAS_MODEL = existsSync(join(MODELS, 'veracity-detector', 'manifest.json'));
const HEIC = join(REPO, 'test', 'fixtures', 'analysis', 'gradient-64x48.heic');
const tmp = tempDir();
afterAll(async () => {
  await closeAnalysis();
  tmp.cleanup();
});

const A1111 = 'a cat\nNegative prompt: dog\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1, Size: 512x512, Model: v1-5';

describe.skipIf(!HAS_MODEL)(`analyseFile with the real model (${MODELS}/veracity-detector)`, () => {
  it('loads the session once per process', async () => {
    const a = await getModel(MODELS, 1);
    const b = await getModel(MODELS, 1);
    expect(a).toBe(b);
    expect(a.version).toMatch(/^veracity-detector@/);
  });

  it('a JPEG photo: a valid verdict, ai_detection + provenance dimensions, one region grid in image pixels', async () => {
    const path = tmp.write('photo.jpg', await makeJpeg(640, 480));
    const r = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS });
    expect(Verdict.parse(r.verdict)).toBeTruthy();
    expect(r.verdict.dimensions.map((d) => d.key)).toEqual(['ai_detection', 'provenance']);
    expect(r.regions).toHaveLength(1);
    const grid = RegionGrid.parse(r.regions[0]);
    expect(grid).toMatchObject({ source: { kind: 'image' }, width: 640, height: 480 });
    const { manifest } = await getModel(MODELS, 1);
    expect(grid.tiles.length).toBe(Math.min(manifest.tiling.maxTiles, (Math.floor((640 - 96) / 64) + 1) * (Math.floor((480 - 96) / 64) + 1)));
    for (const t of grid.tiles) {
      expect(t.x + t.w).toBeLessThanOrEqual(640);
      expect(t.y + t.h).toBeLessThanOrEqual(480);
    }
    const top = [...grid.tiles.map((t) => t.score)].sort((a, b) => b - a).slice(0, manifest.aggregation.k);
    const ai = r.verdict.dimensions[0];
    expect(ai.score).toBeCloseTo(top.reduce((s, v) => s + v, 0) / top.length, 3);
    expect(r.modelVersion).toBe(`${manifest.name}@${manifest.version}`);
    expect(r.aggregation).toMatch(/tiles at native resolution/);
    expect(r.verdict.display.description).toMatch(/absence is not evidence of authenticity/);
  });

  it('a PNG with a Stable Diffusion "parameters" chunk is ai_generated, decided by its metadata', async () => {
    const path = tmp.write('sd.png', withPngChunks(await makePng(256, 256), [tEXt('parameters', A1111)]));
    const r = await analyseFile(path, 'image/png', { modelsDir: MODELS });
    expect(r.verdict.assessment).toBe('ai_generated');
    expect(r.verdict.display.title).toMatch(/metadata says so/);
    expect(r.verdict.display.description).toMatch(/PNG "parameters" text chunk/);
  });

  it('a HEIC image and a small (40 px) image are analysed', async () => {
    const heic = await analyseFile(HEIC, 'image/heic', { modelsDir: MODELS });
    expect(heic.regions[0]).toMatchObject({ width: 64, height: 48 });
    const small = await analyseFile(tmp.write('small.png', await makePng(40, 40)), 'image/png', { modelsDir: MODELS });
    expect(small.regions[0].tiles).toHaveLength(1);
    expect(small.regions[0].tiles[0]).toMatchObject({ x: 0, y: 0, w: 40, h: 40 });
  });

  it('a PDF: the embedded photo is scored at native size and the copy names its page and image', async () => {
    const path = tmp.write('doc.pdf', pdfWithJpeg(await makeJpeg(800, 600), 800, 600));
    const r = await analyseFile(path, 'application/pdf', { modelsDir: MODELS });
    expect(r.verdict.dimensions.map((d) => d.key)).toEqual(['ai_detection', 'pdf_structure']);
    expect(r.regions).toHaveLength(1);
    expect(r.regions[0]).toMatchObject({ source: { kind: 'pdf_image', page: 1, imageIndex: 0 }, width: 800, height: 600 });
    expect(r.verdict.display.description).toMatch(/page 1, image 1 \(800x600\)/);
    expect(r.aggregation).toMatch(/document score = the highest/);
  });

  it('a text-only PDF has nothing for the pixel detector: inconclusive, and it says why', async () => {
    const r = await analyseFile(tmp.write('text.pdf', textPdf()), 'application/pdf', { modelsDir: MODELS });
    expect(r.verdict).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(r.regions).toEqual([]);
    expect(r.verdict.dimensions.map((d) => d.key)).toEqual(['pdf_structure']);
    expect(r.verdict.display.description).toMatch(/no raster image/);
  });

  it('honours the abort signal: an aborted analysis ends in AnalysisError, promptly', async () => {
    const path = tmp.write('big.jpg', await makeJpeg(3000, 2000));
    const ctl = new AbortController();
    const p = analyseFile(path, 'image/jpeg', { modelsDir: MODELS, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 5);
    const t0 = performance.now();
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    // Either it finished inside 5 ms (no) or it stopped with a cancelled error.
    expect(err).toBeInstanceOf(AnalysisError);
    expect((err as AnalysisError).code).toBe('internal_error');
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('a 12-megapixel JPEG is analysed within seconds and bounded memory', async () => {
    const path = tmp.write('12mp.jpg', await makeJpeg(4000, 3000));
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const r = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS });
    const ms = performance.now() - t0;
    const grown = (process.memoryUsage().rss - rss0) / 2 ** 20;
    console.info(`12 MP JPEG analysed in ${ms.toFixed(0)} ms, RSS grew ${grown.toFixed(0)} MiB`);
    expect(r.regions[0]).toMatchObject({ width: 4000, height: 3000 });
    expect(ms).toBeLessThan(15_000);
    expect(grown).toBeLessThan(600);
  });
});

describe.skipIf(!HAS_MODEL || !HAS_DATASETS)('real files (../shared/datasets), through sniff + probe + analyse', () => {
  it('modern/: AI crops from unseen generators score higher on average than authentic photos', async () => {
    // Every 8th file of each label in the validation set's manifest: 26 AI crops, 12 authentic photos.
    const rows = readFileSync(join(DATASETS, 'modern', 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
    const col = readFileSync(join(DATASETS, 'modern', 'MANIFEST.tsv'), 'utf8').split('\n')[0].split('\t').indexOf('local_file');
    const every = (label: string) => rows.filter((r) => r[0] === label).filter((_, i) => i % 8 === 0).map((r) => join(DATASETS, 'modern', r[col]));
    const ai = every('ai');
    const real = every('real');
    const score = async (f: string) => {
      const s = sniff(readFileSync(f).subarray(0, 64))!;
      expect((await probeFile(f, s)).ok).toBe(true);
      const r = await analyseFile(f, s.mediaType, { modelsDir: MODELS });
      return r.verdict.dimensions.find((d) => d.key === 'ai_detection')!.score;
    };
    const aiScores: number[] = [];
    for (const f of ai) aiScores.push(await score(f));
    const realScores: number[] = [];
    for (const f of real) realScores.push(await score(f));
    const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
    console.info(`modern: mean AI score ${mean(aiScores).toFixed(3)} on ${aiScores.length} AI crops, ${mean(realScores).toFixed(3)} on ${realScores.length} authentic`);
    expect(mean(aiScores)).toBeGreaterThan(mean(realScores));
  });

  it('the hostile PDFs of the corpus (malformed, fuzzed, bombs, JBIG2/JPX/CCITT scans) end in a verdict or an AnalysisError, each within 30 s', async () => {
    const dir = join(DATASETS, 'pdfs');
    const manifest = readFileSync(join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
    const cols = manifest[0].split('\t');
    const hostile = manifest
      .slice(1)
      .map((l) => l.split('\t'))
      .filter((r) => r[cols.indexOf('malformed')] === 'yes' || /bomb|JBIG2|JPX|CCITT|incremental/i.test(r[cols.indexOf('category')]))
      .map((r) => r[cols.indexOf('local_file')].replace(/^shared\//, ''));
    const lines: string[] = [];
    for (const f of hostile) {
      const path = join(dir, f);
      const s = sniff(readFileSync(path).subarray(0, 64))!;
      const probe = await probeFile(path, s);
      if (!probe.ok) continue;
      const t0 = performance.now();
      try {
        const r = await analyseFile(path, 'application/pdf', { modelsDir: MODELS, signal: AbortSignal.timeout(30_000) });
        Verdict.parse(r.verdict);
        lines.push(`${f}: ${r.verdict.assessment}/${r.verdict.confidence} (${(performance.now() - t0).toFixed(0)} ms)`);
      } catch (err) {
        expect(err).toBeInstanceOf(AnalysisError);
        lines.push(`${f}: ${(err as AnalysisError).code} ${(err as Error).message}`);
      }
      expect(performance.now() - t0).toBeLessThan(30_000);
    }
    console.info(lines.join('\n'));
    expect(lines.length).toBeGreaterThan(12);
  }, 300_000);
});
