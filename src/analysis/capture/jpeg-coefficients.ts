// Reads the quantized DCT coefficients of a JPEG's luma channel from its entropy-coded data, which the double
// compression check needs and no maintained npm library exposes (sharp/libvips decode to pixels; jpeg-js computes
// them internally and is not installed). Baseline and extended sequential Huffman only (SOF0/SOF1), the first scan
// that carries the luma component; progressive and arithmetic-coded files give null (the check is then skipped).
import { ZIGZAG } from './jpeg-structure.js';

export interface LumaCoefficients {
  width: number;
  height: number;
  /** Luma blocks per row and rows of blocks covering the image (ceil(size / 8) at the luma sampling). */
  blocksW: number;
  blocksH: number;
  /** 64 quantized coefficients per block, natural (row-major) order, blocks in raster order. */
  coef: Int16Array;
  /** The luma quantization table, natural order. */
  table: number[];
}

interface Huffman {
  /** code length -> [min code, max code, first value index] */
  maxcode: Int32Array;
  valptr: Int32Array;
  mincode: Int32Array;
  values: Uint8Array;
}

function buildHuffman(counts: Uint8Array, values: Uint8Array): Huffman {
  const maxcode = new Int32Array(18).fill(-1);
  const mincode = new Int32Array(17);
  const valptr = new Int32Array(17);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    valptr[len] = k;
    mincode[len] = code;
    code += counts[len - 1];
    k += counts[len - 1];
    maxcode[len] = counts[len - 1] ? code - 1 : -1;
    code <<= 1;
  }
  return { maxcode, mincode, valptr, values };
}

class CorruptScan extends Error {}

/** The luma coefficients, or null when the file is not a sequential Huffman JPEG this reader handles. */
export function readLumaCoefficients(buf: Buffer): LumaCoefficients | null {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  const qt = new Map<number, number[]>();
  const dc = new Map<number, Huffman>();
  const ac = new Map<number, Huffman>();
  let frame: { width: number; height: number; comps: { id: number; h: number; v: number; tq: number }[] } | null = null;
  let restart = 0;
  let off = 2;
  while (off + 4 <= buf.length) {
    if (buf[off] !== 0xff) return null;
    const marker = buf[off + 1];
    if (marker === 0xff) {
      off++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      off += 2;
      continue;
    }
    const len = buf.readUInt16BE(off + 2);
    const s = off + 4;
    const e = off + 2 + len;
    if (len < 2 || e > buf.length) return null;
    if (marker === 0xdb) {
      for (let p = s; p < e; ) {
        const pq = buf[p] >> 4;
        const tq = buf[p] & 15;
        p++;
        const t = new Array<number>(64);
        for (let i = 0; i < 64; i++) t[ZIGZAG[i]] = pq ? buf.readUInt16BE(p + 2 * i) : buf[p + i];
        qt.set(tq, t);
        p += pq ? 128 : 64;
      }
    } else if (marker === 0xc4) {
      for (let p = s; p + 17 <= e; ) {
        const tc = buf[p] >> 4;
        const th = buf[p] & 15;
        const counts = buf.subarray(p + 1, p + 17);
        const n = counts.reduce((a, b) => a + b, 0);
        const values = buf.subarray(p + 17, p + 17 + n);
        (tc === 0 ? dc : ac).set(th, buildHuffman(Uint8Array.from(counts), Uint8Array.from(values)));
        p += 17 + n;
      }
    } else if (marker === 0xdd) {
      restart = buf.readUInt16BE(s);
    } else if (marker === 0xc0 || marker === 0xc1) {
      const n = buf[s + 5];
      const comps = [];
      for (let i = 0; i < n; i++) comps.push({ id: buf[s + 6 + 3 * i], h: buf[s + 7 + 3 * i] >> 4, v: buf[s + 7 + 3 * i] & 15, tq: buf[s + 8 + 3 * i] });
      frame = { height: buf.readUInt16BE(s + 1), width: buf.readUInt16BE(s + 3), comps };
    } else if ((marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) || marker === 0xd9) {
      return null; // progressive, lossless, arithmetic or hierarchical; or an image without a scan
    } else if (marker === 0xda) {
      if (!frame || frame.comps.length === 0) return null;
      try {
        return decodeScan(buf, s, e, frame, qt, dc, ac, restart);
      } catch (err) {
        if (err instanceof CorruptScan) return null;
        throw err;
      }
    }
    off = e;
  }
  return null;
}

