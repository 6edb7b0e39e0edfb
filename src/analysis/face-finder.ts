// The face check behind the detector's portrait thresholds (manifest `portraits`, 1.5 on): the model accuses real
// portraits more often than other photographs (MODEL_CARD.md, "Portraits"), so a picture whose largest face fills
// enough of it is read against thresholds calibrated on portraits. The finder is OpenCV's Haar cascade for frontal
// faces (haarcascade_frontalface_alt2.xml, shipped beside the model and checked by its sha256) run by OpenCV's own
// WebAssembly build (@techstark/opencv-js); its parameters are the manifest's, the same ones the calibration's tags
// were made with (models/training/face_tags.ts runs this file over the validation split).
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { AnalysisError } from './analysis-results.js';
import { MAX_PIXELS, RESIZE_TIMEOUT_S, type RgbImage } from './decode-image.js';

/** How the finder looks for faces (the manifest's `portraits.finder`). */
export interface FaceFinderParams {
  /** The grey picture is resized (linear) so that its shorter side is at most this many pixels. */
  shortSide: number;
  scaleFactor: number;
  minNeighbors: number;
  /** The smallest face looked for, as a share of the (resized) picture's shorter side. */
  minFace: number;
  /**
   * Rotated looks (degrees, clockwise) tried when the upright look finds no face of at least `searchBelow` of the
   * shorter side: a camera held off level, or a picture whose orientation tag was stripped. Absent: upright only.
   */
  search?: number[];
  searchBelow?: number;
  /** Neighbours a turned look asks of a face (default `minNeighbors`): turned copies find more false faces. */
  searchNeighbors?: number;
}

export interface FaceReading {
  /** Faces found. */
  faces: number;
  /** The largest face's side over the picture's shorter side (0 when none was found). */
  largest: number;
  /** The largest face's centre as shares of the picture's width and height (null when none was found). */
  centre: [number, number] | null;
  /** The rotation (degrees, clockwise) of the look that found the largest face; present only when it is not 0. */
  angle?: number;
}

/** The few OpenCV.js calls used here (the package's own types are too loose to help). */
interface Cv {
  Mat: new (rows: number, cols: number, type: number) => CvMat;
  RectVector: new () => { size(): number; get(i: number): { x: number; y: number; width: number; height: number }; delete(): void };
  Size: new (w: number, h: number) => unknown;
  CascadeClassifier: new () => { load(path: string): boolean; empty(): boolean; detectMultiScale(...args: unknown[]): void; delete(): void };
  CV_8UC1: number;
  FS_createDataFile(parent: string, name: string, data: Uint8Array, read: boolean, write: boolean, own: boolean): void;
  FS_unlink(path: string): void;
  exceptionFromPtr?(ptr: number): { msg?: string };
  stackSave?(): number;
  stackRestore?(sp: number): void;
}
type Classifier = InstanceType<Cv['CascadeClassifier']>;
/** A runtime and the cascade loaded into it. */
type Live = { cv: Cv; classifier: Classifier };
interface CvMat {
  data: Uint8Array;
  delete(): void;
}

/** How long (ms) the WebAssembly runtime may take to start before the finder is given up. */
const INIT_TIMEOUT_MS = 60_000;
let runtime: Promise<{ cv: Cv }> | null = null;
const OPENCV = '@techstark/opencv-js';

/**
 * OpenCV's runtime, started once per process. Its Emscripten glue registers process-wide 'uncaughtException' and
 * 'unhandledRejection' handlers (the second one aborts the runtime on any rejection anywhere in the process): they are
 * removed, so the process keeps its own error handling.
 */
