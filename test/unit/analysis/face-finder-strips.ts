// Looks that break OpenCV's WebAssembly cascade, for the tests that prove a failed look costs only its own file
// (portraits.test.ts, face-finder-trap.test.ts). The finder's bounds (MAX_FACE_ASPECT, MAX_GREY_PIXELS) keep such
// looks away from it; `lifted` lifts them so that the tests reach them for real.
import { AnalysisError } from '../../../src/analysis/index.js';
import type { FaceFinderLimits } from '../../../src/analysis/face-finder.js';

export const lifted: FaceFinderLimits = { maxAspect: Infinity, maxGreyPixels: Infinity };

/** A grey noise strip (the same pattern in each channel), the kind of look that broke OpenCV's cascade. */
export function strip(width: number, height: number) {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) data.fill((i * 7919) & 255, i * 3, i * 3 + 3);
  return { width, height, data };
}

/** The finder's failure, as the analysis reports it for that file. */
export const failed = (e: unknown) => e instanceof AnalysisError && e.code === 'internal_error' && /face finder failed/.test(e.message);
