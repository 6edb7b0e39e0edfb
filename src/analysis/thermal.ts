// Thermal camera pictures. A radiometric thermal JPEG shows a false-colour rendering of the temperatures its camera
// measured and carries the measurement itself: a FLIR camera's APP1 "FLIR" segments hold an FFF container whose
// RawData record is the sensor's 16-bit image (PNG or raw words); a DJI R-JPEG (Zenmuse H20T/H30T/XT S, Mavic 2/3
// Enterprise, M30T, Matrice 4T) splits the sensor's 16-bit little-endian image over APP3 segments (APP4 on older
// models), at the picture's size or half of it. The pixel detector was never trained or calibrated on such pictures,
// and it reads some genuine ones as AI (3 of 23 Wikimedia FLIR pictures, a FLIR ONE phone picture, 1-2 of 78 DJI
// drone pictures; MODEL_CARD.md); so a picture whose displayed colours are explained by the radiometric image it
// carries is read as a thermal picture, and the pixel score decides nothing either way.
//
// Metadata alone never earns that: the segments can be copied onto any picture. What counts is that the picture's
// colours are a function of the recorded values (the camera's palette over its measurement): the share of the
// displayed colour's variance explained by the raw value's bin (the correlation ratio eta squared, 64 quantile bins,
// on the raw image's grid), over the whole picture and, as the median of a 4 x 4 grid of blocks, locally; for DJI
// also in fine detail (the median block |correlation| of luma and raw values less their 7 x 7 box mean). The whole
// picture alone is not enough: aerial thermal scenes share their layout (cold sky above warm ground), and a DJI
// picture given another flight's radiometric data reached 0.88 over the whole picture and 0.64 locally, while fine
// detail never lines up between two scenes (at most 0.016). Measured (test/eval/thermal-agreement.ts): genuine DJI
// 68 of 78 and FLIR 29 of 33 read as thermal, forged pairings 0 of 385 and 0 of 165. What it does not stop: a forger
// who builds a raw image from their own picture's palette indices gets `inconclusive` (never `authentic`) for a
// picture that looks like a thermal image.
import sharp from 'sharp';
import { jpegSegments } from './capture/jpeg-structure.js';
import type { RgbImage } from './decode-image.js';

/** Above this correlation ratio (whole picture) and LOCAL_AGREEMENT (median block) the displayed picture is the rendering of its radiometric data. */
export const THERMAL_AGREEMENT = 0.5;
export const LOCAL_AGREEMENT = 0.3;
/** Below this median block correlation of fine detail the picture's detail is not its data's (DJI only). */
export const DETAIL_AGREEMENT = 0.05;
const BLOCKS = 4;
/** The box blur's side whose residual is the fine detail compared. */
const DETAIL_BOX = 7;
const BINS = 64;
/** The raw image's pixels at most (FLIR sensors: 80x60 to 1280x1024). */
const MAX_RAW_PIXELS = 4_000_000;
const MIN_RAW_SIDE = 16;

export interface ThermalReading {
  /** The radiometric layout found: FLIR's FFF container or DJI's R-JPEG segments. */
  maker: 'FLIR' | 'DJI';
  rawWidth: number;
  rawHeight: number;
  /** Correlation ratio of the displayed colours on the raw values over the whole picture (0-1). */
  agreement: number;
  /** The median of the same ratio within each block of a 4 x 4 grid (0-1). */
  localAgreement: number;
  /** The median over the same blocks of |Pearson correlation| of fine detail (luma and raw values less their 7 x 7 box mean). */
  detailAgreement: number;
  consistent: boolean;
}

/**
 * A DJI R-JPEG's radiometric image: the concatenated payloads of its APP3 segments (APP4 on older models), when they
 * hold exactly one 16-bit little-endian word per pixel of the picture (w x h) or of its half (the 1280 x 1024
 * "super-resolution" pictures keep the 640 x 512 measurement). Null otherwise.
 */
