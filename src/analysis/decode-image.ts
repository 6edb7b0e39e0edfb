// Turns an accepted image (its bytes) into the plain 8-bit sRGB RGB pixels the detector reads, with every decoder bounded
// (pixel ceiling checked from the header first, libvips timeout, abort signal) so a hostile file ends in an error.
import sharp, { type Sharp } from 'sharp';
import type { MediaType } from './analysis-results.js';
import { readHeifHeader, readJpegHeader, readPngHeader, type HeaderInfo } from './image-headers.js';

/** DECISIONS 21: more than 100 megapixels is a decompression bomb. */
export const MAX_PIXELS = 100_000_000;
/** DECISIONS 21: fewer than 32 pixels on a side cannot be analysed. */
export const MIN_SIDE = 32;
/** libvips stops a decode that takes longer than this (progressive-scan CPU bombs). */
const DECODE_TIMEOUT_S = 30;
/** The submission-time decode gives up sooner: it must answer within the probe's own wall-clock bound (15 s). */
const PROBE_DECODE_TIMEOUT_S = 10;
/** libvips stops a resize of decoded pixels that takes longer than this (the decode already bounded the pixels). */
export const RESIZE_TIMEOUT_S = 30;
/** Long side of the picture the submission-time decode keeps (every pixel is still decoded, none is stored). */
const PROBE_SIDE = 64;
/** One set of decoder options for the probe and the analysis, so that both refuse exactly the same files. */
const SHARP_INPUT = { limitInputPixels: MAX_PIXELS, failOn: 'truncated', sequentialRead: true } as const;

export interface RgbImage {
  width: number;
  height: number;
  /** width * height * 3 bytes, row-major RGB, sRGB, orientation applied. */
  data: Buffer;
}

export class DecodeError extends Error {}

// libvips threads per pipeline: one, so that analyses in parallel worker processes do not oversubscribe the cores.
sharp.concurrency(1);
sharp.cache(false);

export function readImageHeader(buf: Buffer, mediaType: MediaType): HeaderInfo {
  switch (mediaType) {
    case 'image/jpeg':
      return readJpegHeader(buf);
    case 'image/png':
      return readPngHeader(buf);
    case 'image/heic':
    case 'image/heif':
      return readHeifHeader(buf);
    default:
      throw new DecodeError(`${mediaType} is not an image type`);
  }
}

/** Refuses sizes outside [MIN_SIDE, MAX_PIXELS] with the words the probe and the analysis both use. */
export function checkHeader(h: HeaderInfo): string | null {
  const own = checkDimensions(h.width, h.height);
  if (own) return own;
  if (h.largest && h.largest.width * h.largest.height > MAX_PIXELS) {
    return `an image inside the file declares ${h.largest.width}x${h.largest.height} pixels, over the 100-megapixel limit`;
  }
  return h.defect;
}

export function checkDimensions(width: number, height: number): string | null {
  if (!(width > 0 && height > 0)) return 'the image declares no size';
  if (width * height > MAX_PIXELS) {
    return `the image declares ${width}x${height} pixels (${((width * height) / 1e6).toFixed(0)} megapixels), over the 100-megapixel limit`;
  }
  if (width < MIN_SIDE || height < MIN_SIDE) return `the image is ${width}x${height} pixels, under the 32-pixel minimum on a side`;
  return null;
}

export async function decodeImageBuffer(buf: Buffer, mediaType: MediaType, signal?: AbortSignal): Promise<RgbImage> {
  const header = readImageHeader(buf, mediaType);
  const refusal = checkHeader(header);
  if (refusal) throw new DecodeError(refusal);
  signal?.throwIfAborted();
  if (mediaType === 'image/heic' || mediaType === 'image/heif') return decodeHeif(buf, signal);
  return decodeWithSharp(buf, signal);
}

/** sharp's decode to 8-bit sRGB RGB, with EXIF orientation applied unless `asStored`. */
async function decodeWithSharp(buf: Buffer, signal?: AbortSignal, asStored = false): Promise<RgbImage> {
  const input = sharp(buf, SHARP_INPUT).timeout({ seconds: DECODE_TIMEOUT_S });
  const pipeline = (asStored ? input : input.rotate()) // EXIF orientation
    .toColourspace('srgb') // CMYK, grey, wide-gamut ICC -> sRGB; 16-bit reduced by .raw depth below
    .removeAlpha() // the colour under the alpha, as the model was trained (PIL convert('RGB'))
    .raw({ depth: 'uchar' });
  const { data, info } = await abortable(pipeline.toBuffer({ resolveWithObject: true }), signal);
  if (info.channels !== 3) throw new DecodeError(`decoder produced ${info.channels} channels, expected 3`);
  return { width: info.width, height: info.height, data };
}

/**
 * A JPEG stream inside a PDF (a DCTDecode image XObject) decoded as the analysis decodes a JPEG file, except that its
 * EXIF orientation is not applied (a PDF draws the stream as stored): the same decoder, so the same pixels the model's
 * calibration was measured on. Throws DecodeError for a stream that is not a JPEG the analysis would accept.
 */
export async function decodeJpegStream(buf: Buffer, signal?: AbortSignal): Promise<RgbImage> {
  let header: HeaderInfo;
  try {
    header = readJpegHeader(buf);
  } catch (err) {
    throw new DecodeError((err as Error).message);
  }
  const refusal = checkHeader(header);
  if (refusal) throw new DecodeError(refusal);
  signal?.throwIfAborted();
  return decodeWithSharp(buf, signal, true);
}

