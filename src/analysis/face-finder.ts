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
}
interface CvMat {
  data: Uint8Array;
  delete(): void;
}

/** How long (ms) the WebAssembly runtime may take to start before the finder is given up. */
const INIT_TIMEOUT_MS = 60_000;
let runtime: Promise<{ cv: Cv }> | null = null;

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
      mod = createRequire(import.meta.url)('@techstark/opencv-js');
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

export interface FaceFinder {
  params: FaceFinderParams;
  find(img: RgbImage, signal?: AbortSignal): Promise<FaceReading>;
  /** Frees the cascade in OpenCV's heap (the runtime stays for the next finder). */
  close(): void;
}

let cascades = 0;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** Loads the cascade's XML (bytes already checked against the manifest) into OpenCV; refuses one that does not load. */
export async function loadFaceFinder(cascadeXml: Buffer, params: FaceFinderParams): Promise<FaceFinder> {
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
  return {
    params,
    close: () => classifier.delete(),
    async find(img, signal) {
      const grey = await greyForFaces(img, params.shortSide);
      signal?.throwIfAborted();
      const short = Math.min(grey.width, grey.height);
      const upright = detect(grey, short, 0);
      if (!params.search?.length || upright.largest >= (params.searchBelow ?? params.minFace)) return upright;
      let best = upright;
      for (const angle of params.search) {
        signal?.throwIfAborted();
        const turned = await rotateGrey(grey, angle);
        const r = detect(turned, short, angle, grey, params.searchNeighbors ?? params.minNeighbors);
        if (r.largest > best.largest) best = r;
      }
      return best;
    },
  };

  /**
   * One look of the cascade at a grey picture. Face sizes are shares of `short`, the upright picture's shorter side;
   * a face found in a turned copy has its centre mapped back into the upright picture (`upright`).
   */
  function detect(grey: Grey, short: number, angle: number, upright: Grey = grey, neighbours = params.minNeighbors): FaceReading {
    const mat = new cv.Mat(grey.height, grey.width, cv.CV_8UC1);
    const found = new cv.RectVector();
    try {
      mat.data.set(grey.data);
      const min = Math.max(12, Math.floor(short * params.minFace));
      try {
        classifier.detectMultiScale(mat, found, params.scaleFactor, neighbours, 0, new cv.Size(min, min), new cv.Size(0, 0));
      } catch (err) {
        // a C++ exception arrives as a number: say what failed rather than throw a pointer
        throw new AnalysisError('internal_error', `the face finder failed${typeof err === 'object' && err ? `: ${(err as Error).message}` : ''}`);
      }
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
      mat.delete();
      found.delete();
    }
  }
}

type Grey = { width: number; height: number; data: Buffer };

/** The grey picture turned clockwise by `angle` degrees on a canvas that holds all of it (black corners). */
async function rotateGrey(grey: Grey, angle: number): Promise<Grey> {
  const { data, info } = await sharp(grey.data, { raw: { width: grey.width, height: grey.height, channels: 1 } })
    .rotate(angle, { background: { r: 0, g: 0, b: 0 } })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** A point of a copy turned clockwise by `angle` about its centre, back in the upright picture's pixels. */
function unturn(x: number, y: number, turned: Grey, upright: Grey, angle: number): [number, number] {
  if (!angle) return [x, y];
  const a = (angle * Math.PI) / 180;
  const dx = x - turned.width / 2;
  const dy = y - turned.height / 2;
  return [upright.width / 2 + dx * Math.cos(a) + dy * Math.sin(a), upright.height / 2 - dx * Math.sin(a) + dy * Math.cos(a)];
}

/**
 * Grey pixels handed to OpenCV at most: a picture of extreme aspect ratio (a 3-million-pixel-long strip) is brought
 * down further, so the WebAssembly heap (1 GiB at most) never has to hold it whole.
 */
export const MAX_GREY_PIXELS = 4_000_000;

/**
 * The picture in grey (sharp's luma), its shorter side brought down to at most shortSide (linear, aspect kept), and
 * to at most MAX_GREY_PIXELS in all.
 */
export async function greyForFaces(img: RgbImage, shortSide: number): Promise<{ width: number; height: number; data: Buffer }> {
  const s = Math.min(1, shortSide / Math.min(img.width, img.height), Math.sqrt(MAX_GREY_PIXELS / (img.width * img.height)));
  const width = Math.max(1, Math.round(img.width * s));
  const height = Math.max(1, Math.round(img.height * s));
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
