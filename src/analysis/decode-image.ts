// Turns an accepted image file into the plain 8-bit sRGB RGB pixels the detector reads, with every decoder bounded
// (pixel ceiling checked from the header first, libvips timeout, abort signal) so a hostile file ends in an error.
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { MediaType } from './contract.js';
import { readHeifHeader, readJpegHeader, readPngHeader, type HeaderInfo } from './image-headers.js';

/** DECISIONS 21: more than 100 megapixels is a decompression bomb. */
export const MAX_PIXELS = 100_000_000;
/** DECISIONS 21: fewer than 32 pixels on a side cannot be analysed. */
export const MIN_SIDE = 32;
/** libvips stops a decode that takes longer than this (progressive-scan CPU bombs). */
const DECODE_TIMEOUT_S = 30;

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

export async function decodeImage(path: string, mediaType: MediaType, signal?: AbortSignal): Promise<RgbImage> {
  const buf = await readFile(path, { signal });
  return decodeImageBuffer(buf, mediaType, signal);
}

export async function decodeImageBuffer(buf: Buffer, mediaType: MediaType, signal?: AbortSignal): Promise<RgbImage> {
  const header = readImageHeader(buf, mediaType);
  const refusal = checkHeader(header);
  if (refusal) throw new DecodeError(refusal);
  signal?.throwIfAborted();
  if (mediaType === 'image/heic' || mediaType === 'image/heif') return decodeHeif(buf, signal);
  return decodeWithSharp(buf, signal);
}

async function decodeWithSharp(buf: Buffer, signal?: AbortSignal): Promise<RgbImage> {
  const pipeline = sharp(buf, { limitInputPixels: MAX_PIXELS, failOn: 'truncated', sequentialRead: true })
    .timeout({ seconds: DECODE_TIMEOUT_S })
    .rotate() // EXIF orientation
    .toColourspace('srgb') // CMYK, grey, wide-gamut ICC -> sRGB; 16-bit reduced by .raw depth below
    .removeAlpha() // the colour under the alpha, as the model was trained (PIL convert('RGB'))
    .raw({ depth: 'uchar' });
  const { data, info } = await abortable(pipeline.toBuffer({ resolveWithObject: true }), signal);
  if (info.channels !== 3) throw new DecodeError(`decoder produced ${info.channels} channels, expected 3`);
  return { width: info.width, height: info.height, data };
}

interface HeicImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}
type HeicDecode = (opts: { buffer: Uint8Array }) => Promise<HeicImage>;

async function decodeHeif(buf: Buffer, signal?: AbortSignal): Promise<RgbImage> {
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
  const n = img.width * img.height;
  if (!(n > 0) || img.data.length < n * 4) throw new DecodeError('the HEIF decoder returned no pixels');
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
