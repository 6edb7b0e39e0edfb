// Reads image dimensions and structural integrity from JPEG/PNG/HEIF headers without decoding a pixel, so a
// decompression bomb or a truncated file is refused before any decoder allocates memory for it.
import { crc32 } from 'node:zlib';

export interface HeaderInfo {
  width: number;
  height: number;
  /** Why the container is unusable (truncated, no image data...), or null when its structure is whole. */
  defect: string | null;
  /** HEIF: the largest size any item declares (thumbnails, alpha, tiles), which a decoder may also allocate. */
  largest?: { width: number; height: number };
}

/** Thrown for containers whose headers cannot be read at all. */
export class HeaderError extends Error {}

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/**
 * JPEG: walks the marker segments up to the first SOS, reading the frame size from the SOF segment, then checks
 * that an EOI marker follows the entropy-coded data (inside scans 0xFF is always stuffed or a restart marker, so
 * the first FFD9 after SOS is the end of the image; a file cut short has none).
 */
export function readJpegHeader(buf: Buffer): HeaderInfo {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) throw new HeaderError('not a JPEG (no SOI marker)');
  let off = 2;
  let width = 0;
  let height = 0;
  let sawSof = false;
  while (off + 4 <= buf.length) {
    if (buf[off] !== 0xff) throw new HeaderError(`JPEG marker expected at byte ${off}`);
    const marker = buf[off + 1];
    if (marker === 0xff) {
      off += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      off += 2; // stand-alone markers
      continue;
    }
    if (marker === 0xd9) return { width, height, defect: 'the JPEG ends before any image data' };
    const len = buf.readUInt16BE(off + 2);
    if (len < 2) throw new HeaderError(`JPEG segment with invalid length at byte ${off}`);
    if (off + 2 + len > buf.length) return { width, height, defect: 'the JPEG is truncated inside its headers' };
    if (SOF_MARKERS.has(marker)) {
      if (len < 8) throw new HeaderError('JPEG frame header too short');
      height = buf.readUInt16BE(off + 5);
      width = buf.readUInt16BE(off + 7);
      sawSof = true;
    }
    if (marker === 0xda) {
      if (!sawSof) throw new HeaderError('JPEG scan before any frame header');
      const eoi = buf.indexOf(EOI, off + 2 + len);
      if (eoi < 0) return { width, height, defect: 'the JPEG is truncated (no end-of-image marker after its image data)' };
      return { width, height, defect: null };
    }
    off += 2 + len;
  }
  return { width, height, defect: sawSof ? 'the JPEG is truncated before its image data' : 'the JPEG has no frame header' };
}
const EOI = Buffer.from([0xff, 0xd9]);

const CRITICAL = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND']);

const PNG_SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG: IHDR must come first; every chunk must fit in the file and IEND must close it, with image data before. */
export function readPngHeader(buf: Buffer): HeaderInfo {
  if (buf.length < 33 || !buf.subarray(0, 8).equals(PNG_SIG)) throw new HeaderError('not a PNG (bad signature or no IHDR)');
  if (buf.readUInt32BE(8) !== 13 || buf.toString('latin1', 12, 16) !== 'IHDR') throw new HeaderError('PNG without IHDR first');
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  let off = 8;
  let sawIdat = false;
  while (off + 12 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    if (len > 0x7fffffff) throw new HeaderError(`PNG chunk ${JSON.stringify(type)} with invalid length`);
    if (off + 12 + len > buf.length) return { width, height, defect: `the PNG is truncated inside its ${type} chunk` };
    if (type === 'IDAT') sawIdat = true;
    // Critical chunks must be intact (libpng refuses them otherwise); ancillary ones may be damaged harmlessly.
    if (CRITICAL.has(type) && crc32(buf.subarray(off + 4, off + 8 + len)) !== buf.readUInt32BE(off + 8 + len)) {
      return { width, height, defect: `the PNG is corrupt (bad checksum in its ${type} chunk)` };
    }
    if (type === 'IEND') return { width, height, defect: sawIdat ? null : 'the PNG has no image data' };
    off += 12 + len;
  }
  return { width, height, defect: 'the PNG is truncated (no IEND chunk)' };
}