function decodeScan(
  buf: Buffer,
  s: number,
  dataStart: number,
  frame: { width: number; height: number; comps: { id: number; h: number; v: number; tq: number }[] },
  qt: Map<number, number[]>,
  dcTables: Map<number, Huffman>,
  acTables: Map<number, Huffman>,
  restart: number,
): LumaCoefficients | null {
  const ns = buf[s];
  const scomps: { ci: number; dc: Huffman; ac: Huffman }[] = [];
  for (let i = 0; i < ns; i++) {
    const id = buf[s + 1 + 2 * i];
    const ci = frame.comps.findIndex((c) => c.id === id);
    const d = dcTables.get(buf[s + 2 + 2 * i] >> 4);
    const a = acTables.get(buf[s + 2 + 2 * i] & 15);
    if (ci < 0 || !d || !a) return null;
    scomps.push({ ci, dc: d, ac: a });
  }
  // Luma is the frame's first component; only a scan carrying it is read.
  if (!scomps.some((c) => c.ci === 0)) return null;
  const luma = frame.comps[0];
  const table = qt.get(luma.tq);
  if (!table) return null;
  const hmax = Math.max(...frame.comps.map((c) => c.h));
  const vmax = Math.max(...frame.comps.map((c) => c.v));
  const lumaW = Math.ceil((frame.width * luma.h) / hmax);
  const lumaH = Math.ceil((frame.height * luma.v) / vmax);
  const blocksW = Math.ceil(lumaW / 8);
  const blocksH = Math.ceil(lumaH / 8);
  const coef = new Int16Array(blocksW * blocksH * 64);

  // Bit reader over the entropy-coded data: 0xFF00 is a stuffed 0xFF; a marker ends the data (zeros follow).
  let pos = dataStart;
  let bits = 0;
  let nbits = 0;
  const fill = () => {
    while (nbits <= 24) {
      let byte = 0;
      if (pos < buf.length) {
        byte = buf[pos];
        if (byte === 0xff) {
          const next = buf[pos + 1];
          if (next === 0x00) pos += 2;
          else byte = 0; // a marker: do not consume
        } else pos++;
      }
      bits = (bits << 8) | byte;
      nbits += 8;
    }
  };
  const bit = () => {
    if (nbits === 0) fill();
    nbits--;
    return (bits >>> nbits) & 1;
  };
  const receive = (n: number) => {
    if (n === 0) return 0;
    if (nbits < n) fill();
    nbits -= n;
    return (bits >>> nbits) & ((1 << n) - 1);
  };
  const extend = (v: number, n: number) => (n === 0 ? 0 : v < 1 << (n - 1) ? v - (1 << n) + 1 : v);
  const decode = (h: Huffman) => {
    let code = bit();
    for (let len = 1; len <= 16; len++) {
      if (code <= h.maxcode[len] && h.maxcode[len] >= 0) return h.values[h.valptr[len] + code - h.mincode[len]];
      code = (code << 1) | bit();
    }
    throw new CorruptScan('bad Huffman code');
  };
  const resync = () => {
    // Drop the bits left in the byte, then skip to the RSTn marker and past it.
    nbits = 0;
    bits = 0;
    while (pos + 1 < buf.length && !(buf[pos] === 0xff && buf[pos + 1] >= 0xd0 && buf[pos + 1] <= 0xd7)) pos++;
    pos += 2;
  };

  const pred = new Int32Array(frame.comps.length);
  const block = new Int32Array(64);
  const readBlock = (c: { ci: number; dc: Huffman; ac: Huffman }) => {
    block.fill(0);
    const t = decode(c.dc);
    pred[c.ci] += extend(receive(t), t);
    block[0] = pred[c.ci];
    for (let k = 1; k < 64; ) {
      const rs = decode(c.ac);
      const r = rs >> 4;
      const sz = rs & 15;
      if (sz === 0) {
        if (r !== 15) break;
        k += 16;
        continue;
      }
      k += r;
      if (k > 63) throw new CorruptScan('coefficient index past 63');
      block[ZIGZAG[k]] = extend(receive(sz), sz);
      k++;
    }
  };
  const store = (bx: number, by: number) => {
    if (bx >= blocksW || by >= blocksH) return;
    coef.set(block, (by * blocksW + bx) * 64);
  };

  if (ns === 1) {
    const c = scomps[0];
    const comp = frame.comps[c.ci];
    const cw = Math.ceil(Math.ceil((frame.width * comp.h) / hmax) / 8);
    const ch = Math.ceil(Math.ceil((frame.height * comp.v) / vmax) / 8);
    for (let n = 0, by = 0; by < ch; by++) {
      for (let bx = 0; bx < cw; bx++, n++) {
        if (restart && n > 0 && n % restart === 0) {
          resync();
          pred.fill(0);
        }
        readBlock(c);
        store(bx, by);
      }
    }
  } else {
    const mcusX = Math.ceil(frame.width / (8 * hmax));
    const mcusY = Math.ceil(frame.height / (8 * vmax));
    for (let n = 0, my = 0; my < mcusY; my++) {
      for (let mx = 0; mx < mcusX; mx++, n++) {
        if (restart && n > 0 && n % restart === 0) {
          resync();
          pred.fill(0);
        }
        for (const c of scomps) {
          const comp = frame.comps[c.ci];
          for (let v = 0; v < comp.v; v++) {
            for (let h = 0; h < comp.h; h++) {
              readBlock(c);
              if (c.ci === 0) store(mx * comp.h + h, my * comp.v + v);
            }
          }
        }
      }
    }
  }
  return { width: frame.width, height: frame.height, blocksW, blocksH, coef, table };
}
