// Loads the detector model once per process, lazily, after checking its manifest (zod) and its sha256, with explicit
// thread counts; every way it can fail becomes AnalysisError('result_unavailable') naming the file (DECISIONS 22).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { InferenceSession as OrtSession } from 'onnxruntime-node';
import { AnalysisError } from './analysis-results.js';
import type { FaceFinder, FaceFinderParams } from './face-finder.js';
import { loadFaceFinderThread } from './face-finder-thread.js';
import { ModelManifest } from './model-manifest.js';
import { lastingTileThread, startTileThread, type TileThread } from './tile-thread.js';

/** The model the product ships and uses by default (models/<name>/manifest.json). */
export const DEFAULT_MODEL_NAME = 'veracity-detector';

export interface LoadedModel {
  manifest: ModelManifest;
  session: OrtSession;
  /** The content model (manifest `semantic`, 1.1 on), loaded with the same thread counts; absent before 1.1. */
  semantic?: OrtSession;
  /** The second content model (manifest `semantic2`), loaded likewise; absent when the manifest has none. */
  semantic2?: OrtSession;
  /** The face check behind the portrait thresholds (manifest `portraits`, 1.5 on); absent when the manifest has none. */
  faces?: FaceFinder;
  /**
   * A second runner of the artefact network in a thread of its own (tile-thread.ts), where the sessions' threads leave
   * a core unused (one ONNX thread on a machine of two or more cores); absent otherwise, or where no thread starts.
   */
  tileThread?: TileThread;
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
    const m = await p;
    await m.session.release();
    await m.semantic?.release();
    await m.semantic2?.release();
    m.faces?.close();
    m.tileThread?.close();
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
  // With a tile thread (where the sessions' threads leave a core unused), the artefact network is read once: its bytes
  // are checked, loaded here and handed to the thread.
  const spareCore = threads < availableParallelism();
  const bytes = spareCore ? await readFile(modelPath).catch(() => undefined) : undefined;
  const spec = { inputName: manifest.input.name, outputName: manifest.output.name, tileSize: manifest.input.tileSize, options: sessionOptions(1) };
  const startThread = () => startTileThread(new Uint8Array(bytes!.buffer, bytes!.byteOffset, bytes!.length), spec);
  // The face finder's and the tile thread's loading (OpenCV's WebAssembly, a second session of the artefact network)
  // run on threads of their own: started first, so that they load while this thread opens the three sessions, instead
  // of one after the other. A thread that cannot start here gives none; one that starts and later dies is started
  // afresh (lastingTileThread).
  const firstThread = bytes ? startThread() : Promise.resolve(null);
  const finder = manifest.portraits ? openFaceFinder(dir, manifest.portraits.finder, manifest.portraits.minFace) : Promise.resolve(undefined);
  finder.catch(() => undefined); // awaited below; a refusal while the sessions open is not unhandled
  const opened: OrtSession[] = [];
  // A session, checked against the manifest (sha256, names); a failure anywhere releases what was opened or started.
  const open = async (file: string, sha256: string, inputName: string, outputName: string, from?: Buffer): Promise<OrtSession> => {
    const s = await openSession(file, sha256, inputName, outputName, threads, from);
    opened.push(s);
    return s;
  };
  let session: OrtSession;
  let semantic: OrtSession | undefined;
  let semantic2: OrtSession | undefined;
  let faces: FaceFinder | undefined;
  try {
    session = await open(modelPath, manifest.sha256, manifest.input.name, manifest.output.name, bytes);
    if (manifest.semantic) semantic = await open(join(dir, manifest.semantic.file), manifest.semantic.sha256, manifest.semantic.input.name, manifest.semantic.output.name);
    if (manifest.semantic2) semantic2 = await open(join(dir, manifest.semantic2.file), manifest.semantic2.sha256, manifest.semantic2.input.name, manifest.semantic2.output.name);
    faces = await finder;
  } catch (err) {
    for (const o of opened) await o.release().catch(() => undefined);
    (await finder.catch(() => undefined))?.close();
    (await firstThread.catch(() => null))?.close();
    throw err;
  }
  const first = await firstThread;
  const tileThread = first ? lastingTileThread(first, startThread) : undefined;
  return { manifest, session, semantic, semantic2, faces, tileThread, version: `${manifest.name}@${manifest.version}`, modelPath };
}

