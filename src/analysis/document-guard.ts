// Pages of text: phone photos of documents and receipts, and their scans. The pixel detector was trained and
// calibrated on photographs of scenes and people; on a page of text its score means nothing, and it runs high: 1.5.1
// called 38 of 51 genuine phone photos of A4 pages and 21 of 40 genuine receipt scans `ai_generated` (Data 2.10,
// models/training/data/candidates-data210.md). The photo guard (photo-guard.ts) catches rendered pages with flat fills
// and hard edges, not paper photographed under a lamp or scanned with its grain.
//
// What makes a page: most of the picture is paper (near the picture's bright level, without colour once the paper's
// own cast is removed), and its dark pixels are ink: thin strokes with paper right beside them (within 3 pixels at
// 768 px on the long side). Dark objects in photographs have dark interiors; a white product shot has no strokes.
// Measured with test/eval/document-guard.ts (test/eval/results/document-guard.json): 2 of 573 validation real
// photographs are taken for pages (one a photo of a sheet of paper from a waste-sorting set), and 9 of 538 validation
// AI files, pages of text or UIs (calligraphy, a whiteboard of equations, a comic with captions, a dashboard); 43 of
// 51 phone photos of pages and 25 of 40 receipt scans of Data 2.10 are. Book pages photographed curled under a lamp
// are mostly missed (strokes 0.44-0.69). The thresholds were chosen looking at those same files, so these are not
// held-out figures. A generated page is read as inconclusive too: on pages the detector's AI reading is no evidence
// either way, since it gives it to most genuine ones.
import type { RgbImage } from './decode-image.js';

const LONG_SIDE = 768;
/** Ink within this many pixels (Chebyshev, at LONG_SIDE) of paper counts as a stroke. */
const REACH = 3;
/** Side of the cells the local paper level is taken in (at LONG_SIDE). */
const BLOCK = 24;
export const DOCUMENT_GUARD = { strokes: 0.7, grey: 0.7, paper: 0.2, ink: 0.003 } as const;

export interface DocumentFeatures {
  /** Share of dark, colourless pixels with paper within REACH pixels. */
  strokes: number;
  /** Share of pixels without colour (paper cast removed). */
  grey: number;
  /** Share of paper pixels: near the bright level (90th percentile of luma), without colour. */
  paper: number;
  /** Share of ink pixels: darker than 55 % of the bright level, without colour. */
  ink: number;
}

/** The picture box-averaged down to at most LONG_SIDE on its long side (whole-pixel steps). */
function shrink(img: RgbImage): { w: number; h: number; px: Float32Array } {
  const k = Math.max(1, Math.ceil(Math.max(img.width, img.height) / LONG_SIDE));
  const w = Math.floor(img.width / k);
  const h = Math.floor(img.height / k);
  const px = new Float32Array(w * h * 3);
  // Sums of k pixels per output column, row by row, then divided once per output pixel: the same integer sums (and so
  // the same averages) as summing each k x k box on its own, in one pass over the picture's bytes.
  const sums = new Float64Array(w * 3);
  const data = img.data;
  const n = k * k;
  const rowBytes = img.width * 3;
  for (let y = 0; y < h; y++) {
    sums.fill(0);
    for (let dy = 0; dy < k; dy++) {
      let o = (y * k + dy) * rowBytes;
      for (let x = 0, c = 0; x < w; x++, c += 3) {
        let r = 0;
        let g = 0;
        let b = 0;
        for (let dx = 0; dx < k; dx++, o += 3) {
          r += data[o];
          g += data[o + 1];
          b += data[o + 2];
        }
        sums[c] += r;
        sums[c + 1] += g;
        sums[c + 2] += b;
      }
    }
    const base = y * w * 3;
    for (let c = 0; c < w * 3; c++) px[base + c] = sums[c] / n;
  }
  return { w, h, px };
}

/** The value at rank `rank` (0-based, ascending) of `values`, as a sort would place it (values are copied). */
function rankValue(values: Float32Array, rank: number): number {
  const a = Float32Array.from(values);
  let lo = 0;
  let hi = a.length - 1;
  // quickselect (Hoare partition, middle pivot): the same element a full sort puts at `rank`, in linear time
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (rank <= j) hi = j;
    else if (rank >= i) lo = i;
    else break;
  }
  return a[rank];
}

/** Whether hypot(a, b) < limit, without the slow Math.hypot except within rounding of the limit. */
function hypotBelow(a: number, b: number, limit: number): boolean {
  const s = a * a + b * b;
  const l2 = limit * limit;
  if (s < l2 * (1 - 1e-9)) return true;
  if (s > l2 * (1 + 1e-9)) return false;
  return Math.hypot(a, b) < limit;
}

