// Model loading failures become result_unavailable naming the file (DECISIONS 22): missing folder, invalid manifest,
// missing model file, sha256 mismatch, bytes that are not ONNX. The real model's own checks are in analyse.test.ts.
// Also the manifest's content models (`semantic`, `semantic2`) and their fusion: the schema's pairing rules, the second
// content model loaded, run and fused, on hand-written manifests (whatever the shipped one holds).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisError, analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { fuseScores, scoreImage, semanticLogitOf } from '../../../src/analysis/ai-detection.js';
import { aggregationCopy } from '../../../src/analysis/copy.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { ModelManifest } from '../../../src/analysis/model-manifest.js';
import { getModel } from '../../../src/analysis/model-session.js';
import { HAS_MODEL, MODELS_DIR, REPO, makeJpeg, tempDir } from './fixtures.js';

const tmp = tempDir();
afterAll(async () => {
  await closeAnalysis();
  tmp.cleanup();
});

const manifest = (over: Record<string, unknown> = {}) => ({
  name: 'veracity-detector',
  version: '1.0.0',
  file: 'model.onnx',
  sha256: '0'.repeat(64),
  input: { name: 'input', layout: 'NCHW', channels: 3, colorSpace: 'sRGB', dtype: 'float32', tileSize: 96, mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25], batchDynamic: true },
  output: { name: 'logit', kind: 'logit', meaning: 'P(AI) logit per tile' },
  tiling: { stride: 64, maxTiles: 64 },
  aggregation: { method: 'top_k_mean', k: 3, description: 'mean of the 3 highest tiles' },
  thresholds: { decision: 0.5, highAi: 0.8, highAuthentic: 0.2, inconclusiveBand: [0.4, 0.6] },
  training: { sources: [], licences: [], command: 'n/a' },
  ...over,
});

function modelsDir(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(tmp.dir, name, 'veracity-detector');
  mkdirSync(dir, { recursive: true });
  for (const [f, data] of Object.entries(files)) tmp.write(join(name, 'veracity-detector', f), data);
  return join(tmp.dir, name);
}

async function failure(dir: string): Promise<AnalysisError> {
  const jpeg = tmp.write('x.jpg', await makeJpeg(64, 64));
  try {
    await analyseFile(jpeg, 'image/jpeg', { modelsDir: dir });
  } catch (err) {
    return err as AnalysisError;
  }
  throw new Error('analyseFile did not fail');
}