function openCv(): Promise<{ cv: Cv }> {
  // Wrapped: the Emscripten module is a thenable whose then() calls back with itself, so resolving a promise with it
  // never settles (it spins the microtask queue forever).
  runtime ??= new Promise<{ cv: Cv }>((resolve, reject) => {
    const before = { exc: process.listeners('uncaughtException'), rej: process.listeners('unhandledRejection') };
    const restore = () => {
      for (const l of process.listeners('uncaughtException')) if (!before.exc.includes(l)) process.off('uncaughtException', l);
      for (const l of process.listeners('unhandledRejection')) if (!before.rej.includes(l)) process.off('unhandledRejection', l);
    };
    let mod: Cv & { calledRun?: boolean; onRuntimeInitialized?: () => void };
    try {
      mod = createRequire(import.meta.url)(OPENCV);
    } catch (err) {
      restore();
      reject(err as Error);
      return;
    }
    restore();
    const timer = setTimeout(() => reject(new Error('the OpenCV runtime did not start')), INIT_TIMEOUT_MS);
    const ready = () => {
      clearTimeout(timer);
      resolve({ cv: mod });
    };
    if (mod.calledRun && typeof mod.CascadeClassifier === 'function') ready();
    else {
      const previous = mod.onRuntimeInitialized;
      mod.onRuntimeInitialized = () => {
        previous?.();
        ready();
      };
    }
  });
  runtime.catch(() => {
    runtime = null;
  });
  return runtime;
}

/**
 * Gives up a runtime that trapped (a WebAssembly RuntimeError such as "memory access out of bounds": its heap can no
 * longer be trusted). The next finder that needs OpenCV starts a fresh instance: the module is evaluated again, with
 * its own memory; the old one goes when no finder holds it.
 */
async function discardOpenCv(broken: Cv): Promise<void> {
  const current = await runtime?.catch(() => null);
  if (current?.cv !== broken) return;
  runtime = null;
  const require = createRequire(import.meta.url);
  delete require.cache[require.resolve(OPENCV)];
}

/** Bounds a finder keeps to (tests lift them to reach a look that breaks OpenCV's cascade). */
export interface FaceFinderLimits {
  maxAspect: number;
  maxGreyPixels: number;
}

export interface FaceFinder {
  params: FaceFinderParams;
  /** Every look: the upright one, then the turned ones where it found no face of `searchBelow`. */
  find(img: RgbImage, signal?: AbortSignal): Promise<FaceReading>;
  /**
   * The upright look now, and the turned ones only if the caller asks for them (`turn`): the two together give
   * exactly find()'s reading. The analysis asks only where the reading can depend on them (ai-detection.ts). `onGrey`
   * is told once the grey picture is made and the look is being handed over (its thread needs nothing more of the caller's).
   */
  lookUpright(img: RgbImage, signal?: AbortSignal, onGrey?: () => void): Promise<UprightLook>;
  /**
   * A quick upright look at a smaller, approximate grey picture (coarseGrey): not the calibrated reading. The analysis
   * uses it only where the picture's group cannot change its reading (detectors/ai-detection.ts), for the portrait note.
   */
  lookCoarse(img: RgbImage, signal?: AbortSignal): Promise<FaceReading>;
  /** The looks (`part`: all of them by default) at a grey picture already made by greyForFaces (this finder's shortSide and bound). */
  findGrey(grey: Grey, signal?: AbortSignal, part?: LookPart): Promise<FaceReading>;
  /** Frees the cascade in OpenCV's heap (the runtime stays for the next finder). */
  close(): void;
}

/** Which looks findGrey makes: all; the upright one alone; or the turned ones after an upright look already made. */
export type LookPart = { part: 'all' } | { part: 'upright' } | { part: 'turned'; upright: FaceReading };

/** The upright look's reading, and the turned looks still to make (null where the finder would make none). */
export interface UprightLook {
  reading: FaceReading;
  /** The turned looks: resolves to the reading find() gives (the upright one unless a turned look found a larger face). */
  turn: ((signal?: AbortSignal) => Promise<FaceReading>) | null;
}

/** The reading of a picture in which no face was found (or that was not looked at). */
export const NO_FACE: FaceReading = Object.freeze({ faces: 0, largest: 0, centre: null });

/** Whether the finder turns the picture after this upright reading: it has turned looks and no face reached `searchBelow`. */
export function turnsAfter(params: FaceFinderParams, upright: FaceReading): boolean {
  return !!params.search?.length && upright.largest < (params.searchBelow ?? params.minFace);
}

/** lookUpright for a finder whose grey picture is made (null: a picture not looked at, see greyToLookAt). */
export async function lookUprightAt(finder: Pick<FaceFinder, 'params' | 'findGrey'>, grey: Grey | null, signal?: AbortSignal): Promise<UprightLook> {
  if (!grey) return { reading: NO_FACE, turn: null };
  signal?.throwIfAborted();
  const reading = await finder.findGrey(grey, signal, { part: 'upright' });
  return { reading, turn: turnsAfter(finder.params, reading) ? (s) => finder.findGrey(grey, s, { part: 'turned', upright: reading }) : null };
}