export function djiRawImage(bytes: Buffer, w: number, h: number): { width: number; height: number; values: Uint16Array } | null {
  const parts: Record<number, Buffer[]> = { 0xe3: [], 0xe4: [] };
  let total = 0;
  for (const { marker, start, end } of jpegSegments(bytes)) {
    if (marker !== 0xe3 && marker !== 0xe4) continue;
    parts[marker].push(bytes.subarray(start, end));
    total += end - start;
    if (total > MAX_RAW_PIXELS * 2 * 2) return null;
  }
  for (const marker of [0xe3, 0xe4]) {
    const len = parts[marker].reduce((n, b) => n + b.length, 0);
    for (const [rw, rh] of [
      [w, h],
      [Math.floor(w / 2), Math.floor(h / 2)],
    ]) {
      if (rw < MIN_RAW_SIDE || rh < MIN_RAW_SIDE || rw * rh > MAX_RAW_PIXELS || len !== rw * rh * 2) continue;
      const body = Buffer.concat(parts[marker]);
      const values = new Uint16Array(rw * rh);
      for (let j = 0; j < values.length; j++) values[j] = body.readUInt16LE(j * 2);
      return { width: rw, height: rh, values };
    }
  }
  return null;
}

/** The concatenated payload of a JPEG's APP1 "FLIR\0" segments (in their index order), or null. */
export function flirPayload(bytes: Buffer): Buffer | null {
  const chunks = new Map<number, Buffer>();
  for (const { marker, start, end } of jpegSegments(bytes)) {
    const seg = bytes.subarray(start, end);
    if (marker === 0xe1 && seg.length > 8 && seg.toString('latin1', 0, 5) === 'FLIR\0' && !chunks.has(seg[6])) chunks.set(seg[6], seg.subarray(8));
  }
  if (!chunks.size) return null;
  return Buffer.concat([...chunks.keys()].sort((x, y) => x - y).map((k) => chunks.get(k)!));
}

interface RawRecord {
  width: number;
  height: number;
  body: Buffer;
  littleEndian: boolean;
}

/** The FFF container's first RawData record (type 1), bounds-checked; null when there is none or it is malformed. */
export function flirRawRecord(fff: Buffer): RawRecord | null {
  if (fff.length < 0x40) return null;
  const magic = fff.subarray(0, 4).toString('latin1');
  if (magic !== 'FFF\0' && magic !== 'AFF\0') return null;
  let le: boolean;
  if (fff.readUInt32BE(0x14) >= 100 && fff.readUInt32BE(0x14) < 200) le = false;
  else if (fff.readUInt32LE(0x14) >= 100 && fff.readUInt32LE(0x14) < 200) le = true;
  else return null;
  const u16 = (b: Buffer, o: number, little: boolean) => (little ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? fff.readUInt32LE(o) : fff.readUInt32BE(o));
  const dir = u32(0x18);
  const count = u32(0x1c);
  if (count > 1024 || dir + count * 32 > fff.length) return null;
  for (let k = 0; k < count; k++) {
    const e = dir + k * 32;
    if (u16(fff, e, le) !== 1) continue;
    const off = u32(e + 0x0c);
    const len = u32(e + 0x10);
    if (len <= 32 || off + len > fff.length) return null;
    const rec = fff.subarray(off, off + len);
    // the record's own byte order: its first word reads 2 in it
    const little = rec.readUInt16LE(0) === 2;
    const width = u16(rec, 2, little);
    const height = u16(rec, 4, little);
    if (width < MIN_RAW_SIDE || height < MIN_RAW_SIDE || width * height > MAX_RAW_PIXELS) return null;
    return { width, height, body: rec.subarray(32), littleEndian: little };
  }
  return null;
}

/** The raw record's 16-bit values, row-major, in the order they decode; null when they do not. */
async function rawValues(rec: RawRecord): Promise<{ width: number; height: number; values: Uint16Array } | null> {
  if (rec.body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    try {
      const { data, info } = await sharp(rec.body, { limitInputPixels: MAX_RAW_PIXELS })
        .toColourspace('grey16') // 16 bits kept (without it sharp reduces the values to 8 bits)
        .raw({ depth: 'ushort' })
        .toBuffer({ resolveWithObject: true });
      if (info.width !== rec.width || info.height !== rec.height) return null;
      const values = new Uint16Array(info.width * info.height);
      for (let j = 0; j < values.length; j++) values[j] = data.readUInt16LE(j * 2);
      return { width: info.width, height: info.height, values };
    } catch {
      return null;
    }
  }
  const n = rec.width * rec.height;
  if (rec.body.length < n * 2) return null;
  const values = new Uint16Array(n);
  for (let j = 0; j < n; j++) values[j] = rec.littleEndian ? rec.body.readUInt16LE(j * 2) : rec.body.readUInt16BE(j * 2);
  return { width: rec.width, height: rec.height, values };
}

