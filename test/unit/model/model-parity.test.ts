// Runs the shipped detector through onnxruntime-node on the generated fixture PNGs and checks it against the
// PyTorch scores recorded at export, and checks the manifest contract (zod schema, sha256 of the model file).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelManifest } from '../../../src/analysis/model-manifest.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const modelDir = path.join(root, 'models', 'veracity-detector');
const fixtureDir = path.join(root, 'test', 'fixtures', 'model');
const TOLERANCE = 1e-4;

interface ParityFixture {
  file: string;
  width: number;
  height: number;
  tiles: number;
  topLeftLogit: number;
  topLeftProbability: number;
  tileProbabilities: number[];
  fileScore: number;
}

const manifest = ModelManifest.parse(JSON.parse(fs.readFileSync(path.join(modelDir, 'manifest.json'), 'utf8')));
const parity = JSON.parse(fs.readFileSync(path.join(modelDir, 'parity.json'), 'utf8')) as { fixtures: ParityFixture[] };

/** Tile origins exactly as the manifest's aggregation.description says: row-major stride grid, even sampling. */
function tileOrigins(width: number, height: number, tile: number, stride: number, maxTiles: number): Array<[number, number]> {
  if (width < tile || height < tile) return [];
  const grid: Array<[number, number]> = [];
  for (let y = 0; y + tile <= height; y += stride) for (let x = 0; x + tile <= width; x += stride) grid.push([y, x]);
  if (grid.length <= maxTiles) return grid;
  return Array.from({ length: maxTiles }, (_, i) => grid[Math.floor((i * grid.length) / maxTiles)]);
}

/** NCHW float32 batch of tiles, x = (pixel / 255 - mean[c]) / std[c]. */
function buildTensor(rgb: Buffer, width: number, origins: Array<[number, number]>, m: ModelManifest): ort.Tensor {
  const t = m.input.tileSize;
  const data = new Float32Array(origins.length * 3 * t * t);
  origins.forEach(([oy, ox], n) => {
    for (let c = 0; c < 3; c++) {
      const base = (n * 3 + c) * t * t;
      for (let y = 0; y < t; y++) {
        for (let x = 0; x < t; x++) {
          const pixel = rgb[((oy + y) * width + ox + x) * 3 + c];
          data[base + y * t + x] = (pixel / 255 - m.input.mean[c]) / m.input.std[c];
        }
      }
    }
  });
  return new ort.Tensor('float32', data, [origins.length, 3, t, t]);
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

describe('veracity-detector model', () => {
  let session: ort.InferenceSession;

  beforeAll(async () => {
    session = await ort.InferenceSession.create(path.join(modelDir, manifest.file), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
    });
  });
  afterAll(async () => {
    await session?.release();
  });

  it('manifest passes the schema and its sha256 matches model.onnx', () => {
    const bytes = fs.readFileSync(path.join(modelDir, manifest.file));
    expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(manifest.sha256);
    expect(bytes.length).toBeLessThan(8 * 1024 * 1024);
    expect(session.inputNames).toEqual([manifest.input.name]);
    expect(session.outputNames).toEqual([manifest.output.name]);
    const t = manifest.thresholds;
    expect(t.highAuthentic).toBeLessThanOrEqual(t.inconclusiveBand[0]);
    expect(t.inconclusiveBand[0]).toBeLessThanOrEqual(t.decision);
    expect(t.decision).toBeLessThanOrEqual(t.inconclusiveBand[1]);
    expect(t.inconclusiveBand[1]).toBeLessThanOrEqual(t.highAi);
  });

  it('tells a commercial user whether the weights may be used: every training source has a licence line, and each restricted one is named with why', () => {
    const tr = manifest.training;
    // one licence line per source, written "<source>: <licence>"
    expect(new Set(tr.licences.map((l) => l.split(': ')[0]))).toEqual(new Set(tr.sources));
    expect(typeof tr.permissive).toBe('boolean');
    const restricted = (tr.restricted ?? []).map((l) => l.split(': ')[0]);
    for (const s of restricted) expect(tr.sources).toContain(s);
    expect(tr.permissive).toBe(restricted.length === 0);
    // the content models learnt from more sources than the artefact network's 1.0 record held (ImageNet samples and
    // the X-post galleries among them): all of them are listed
    if (manifest.semantic) expect(tr.sources).toEqual(expect.arrayContaining(['v1/ajschumacher__imagen', 'v1/freestylefly__awesome-gpt-image-2']));
  });

  it('has parity fixtures for every fixture PNG', () => {
    const pngs = fs.readdirSync(fixtureDir).filter((f) => f.endsWith('.png')).sort();
    expect(parity.fixtures.map((f) => f.file).sort()).toEqual(pngs);
    expect(pngs.length).toBeGreaterThanOrEqual(3);
  });

  for (const fx of parity.fixtures) {
    it(`matches PyTorch on ${fx.file} (top-left tile, every tile, file score)`, async () => {
      const { data, info } = await sharp(path.join(fixtureDir, fx.file)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height, info.channels]).toEqual([fx.width, fx.height, 3]);
      const m = manifest;
      const origins = tileOrigins(info.width, info.height, m.input.tileSize, m.tiling.stride, m.tiling.maxTiles);
      expect(origins.length).toBe(fx.tiles);
      expect(origins[0]).toEqual([0, 0]);
      const out = await session.run({ [m.input.name]: buildTensor(data, info.width, origins, m) });
      const logits = Array.from(out[m.output.name].data as Float32Array);
      expect(out[m.output.name].dims).toEqual([origins.length, 1]);
      expect(Math.abs(logits[0] - fx.topLeftLogit)).toBeLessThanOrEqual(TOLERANCE);
      const probs = logits.map(sigmoid);
      expect(Math.abs(probs[0] - fx.topLeftProbability)).toBeLessThanOrEqual(TOLERANCE);
      probs.forEach((p, i) => expect(Math.abs(p - fx.tileProbabilities[i])).toBeLessThanOrEqual(TOLERANCE));
      const k = Math.min(m.aggregation.k, probs.length);
      const score = [...probs].sort((a, b) => b - a).slice(0, k).reduce((s, p) => s + p, 0) / k;
      expect(Math.abs(score - fx.fileScore)).toBeLessThanOrEqual(TOLERANCE);
    });
  }

  it('sees only high frequencies: a 2x nearest-up-sampled noise tile scores exactly like a flat tile', async () => {
    // The Haar DWT's high bands and the NPR residual (tile minus its 2x nearest down/up-sampled copy) are computed
    // inside the graph, and the shipped model reads nothing else: a tile made of flat 2x2 blocks has zero high bands
    // and a zero residual, as a flat tile has, so their outputs must be equal, while plain noise must differ. A graph
    // that also read the low band (colour, brightness), skipped the transforms or mis-aligned them fails here.
    const t = manifest.input.tileSize;
    const noise = Buffer.alloc(t * t * 3);
    let s = 7;
    for (let i = 0; i < noise.length; i++) {
      s = (s * 1103515245 + 12345) % 2147483648;
      noise[i] = s % 256;
    }
    const up = Buffer.alloc(t * t * 3);
    for (let y = 0; y < t; y++) {
      for (let x = 0; x < t; x++) {
        for (let c = 0; c < 3; c++) up[(y * t + x) * 3 + c] = noise[((y - (y % 2)) * t + (x - (x % 2))) * 3 + c];
      }
    }
    const flat = Buffer.alloc(t * t * 3, 128);
    const run = async (buf: Buffer): Promise<number> => {
      const o = await session.run({ [manifest.input.name]: buildTensor(buf, t, [[0, 0]], manifest) });
      return (o[manifest.output.name].data as Float32Array)[0];
    };
    const [zUp, zFlat, zNoise] = [await run(up), await run(flat), await run(noise)];
    expect(Math.abs(zUp - zFlat)).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(zNoise - zFlat)).toBeGreaterThan(1e-3);
  });
});

