// The "not a photograph" guard. The pixel detector was trained and calibrated on photographs and on pictures made to
// look like them; a screenshot, a chart, a logo or a page of text is neither, and its score means nothing (graphics
// with JPEG noise read as strongly "AI"). Four features of the decoded pixels, a logistic regression fitted on
// photographs of both classes against screenshots, charts, icons and rendered pages, and a threshold chosen so that
// almost no validation photograph is caught: models/training/guard/ (README there) fits and measures it, and
// features.py there computes the same features (a parity test holds the two together).
import type { RgbImage } from './decode-image.js';

/** Blocks sampled at most (8x8 luma blocks on the JPEG grid, evenly strided). */
const MAX_BLOCKS = 4096;

export interface PhotoGuardFeatures {
  /** Share of blocks whose luma range is <= 3: flat fills (UI backgrounds, graphics, page margins). */
  flat: number;
  /** Among blocks with a strong edge, the share whose largest neighbour step is >= 0.6 x their range (hard edges). */
  step: number;
  /** Share of blocks with a strong edge (luma range >= 48). */
  strong: number;
  /** Share of the sampled pixels in the 4 most frequent colours at 4 bits per channel. */
  top4: number;
  blocks: number;
}

/** The guard's features, as models/training/guard/features.py computes them; null for a picture under 8x8 pixels. */
export function photoGuardFeatures(img: RgbImage): PhotoGuardFeatures | null {
  const bh = Math.floor(img.height / 8);
  const bw = Math.floor(img.width / 8);
  if (bh === 0 || bw === 0) return null;
  const stride = Math.max(1, Math.ceil(Math.sqrt((bh * bw) / MAX_BLOCKS)));
  const counts = new Uint32Array(4096);
  const y = new Int32Array(64);
  const data = img.data;
  const rowBytes = img.width * 3;
  let n = 0;
  let flat = 0;
  let strong = 0;
  let step = 0;
  let pixels = 0;
  for (let br = 0; br < bh; br += stride) {
    for (let bc = 0; bc < bw; bc += stride) {
      let min = 255;
      let max = 0;
      for (let r = 0; r < 8; r++) {
        let o = (br * 8 + r) * rowBytes + bc * 8 * 3;
        for (let c = 0; c < 8; c++, o += 3) {
          const R = data[o];
          const G = data[o + 1];
          const B = data[o + 2];
          const v = (77 * R + 150 * G + 29 * B + 128) >> 8;
          y[r * 8 + c] = v;
          if (v < min) min = v;
          if (v > max) max = v;
          counts[((R >> 4) << 8) | ((G >> 4) << 4) | (B >> 4)]++;
        }
      }
      pixels += 64;
      n++;
      const range = max - min;
      if (range <= 3) flat++;
      if (range >= 48) {
        strong++;
        let d = 0;
        for (let r = 0; r < 8; r++) {
          for (let c = 0; c < 8; c++) {
            const v = y[r * 8 + c];
            if (c < 7) d = Math.max(d, Math.abs(y[r * 8 + c + 1] - v));
            if (r < 7) d = Math.max(d, Math.abs(y[(r + 1) * 8 + c] - v));
          }
        }
        if (5 * d >= 3 * range) step++;
      }
    }
  }
  const top = Array.from(counts).sort((a, b) => b - a);
  return {
    flat: flat / n,
    step: step / Math.max(1, strong),
    strong: strong / n,
    top4: (top[0] + top[1] + top[2] + top[3]) / pixels,
    blocks: n,
  };
}

/**
 * The fitted guard (models/training/guard/results.json; a unit test keeps the two equal): a logistic regression on
 * the four features, and the score above which the picture is taken for a non-photograph. The threshold is the
 * score that 3 % of validation's real photographs reach; held-out screenshots, charts, icons and PDF pages reach it
 * 93 % of the time (the guard's README has the figures).
 */
export const PHOTO_GUARD = {
  coef: { flat: 9.596039967646092, step: 2.7866155162384363, strong: 4.299705085519282, top4: 7.155439145692917 },
  intercept: -12.837233828484653,
  threshold: 1.5398361211289984,
} as const;

export interface PhotoGuardReading {
  features: PhotoGuardFeatures;
  /** The regression's logit: above PHOTO_GUARD.threshold the picture is taken for a non-photograph. */
  score: number;
  notPhotographic: boolean;
}

/** The guard's reading of a decoded picture; null for one too small to have an 8x8 block. */
export function readPhotoGuard(img: RgbImage): PhotoGuardReading | null {
  const f = photoGuardFeatures(img);
  if (!f) return null;
  const { coef, intercept, threshold } = PHOTO_GUARD;
  const score = intercept + coef.flat * f.flat + coef.step * f.step + coef.strong * f.strong + coef.top4 * f.top4;
  return { features: f, score, notPhotographic: score > threshold };
}
