// The JPEG marker segments that capture checks need (quantization tables, frame, APPn), read from the header only.
// Hand-written on purpose: no maintained npm library exposes DQT tables (jpeg-js and exifr parse them internally or
// not at all), and a marker walk up to the first SOS is small.

export interface JpegFrame {
  width: number;
  height: number;
  progressive: boolean;
  /** Component id -> quantization table id, and sampling factors (h*16+v), in frame order. */
  components: { id: number; sampling: number; table: number }[];
}

export interface JpegStructure {
  /** Quantization tables by id (0..3), 64 values in natural (row-major) order. */
  tables: Map<number, number[]>;
  frame: JpegFrame | null;
  /** APPn markers seen before the first scan, in order, e.g. ['APP0:JFIF', 'APP1:Exif', 'APP2:ICC_PROFILE']. */
  segments: string[];
  /** The first XMP packet in APP1, if any (latin1). */
  xmp: string | null;
  /** Offset of the first scan's entropy-coded data, or -1. */
  scanStart: number;
  /** A JFIF APP0 header: what libjpeg-based software writes first, and what cameras, which write Exif first, rarely do. */
  jfif: boolean;
  /**
   * The tables laid out as libjpeg writes them (jcmarker.c): one table per DQT segment, the frame, then one table per
   * DHT segment, before the first scan. Cameras mostly put every table of a kind in one segment.
   */
  libjpegLayout: boolean;
  /**
   * The Exif segment comes before the JFIF header. libjpeg writes its header first, and exiftool puts copied tags
   * after it; a phone whose camera app writes its Exif and then has libjpeg encode (Google's Pixels) has it the other
   * way round.
   */
  exifBeforeJfif: boolean;
  /**
   * The table, restart and frame markers before the first scan, in order, each table marker with how many tables it
   * holds: 'Q2 H4 F' (Epson's, Olympus's and most of Nikon's and Sony's originals), 'Q1 Q1 F H1 H1 H1 H1' (libjpeg),
   * 'Q2 R F H4'. The capture catalogue keeps the ones camera originals were written with.
   */
  layout: string;
}

// DQT stores values in zig-zag order (ITU T.81 figure A.6); we keep natural order so tables read as 8x8 matrices.
export const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57,
  50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

const XMP_NS = 'http://ns.adobe.com/xap/1.0/\0';

export interface JpegSegment {
  marker: number;
  /** Offset of the segment's payload (after marker and length). */
  start: number;
  /** End of the payload, clipped to the buffer. */
  end: number;
}

/**
 * The marker segments of a JPEG up to its first scan, stopping at the first malformed one. The last segment yielded is
 * the first SOS header (marker 0xda; its end is where the entropy-coded data begins), when the walk reaches it.
 */
export function* jpegSegments(buf: Buffer): Generator<JpegSegment> {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return;
  let off = 2;
  while (off + 4 <= buf.length && buf[off] === 0xff) {
    const marker = buf[off + 1];
    if (marker === 0xff) {
      off += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      off += 2;
      continue;
    }
    if (marker === 0xd9) return;
    const len = buf.readUInt16BE(off + 2);
    if (len < 2) return;
    yield { marker, start: off + 4, end: Math.min(buf.length, off + 2 + len) };
    if (marker === 0xda) return;
    off += 2 + len;
  }
}

export function readJpegStructure(buf: Buffer): JpegStructure {
  const out: JpegStructure = { tables: new Map(), frame: null, segments: [], xmp: null, scanStart: -1, jfif: false, libjpegLayout: false, exifBeforeJfif: false, layout: '' };
  // The table and frame markers before the first scan, each with how many tables it holds: 'Q1 Q1 F H1 H1 H1 H1'.
  const layout: string[] = [];
  for (const { marker, start, end } of jpegSegments(buf)) {
    // SOF0-SOF15 but DHT (c4), JPG (c8) and DAC (cc)
    const frame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (marker === 0xda) out.scanStart = end;
    else if (marker === 0xdb) layout.push(`Q${readDqt(buf, start, end, out.tables)}`);
    else if (marker === 0xc4) layout.push(`H${huffmanTables(buf, start, end)}`);
    else if (marker === 0xdd) layout.push('R');
    else if (frame) {
      layout.push('F');
      out.frame ??= readSof(buf, start, end, marker);
    } else if (marker >= 0xe0 && marker <= 0xef) {
      const idEnd = buf.indexOf(0, start);
      const id = idEnd > start && idEnd < Math.min(end, start + 40) ? buf.toString('latin1', start, idEnd) : buf.toString('latin1', start, Math.min(end, start + 4));
      out.segments.push(`APP${marker - 0xe0}:${id.replace(/[^\x20-\x7e]/g, '')}`);
      if (marker === 0xe1 && !out.xmp && buf.toString('latin1', start, start + XMP_NS.length) === XMP_NS) {
        out.xmp = buf.toString('utf8', start + XMP_NS.length, end);
      }
    } else if (marker === 0xfe) out.segments.push('COM');
  }
  out.jfif = out.segments.includes('APP0:JFIF');
  const exif = out.segments.indexOf('APP1:Exif');
  out.exifBeforeJfif = exif >= 0 && out.segments.indexOf('APP0:JFIF') > exif;
  out.layout = layout.join(' ');
  out.libjpegLayout = out.scanStart > 0 && /^(Q1 )+F( H1)+$/.test(layout.filter((m) => m !== 'R').join(' '));
  return out;
}

/** How many Huffman tables one DHT segment holds (each: class/id, 16 counts, then that many symbols). */
function huffmanTables(buf: Buffer, start: number, end: number): number {
  let n = 0;
  for (let p = start; p + 17 <= end; n++) {
    let symbols = 0;
    for (let i = 1; i <= 16; i++) symbols += buf[p + i];
    p += 17 + symbols;
  }
  return n;
}

/** Reads a DQT segment's tables into `tables`; returns how many it holds. */
function readDqt(buf: Buffer, start: number, end: number, tables: Map<number, number[]>): number {
  let p = start;
  let n = 0;
  while (p < end) {
    const pq = buf[p] >> 4;
    const tq = buf[p] & 15;
    p += 1;
    const size = pq ? 128 : 64;
    if (p + size > end || tq > 3) return n;
    const t = new Array<number>(64);
    for (let i = 0; i < 64; i++) t[ZIGZAG[i]] = pq ? buf.readUInt16BE(p + 2 * i) : buf[p + i];
    tables.set(tq, t);
    p += size;
    n += 1;
  }
  return n;
}

function readSof(buf: Buffer, start: number, end: number, marker: number): JpegFrame | null {
  if (start + 6 > end) return null;
  const height = buf.readUInt16BE(start + 1);
  const width = buf.readUInt16BE(start + 3);
  const n = buf[start + 5];
  const components: JpegFrame['components'] = [];
  for (let i = 0; i < n && start + 6 + 3 * i + 3 <= end; i++) {
    const q = start + 6 + 3 * i;
    components.push({ id: buf[q], sampling: buf[q + 1], table: buf[q + 2] });
  }
  return { width, height, progressive: marker === 0xc2 || marker === 0xc6 || marker === 0xca || marker === 0xce, components };
}