/** Raw values averaged onto a w x h grid no larger than theirs. */
function valuesOnGrid(raw: { width: number; height: number }, values: Uint16Array, w: number, h: number): Float64Array {
  const sum = new Float64Array(w * h);
  const cnt = new Float64Array(w * h);
  for (let y = 0; y < raw.height; y++) {
    const gy = Math.min(h - 1, Math.floor((y * h) / raw.height));
    for (let x = 0; x < raw.width; x++) {
      const c = gy * w + Math.min(w - 1, Math.floor((x * w) / raw.width));
      sum[c] += values[y * raw.width + x];
      cnt[c]++;
    }
  }
  for (let c = 0; c < w * h; c++) sum[c] /= Math.max(1, cnt[c]);
  return sum;
}

/** The displayed picture averaged onto a w x h grid no larger than it (each pixel into the cell it falls in). */
function onGrid(img: RgbImage, w: number, h: number): Float64Array {
  const sum = new Float64Array(w * h * 3);
  const cnt = new Float64Array(w * h);
  for (let y = 0; y < img.height; y++) {
    const gy = Math.min(h - 1, Math.floor((y * h) / img.height));
    for (let x = 0; x < img.width; x++) {
      const gx = Math.min(w - 1, Math.floor((x * w) / img.width));
      const c = gy * w + gx;
      const o = (y * img.width + x) * 3;
      sum[c * 3] += img.data[o];
      sum[c * 3 + 1] += img.data[o + 1];
      sum[c * 3 + 2] += img.data[o + 2];
      cnt[c]++;
    }
  }
  for (let c = 0; c < w * h; c++) {
    const k = Math.max(1, cnt[c]);
    sum[c * 3] /= k;
    sum[c * 3 + 1] /= k;
    sum[c * 3 + 2] /= k;
  }
  return sum;
}

/** Share of the colours' variance (RGB, on the common grid) explained by the values' quantile bin. */
export function correlationRatio(colours: Float64Array, values: ArrayLike<number>): number {
  const n = values.length;
  const sorted = Float64Array.from(values).sort();
  const cuts = Array.from({ length: BINS - 1 }, (_, k) => sorted[Math.min(n - 1, Math.floor(((k + 1) * n) / BINS))]);
  const bin = (v: number) => {
    let lo = 0;
    let hi = cuts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cuts[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const bsum = new Float64Array(BINS * 3);
  const bcnt = new Float64Array(BINS);
  const mean = [0, 0, 0];
  const bins = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    const b = bin(values[j]);
    bins[j] = b;
    bcnt[b]++;
    for (let c = 0; c < 3; c++) {
      bsum[b * 3 + c] += colours[j * 3 + c];
      mean[c] += colours[j * 3 + c];
    }
  }
  for (let c = 0; c < 3; c++) mean[c] /= n;
  let total = 0;
  let within = 0;
  for (let j = 0; j < n; j++) {
    const b = bins[j];
    for (let c = 0; c < 3; c++) {
      const v = colours[j * 3 + c];
      total += (v - mean[c]) ** 2;
      within += (v - bsum[b * 3 + c] / bcnt[b]) ** 2;
    }
  }
  return total > 1e-9 ? 1 - within / total : 0;
}

/** The median over a BLOCKS x BLOCKS grid of a w x h raster of what `measure` says of each block (null: left out). */
function blockMedian(w: number, h: number, measure: (x0: number, x1: number, y0: number, y1: number) => number | null): number {
  const found: number[] = [];
  for (let by = 0; by < BLOCKS; by++) {
    for (let bx = 0; bx < BLOCKS; bx++) {
      const x0 = Math.floor((bx * w) / BLOCKS);
      const x1 = Math.floor(((bx + 1) * w) / BLOCKS);
      const y0 = Math.floor((by * h) / BLOCKS);
      const y1 = Math.floor(((by + 1) * h) / BLOCKS);
      if ((y1 - y0) * (x1 - x0) < 2 * BINS) continue;
      const m = measure(x0, x1, y0, y1);
      if (m !== null) found.push(m);
    }
  }
  if (!found.length) return 0;
  found.sort((a, b) => a - b);
  const m = found.length >> 1;
  return found.length % 2 ? found[m] : (found[m - 1] + found[m]) / 2;
}

/** The median over the blocks of the correlation ratio within each block (blocks without colour variation left out). */
export function localCorrelationRatio(colours: Float64Array, values: Float64Array, w: number, h: number): number {
  return blockMedian(w, h, (x0, x1, y0, y1) => {
    const n = (y1 - y0) * (x1 - x0);
    const c = new Float64Array(n * 3);
    const v = new Float64Array(n);
    let k = 0;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++, k++) {
        const j = y * w + x;
        v[k] = values[j];
        c[k * 3] = colours[j * 3];
        c[k * 3 + 1] = colours[j * 3 + 1];
        c[k * 3 + 2] = colours[j * 3 + 2];
      }
    }
    return hasVariance(c) ? correlationRatio(c, v) : null;
  });
}

