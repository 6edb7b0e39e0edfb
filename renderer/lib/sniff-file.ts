// Decides in the browser, from a file's first bytes, whether it is an image or a PDF (the same magic-number rules
// as the core, DECISIONS 20), so each file goes to the right application and others are refused before sending.
import type { MediaType, PipelineKind } from '../../src/api/schemas.js';

export const SNIFF_BYTES = 64;

export interface SniffedKind {
  mediaType: MediaType;
  kind: PipelineKind;
}

const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs']);
const HEIF_BRANDS = new Set(['mif1', 'msf1']);

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

export function sniffBytes(head: Uint8Array): SniffedKind | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { mediaType: 'image/jpeg', kind: 'images' };
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (head.length >= 8 && png.every((b, i) => head[i] === b)) return { mediaType: 'image/png', kind: 'images' };
  if (head.length >= 5 && ascii(head, 0, 5) === '%PDF-') return { mediaType: 'application/pdf', kind: 'pdfs' };
  return sniffHeif(head);
}

function sniffHeif(head: Uint8Array): SniffedKind | null {
  if (head.length < 16 || ascii(head, 4, 8) !== 'ftyp') return null;
  const boxSize = ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0;
  if (boxSize < 16) return null;
  const end = Math.min(boxSize, head.length);
  const brands = [ascii(head, 8, 12)];
  for (let off = 16; off + 4 <= end; off += 4) brands.push(ascii(head, off, off + 4));
  const major = brands[0];
  const anyHeic = brands.some((b) => HEIC_BRANDS.has(b));
  if (HEIC_BRANDS.has(major)) return { mediaType: 'image/heic', kind: 'images' };
  if (HEIF_BRANDS.has(major)) return { mediaType: anyHeic ? 'image/heic' : 'image/heif', kind: 'images' };
  if (brands.slice(1).some((b) => HEIC_BRANDS.has(b) || HEIF_BRANDS.has(b))) {
    if (major === 'avif' || major === 'avis') return null;
    return { mediaType: anyHeic ? 'image/heic' : 'image/heif', kind: 'images' };
  }
  return null;
}