/**
 * The coarse look's grey picture's shorter side (pixels): about a third of the calibrated look's cost on a 12-MP photo,
 * and the same group as the calibrated look for 99 % of pictures (test/eval/results/coarse-faces.json).
 */
export const COARSE_SHORT_SIDE = 240;

/** lookCoarse for a finder: the upright look at coarseGrey's picture (no face in a picture not looked at, see greyToLookAt). */
export async function lookCoarseAt(finder: Pick<FaceFinder, 'findGrey'>, img: RgbImage, maxAspect: number, maxGreyPixels: number, signal?: AbortSignal): Promise<FaceReading> {
  if (tooLongToLookAt(img, maxAspect)) return NO_FACE;
  signal?.throwIfAborted();
  return finder.findGrey(coarseGrey(img, COARSE_SHORT_SIDE, maxGreyPixels), signal, { part: 'upright' });
}

let cascades = 0;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Loads the cascade's XML (bytes already checked against the manifest) into OpenCV; refuses one that does not load.
 *
 * A look that makes OpenCV fail costs that file only (internal_error): the finder then gives up its cascade (a C++
 * exception leaves it stuck: measured, a cascade whose buffers were sized for one look tried to allocate 2.6 GB at
 * every later look) and, after a WebAssembly trap, the whole runtime, and loads a fresh one for the next file.
 */