/** a less its DETAIL_BOX x DETAIL_BOX box mean (clipped at the edges), via a summed-area table. */
function detail(a: Float64Array, w: number, h: number): Float64Array {
  const sat = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += a[y * w + x];
      sat[(y + 1) * (w + 1) + x + 1] = sat[y * (w + 1) + x + 1] + row;
    }
  }
  const r = DETAIL_BOX >> 1;
  const out = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(0, y - r);
    const y1 = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.max(0, x - r);
      const x1 = Math.min(w, x + r + 1);
      const sum = sat[y1 * (w + 1) + x1] - sat[y0 * (w + 1) + x1] - sat[y1 * (w + 1) + x0] + sat[y0 * (w + 1) + x0];
      out[y * w + x] = a[y * w + x] - sum / ((y1 - y0) * (x1 - x0));
    }
  }
  return out;
}

/** The median over the blocks of |Pearson correlation| between the fine detail of luma and of the values. */
export function detailCorrelation(colours: Float64Array, values: Float64Array, w: number, h: number): number {
  const luma = new Float64Array(w * h);
  for (let j = 0; j < w * h; j++) luma[j] = 0.299 * colours[j * 3] + 0.587 * colours[j * 3 + 1] + 0.114 * colours[j * 3 + 2];
  const a = detail(luma, w, h);
  const b = detail(values, w, h);
  return blockMedian(w, h, (x0, x1, y0, y1) => {
    let n = 0;
    let sa = 0;
    let sb = 0;
    let saa = 0;
    let sbb = 0;
    let sab = 0;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const u = a[y * w + x];
        const v = b[y * w + x];
        n++;
        sa += u;
        sb += v;
        saa += u * u;
        sbb += v * v;
        sab += u * v;
      }
    }
    const va = saa - (sa * sa) / n;
    const vb = sbb - (sb * sb) / n;
    return va <= 1e-9 || vb <= 1e-9 ? null : Math.abs((sab - (sa * sb) / n) / Math.sqrt(va * vb));
  });
}

function hasVariance(c: Float64Array): boolean {
  for (let j = 3; j < c.length; j++) if (Math.abs(c[j] - c[j % 3]) > 1e-6) return true;
  return false;
}

const swapped = (v: Uint16Array) => v.map((x) => ((x & 0xff) << 8) | (x >> 8));

/**
 * The thermal reading of a JPEG: null when it carries no FLIR or DJI radiometric image that decodes. Most FLIR cameras
 * write their PNG raw data in the wrong byte order, so both orders are tried and the better agreement kept.
 */
export async function readThermal(bytes: Buffer, image: RgbImage): Promise<ThermalReading | null> {
  let maker: ThermalReading['maker'] = 'FLIR';
  let raw: { width: number; height: number; values: Uint16Array } | null = null;
  const fff = flirPayload(bytes);
  if (fff) {
    const rec = flirRawRecord(fff);
    raw = rec ? await rawValues(rec) : null;
  } else {
    maker = 'DJI';
    raw = djiRawImage(bytes, image.width, image.height);
  }
  if (!raw) return null;
  // the common grid: the raw image's, or the displayed picture's where that is smaller on a side
  const w = Math.min(raw.width, image.width);
  const h = Math.min(raw.height, image.height);
  const colours = onGrid(image, w, h);
  let best = { agreement: -1, local: 0, detail: 0 };
  for (const values of [raw.values, swapped(raw.values)]) {
    const grid = valuesOnGrid(raw, values, w, h);
    const agreement = correlationRatio(colours, grid);
    if (agreement > best.agreement) {
      best = { agreement, local: localCorrelationRatio(colours, grid, w, h), detail: detailCorrelation(colours, grid, w, h) };
    }
  }
  return {
    maker,
    rawWidth: raw.width,
    rawHeight: raw.height,
    agreement: Math.round(best.agreement * 1000) / 1000,
    localAgreement: Math.round(best.local * 1000) / 1000,
    detailAgreement: Math.round(best.detail * 1000) / 1000,
    consistent:
      best.agreement >= THERMAL_AGREEMENT &&
      best.local >= LOCAL_AGREEMENT &&
      (maker !== 'DJI' || best.detail >= DETAIL_AGREEMENT),
  };
}