describe('detector model loading', () => {
  it('missing model folder: result_unavailable naming manifest.json', async () => {
    const err = await failure(join(tmp.dir, 'nothing-here'));
    expect(err).toBeInstanceOf(AnalysisError);
    expect(err.code).toBe('result_unavailable');
    expect(err.message).toMatch(/nothing-here\/veracity-detector\/manifest\.json is missing/);
  });

  it('invalid manifest: result_unavailable naming the bad field', async () => {
    const err = await failure(modelsDir('bad-manifest', { 'manifest.json': JSON.stringify(manifest({ input: { name: 'input' } })) }));
    expect(err.code).toBe('result_unavailable');
    expect(err.message).toMatch(/manifest\.json is invalid \(input\.layout/);
    const heat = await failure(modelsDir('bad-heatmap', { 'manifest.json': JSON.stringify(manifest({ tiling: { stride: 64, maxTiles: 64, heatmapMaxTiles: 100 } })) }));
    expect(heat.message).toMatch(/manifest\.json is invalid \(tiling\.heatmapMaxTiles: heatmapMaxTiles must be a multiple of maxTiles/);
    const notJson = await failure(modelsDir('not-json', { 'manifest.json': '{nope' }));
    expect(notJson.message).toMatch(/not valid JSON/);
  });

  it('model file missing, or different from the manifest sha256: result_unavailable naming the file', async () => {
    const missing = await failure(modelsDir('no-file', { 'manifest.json': JSON.stringify(manifest()) }));
    expect(missing.message).toMatch(/no-file\/veracity-detector\/model\.onnx is missing/);
    const mismatch = await failure(modelsDir('sha', { 'manifest.json': JSON.stringify(manifest()), 'model.onnx': 'tampered' }));
    expect(mismatch.code).toBe('result_unavailable');
    expect(mismatch.message).toMatch(/does not match its manifest \(sha256 [0-9a-f]{64}, expected 0{64}\)/);
  });

  it('1.1 semantic model: missing file named; a semantic section without fusion refused by the schema', async () => {
    const shipped = join(REPO, 'models', 'veracity-detector');
    const real = JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    if (!real.semantic) return; // models before 1.1 have no semantic branch to miss
    const model = readFileSync(join(shipped, real.file as string));
    const missing = await failure(modelsDir('no-semantic', { 'manifest.json': JSON.stringify(real), 'model.onnx': model }));
    expect(missing.code).toBe('result_unavailable');
    expect(missing.message).toMatch(/no-semantic\/veracity-detector\/semantic\.onnx is missing/);
    const unfused = await failure(modelsDir('no-fusion', { 'manifest.json': JSON.stringify({ ...real, fusion: undefined }), 'model.onnx': model }));
    expect(unfused.message).toMatch(/manifest\.json is invalid \(fusion: a semantic model needs a fusion section/);
  });

  it('bytes that are not an ONNX model: result_unavailable, and a later call tries again', async () => {
    const junk = Buffer.from('this is not a protobuf');
    const sha256 = createHash('sha256').update(junk).digest('hex');
    const dir = modelsDir('junk', { 'manifest.json': JSON.stringify(manifest({ sha256 })), 'model.onnx': junk });
    const err = await failure(dir);
    expect(err.code).toBe('result_unavailable');
    expect(err.message).toMatch(/cannot be loaded/);
    expect((await failure(dir)).code).toBe('result_unavailable');
  });
});

/** A content model's manifest section (`semantic`, `semantic2`), hand-written. */
const content = (file: string, size: number) => ({
  file,
  sha256: '1'.repeat(64),
  input: { name: 'image', layout: 'NHWC', size, channels: 3, colorSpace: 'sRGB', dtype: 'float32', scale: 1 / 255, resize: 'whole picture to size x size', batchDynamic: true },
  output: { name: 'logit', kind: 'logit', meaning: 'logit of P(AI) of the picture' },
});
const feature = (name: string, mean: number, std: number, weight: number) => ({ name, definition: `${name} feature`, mean, std, weight });
const fusion = (features: Array<ReturnType<typeof feature>>) => ({ method: 'logistic_regression', features, bias: 0.25, clip: 1e-6, description: 'logistic regression' });
const THREE = [feature('semantic', 1.3, 3.2, 1.3), feature('semantic2', 1.5, 5, 0.9), feature('artefact', 0.8, 1.1, 0.5)];

/** The schema's issues for a manifest, as "path: message". */
const issues = (m: unknown) => {
  const r = ModelManifest.safeParse(m);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('manifest semantic2: a second content model beside semantic, fused as a third feature', () => {
  it('a manifest with both content models and a three-feature fusion passes; semantic2 has exactly the semantic schema', () => {
    const m = manifest({ semantic: content('semantic.onnx', 224), semantic2: content('semantic2.onnx', 299), fusion: fusion(THREE) });
    expect(issues(m)).toEqual([]);
    expect(ModelManifest.parse(m).semantic2?.input.size).toBe(299);
    expect(issues({ ...m, semantic2: { ...content('semantic2.onnx', 299), input: { ...content('x.onnx', 299).input, layout: 'NCHW' } } })).toEqual([
      expect.stringMatching(/^semantic2\.input\.layout: /),
    ]);
    expect(issues({ ...m, semantic2: { ...content('semantic2.onnx', 299), extra: 1 } })[0]).toMatch(/^semantic2: /);
    // the two-feature manifests of 1.1-1.2 are unchanged
    expect(issues(manifest({ semantic: content('semantic.onnx', 224), fusion: fusion([THREE[0], THREE[2]]) }))).toEqual([]);
  });

  it('semantic2 needs semantic; each needs its fusion feature and each fusion feature its model; names are unique', () => {
    const sem = content('semantic.onnx', 224);
    const sem2 = content('semantic2.onnx', 299);
    // semantic2 alone (no semantic): refused at semantic2 (the fusion without semantic is refused too, as before)
    expect(issues(manifest({ semantic2: sem2, fusion: fusion(THREE) }))).toContain('semantic2: a second content model (semantic2) needs the first (semantic)');
    // a semantic2 model the fusion does not weigh
    expect(issues(manifest({ semantic: sem, semantic2: sem2, fusion: fusion([THREE[0], THREE[2]]) }))).toEqual([
      "fusion.features: a semantic2 model needs a 'semantic2' fusion feature",
    ]);
    // a semantic2 feature with no model behind it
    expect(issues(manifest({ semantic: sem, fusion: fusion(THREE) }))).toEqual(["fusion.features.1.name: the fusion feature 'semantic2' needs a semantic2 model"]);
    // a feature named twice
    expect(issues(manifest({ semantic: sem, semantic2: sem2, fusion: fusion([...THREE, feature('semantic', 0, 1, 1)]) }))).toEqual([
      "fusion.features.3.name: the fusion feature 'semantic' is listed twice",
    ]);
    // an unknown feature name
    expect(issues(manifest({ semantic: sem, fusion: fusion([THREE[0], feature('semantic3', 0, 1, 1)]) }))[0]).toMatch(/^fusion\.features\.1\.name: /);
    // the 1.1 rule still holds: semantic <-> fusion
    expect(issues(manifest({ semantic: sem }))).toEqual(['fusion: a semantic model needs a fusion section, and a fusion section a semantic model']);
  });

  it('the loader refuses such a manifest naming the field', async () => {
    const m = manifest({ semantic: content('semantic.onnx', 224), semantic2: content('semantic2.onnx', 299), fusion: fusion([THREE[0], THREE[2]]) });
    const err = await failure(modelsDir('unfused-semantic2', { 'manifest.json': JSON.stringify(m) }));
    expect(err.code).toBe('result_unavailable');
    expect(err.message).toMatch(/manifest\.json is invalid \(fusion\.features: a semantic2 model needs a 'semantic2' fusion feature\)/);
  });

  it('fuseScores weighs the three features (semantic2 its logit); a feature the fusion names but not given is an internal error', () => {
    const f = ModelManifest.parse(manifest({ semantic: content('semantic.onnx', 224), semantic2: content('semantic2.onnx', 299), fusion: fusion(THREE) })).fusion!;
    const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
    const x = { semantic: 2, semantic2: -1.5, artefact: 0.7 };
    const z = 0.25 + (1.3 * (2 - 1.3)) / 3.2 + (0.9 * (-1.5 - 1.5)) / 5 + (0.5 * (Math.log(0.7 / 0.3) - 0.8)) / 1.1;
    expect(fuseScores(f, x)).toBeCloseTo(sigmoid(z), 12);
    // the order of the features is the manifest's, not a fixed one
    expect(fuseScores({ ...f, features: [...f.features].reverse() }, x)).toBeCloseTo(sigmoid(z), 12);
    // semantic2 moves the score: it is not ignored
    expect(fuseScores(f, { ...x, semantic2: 4 })).toBeGreaterThan(fuseScores(f, x));
    let err: unknown;
    try {
      fuseScores(f, { semantic: 2, artefact: 0.7 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AnalysisError);
    expect(err).toMatchObject({ code: 'internal_error', message: expect.stringMatching(/semantic2/) });
    // a two-feature fusion ignores a semantic2 value it does not name
    const two = { ...f, features: f.features.filter((ft) => ft.name !== 'semantic2') };
    expect(fuseScores(two, x)).toBeCloseTo(fuseScores(two, { semantic: 2, artefact: 0.7 }), 12);
  });

  it('the aggregation copy names both content models and their sizes', () => {
    const one = ModelManifest.parse(manifest({ semantic: content('semantic.onnx', 224), fusion: fusion([THREE[0], THREE[2]]) }));
    expect(aggregationCopy(one, 'image')).toMatch(/also weighs the whole picture's content \(a second model reads it resized to 224x224\), so it is not/);
    const both = ModelManifest.parse(manifest({ semantic: content('semantic.onnx', 224), semantic2: content('semantic2.onnx', 299), fusion: fusion(THREE) }));
    expect(aggregationCopy(both, 'image')).toMatch(/also weighs the whole picture's content \(two more models read it resized to 224x224 and 299x299\), so it is not/);
  });

  it('the aggregation copy says which tiles the heatmap shows: a denser sample, or those behind the score', () => {
    const denser = ModelManifest.parse(manifest({ tiling: { stride: 64, maxTiles: 32, heatmapMaxTiles: 64 } }));
    expect(aggregationCopy(denser, 'image')).toMatch(/at most 32, evenly sampled.*; the heatmap shows up to 64 tiles, sampled the same way/);
    const same = ModelManifest.parse(manifest({ tiling: { stride: 64, maxTiles: 32 } }));
    expect(aggregationCopy(same, 'image')).toMatch(/at most 32, evenly sampled.*; the heatmap shows those same tiles, and any other tile of a part of the picture is scored on request/);
    expect(aggregationCopy(same, 'image')).not.toMatch(/up to \d+ tiles/);
  });

  it('a semantic2 model is sha256-checked and loaded, run after semantic and fused as the third feature (semantic.onnx standing in for it)', async () => {
    const shipped = join(REPO, 'models', 'veracity-detector');
    const real = JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')) as ModelManifest;
    if (!real.semantic || !real.fusion) return; // models before 1.1 have no content model to stand in
    const files = { 'model.onnx': readFileSync(join(shipped, real.file)), 'semantic.onnx': readFileSync(join(shipped, real.semantic.file)) };
    const withSemantic2 = (sha256: string) => ({
      ...real,
      portraits: undefined, // no face check here: this test is about the second content model
      file: 'model.onnx',
      semantic: { ...real.semantic, file: 'semantic.onnx' },
      semantic2: { ...real.semantic, file: 'semantic2.onnx', sha256 },
      fusion: { ...real.fusion, features: [...real.fusion!.features.filter((f) => f.name !== 'semantic2'), feature('semantic2', 0.5, 2, -0.8)] },
    });
    const missing = await failure(modelsDir('no-semantic2', { ...files, 'manifest.json': JSON.stringify(withSemantic2(real.semantic.sha256)) }));
    expect(missing.message).toMatch(/no-semantic2\/veracity-detector\/semantic2\.onnx is missing/);
    const tampered = await failure(modelsDir('bad-semantic2', { ...files, 'semantic2.onnx': 'tampered', 'manifest.json': JSON.stringify(withSemantic2(real.semantic.sha256)) }));
    expect(tampered.message).toMatch(/semantic2\.onnx does not match its manifest/);

    const dir = modelsDir('semantic2', { ...files, 'semantic2.onnx': files['semantic.onnx'], 'manifest.json': JSON.stringify(withSemantic2(real.semantic.sha256)) });
    const jpeg = tmp.write('three.jpg', await makeJpeg(320, 256));
    const r = await analyseFile(jpeg, 'image/jpeg', { modelsDir: dir });
    expect(r.aggregation).toMatch(/two more models read it resized to/);
    const model = await getModel(dir, 1);
    expect(model.semantic2).toBeDefined();
    expect(model.semantic2).not.toBe(model.semantic);
    const img = await decodeImageBuffer(readFileSync(jpeg), 'image/jpeg');
    const s = await scoreImage(model, img, { kind: 'image' });
    const semantic = await semanticLogitOf(model, img);
    const semantic2 = await semanticLogitOf(model, img, undefined, 'semantic2');
    expect(semantic2).toBeCloseTo(semantic, 5); // the same network under both names
    expect(s.semantic2Score).toBeCloseTo(s.semanticScore!, 5);
    expect(s.score).toBeCloseTo(fuseScores(model.manifest.fusion!, { semantic, semantic2, artefact: s.artefactScore }), 6);
    // the third feature is weighed: without it the same picture scores otherwise
    const withoutIt = { ...model.manifest.fusion!, features: model.manifest.fusion!.features.filter((f) => f.name !== 'semantic2') };
    expect(Math.abs(s.score - fuseScores(withoutIt, { semantic, artefact: s.artefactScore }))).toBeGreaterThan(1e-4);
    expect(r.verdict.dimensions.find((d) => d.key === 'ai_detection')!.score).toBeCloseTo(s.score, 5);
  });
});

describe.skipIf(!HAS_MODEL)('the score\'s floor while the tiles are scored (the shipped model)', () => {
  it('each floor told is at most the final score and none falls; the score is the same with or without listening', async () => {
    const model = await getModel(MODELS_DIR, 1);
    // a picture of 180 tiles: 64 for the heatmap, in four batches, 32 of them scoring
    const img = await decodeImageBuffer(readFileSync(tmp.write('floors.jpg', await makeJpeg(1600, 1200))), 'image/jpeg');
    const floors: number[] = [];
    const s = await scoreImage(model, img, { kind: 'image' }, undefined, { onAtLeast: (f) => floors.push(f) });
    expect(floors.length).toBeGreaterThan(0);
    for (let i = 1; i < floors.length; i++) expect(floors[i]).toBeGreaterThanOrEqual(floors[i - 1]);
    expect(Math.max(...floors)).toBeLessThanOrEqual(s.score);
    expect(await scoreImage(model, img, { kind: 'image' })).toEqual(s);
  });
});
