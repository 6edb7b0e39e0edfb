// Thermal camera pictures. A FLIR camera's JPEG shows a false-colour rendering of the temperatures it measured and
// carries the measurement itself: APP1 "FLIR" segments hold an FFF container whose RawData record is the sensor's
// 16-bit image (PNG or raw words). The pixel detector was never trained or calibrated on such pictures, and it reads
// some genuine ones as AI (3 of 23 Wikimedia FLIR pictures and a FLIR ONE phone picture, MODEL_CARD.md); so a
// picture whose displayed colours are explained by the radiometric image it carries is read as a thermal picture, and
// the pixel score decides nothing either way.
//
// Metadata alone never earns that: the segments can be copied onto any picture. What counts is that the picture's
// colours are a function of the recorded values (the camera's palette over its measurement): the share of the
// displayed colour's variance explained by the raw value's bin (the correlation ratio eta squared, 64 quantile bins,
// on the raw image's grid). Genuine FLIR files reach 0.50-0.94 (19 of 24); a picture given another file's radiometric
// data reaches at most 0.32 (each of the 24 with the next one's). What it does not stop: a forger who builds a raw
// image from their own picture's palette indices gets `inconclusive` (never `authentic`) for a picture that looks
// like a thermal image.
import sharp from 'sharp';
import { jpegSegments } from './capture/jpeg-structure.js';
import type { RgbImage } from './decode-image.js';

/** Above this correlation ratio the displayed picture is the rendering of its radiometric data. */
export const THERMAL_AGREEMENT = 0.5;
const BINS = 64;
/** The raw image's pixels at most (FLIR sensors: 80x60 to 1280x1024). */
const MAX_RAW_PIXELS = 4_000_000;
const MIN_RAW_SIDE = 16;

export interface ThermalReading {
  maker: 'FLIR';
  rawWidth: number;
  rawHeight: number;
  /** Correlation ratio of the displayed colours on the raw values (0-1). */
  agreement: number;
  consistent: boolean;
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

const swapped = (v: Uint16Array) => v.map((x) => ((x & 0xff) << 8) | (x >> 8));

/**
 * The thermal reading of a JPEG: null when it carries no FLIR radiometric image that decodes. Most FLIR cameras write
 * their PNG raw data in the wrong byte order, so both orders are tried and the better agreement kept.
 */
export async function readThermal(bytes: Buffer, image: RgbImage): Promise<ThermalReading | null> {
  const fff = flirPayload(bytes);
  if (!fff) return null;
  const rec = flirRawRecord(fff);
  if (!rec) return null;
  const raw = await rawValues(rec);
  if (!raw) return null;
  // the common grid: the raw image's, or the displayed picture's where that is smaller on a side
  const w = Math.min(raw.width, image.width);
  const h = Math.min(raw.height, image.height);
  const colours = onGrid(image, w, h);
  const agreement = Math.max(
    correlationRatio(colours, valuesOnGrid(raw, raw.values, w, h)),
    correlationRatio(colours, valuesOnGrid(raw, swapped(raw.values), w, h)),
  );
  return {
    maker: 'FLIR',
    rawWidth: raw.width,
    rawHeight: raw.height,
    agreement: Math.round(agreement * 1000) / 1000,
    consistent: agreement >= THERMAL_AGREEMENT,
  };
}