/** How every session of the detector is run (the tile thread's too, with one intra-op thread). */
export function sessionOptions(threads: number): OrtSession.SessionOptions {
  return {
    intraOpNumThreads: Math.max(1, threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    executionProviders: ['cpu'],
    // Waiting threads sleep instead of spinning: the face finder's thread (face-finder-thread.ts) shares the cores,
    // and spinning took its cycles (test/bench/pixel-latency: 0.90 / 0.89 with 2 threads, no change with 1).
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
}

/**
 * One ONNX file, checked against its manifest's sha256 and input/output names, with explicit thread counts; from
 * `bytes` when the caller has already read it (checked and loaded from those same bytes), else from the file.
 */
async function openSession(modelPath: string, sha256: string, inputName: string, outputName: string, threads: number, bytes?: Buffer): Promise<OrtSession> {
  if (!bytes) {
    try {
      await stat(modelPath);
    } catch {
      throw new AnalysisError('result_unavailable', `The detector model file ${modelPath} is missing.`);
    }
  }
  const digest = bytes ? createHash('sha256').update(bytes).digest('hex') : await sha256File(modelPath);
  if (digest !== sha256) {
    throw new AnalysisError(
      'result_unavailable',
      `The detector model file ${modelPath} does not match its manifest (sha256 ${digest}, expected ${sha256}).`,
    );
  }
  let session: OrtSession;
  try {
    const ort = await import('onnxruntime-node');
    const options = sessionOptions(threads);
    session = await (bytes ? ort.InferenceSession.create(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), options) : ort.InferenceSession.create(modelPath, options));
  } catch (err) {
    throw new AnalysisError('result_unavailable', `The detector model ${modelPath} cannot be loaded: ${(err as Error).message}`);
  }
  if (!session.inputNames.includes(inputName) || !session.outputNames.includes(outputName)) {
    await session.release().catch(() => undefined);
    throw new AnalysisError(
      'result_unavailable',
      `The detector model ${modelPath} has inputs [${session.inputNames.join(', ')}] and outputs [${session.outputNames.join(', ')}], ` +
        `not the ${inputName} -> ${outputName} its manifest declares.`,
    );
  }
  return session;
}

/** The face finder's cascade, checked against its manifest's sha256 like the networks, then loaded into OpenCV (in the finder's own thread). */
async function openFaceFinder(dir: string, spec: NonNullable<ModelManifest['portraits']>['finder'], portraitMin: number): Promise<FaceFinder> {
  const path = join(dir, spec.file);
  let xml: Buffer;
  try {
    xml = await readFile(path);
  } catch {
    throw new AnalysisError('result_unavailable', `The face finder cascade ${path} is missing.`);
  }
  const digest = createHash('sha256').update(xml).digest('hex');
  if (digest !== spec.sha256) {
    throw new AnalysisError('result_unavailable', `The face finder cascade ${path} does not match its manifest (sha256 ${digest}, expected ${spec.sha256}).`);
  }
  return loadFaceFinderThread(xml, faceFinderParams(spec, portraitMin));
}

/**
 * The finder's parameters as the product runs them (also the speed benchmark and the tests): the manifest's, with
 * turned looks (if it names a search) only when no face reaches a portrait's size (`portraits.minFace`).
 */
export function faceFinderParams(spec: NonNullable<ModelManifest['portraits']>['finder'], portraitMin: number): FaceFinderParams {
  const { shortSide, scaleFactor, minNeighbors, minFace, search, searchNeighbors } = spec;
  // no search: the upright look only (searchNeighbors, if any, is for turned looks and the schema ties it to a search)
  return { shortSide, scaleFactor, minNeighbors, minFace, ...(search ? { search, searchBelow: portraitMin, searchNeighbors } : {}) };
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