/**
 * The submission-time decode (DECISIONS 21: a file that cannot be decoded is refused before it becomes a job). Call
 * it only after checkHeader() passed: it decodes every pixel with the analysis' own decoder and options, so a file
 * it accepts is one the analysis can decode, but keeps only a PROBE_SIDE picture: a JPEG is decoded at 1/8 scale
 * (its entropy-coded data is still read in full) and other images are shrunk row by row as they are decoded, so
 * memory stays near one strip of rows. HEIF has no reduced decode: it is decoded whole, as the analysis does.
 * Throws DecodeError for a file that cannot be decoded.
 */
export async function checkDecodes(buf: Buffer, mediaType: MediaType, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (mediaType === 'image/heic' || mediaType === 'image/heif') {
    await decodeHeifRgba(buf, signal);
    return;
  }
  const pipeline = sharp(buf, SHARP_INPUT)
    .timeout({ seconds: PROBE_DECODE_TIMEOUT_S })
    .rotate()
    .toColourspace('srgb')
    .removeAlpha()
    .resize(PROBE_SIDE, PROBE_SIDE, { fit: 'inside', withoutEnlargement: true })
    .raw({ depth: 'uchar' });
  try {
    await abortable(pipeline.toBuffer(), signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    // libvips repeats its message once per line of the failing call chain: the first line says it.
    throw new DecodeError(`the image cannot be decoded: ${String((err as Error).message).split('\n')[0]}`);
  }
}

/** Long side of a preview at most (the window's viewer and the case report read it; never the stored original). */
export const PREVIEW_MAX_SIDE = 2048;

export interface PreviewImage {
  /** PNG for a PNG original (lossless graphics, transparency kept), JPEG otherwise. */
  mediaType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  data: Buffer;
}

/**
 * A picture of the image made by the core itself, for clients that cannot decode the original (browsers and HEIC):
 * decoded with the analysis' own bounded decoder (header checked first, libvips timeout, abort), EXIF orientation
 * applied, at most `maxSide` on its longest side, sRGB, and written fresh so that no metadata of the original is in it.
 */
export async function renderImagePreview(buf: Buffer, mediaType: MediaType, maxSide = PREVIEW_MAX_SIDE, signal?: AbortSignal): Promise<PreviewImage> {
  const header = readImageHeader(buf, mediaType);
  const refusal = checkHeader(header);
  if (refusal) throw new DecodeError(refusal);
  signal?.throwIfAborted();
  let pipeline: Sharp;
  if (mediaType === 'image/heic' || mediaType === 'image/heif') {
    // libvips here has no HEVC: the WebAssembly libheif decodes it (irot/imir applied), sharp only resizes its pixels.
    const img = await decodeHeifRgba(buf, signal);
    const rgba = Buffer.from(img.data.buffer, img.data.byteOffset, img.width * img.height * 4);
    pipeline = sharp(rgba, { raw: { width: img.width, height: img.height, channels: 4 } }).removeAlpha();
  } else {
    pipeline = sharp(buf, SHARP_INPUT).timeout({ seconds: DECODE_TIMEOUT_S }).rotate();
  }
  pipeline = pipeline
    .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb');
  // sharp writes no metadata unless asked (no withMetadata/keepExif): EXIF, XMP, ICC and text chunks are dropped.
  pipeline = mediaType === 'image/png' ? pipeline.png({ compressionLevel: 6 }) : pipeline.jpeg({ quality: 85, mozjpeg: false });
  try {
    const { data, info } = await abortable(pipeline.toBuffer({ resolveWithObject: true }), signal);
    return { mediaType: mediaType === 'image/png' ? 'image/png' : 'image/jpeg', width: info.width, height: info.height, data };
  } catch (err) {
    if (signal?.aborted || err instanceof DecodeError) throw err;
    throw new DecodeError(`the image cannot be decoded: ${String((err as Error).message).split('\n')[0]}`);
  }
}

interface HeicImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}
type HeicDecode = (opts: { buffer: Uint8Array }) => Promise<HeicImage>;

async function decodeHeifRgba(buf: Buffer, signal?: AbortSignal): Promise<HeicImage> {
  // heic-decode is libheif compiled to WebAssembly (HEVC-capable, unlike sharp's prebuilt libvips); it applies
  // the irot/imir transforms and yields RGBA.
  const mod = (await import('heic-decode')) as { default: HeicDecode };
  let img: HeicImage;
  try {
    img = await abortable(mod.default({ buffer: buf }), signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new DecodeError(`the HEIF image cannot be decoded: ${(err as Error).message}`);
  }
  if (!(img.width * img.height > 0) || img.data.length < img.width * img.height * 4) throw new DecodeError('the HEIF decoder returned no pixels');
  return img;
}

async function decodeHeif(buf: Buffer, signal?: AbortSignal): Promise<RgbImage> {
  const img = await decodeHeifRgba(buf, signal);
  const n = img.width * img.height;
  const rgb = Buffer.allocUnsafe(n * 3);
  const src = img.data;
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    rgb[i * 3] = src[j];
    rgb[i * 3 + 1] = src[j + 1];
    rgb[i * 3 + 2] = src[j + 2];
  }
  return { width: img.width, height: img.height, data: rgb };
}

/** Rejects as soon as the signal aborts (the underlying native work finishes or times out on its own). */
export function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
