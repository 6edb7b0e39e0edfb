// Decides a file's kind from its first bytes only (DECISIONS 20): never from its name or the client's Content-Type.
import type { Sniffed } from './contract.js';

/** ISO-BMFF major/compatible brands accepted as HEIC/HEIF (DECISIONS 20). */
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs']);
const HEIF_BRANDS = new Set(['mif1', 'msf1']);
const ALL_HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1']);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Kind of a file from its head (the core passes the first SNIFF_BYTES bytes). Returns null for anything that is
 * not JPEG, PNG, HEIC/HEIF or PDF, the empty file included. A PDF must start with `%PDF-` at offset 0: a file
 * with junk before the header is not accepted as a PDF (readers that scan ahead for it are what polyglots exploit).
 */
export function sniff(head: Buffer): Sniffed | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
    return { mediaType: 'image/jpeg', kind: 'images' };
  }
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) {
    return { mediaType: 'image/png', kind: 'images' };
  }
  if (head.length >= 5 && head.subarray(0, 5).toString('latin1') === '%PDF-') {
    return { mediaType: 'application/pdf', kind: 'pdfs' };
  }
  const heif = sniffHeif(head);
  if (heif) return { mediaType: heif, kind: 'images' };
  return null;
}

/** The ftyp box: size(4) 'ftyp' major(4) minor(4) compatible brands (4 each) up to the box size or the head. */
function sniffHeif(head: Buffer): 'image/heic' | 'image/heif' | null {
  if (head.length < 16 || head.subarray(4, 8).toString('latin1') !== 'ftyp') return null;
  const boxSize = head.readUInt32BE(0);
  if (boxSize < 16) return null;
  const end = Math.min(boxSize, head.length);
  const brands = [head.subarray(8, 12).toString('latin1')];
  for (let off = 16; off + 4 <= end; off += 4) brands.push(head.subarray(off, off + 4).toString('latin1'));
  const major = brands[0];
  // The major brand decides when it is one of ours; otherwise a compatible brand may (many files say 'mif1' major).
  if (HEIC_BRANDS.has(major)) return 'image/heic';
  if (HEIF_BRANDS.has(major)) return brands.some((b) => HEIC_BRANDS.has(b)) ? 'image/heic' : 'image/heif';
  if (brands.slice(1).some((b) => ALL_HEIF_BRANDS.has(b))) {
    // e.g. major 'avif' with compatible 'mif1': an AVIF is not HEVC-coded, so it is not one of the accepted kinds.
    if (major === 'avif' || major === 'avis') return null;
    return brands.some((b) => HEIC_BRANDS.has(b)) ? 'image/heic' : 'image/heif';
  }
  return null;
}
