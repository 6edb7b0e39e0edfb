// Loads the detector model once per process, lazily, after checking its manifest (zod) and its sha256, with explicit
// thread counts; every way it can fail becomes AnalysisError('result_unavailable') naming the file (DECISIONS 22).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { InferenceSession as OrtSession } from 'onnxruntime-node';
import { AnalysisError } from './analysis-results.js';
import { ModelManifest } from './model-manifest.js';

/** The model the product ships and uses by default (models/<name>/manifest.json). */
export const DEFAULT_MODEL_NAME = 'veracity-detector';

export interface LoadedModel {
  manifest: ModelManifest;
  session: OrtSession;
  /** e.g. "veracity-detector@1.0.0" */
  version: string;
  modelPath: string;
}

let loaded: { key: string; promise: Promise<LoadedModel> } | null = null;

/** The session for modelsDir, loaded on first use and shared by every later analysis in this process. */
export function getModel(modelsDir: string, threads = 1): Promise<LoadedModel> {
  const key = `${resolve(modelsDir)}|${threads}`;
  if (loaded && loaded.key === key) return loaded.promise;
  const previous = loaded;
  const promise = (async () => {
    if (previous) await releaseSession(previous.promise);
    return loadModel(modelsDir, threads);
  })();
  loaded = { key, promise };
  // A failed load is not cached: the model may be installed later without restarting the worker.
  promise.catch(() => {
    if (loaded?.promise === promise) loaded = null;
  });
  return promise;
}

export async function closeModel(): Promise<void> {
  const current = loaded;
  loaded = null;
  if (current) await releaseSession(current.promise);
}

async function releaseSession(p: Promise<LoadedModel>): Promise<void> {
  try {
    await (await p).session.release();
  } catch {
    // a session that failed to load has nothing to release
  }
}

/** The model's manifest, checked (zod): what the core needs of the model without loading it (its tiling). */
export async function readManifest(modelsDir: string): Promise<ModelManifest> {
  const manifestPath = join(modelsDir, DEFAULT_MODEL_NAME, 'manifest.json');
  let raw: string;
  try {
    raw = await readFile(manifestPath, 'utf8');
  } catch {
    throw new AnalysisError('result_unavailable', `The detector model is not installed: ${manifestPath} is missing.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new AnalysisError('result_unavailable', `The detector manifest ${manifestPath} is not valid JSON.`);
  }
  const parsed = ModelManifest.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new AnalysisError(
      'result_unavailable',
      `The detector manifest ${manifestPath} is invalid (${first?.path.join('.') || 'root'}: ${first?.message}).`,
    );
  }
  return parsed.data;
}

async function loadModel(modelsDir: string, threads: number): Promise<LoadedModel> {
  const dir = join(modelsDir, DEFAULT_MODEL_NAME);
  const manifest = await readManifest(modelsDir);
  const modelPath = join(dir, manifest.file);
  try {
    await stat(modelPath);
  } catch {
    throw new AnalysisError('result_unavailable', `The detector model file ${modelPath} is missing.`);
  }
  const digest = await sha256File(modelPath);
  if (digest !== manifest.sha256) {
    throw new AnalysisError(
      'result_unavailable',
      `The detector model file ${modelPath} does not match its manifest (sha256 ${digest}, expected ${manifest.sha256}).`,
    );
  }
  let session: OrtSession;
  try {
    const ort = await import('onnxruntime-node');
    session = await ort.InferenceSession.create(modelPath, {
      intraOpNumThreads: Math.max(1, threads),
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      executionProviders: ['cpu'],
    });
  } catch (err) {
    throw new AnalysisError('result_unavailable', `The detector model ${modelPath} cannot be loaded: ${(err as Error).message}`);
  }
  if (!session.inputNames.includes(manifest.input.name) || !session.outputNames.includes(manifest.output.name)) {
    await session.release().catch(() => undefined);
    throw new AnalysisError(
      'result_unavailable',
      `The detector model ${modelPath} has inputs [${session.inputNames.join(', ')}] and outputs [${session.outputNames.join(', ')}], ` +
        `not the ${manifest.input.name} -> ${manifest.output.name} its manifest declares.`,
    );
  }
  return { manifest, session, version: `${manifest.name}@${manifest.version}`, modelPath };
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolvePromise(hash.digest('hex')));
  });
}
