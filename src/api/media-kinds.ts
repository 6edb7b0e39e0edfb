// The accepted media kinds and how a file's kind is decided from its first bytes only, never from its name or the
// client's Content-Type (DECISIONS 20): one function for the core (upload, `veracity assess`) and the window
// (routing dropped files before they are sent). Pure: the renderer bundles it (no Node imports, no Buffer).
import type { MediaType, PipelineKind } from './schemas.js';

/** How many leading bytes decide a file's kind (the core and the window read this many). */
export const SNIFF_BYTES = 64;

export interface Sniffed {
  mediaType: MediaType;
  kind: PipelineKind;
}

/** What each application accepts, in words (refusals name it). */
export const KIND_DESCRIPTIONS: Readonly<Record<PipelineKind, string>> = Object.freeze({
  images: 'JPEG, PNG or HEIC/HEIF images',
  pdfs: 'PDF documents',
});

/** ISO-BMFF brands accepted as HEIC (HEVC-coded) and as HEIF (DECISIONS 20). */
export const HEIC_BRANDS: ReadonlySet<string> = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs']);
export const HEIF_BRANDS: ReadonlySet<string> = new Set(['mif1', 'msf1']);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/**
 * Kind of a file from its head (its first SNIFF_BYTES bytes, or fewer for a shorter file). Null for anything that is
 * not JPEG, PNG, HEIC/HEIF or PDF, the empty file included. A PDF must start with `%PDF-` at offset 0: a file with
 * junk before the header is not accepted as a PDF (readers that scan ahead for it are what polyglots exploit).
 */
export function sniff(head: Uint8Array): Sniffed | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { mediaType: 'image/jpeg', kind: 'images' };
  if (head.length >= 8 && PNG_SIGNATURE.every((b, i) => head[i] === b)) return { mediaType: 'image/png', kind: 'images' };
  if (head.length >= 5 && latin1(head, 0, 5) === '%PDF-') return { mediaType: 'application/pdf', kind: 'pdfs' };
  const heif = sniffHeif(head);
  return heif && { mediaType: heif, kind: 'images' };
}

/** The ftyp box: size(4) 'ftyp' major(4) minor(4) compatible brands (4 each) up to the box size or the head. */
function sniffHeif(head: Uint8Array): 'image/heic' | 'image/heif' | null {
  if (head.length < 16 || latin1(head, 4, 8) !== 'ftyp') return null;
  const boxSize = ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0;
  if (boxSize < 16) return null;
  const end = Math.min(boxSize, head.length);
  const brands = [latin1(head, 8, 12)];
  for (let off = 16; off + 4 <= end; off += 4) brands.push(latin1(head, off, off + 4));
  const major = brands[0];
  const anyHeic = brands.some((b) => HEIC_BRANDS.has(b));
  // The major brand decides when it is one of ours; otherwise a compatible brand may (many files say 'mif1' major).
  if (HEIC_BRANDS.has(major)) return 'image/heic';
  if (HEIF_BRANDS.has(major)) return anyHeic ? 'image/heic' : 'image/heif';
  if (brands.slice(1).some((b) => HEIC_BRANDS.has(b) || HEIF_BRANDS.has(b))) {
    // e.g. major 'avif' with compatible 'mif1': an AVIF is not HEVC-coded, so it is not one of the accepted kinds.
    if (major === 'avif' || major === 'avis') return null;
    return anyHeic ? 'image/heic' : 'image/heif';
  }
  return null;
}
