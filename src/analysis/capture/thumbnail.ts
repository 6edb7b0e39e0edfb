// Compares a JPEG's EXIF thumbnail with the image it sits in. A camera makes both from the same exposure; copied
// tags bring another picture's thumbnail along, and an edit (crop, rotation) usually leaves the old one behind.
import exifr from 'exifr';
import sharp, { type Metadata, type Sharp } from 'sharp';

export interface ThumbnailComparison {
  /** Pearson correlation of the two pictures as 16x16 greyscale (-1..1). */
  similarity: number;
  thumbAspect: number;
  imageAspect: number;
  /** The thumbnail's shape (letterbox bars removed where that fits better) matches the image's within ASPECT_TOLERANCE. */
  aspectMatches: boolean;
}

/** Relative difference of aspect ratios still counted as the same shape: thumbnails are rounded to whole pixels. */
export const ASPECT_TOLERANCE = 0.05;
const SIDE = 16;

async function grey(input: Sharp): Promise<Float64Array> {
  const raw = await input.resize(SIDE, SIDE, { fit: 'fill' }).greyscale().raw().toBuffer();
  return Float64Array.from(raw);
}

function correlation(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  // Two flat pictures are the same picture; a flat one against a textured one is not.
  if (da === 0 || db === 0) return da === db ? 1 : 0;
  return num / Math.sqrt(da * db);
}

const relDiff = (a: number, b: number) => Math.abs(a - b) / Math.max(a, b);

/** null when the file has no EXIF thumbnail or it cannot be decoded. Both pictures are compared as stored (unrotated). */
export async function compareThumbnail(buf: Buffer, width: number, height: number): Promise<ThumbnailComparison | null> {
  let thumb: Buffer;
  try {
    const t = await exifr.thumbnail(buf);
    if (!t || t.length < 100) return null;
    thumb = Buffer.from(t);
  } catch {
    return null;
  }
  let meta: Metadata;
  try {
    meta = await sharp(thumb, { failOn: 'none', limitInputPixels: 4_000_000 }).metadata();
  } catch {
    return null;
  }
  if (!meta.width || !meta.height) return null;
  const imageAspect = width / height;
  const rawAspect = meta.width / meta.height;
  // Canon and others letterbox a 3:2 picture into a 160x120 thumbnail: black bars are not part of the picture.
  let trimmed: { left: number; top: number; width: number; height: number } | null = null;
  try {
    const { info } = await sharp(thumb, { failOn: 'none' }).trim({ background: '#000000', threshold: 24 }).toBuffer({ resolveWithObject: true });
    if (info.trimOffsetLeft !== undefined && (info.width !== meta.width || info.height !== meta.height)) {
      trimmed = { left: -(info.trimOffsetLeft ?? 0), top: -(info.trimOffsetTop ?? 0), width: info.width, height: info.height };
    }
  } catch {
    trimmed = null;
  }
  const trimmedAspect = trimmed ? trimmed.width / trimmed.height : rawAspect;
  // Trimming is used only when it fully explains the shape: dark picture edges must not turn a wrong shape right.
  const useTrim = trimmed !== null && relDiff(trimmedAspect, imageAspect) <= ASPECT_TOLERANCE && relDiff(rawAspect, imageAspect) > ASPECT_TOLERANCE;
  const thumbAspect = useTrim ? trimmedAspect : rawAspect;
  const aspectMatches = relDiff(thumbAspect, imageAspect) <= ASPECT_TOLERANCE;
  try {
    let t = sharp(thumb, { failOn: 'none' });
    if (useTrim && trimmed) t = t.extract(trimmed);
    const [a, b] = await Promise.all([grey(t), grey(sharp(buf, { failOn: 'none', limitInputPixels: 268_402_689 }))]);
    return { similarity: correlation(a, b), thumbAspect, imageAspect, aspectMatches };
  } catch {
    return null;
  }
}
