// Compares a JPEG's EXIF thumbnail with the image it sits in. A camera makes both from the same exposure; copied
// tags bring another picture's thumbnail along, and an edit (crop) usually leaves the old one behind.
//
// Both pictures are compared as the file stores them, never as EXIF orientation displays them: a camera or phone
// writes the thumbnail and the picture in the sensor's orientation and one Orientation tag for both, so a portrait
// phone photo (Orientation 6 or 8) stores a landscape thumbnail beside landscape pixels. The stored size is read
// here from the bytes, so no caller's idea of "width" can turn the comparison (issue 22: the oriented size was
// compared with the stored thumbnail and every portrait original read as cropped). Some programs turn the pixels
// and leave the thumbnail, or write the thumbnail as displayed: the thumbnail is also compared with the picture
// turned and mirrored in the seven other ways, so that a thumbnail showing the same picture is never called
// another picture or another shape.
import exifr from 'exifr';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { readJpegStructure } from './jpeg-structure.js';

export interface ThumbnailComparison {
  /** Pearson correlation of the thumbnail and the stored picture as 16x16 greyscale (-1..1); null when their shapes differ. */
  similarity: number | null;
  /**
   * The best correlation with the picture turned or mirrored (EXIF orientations 2-8 applied to the stored pixels)
   * among those whose shape the thumbnail has, and that orientation; null when no such shape fits.
   */
  turned: { similarity: number; orientation: number } | null;
  /**
   * When the thumbnail has neither shape: the best correlation of the whole thumbnail with the picture in any
   * orientation, both squeezed to 16x16 (a camera that squeezes rather than letterboxes); null otherwise.
   */
  squeezed: number | null;
  thumbAspect: number;
  /** The stored picture's width / height. */
  imageAspect: number;
  /** The thumbnail's shape (letterbox bars removed where that fits better) matches the stored picture's within ASPECT_TOLERANCE. */
  aspectMatches: boolean;
  /** It matches the picture's shape turned a quarter (height / width). */
  turnedAspectMatches: boolean;
  /**
   * The thumbnail carries a JFIF header: a program encoded it (libjpeg and its kin write one first). Cameras store
   * the thumbnail as a bare JPEG stream in the EXIF block; 1 of the corpus's 326 consistent originals has one (a FLIR).
   */
  jfif: boolean;
}

/** Relative difference of aspect ratios still counted as the same shape: thumbnails are rounded to whole pixels. */
export const ASPECT_TOLERANCE = 0.05;
const SIDE = 16;

async function grey(input: Sharp): Promise<Float64Array> {
  const raw = await input.resize(SIDE, SIDE, { fit: 'fill' }).greyscale().raw().toBuffer();
  return Float64Array.from(raw);
}

/**
 * The SIDE x SIDE grid of the stored picture as EXIF orientation `o` displays it. Resizing to a square commutes with
 * turning and mirroring, so the stored picture is decoded once.
 */
export function oriented(g: Float64Array, o: number): Float64Array {
  const n = SIDE;
  const out = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      let sy = y;
      let sx = x;
      switch (o) {
        case 2: sx = n - 1 - x; break; // mirrored left to right
        case 3: sy = n - 1 - y; sx = n - 1 - x; break; // turned 180
        case 4: sy = n - 1 - y; break; // mirrored top to bottom
        case 5: sy = x; sx = y; break; // transposed
        case 6: sy = n - 1 - x; sx = y; break; // turned 90 clockwise
        case 7: sy = n - 1 - x; sx = n - 1 - y; break; // transverse
        case 8: sy = x; sx = n - 1 - y; break; // turned 90 anticlockwise
        default: break;
      }
      out[y * n + x] = g[sy * n + sx];
    }
  }
  return out;
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

interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Bars darker than this on average (0-255), and this even (standard deviation), are letterbox bars, not picture. */
const BAR_MEAN = 32;
const BAR_SPREAD = 12;

/**
 * The centred box of `target` shape in the thumbnail when the rest of it is dark, even bars at least 2 pixels high
 * (or wide) on each side; null otherwise. The pixel next to the picture is left out of the bars (JPEG ringing).
 */
function letterbox(g: { data: Buffer; width: number; height: number }, target: number): Region | null {
  const { width: w, height: h, data } = g;
  const wide = w / h > target;
  const box: Region = wide
    ? { left: Math.round((w - h * target) / 2), top: 0, width: Math.round(h * target), height: h }
    : { left: 0, top: Math.round((h - w / target) / 2), width: w, height: Math.round(w / target) };
  const barSize = wide ? box.left : box.top;
  if (barSize < 2 || box.width < 8 || box.height < 8) return null;
  let n = 0;
  let sum = 0;
  let sq = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const inBar = wide ? x < box.left - 1 || x > box.left + box.width : y < box.top - 1 || y > box.top + box.height;
      if (!inBar) continue;
      const v = data[y * w + x];
      n++;
      sum += v;
      sq += v * v;
    }
  }
  if (n === 0) return null;
  const mean = sum / n;
  const spread = Math.sqrt(Math.max(0, sq / n - mean * mean));
  return mean <= BAR_MEAN && spread <= BAR_SPREAD ? box : null;
}