export interface Box {
  type: string;
  start: number; // of the payload
  end: number;
}

/**
 * The ISO-BMFF boxes in [start, end): 32-bit size, 64-bit size (size 1) or to the end (size 0). A box may end past
 * `end` (a truncated file: the caller says so); an impossible size is a HeaderError.
 */
export function* boxes(buf: Buffer, start: number, end: number): Generator<Box> {
  let off = start;
  while (off + 8 <= end) {
    let size = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    let header = 8;
    if (size === 1) {
      if (off + 16 > end) throw new HeaderError('HEIF box with a 64-bit size cut short');
      const big = buf.readBigUInt64BE(off + 8);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new HeaderError('HEIF box too large');
      size = Number(big);
      header = 16;
    } else if (size === 0) {
      size = end - off; // to the end of the enclosing space
    }
    if (size < header) throw new HeaderError(`HEIF box ${JSON.stringify(type)} with invalid size`);
    yield { type, start: off + header, end: off + size };
    off += size;
  }
}

/**
 * HEIF: the primary item (pitm) and its image spatial extent (ispe) through the property associations (ipma),
 * rotated by irot; every top-level box must fit in the file (a truncated file has an mdat longer than what is left).
 */
export function readHeifHeader(buf: Buffer): HeaderInfo {
  let meta: Box | null = null;
  let defect: string | null = null;
  let sawMdat = false;
  for (const box of boxes(buf, 0, buf.length)) {
    if (box.end > buf.length) {
      defect = `the HEIF file is truncated inside its ${box.type} box`;
      break;
    }
    if (box.type === 'meta') meta = box;
    if (box.type === 'mdat') sawMdat = true;
  }
  if (!meta) throw new HeaderError('HEIF file without a meta box');
  if (!defect && !sawMdat) defect = 'the HEIF file has no media data';
  const metaEnd = Math.min(meta.end, buf.length);
  let primary = -1;
  let ipco: Box | null = null;
  let ipma: Box | null = null;
  for (const box of boxes(buf, meta.start + 4, metaEnd)) {
    if (box.end > metaEnd) break;
    if (box.type === 'pitm') {
      const version = buf[box.start];
      primary = version === 0 ? buf.readUInt16BE(box.start + 4) : buf.readUInt32BE(box.start + 4);
    } else if (box.type === 'iprp') {
      for (const sub of boxes(buf, box.start, box.end)) {
        if (sub.type === 'ipco') ipco = sub;
        if (sub.type === 'ipma') ipma = sub;
      }
    }
  }
  if (!ipco) throw new HeaderError('HEIF file without item properties');
  const props: Box[] = [...boxes(buf, ipco.start, ipco.end)];
  let assoc: number[] | null = null;
  if (ipma && primary >= 0) assoc = associations(buf, ipma, primary);
  // Without an association table (malformed), fall back to the largest declared extent: a bomb cannot hide that way.
  const candidates = assoc ? assoc.map((i) => props[i - 1]).filter(Boolean) : props;
  let width = 0;
  let height = 0;
  let rotated = false;
  for (const p of candidates) {
    if (p.type === 'ispe' && p.start + 12 <= p.end) {
      const w = buf.readUInt32BE(p.start + 4);
      const h = buf.readUInt32BE(p.start + 8);
      if (w * h > width * height) {
        width = w;
        height = h;
      }
    }
    if (p.type === 'irot' && p.start < p.end) rotated = (buf[p.start] & 0x3) % 2 === 1;
  }
  if (width === 0 || height === 0) throw new HeaderError('HEIF primary image without a declared size (ispe)');
  const largest = { width, height };
  for (const p of props) {
    if (p.type !== 'ispe' || p.start + 12 > p.end) continue;
    const w = buf.readUInt32BE(p.start + 4);
    const h = buf.readUInt32BE(p.start + 8);
    if (w * h > largest.width * largest.height) Object.assign(largest, { width: w, height: h });
  }
  return rotated ? { width: height, height: width, defect, largest } : { width, height, defect, largest };
}

