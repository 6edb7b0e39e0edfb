// Model loading failures become result_unavailable naming the file (DECISIONS 22): missing folder, invalid manifest,
// missing model file, sha256 mismatch, bytes that are not ONNX. The real model's own checks are in analyse.test.ts.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisError, analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { REPO, makeJpeg, tempDir } from './fixtures.js';

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