/** The page features of a decoded picture; null for one under 32 pixels on a side. */
export function documentFeatures(img: RgbImage): DocumentFeatures | null {
  const { w, h, px } = shrink(img);
  if (w < 32 || h < 32) return null;
  const n = w * h;
  const Y = new Float32Array(n);
  for (let j = 0; j < n; j++) Y[j] = 0.299 * px[j * 3] + 0.587 * px[j * 3 + 1] + 0.114 * px[j * 3 + 2];
  const bright = rankValue(Y, Math.min(n - 1, Math.floor(0.9 * n)));
  if (bright < 16) return { strokes: 0, grey: 0, paper: 0, ink: 0 };
  // the paper's cast: the mean colour of the brightest tenth, scaled away so that paper reads grey
  const cast = [0, 0, 0];
  for (let j = 0; j < n; j++) {
    if (Y[j] < bright) continue;
    cast[0] += px[j * 3];
    cast[1] += px[j * 3 + 1];
    cast[2] += px[j * 3 + 2];
  }
  const mean = (cast[0] + cast[1] + cast[2]) / 3;
  const gain = cast.map((c) => (c > 0 ? mean / c : 1));
  // the local paper level: the brightest luma of each BLOCK x BLOCK cell, then the brightest of its 3 x 3 cells, so that
  // a page lit unevenly (a lamp, a curl, a shadow) is judged against the paper around each pixel
  const bw = Math.ceil(w / BLOCK);
  const bh = Math.ceil(h / BLOCK);
  const cell = new Float32Array(bw * bh);
  for (let y = 0; y < h; y++) {
    const row = Math.floor(y / BLOCK) * bw;
    for (let x = 0; x < w; x++) {
      const c = row + Math.floor(x / BLOCK);
      const v = Y[y * w + x];
      if (v > cell[c]) cell[c] = v;
    }
  }
  const level = new Float32Array(bw * bh);
  for (let cy = 0; cy < bh; cy++) {
    for (let cx = 0; cx < bw; cx++) {
      let v = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = cy + dy;
          const xx = cx + dx;
          if (yy >= 0 && yy < bh && xx >= 0 && xx < bw) v = Math.max(v, cell[yy * bw + xx]);
        }
      }
      level[cy * bw + cx] = v;
    }
  }
  const paper = new Uint8Array(n);
  const ink = new Uint8Array(n);
  let greys = 0;
  let papers = 0;
  let inks = 0;
  const [g0, g1, g2] = gain;
  const paperFloor = 0.5 * bright;
  for (let yy = 0, j = 0; yy < h; yy++) {
    const levelRow = Math.floor(yy / BLOCK) * bw;
    for (let xx = 0; xx < w; xx++, j++) {
      const r = px[j * 3] * g0;
      const g = px[j * 3 + 1] * g1;
      const b = px[j * 3 + 2] * g2;
      const y = 0.299 * r + 0.587 * g + 0.114 * b;
      const cb = (b - y) * 0.564;
      const cr = (r - y) * 0.713;
      const local = level[levelRow + Math.floor(xx / BLOCK)];
      const grey = hypotBelow(cb, cr, 20);
      if (grey) greys++;
      if (grey && Y[j] >= 0.85 * local && local >= paperFloor) {
        paper[j] = 1;
        papers++;
      }
      if ((grey || hypotBelow(cb, cr, 25)) && Y[j] < 0.6 * local) {
        ink[j] = 1;
        inks++;
      }
    }
  }
  // paper within REACH: a running count over rows, then over columns (a separable box of side 2 REACH + 1)
  const rows = new Uint16Array(n);
  for (let y = 0; y < h; y++) {
    let run = 0;
    for (let x = -REACH; x < w; x++) {
      if (x + REACH < w) run += paper[y * w + x + REACH];
      if (x - REACH - 1 >= 0) run -= paper[y * w + x - REACH - 1];
      if (x >= 0) rows[y * w + x] = run;
    }
  }
  let strokes = 0;
  for (let x = 0; x < w; x++) {
    let run = 0;
    for (let y = -REACH; y < h; y++) {
      if (y + REACH < h) run += rows[(y + REACH) * w + x];
      if (y - REACH - 1 >= 0) run -= rows[(y - REACH - 1) * w + x];
      if (y >= 0 && ink[y * w + x] && run > 0) strokes++;
    }
  }
  return { strokes: inks ? strokes / inks : 0, grey: greys / n, paper: papers / n, ink: inks / n };
}

export interface DocumentReading {
  features: DocumentFeatures;
  page: boolean;
}

/** Whether the picture is a page of text (a photographed or scanned document); null for a tiny picture. */
export function readDocumentGuard(img: RgbImage): DocumentReading | null {
  const f = documentFeatures(img);
  if (!f) return null;
  const t = DOCUMENT_GUARD;
  return { features: f, page: f.strokes >= t.strokes && f.grey >= t.grey && f.paper >= t.paper && f.ink >= t.ink };
}