interface SemanticFixture {
  file: string;
  width: number;
  height: number;
  logit: number;
}

type ContentBranch = 'semantic' | 'semantic2';
const contentParity = parity as Partial<Record<ContentBranch, { model: string; note: string; fixtures: SemanticFixture[] }>>;

/**
 * A content model (1.1: `semantic`, MobileNetV2 at 224x224; 1.3: also `semantic2`, InceptionV3 at 299x299): its file,
 * the size budget of every model file together, its fusion feature, and PyTorch's logits on fixtures of its own size.
 */
function describeContentModel(branch: ContentBranch, title: string) {
  describe.skipIf(!manifest[branch])(title, () => {
    const spec = manifest[branch]!;
    const fixtures = contentParity[branch]?.fixtures ?? [];
    let session: ort.InferenceSession;

    beforeAll(async () => {
      session = await ort.InferenceSession.create(path.join(modelDir, spec.file), { intraOpNumThreads: 1, interOpNumThreads: 1 });
    });
    afterAll(async () => {
      await session?.release();
    });

    it('its sha256 matches the manifest, every model file together stays under 60 MB (MODEL_CARD.md), and the fusion weighs it once', () => {
      const bytes = fs.readFileSync(path.join(modelDir, spec.file));
      expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(spec.sha256);
      const files = [manifest.file, manifest.semantic?.file, manifest.semantic2?.file].filter((f): f is string => !!f);
      expect(files.reduce((n, f) => n + fs.statSync(path.join(modelDir, f)).size, 0)).toBeLessThan(60 * 1000 * 1000);
      expect(session.inputNames).toEqual([spec.input.name]);
      expect(session.outputNames).toEqual([spec.output.name]);
      expect(manifest.fusion!.features.map((f) => f.name).sort()).toEqual(['artefact', 'semantic', ...(manifest.semantic2 ? ['semantic2'] : [])]);
    });

    it(`has parity fixtures for every ${spec?.input.size}x${spec?.input.size} fixture PNG (test/fixtures/model/${branch}/)`, () => {
      expect(contentParity[branch], `parity.json's ${branch} entry`).toBeDefined();
      const pngs = fs.readdirSync(path.join(fixtureDir, branch)).filter((f) => f.endsWith('.png')).sort();
      expect(fixtures.map((f) => f.file.replace(new RegExp(`^${branch}/`), '')).sort()).toEqual(pngs);
      expect(pngs.length).toBeGreaterThanOrEqual(3);
    });

    for (const fx of fixtures) {
      it(`matches PyTorch on ${fx.file} (no resize: the fixture is already ${fx.width}x${fx.height}, the model's size)`, async () => {
        const { data, info } = await sharp(path.join(fixtureDir, fx.file)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        expect([info.width, info.height, info.channels]).toEqual([spec.input.size, spec.input.size, 3]);
        const x = Float32Array.from(data, (v) => v * spec.input.scale);
        const out = await session.run({ [spec.input.name]: new ort.Tensor('float32', x, [1, spec.input.size, spec.input.size, 3]) });
        expect(out[spec.output.name].data).toHaveLength(1);
        const z = (out[spec.output.name].data as Float32Array)[0];
        expect(Math.abs(z - fx.logit)).toBeLessThanOrEqual(TOLERANCE);
      });
    }
  });
}

describeContentModel('semantic', 'veracity-detector semantic model (1.1: the whole picture at 224x224)');
describeContentModel('semantic2', 'veracity-detector second content model (1.3, manifest semantic2: the whole picture at 299x299)');
