// Finds the EXIF MakerNote (tag 0x927C) in a TIFF block and says whether it holds a readable maker IFD. exifr
// does not expose the raw maker note consistently (it parses some makers' and drops others'), so the TIFF walk
// to that one tag is done here.

import { jpegSegments } from './jpeg-structure.js';

export interface MakerNoteInfo {
  length: number;
  /** A plausible IFD was found at the offset this maker's format puts it (see MAKER_HEADERS). */
  wellFormed: boolean;
  /** The leading signature, e.g. "Apple iOS", "Nikon", "" for a bare IFD. */
  header: string;
}

/** The TIFF block of a JPEG's APP1 Exif segment, or null. */
export function jpegTiff(buf: Buffer): Buffer | null {
  for (const { marker, start, end } of jpegSegments(buf)) {
    if (marker === 0xe1 && buf.toString('latin1', start, start + 6) === 'Exif\0\0') return buf.subarray(start + 6, end);
  }
  return null;
}

interface Tiff {
  le: boolean;
  u16: (o: number) => number;
  u32: (o: number) => number;
}

function tiffReader(t: Buffer, le: boolean): Tiff {
  return { le, u16: (o) => (le ? t.readUInt16LE(o) : t.readUInt16BE(o)), u32: (o) => (le ? t.readUInt32LE(o) : t.readUInt32BE(o)) };
}

function findTag(t: Buffer, r: Tiff, ifd: number, tag: number): { type: number; count: number; valueAt: number } | null {
  if (ifd + 2 > t.length) return null;
  const n = r.u16(ifd);
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + 12 * i;
    if (e + 12 > t.length) return null;
    if (r.u16(e) === tag) {
      const type = r.u16(e + 2);
      const count = r.u32(e + 4);
      const size = count * ([0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8][type] ?? 1);
      return { type, count, valueAt: size <= 4 ? e + 8 : r.u32(e + 8) };
    }
  }
  return null;
}

/** A plausible IFD at `at`: 1..400 entries, nearly all with a TIFF type 1..13. */
function plausibleIfd(b: Buffer, at: number, le: boolean): boolean {
  if (at < 0 || at + 2 > b.length) return false;
  const r = tiffReader(b, le);
  const n = r.u16(at);
  if (n < 1 || n > 400 || at + 2 + 12 * n > b.length) return false;
  let good = 0;
  for (let i = 0; i < n; i++) {
    const type = r.u16(at + 2 + 12 * i + 2);
    if (type >= 1 && type <= 13) good++;
  }
  return good >= n * 0.9;
}

// Where each maker's format puts its IFD, after its signature (exiftool's MakerNotes.pm lists the same layouts).
const MAKER_HEADERS: { sig: string; ifdAt: number; order?: 'from-header' | 'II' | 'MM' | 'tiff' }[] = [
  { sig: 'Apple iOS\0', ifdAt: 14, order: 'MM' },
  { sig: 'Nikon\0\x02', ifdAt: 18, order: 'from-header' }, // embedded TIFF header at +10
  { sig: 'Nikon\0\x01', ifdAt: 8, order: 'tiff' },
  { sig: 'OLYMPUS\0', ifdAt: 12, order: 'from-header' },
  { sig: 'OM SYSTEM\0', ifdAt: 16, order: 'from-header' },
  { sig: 'OLYMP\0', ifdAt: 8, order: 'tiff' },
  { sig: 'FUJIFILM', ifdAt: -1, order: 'II' }, // 4-byte LE offset at +8
  { sig: 'SONY DSC \0\0\0', ifdAt: 12, order: 'tiff' },
  { sig: 'SONY CAM \0\0\0', ifdAt: 12, order: 'tiff' },
  { sig: 'SONY MOBILE\0', ifdAt: 20, order: 'tiff' },
  { sig: 'Panasonic\0\0\0', ifdAt: 12, order: 'tiff' },
  { sig: 'AOC\0', ifdAt: 6, order: 'from-header' },
  { sig: 'PENTAX \0', ifdAt: 10, order: 'from-header' },
  { sig: 'SAMSUNG\0', ifdAt: 8, order: 'tiff' },
  { sig: 'KDK', ifdAt: -2, order: 'tiff' }, // Kodak binary data, no IFD
  { sig: 'CASIO\0', ifdAt: 6, order: 'tiff' },
  { sig: 'QVC\0', ifdAt: 6, order: 'tiff' },
  { sig: 'LEICA\0', ifdAt: 8, order: 'tiff' },
  { sig: 'Ricoh', ifdAt: 8, order: 'MM' },
  { sig: 'RICOH', ifdAt: 8, order: 'MM' },
  { sig: 'SANYO\0', ifdAt: 8, order: 'tiff' },
  { sig: 'HUAWEI\0', ifdAt: 20, order: 'from-header' },
  { sig: 'GOOGLE', ifdAt: -2, order: 'tiff' },
];

/** The maker note of a TIFF block (EXIF), or null when there is none. */
export function readMakerNote(tiff: Buffer | null): MakerNoteInfo | null {
  try {
    if (!tiff || tiff.length < 8) return null;
    const order = tiff.toString('latin1', 0, 2);
    if (order !== 'II' && order !== 'MM') return null;
    const le = order === 'II';
    const r = tiffReader(tiff, le);
    const exifPtr = findTag(tiff, r, r.u32(4), 0x8769);
    if (!exifPtr) return null;
    const mn = findTag(tiff, r, r.u32(exifPtr.valueAt), 0x927c);
    if (!mn || mn.count === 0) return null;
    const note = tiff.subarray(mn.valueAt, Math.min(tiff.length, mn.valueAt + mn.count));
    if (note.length < Math.min(mn.count, 8)) return { length: mn.count, wellFormed: false, header: '' };
    return { length: mn.count, ...classify(note, le) };
  } catch {
    return null;
  }
}

function classify(note: Buffer, tiffLe: boolean): { wellFormed: boolean; header: string } {
  for (const h of MAKER_HEADERS) {
    if (note.toString('latin1', 0, h.sig.length) !== h.sig) continue;
    const header = h.sig.replace(/\0.*$/s, '').trim();
    if (h.ifdAt === -2) return { wellFormed: note.length > h.sig.length + 8, header };
    if (h.ifdAt === -1) return { wellFormed: note.length >= 12 && plausibleIfd(note, note.readUInt32LE(8), true), header };
    let le = tiffLe;
    if (h.order === 'II') le = true;
    else if (h.order === 'MM') le = false;
    else if (h.order === 'from-header') {
      const at = note.indexOf('II', h.sig.length) >= 0 && note.indexOf('II', h.sig.length) < h.ifdAt ? 'II' : note.indexOf('MM', h.sig.length) >= 0 && note.indexOf('MM', h.sig.length) < h.ifdAt ? 'MM' : null;
      le = at ? at === 'II' : tiffLe;
    }
    return { wellFormed: plausibleIfd(note, h.ifdAt, le) || plausibleIfd(note, h.ifdAt, !le), header };
  }
  // Canon, older Nikon/Pentax/Samsung, and others: a bare IFD in the TIFF's byte order.
  return { wellFormed: plausibleIfd(note, 0, tiffLe), header: '' };
}