export async function loadFaceFinder(cascadeXml: Buffer, params: FaceFinderParams, limits?: Partial<FaceFinderLimits>): Promise<FaceFinder> {
  const maxAspect = limits?.maxAspect ?? MAX_FACE_ASPECT;
  const maxGreyPixels = limits?.maxGreyPixels ?? MAX_GREY_PIXELS;
  let live: Live | null = await load();
  let loading: Promise<Live> | null = null;
  /** The finder's runtime and cascade, loaded afresh (once, however many files ask at the same time) after a failure. */
  const ready = (): Promise<Live> =>
    live
      ? Promise.resolve(live)
      : (loading ??= load()
          .then((l) => (live = l))
          .finally(() => {
            loading = null;
          }));

  async function load(): Promise<Live> {
    let cv: Cv;
    try {
      ({ cv } = await openCv());
    } catch (err) {
      throw new AnalysisError('result_unavailable', `The face finder (OpenCV) cannot start: ${(err as Error).message}`);
    }
    const name = `cascade-${++cascades}.xml`;
    cv.FS_createDataFile('/', name, new Uint8Array(cascadeXml), true, false, false);
    const classifier = new cv.CascadeClassifier();
    let ok = false;
    try {
      ok = classifier.load(name) && !classifier.empty();
    } catch {
      // OpenCV throws a C++ exception (a number in JavaScript) at XML it cannot parse
    }
    cv.FS_unlink(`/${name}`);
    if (!ok) {
      classifier.delete();
      throw new AnalysisError('result_unavailable', 'The face finder cascade does not load as an OpenCV cascade.');
    }
    return { cv, classifier };
  }

  /** After a failed look: the cascade is given up, and the runtime too when it trapped. */
  async function giveUp(broken: Live, err: unknown): Promise<void> {
    if (live === broken) live = null;
    try {
      broken.classifier.delete();
    } catch {
      // a runtime that trapped may not free it: it goes with the runtime
    }
    if (err instanceof WebAssembly.RuntimeError) await discardOpenCv(broken.cv);
  }

  async function findGrey(grey: Grey, signal?: AbortSignal, part: LookPart = { part: 'all' }): Promise<FaceReading> {
    const h = await ready();
    try {
      return await look(h, grey, part, signal);
    } catch (err) {
      if (!(err instanceof FinderFailure)) throw err;
      await giveUp(h, err.cause);
      throw new AnalysisError('internal_error', err.message);
    }
  }

  return {
    params,
    close: () => {
      live?.classifier.delete();
      live = null;
    },
    async find(img, signal) {
      const grey = await greyToLookAt(img, params.shortSide, maxAspect, maxGreyPixels);
      if (!grey) return NO_FACE;
      signal?.throwIfAborted();
      return findGrey(grey, signal);
    },
    lookUpright: async (img, signal, onGrey) => {
      const look = lookUprightAt({ params, findGrey }, await greyToLookAt(img, params.shortSide, maxAspect, maxGreyPixels), signal);
      onGrey?.();
      return look;
    },
    lookCoarse: (img, signal) => lookCoarseAt({ findGrey }, img, maxAspect, maxGreyPixels, signal),
    findGrey,
  };

  async function look(h: Live, grey: Grey, part: LookPart, signal?: AbortSignal): Promise<FaceReading> {
    const short = Math.min(grey.width, grey.height);
    const upright = part.part === 'turned' ? part.upright : detect(h, grey, short, 0);
    if (part.part === 'upright' || !turnsAfter(params, upright)) return upright;
    let best = upright;
    for (const angle of params.search!) {
      signal?.throwIfAborted();
      // `base`: the picture as it was turned (brought down first where its canvas would be too large), whose
      // shorter side face sizes are shares of and into which the centre is mapped back
      const { turned, base } = await turnGrey(grey, angle);
      // brought down so far that a portrait's face would be under the cascade's 12-px window: nothing to look for
      if (Math.min(base.width, base.height) * (params.searchBelow ?? params.minFace) < 12) continue;
      // (looking for faces from a portrait's size only would skip the small scales, a quarter of the finder's time,
      // but it changes the grouping of the cascade's hits: 19 of 3,583 calibration pictures changed group; MODEL_CARD)
      const r = detect(h, turned, Math.min(base.width, base.height), angle, base, params.searchNeighbors ?? params.minNeighbors);
      if (r.largest > best.largest) best = r;
    }
    return best;
  }

  /**
   * One look of the cascade at a grey picture. Face sizes are shares of `short`, the upright picture's shorter side;
   * a face found in a turned copy has its centre mapped back into the upright picture (`upright`).
   */
  function detect({ cv, classifier }: Live, grey: Grey, short: number, angle: number, upright: Size = grey, neighbours = params.minNeighbors): FaceReading {
    const min = Math.max(12, Math.floor(short * params.minFace));
    // a look too small to hold the smallest face (a long strip, brought down before it was turned) finds none
    if (grey.width < min || grey.height < min) return { faces: 0, largest: 0, centre: null };
    // a C++ exception thrown through the WebAssembly stack leaves its stack pointer where it was (2 KB lost each time)
    const sp = cv.stackSave?.();
    let mat: CvMat | null = null;
    let found: InstanceType<Cv['RectVector']> | null = null;
    try {
      mat = new cv.Mat(grey.height, grey.width, cv.CV_8UC1);
      found = new cv.RectVector();
      mat.data.set(grey.data);
      classifier.detectMultiScale(mat, found, params.scaleFactor, neighbours, 0, new cv.Size(min, min), new cv.Size(0, 0));
    } catch (err) {
      if (sp !== undefined) cv.stackRestore?.(sp);
      freeAll(mat, found);
      throw new FinderFailure(`the face finder failed: ${openCvMessage(cv, err)}`, { cause: err });
    }
    try {
      let largest = 0;
      let centre: [number, number] | null = null;
      for (let i = 0; i < found.size(); i++) {
        const r = found.get(i);
        const side = Math.min(r.width, r.height) / short;
        if (side > largest) {
          largest = side;
          const [x, y] = unturn(r.x + r.width / 2, r.y + r.height / 2, grey, upright, angle);
          centre = [round4(x / upright.width), round4(y / upright.height)];
        }
      }
      return { faces: found.size(), largest: round4(largest), centre, ...(angle && found.size() ? { angle } : {}) };
    } finally {
      freeAll(mat, found);
    }
  }
}

/** What OpenCV threw, in words: a C++ exception arrives as a number (a pointer to it in the WebAssembly heap). */
function openCvMessage(cv: Cv, err: unknown): string {
  if (typeof err === 'number') {
    try {
      const msg = cv.exceptionFromPtr?.(err).msg;
      if (msg) return msg.trim().split('\n')[0];
    } catch {
      // not readable: said as such below
    }
    return 'an OpenCV exception';
  }
  return err instanceof Error ? err.message : String(err);
}

