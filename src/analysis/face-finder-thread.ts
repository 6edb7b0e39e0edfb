// The face finder run in a worker thread of its own (face-finder-worker.ts). onnxruntime-node runs a network
// synchronously on the thread that calls it, so a finder on the analysis process's main thread waited for the networks
// and they for it: measured on a 12-MP photo without a face (every turned look made), the finder's WebAssembly took
// about 0.6 s of that thread after the networks' 0.75 s. In a thread of its own it runs while they do, on whatever the
// networks leave of the cores (test/bench/pixel-latency.bench.ts). Same code, same cascade, same readings: the thread
// runs face-finder.ts's loadFaceFinder; only the grey picture crosses (about 0.1-0.8 MB), made here with sharp.
// A thread that dies (it should not: the finder recovers from OpenCV's failures itself) fails the looks in flight with
// internal_error, and the next look starts a fresh one.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AnalysisError } from './analysis-results.js';
import type { RgbImage } from './decode-image.js';
import {
  type FaceFinder,
  type FaceFinderLimits,
  type FaceFinderParams,
  type FaceReading,
  type Grey,
  greyToLookAt,
  loadFaceFinder,
  lookCoarseAt,
  lookUprightAt,
  type LookPart,
  MAX_FACE_ASPECT,
  MAX_GREY_PIXELS,
  NO_FACE,
} from './face-finder.js';
import type { FinderReply, FinderRequest } from './face-finder-worker.js';

const BOOT = fileURLToPath(new URL('./face-finder-worker.mjs', import.meta.url));

interface Pending {
  resolve: (r: FaceReading) => void;
  reject: (e: Error) => void;
}

/** A started thread, once it has loaded the cascade. */
interface Live {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** A thread that stopped before its finder was ready (not a cascade that does not load: that one is said). */
class ThreadUnavailable extends Error {}

/** loadFaceFinder's finder, run in a worker thread; refuses a cascade that does not load, as loadFaceFinder does. */
export async function loadFaceFinderThread(
  cascadeXml: Buffer,
  params: FaceFinderParams,
  limits?: Partial<FaceFinderLimits>,
  /** The thread's entry (tests name one that cannot start). */
  boot = BOOT,
): Promise<FaceFinder> {
  const maxAspect = limits?.maxAspect ?? MAX_FACE_ASPECT;
  const maxGreyPixels = limits?.maxGreyPixels ?? MAX_GREY_PIXELS;
  let nextId = 0;
  let closed = false;
  let live: Promise<Live> | null = start();
  try {
    await live; // a cascade that does not load is refused now, not at the first look
  } catch (err) {
    if (!(err instanceof ThreadUnavailable)) throw err;
    // No worker thread here (a runtime that cannot start one from where the code lies): the same finder on this
    // thread, slower beside the networks but the same readings.
    live = null;
    return loadFaceFinder(cascadeXml, params, limits);
  }

  function start(): Promise<Live> {
    const started = new Promise<Live>((resolve, reject) => {
      const worker = new Worker(boot, { workerData: { xml: new Uint8Array(cascadeXml), params, limits } });
      worker.unref(); // an idle finder keeps no process alive (a look in flight refs it)
      const pending = new Map<number, Pending>();
      const self: Live = { worker, pending };
      let ready = false;
      const fail = (err: Error) => {
        for (const p of pending.values()) p.reject(err);
        pending.clear();
      };
      worker.on('message', (m: FinderReply) => {
        if (m.type === 'ready') {
          ready = true;
          resolve(self);
        } else if (m.type === 'error' && m.id === null) {
          reject(new AnalysisError(m.code, m.message));
        } else {
          const p = pending.get(m.id!);
          if (!p) return;
          pending.delete(m.id!);
          if (pending.size === 0) worker.unref();
          if (m.type === 'result') p.resolve(m.reading);
          else p.reject(new AnalysisError(m.code, m.message));
        }
      });
      const died = (why: string) => {
        // the next look starts a fresh thread (not when a fresh one already replaced this one, or the finder is closed)
        if (live === started) live = null;
        if (!ready) reject(new ThreadUnavailable(`the face finder's thread ${why}`));
        fail(new AnalysisError('internal_error', `the face finder's thread ${why}`));
      };
      worker.on('error', (err) => died(`failed: ${err.message}`));
      worker.on('exit', (code) => died(`stopped (exit code ${code})`));
    });
    return started;
  }

  async function findGrey(grey: Grey, signal?: AbortSignal, part: LookPart = { part: 'all' }): Promise<FaceReading> {
    if (closed) throw new AnalysisError('internal_error', 'the face finder is closed');
    live ??= start();
    const { worker, pending } = await live.catch((err: unknown) => {
      throw err instanceof ThreadUnavailable ? new AnalysisError('internal_error', err.message) : err;
    });
    signal?.throwIfAborted();
    const id = ++nextId;
    return new Promise<FaceReading>((resolve, reject) => {
      const onAbort = () => {
        // the look goes on in the thread (WebAssembly cannot be interrupted); its reading is dropped
        pending.delete(id);
        if (pending.size === 0) worker.unref();
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      pending.set(id, {
        resolve: (r) => {
          done();
          resolve(r);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      worker.ref();
      const data = new Uint8Array(grey.data); // a copy of its own, handed over (the grey picture may be a view into a larger buffer)
      worker.postMessage({ id, grey: { width: grey.width, height: grey.height, data }, part } satisfies FinderRequest, [data.buffer]);
    });
  }

  return {
    params,
    async find(img: RgbImage, signal?: AbortSignal) {
      const grey = await greyToLookAt(img, params.shortSide, maxAspect, maxGreyPixels);
      if (!grey) return NO_FACE;
      signal?.throwIfAborted();
      return findGrey(grey, signal);
    },
    async lookUpright(img: RgbImage, signal?: AbortSignal, onGrey?: () => void) {
      const look = lookUprightAt({ params, findGrey }, await greyToLookAt(img, params.shortSide, maxAspect, maxGreyPixels), signal);
      onGrey?.();
      return look;
    },
    lookCoarse: (img: RgbImage, signal?: AbortSignal) => lookCoarseAt({ findGrey }, img, maxAspect, maxGreyPixels, signal),
    findGrey,
    close() {
      closed = true;
      const current = live;
      live = null;
      void current?.then((l) => l.worker.terminate()).catch(() => undefined);
    },
  };
}