/** null when the file has no EXIF thumbnail, or it or the picture cannot be decoded. */
export async function compareThumbnail(buf: Buffer): Promise<ThumbnailComparison | null> {
  let thumb: Buffer;
  try {
    const t = await exifr.thumbnail(buf);
    if (!t || t.length < 100) return null;
    thumb = Buffer.from(t);
  } catch {
    return null;
  }
  let meta: Metadata;
  let stored: Metadata;
  try {
    meta = await sharp(thumb, { failOn: 'none', limitInputPixels: 4_000_000 }).metadata();
    // The header's size is the stored one (sharp applies no orientation unless asked to rotate).
    stored = await sharp(buf, { failOn: 'none', limitInputPixels: 268_402_689 }).metadata();
  } catch {
    return null;
  }
  if (!meta.width || !meta.height || !stored.width || !stored.height) return null;
  const imageAspect = stored.width / stored.height;
  const rawAspect = meta.width / meta.height;
  // Canon and others letterbox a 3:2 picture into a 160x120 thumbnail: black bars are not part of the picture.
  let trimmed: Region | null = null;
  try {
    const { info } = await sharp(thumb, { failOn: 'none' }).trim({ background: '#000000', threshold: 24 }).toBuffer({ resolveWithObject: true });
    if (info.trimOffsetLeft !== undefined && (info.width !== meta.width || info.height !== meta.height)) {
      trimmed = { left: -(info.trimOffsetLeft ?? 0), top: -(info.trimOffsetTop ?? 0), width: info.width, height: info.height };
    }
  } catch {
    trimmed = null;
  }
  const trimmedAspect = trimmed ? trimmed.width / trimmed.height : rawAspect;
  const whole: Region = { left: 0, top: 0, width: meta.width, height: meta.height };
  let greyThumb: { data: Buffer; width: number; height: number } | null = null;
  try {
    const { data, info } = await sharp(thumb, { failOn: 'none' }).greyscale().raw().toBuffer({ resolveWithObject: true });
    greyThumb = { data, width: info.width, height: info.height };
  } catch {
    greyThumb = null;
  }
  // Per target shape, the part of the thumbnail that is the picture: all of it, the part left by trimming black
  // edges, or the centred box of the target's shape when everything around it is a dark bar (Nikon and others
  // letterbox a 3:2 picture into 160x120; trimming fails there when the picture's own edges are dark). Trimming is
  // used only when it fully explains the shape: dark picture edges must not turn a wrong shape right.
  const fit = (target: number): Region | null => {
    if (relDiff(rawAspect, target) <= ASPECT_TOLERANCE) return whole;
    if (trimmed && relDiff(trimmedAspect, target) <= ASPECT_TOLERANCE) return trimmed;
    return greyThumb ? letterbox(greyThumb, target) : null;
  };
  const asStored = fit(imageAspect);
  const quarter = fit(1 / imageAspect);
  const shapeOf = (r: Region) => r.width / r.height;
  const shown = asStored ? shapeOf(asStored) : quarter ? shapeOf(quarter) : rawAspect;
  try {
    const picture = await grey(sharp(buf, { failOn: 'none', limitInputPixels: 268_402_689 }));
    const thumbGrids = new Map<Region, Float64Array>();
    const thumbGrid = async (r: Region) => {
      if (!thumbGrids.has(r)) {
        let t = sharp(thumb, { failOn: 'none' });
        if (r !== whole) t = t.extract(r);
        thumbGrids.set(r, await grey(t));
      }
      return thumbGrids.get(r)!;
    };
    const similarity = asStored ? correlation(await thumbGrid(asStored), picture) : null;
    let turned: ThumbnailComparison['turned'] = null;
    for (let o = 2; o <= 8; o++) {
      const how = o >= 5 ? quarter : asStored;
      if (!how) continue;
      const s = correlation(await thumbGrid(how), oriented(picture, o));
      if (!turned || s > turned.similarity) turned = { similarity: s, orientation: o };
    }
    // Of neither shape: how well the whole thumbnail, squeezed to the picture's shape, matches it in any orientation
    // (some cameras squeeze a 3:2 picture into 160x120 rather than letterbox it).
    let squeezed: number | null = null;
    if (!asStored && !quarter) {
      const g = await thumbGrid(whole);
      for (let o = 1; o <= 8; o++) squeezed = Math.max(squeezed ?? -1, correlation(g, o === 1 ? picture : oriented(picture, o)));
    }
    const jfif = readJpegStructure(thumb).jfif;
    return { similarity, turned, squeezed, thumbAspect: shown, imageAspect, aspectMatches: asStored !== null, turnedAspectMatches: quarter !== null, jfif };
  } catch {
    return null;
  }
}