/** A look OpenCV failed at; `cause` is what it threw (a number for a C++ exception, a RuntimeError for a trap). */
class FinderFailure extends Error {}

function freeAll(...objects: Array<{ delete(): void } | null>): void {
  for (const o of objects) {
    try {
      o?.delete();
    } catch {
      // already gone with a runtime that trapped
    }
  }
}

type Size = { width: number; height: number };
export type Grey = Size & { data: Buffer };

/**
 * Pixels of a turned look's canvas at most. A 320-px grey picture of ordinary proportions turned 25 degrees needs
 * 0.25 M (4:3) to 0.7 M (3:1); only pictures longer than about 4:1 are brought down. The looks share OpenCV's
 * WebAssembly heap with the upright one: several 4 M-pixel turned looks in a row exhausted it (a "memory access out of
 * bounds" that then broke every later look in the process).
 */
export const MAX_TURNED_PIXELS = 1_000_000;

/**
 * The grey picture turned clockwise by `angle` degrees on a canvas that holds all of it (black corners). The canvas
 * is bounded (MAX_TURNED_PIXELS): turning a long strip 25 degrees would otherwise ask for a canvas of billions of
 * pixels (a 200000 x 20 grey strip: about 181000 x 85000), so such a picture is brought down by `scale` (< 1) before
 * it is turned; a picture of ordinary proportions is turned as it is (scale 1).
 */
export async function turnGrey(grey: Grey, angle: number): Promise<{ turned: Grey; base: Size; scale: number }> {
  const a = (angle * Math.PI) / 180;
  const [c, s] = [Math.abs(Math.cos(a)), Math.abs(Math.sin(a))];
  const canvas = (grey.width * c + grey.height * s + 4) * (grey.width * s + grey.height * c + 4);
  // (sharp's canvas can be a pixel wider than the estimate: a margin keeps the bound)
  const scale = canvas <= MAX_TURNED_PIXELS ? 1 : Math.sqrt((0.98 * MAX_TURNED_PIXELS) / canvas);
  let img = sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } }).timeout({ seconds: RESIZE_TIMEOUT_S });
  let base: Size = { width: grey.width, height: grey.height };
  if (scale < 1) {
    const small = await img
      .resize(Math.max(1, Math.floor(grey.width * scale)), Math.max(1, Math.floor(grey.height * scale)), { fit: 'fill', kernel: 'linear' })
      .extractChannel(0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    base = { width: small.info.width, height: small.info.height };
    img = sharp(small.data, { raw: { ...base, channels: 1 } }).timeout({ seconds: RESIZE_TIMEOUT_S });
  }
  const { data, info } = await img
    .rotate(angle, { background: { r: 0, g: 0, b: 0 } })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { turned: { width: info.width, height: info.height, data }, base, scale };
}

/** A point of a copy turned clockwise by `angle` about its centre, back in the upright picture's pixels. */
function unturn(x: number, y: number, turned: Size, upright: Size, angle: number): [number, number] {
  if (!angle) return [x, y];
  const a = (angle * Math.PI) / 180;
  const dx = x - turned.width / 2;
  const dy = y - turned.height / 2;
  return [upright.width / 2 + dx * Math.cos(a) + dy * Math.sin(a), upright.height / 2 - dx * Math.sin(a) + dy * Math.cos(a)];
}

/**
 * The longest picture (long side over short side) the finder looks at. OpenCV's WebAssembly cascade breaks on some
 * grey pictures of extreme proportions (measured: a 10954 x 91 look threw a C++ exception, and runs of 200000 x 20,
 * 15811 x 253 and 3162 x 50 looks ended in "memory access out of bounds"). The finder recovers from such a failure
 * (a fresh cascade, or a fresh runtime after a trap), but the file that caused it fails. Up to 8:1 (a 2560 x 320 grey
 * look at most) nothing failed in 60 pictures of random sizes and proportions, upright and turned. A longer
 * picture is read against the thresholds of pictures without a portrait: the lower bar to an accusation, so a strip
 * never buys an AI picture the portraits' higher one.
 */
export const MAX_FACE_ASPECT = 8;

/**
 * The grey picture a finder looks at (greyForFaces), or null for a picture longer than maxAspect to 1, which is not
 * looked at: no portrait (see MAX_FACE_ASPECT).
 */