/** Property indices (1-based) associated with one item in an ipma box. */
export function associations(buf: Buffer, ipma: Box, itemId: number): number[] | null {
  const version = buf[ipma.start];
  const flags = buf.readUIntBE(ipma.start + 1, 3);
  let off = ipma.start + 4;
  const count = buf.readUInt32BE(off);
  off += 4;
  for (let i = 0; i < count && off < ipma.end; i++) {
    const id = version < 1 ? buf.readUInt16BE(off) : buf.readUInt32BE(off);
    off += version < 1 ? 2 : 4;
    const n = buf[off];
    off += 1;
    const list: number[] = [];
    for (let j = 0; j < n; j++) {
      const v = flags & 1 ? buf.readUInt16BE(off) & 0x7fff : buf[off] & 0x7f;
      off += flags & 1 ? 2 : 1;
      list.push(v);
    }
    if (id === itemId) return list;
  }
  return null;
}

/**
 * The bytes of the first HEIF item of a given type (e.g. 'Exif', 'mime' for XMP), from iinf (infe v2/v3) and iloc
 * (construction method 0: file offsets). Null when absent or not stored as plain file extents.
 */
export function heifItemData(buf: Buffer, itemType: string, maxBytes = 1024 * 1024): Buffer | null {
  try {
    let meta: Box | null = null;
    for (const box of boxes(buf, 0, buf.length)) if (box.type === 'meta') meta = box;
    if (!meta) return null;
    const metaEnd = Math.min(meta.end, buf.length);
    let itemId = -1;
    let iloc: Box | null = null;
    for (const box of boxes(buf, meta.start + 4, metaEnd)) {
      if (box.type === 'iloc') iloc = box;
      if (box.type === 'iinf') {
        const v = buf[box.start];
        const first = box.start + 4 + (v === 0 ? 2 : 4);
        for (const infe of boxes(buf, first, Math.min(box.end, metaEnd))) {
          if (infe.type !== 'infe' || itemId >= 0) continue;
          const iv = buf[infe.start];
          if (iv < 2) continue;
          const id = iv === 2 ? buf.readUInt16BE(infe.start + 4) : buf.readUInt32BE(infe.start + 4);
          const typeAt = infe.start + 4 + (iv === 2 ? 2 : 4) + 2;
          if (buf.toString('latin1', typeAt, typeAt + 4) === itemType) itemId = id;
        }
      }
    }
    if (itemId < 0 || !iloc) return null;
    const v = buf[iloc.start];
    let off = iloc.start + 4;
    const offsetSize = buf[off] >> 4;
    const lengthSize = buf[off] & 15;
    const baseOffsetSize = buf[off + 1] >> 4;
    const indexSize = v === 1 || v === 2 ? buf[off + 1] & 15 : 0;
    off += 2;
    const count = v < 2 ? buf.readUInt16BE(off) : buf.readUInt32BE(off);
    off += v < 2 ? 2 : 4;
    const readN = (n: number): number => {
      const val = n === 0 ? 0 : n === 4 ? buf.readUInt32BE(off) : n === 8 ? Number(buf.readBigUInt64BE(off)) : buf.readUIntBE(off, n);
      off += n;
      return val;
    };
    for (let i = 0; i < count && off < iloc.end; i++) {
      const id = v < 2 ? buf.readUInt16BE(off) : buf.readUInt32BE(off);
      off += v < 2 ? 2 : 4;
      let method = 0;
      if (v === 1 || v === 2) {
        method = buf.readUInt16BE(off) & 15;
        off += 2;
      }
      off += 2; // data_reference_index
      const base = readN(baseOffsetSize);
      const extents = buf.readUInt16BE(off);
      off += 2;
      const parts: Buffer[] = [];
      for (let e = 0; e < extents; e++) {
        readN(indexSize);
        const eo = readN(offsetSize);
        const el = readN(lengthSize);
        if (id === itemId && method === 0) {
          const start = base + eo;
          const end = el === 0 ? buf.length : Math.min(buf.length, start + el);
          if (start < buf.length) parts.push(buf.subarray(start, end));
        }
      }
      if (id === itemId) {
        const all = Buffer.concat(parts);
        return all.length ? all.subarray(0, maxBytes) : null;
      }
    }
    return null;
  } catch {
    return null;
  }
}