export async function greyToLookAt(img: RgbImage, shortSide: number, maxAspect: number, maxGreyPixels: number): Promise<Grey | null> {
  if (tooLongToLookAt(img, maxAspect)) return null;
  return greyForFaces(img, shortSide, maxGreyPixels);
}

/** Whether a picture is longer than maxAspect to 1: the finder does not look at it (MAX_FACE_ASPECT). */
function tooLongToLookAt(img: Size, maxAspect: number): boolean {
  return Math.max(img.width, img.height) > maxAspect * Math.min(img.width, img.height);
}

/** The grey picture's size: the shorter side brought down to at most shortSide and the whole to at most maxPixels, aspect kept. */
function greySize(img: Size, shortSide: number, maxPixels: number): Size {
  const s = Math.min(1, shortSide / Math.min(img.width, img.height), Math.sqrt(maxPixels / (img.width * img.height)));
  return { width: Math.max(1, Math.round(img.width * s)), height: Math.max(1, Math.round(img.height * s)) };
}

/**
 * Grey pixels handed to OpenCV at most (with MAX_FACE_ASPECT a 320-px look holds at most 0.82 M; this bounds a
 * picture smaller than 320 px on its shorter side the same way).
 */
export const MAX_GREY_PIXELS = 1_000_000;

/** sRGB byte -> linear light, and linear light (4096 steps) -> sRGB byte, for coarseGrey. */
const TO_LINEAR = Float32Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});
const FROM_LINEAR = Uint8Array.from({ length: 4097 }, (_, i) => {
  const l = i / 4096;
  return Math.round(255 * (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055));
});

/**
 * A quick grey picture for the coarse look (FaceFinder.lookCoarse): its shorter side at most shortSide, each pixel the
 * mean luminance (Rec. 709, in linear light, as sharp's greyscale) of a 2 x 2 sample of the area it covers. It reads
 * about 4 source pixels per grey one instead of every one (a 12-MP picture: 0.55 M reads instead of 12 M): close to
 * greyForFaces' picture, not equal to it, so its reading is never the calibrated one (see lookCoarse).
 */
export function coarseGrey(img: RgbImage, shortSide: number, maxPixels = MAX_GREY_PIXELS): Grey {
  const { width, height } = greySize(img, shortSide, maxPixels);
  const data = Buffer.allocUnsafe(width * height);
  const src = img.data;
  const sx = img.width / width;
  const sy = img.height / height;
  // the two sample columns (rows) of each grey pixel: a quarter and three quarters across the area it covers
  const cols = (n: number, step: number, max: number) =>
    Int32Array.from({ length: 2 * n }, (_, i) => Math.min(max - 1, Math.floor((Math.floor(i / 2) + (i % 2 ? 0.75 : 0.25)) * step)));
  const xs = cols(width, sx, img.width);
  const ys = cols(height, sy, img.height);
  for (let y = 0; y < height; y++) {
    const r0 = ys[2 * y] * img.width;
    const r1 = ys[2 * y + 1] * img.width;
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (const row of [r0, r1]) {
        for (const col of [xs[2 * x], xs[2 * x + 1]]) {
          const o = (row + col) * 3;
          sum += 0.2126 * TO_LINEAR[src[o]] + 0.7152 * TO_LINEAR[src[o + 1]] + 0.0722 * TO_LINEAR[src[o + 2]];
        }
      }
      data[y * width + x] = FROM_LINEAR[Math.min(4096, Math.round(sum * 1024))];
    }
  }
  return { width, height, data };
}

/**
 * The picture in grey (sharp's luma), its shorter side brought down to at most shortSide (linear, aspect kept), and
 * to at most MAX_GREY_PIXELS in all.
 */
export async function greyForFaces(
  img: RgbImage,
  shortSide: number,
  maxPixels = MAX_GREY_PIXELS,
): Promise<{ width: number; height: number; data: Buffer }> {
  const { width, height } = greySize(img, shortSide, maxPixels);
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 }, limitInputPixels: MAX_PIXELS })
    .timeout({ seconds: RESIZE_TIMEOUT_S })
    .greyscale()
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1 || info.width !== width || info.height !== height) {
    throw new AnalysisError('internal_error', `the face finder's resize gave ${info.width}x${info.height}x${info.channels}`);
  }
  return { width, height, data };
}
