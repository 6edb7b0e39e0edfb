// The double-compression reading (capture/double-compression.ts) and the coefficient reader under it
// (capture/jpeg-coefficients.ts), on hand-made JPEGs: a flat picture whose coefficients are known, a picture
// compressed once against the same picture decoded and compressed again at the same quality, a progressive file.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { recompressionReading } from '../../../src/analysis/capture/double-compression.js';
import { readLumaCoefficients } from '../../../src/analysis/capture/jpeg-coefficients.js';
import { ijgTable, ANNEX_K_LUMA } from '../../../src/analysis/capture/quant-tables.js';

/** A photo-like synthetic picture: smooth shapes plus fixed pseudo-random grain (deterministic). */
function synthetic(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height * 3);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const base = 120 + 60 * Math.sin(x / 23) * Math.cos(y / 31) + 40 * Math.sin((x + y) / 57);
      const i = (y * width + x) * 3;
      px[i] = Math.max(0, Math.min(255, base + 18 * rnd() + 20));
      px[i + 1] = Math.max(0, Math.min(255, base + 18 * rnd()));
      px[i + 2] = Math.max(0, Math.min(255, base + 18 * rnd() - 25));
    }
  }
  return px;
}
const raw = (width: number, height: number) => ({ raw: { width, height, channels: 3 as const } });

/**
 * A once-compressed greyscale JPEG from an encoder that is not libjpeg (as a camera's is not): float DCT, plain
 * rounding, the given table, baseline Huffman coding with one simple canonical code (every symbol 4 bits for DC,
 * 8 bits for AC). Only for tests: it builds files whose coefficients are known.
 */
function handEncodedGrey(grey: Float64Array, width: number, height: number, table: number[]): Buffer {
  const bw = Math.ceil(width / 8);
  const bh = Math.ceil(height / 8);
  const zig = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63];
  const blocks: number[][] = [];
  const c = (u: number) => (u ? 1 : Math.SQRT1_2);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const q: number[] = new Array(64).fill(0);
      for (let v = 0; v < 8; v++) {
        for (let u = 0; u < 8; u++) {
          let sum = 0;
          for (let y = 0; y < 8; y++) {
            for (let x = 0; x < 8; x++) {
              const px = grey[Math.min(height - 1, by * 8 + y) * width + Math.min(width - 1, bx * 8 + x)] - 128;
              sum += px * Math.cos(((2 * x + 1) * u * Math.PI) / 16) * Math.cos(((2 * y + 1) * v * Math.PI) / 16);
            }
          }
          q[v * 8 + u] = Math.round((0.25 * c(u) * c(v) * sum) / table[v * 8 + u]);
        }
      }
      blocks.push(q);
    }
  }
  // Symbols: DC categories 0..11 (4-bit codes); AC run/size bytes that occur (8-bit codes, at most 255 of them).
  const acSymbols = new Set<number>();
  const cat = (v: number) => (v === 0 ? 0 : Math.floor(Math.log2(Math.abs(v))) + 1);
  for (const q of blocks) {
    let run = 0;
    for (let k = 1; k < 64; k++) {
      const v = q[zig[k]];
      if (v === 0) run++;
      else {
        while (run > 15) {
          acSymbols.add(0xf0);
          run -= 16;
        }
        acSymbols.add((run << 4) | cat(v));
        run = 0;
      }
    }
    if (run) acSymbols.add(0);
  }
  const ac = [...acSymbols].sort((a, b) => a - b);
  const acCode = new Map(ac.map((s, i) => [s, i]));
  const bytes: number[] = [];
  let acc = 0;
  let n = 0;
  const put = (value: number, len: number) => {
    for (let i = len - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >> i) & 1);
      if (++n === 8) {
        bytes.push(acc);
        if (acc === 0xff) bytes.push(0);
        acc = 0;
        n = 0;
      }
    }
  };
  const bitsOf = (v: number) => (v >= 0 ? v : v + (1 << cat(v)) - 1);
  let pred = 0;
  for (const q of blocks) {
    const diff = q[0] - pred;
    pred = q[0];
    put(cat(diff), 4);
    put(bitsOf(diff), cat(diff));
    let run = 0;
    for (let k = 1; k < 64; k++) {
      const v = q[zig[k]];
      if (v === 0) run++;
      else {
        while (run > 15) {
          put(acCode.get(0xf0)!, 8);
          run -= 16;
        }
        put(acCode.get((run << 4) | cat(v))!, 8);
        put(bitsOf(v), cat(v));
        run = 0;
      }
    }
    if (run) put(acCode.get(0)!, 8);
  }
  if (n) put(0x7f, 8 - n); // pad with ones
  const seg = (marker: number, body: number[]) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body];
  const counts = (len: number, k: number) => Array.from({ length: 16 }, (_, i) => (i === len - 1 ? k : 0));
  return Buffer.from([
    0xff, 0xd8,
    ...seg(0xdb, [0, ...zig.map((i) => table[i])]),
    ...seg(0xc0, [8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0]),
    ...seg(0xc4, [0x00, ...counts(4, 12), ...Array.from({ length: 12 }, (_, i) => i)]),
    ...seg(0xc4, [0x10, ...counts(8, ac.length), ...ac]),
    ...seg(0xda, [1, 1, 0x00, 0, 63, 0]),
    ...bytes,
    0xff, 0xd9,
  ]);
}

/** Grey, with hard-edged highlights and shadows (clipped at 0 and 255, as a photo's are). */
function syntheticGrey(width: number, height: number): Float64Array {
  const px = synthetic(width, height);
  const g = new Float64Array(width * height);
  for (let i = 0; i < g.length; i++) {
    const y = 0.299 * px[3 * i] + 0.587 * px[3 * i + 1] + 0.114 * px[3 * i + 2];
    g[i] = Math.max(0, Math.min(255, 128 + (y - 110) * 2.2));
  }
  return g;
}

describe('reading luma coefficients', () => {
  it('reads a flat grey picture as DC only, at the value the quantization table gives', async () => {
    const flat = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 200, b: 200 } } })
      .jpeg({ quality: 75, optimiseCoding: false })
      .toBuffer();
    const c = readLumaCoefficients(flat)!;
    expect(c).not.toBeNull();
    expect([c.width, c.height, c.blocksW, c.blocksH]).toEqual([64, 48, 8, 6]);
    expect(c.table).toEqual(ijgTable(ANNEX_K_LUMA, 75));
    // DC = round((200 - 128) * 8 / q00), every block; every AC coefficient zero.
    const dc = Math.round((72 * 8) / c.table[0]);
    for (let b = 0; b < 48; b++) {
      expect(c.coef[b * 64]).toBe(dc);
      expect(c.coef.subarray(b * 64 + 1, b * 64 + 64).every((v) => v === 0)).toBe(true);
    }
  });

  it('reads chroma-subsampled and optimised-Huffman files to the same luma as a 4:4:4 one', async () => {
    const px = synthetic(200, 120);
    const a = readLumaCoefficients(await sharp(px, raw(200, 120)).jpeg({ quality: 90, chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer())!;
    const b = readLumaCoefficients(await sharp(px, raw(200, 120)).jpeg({ quality: 90, chromaSubsampling: '4:2:0', optimiseCoding: true }).toBuffer())!;
    expect([a.blocksW, a.blocksH]).toEqual([25, 15]);
    expect([b.blocksW, b.blocksH]).toEqual([25, 15]);
    // Luma is encoded the same whatever the chroma sampling.
    let same = 0;
    for (let i = 0; i < a.coef.length; i++) if (a.coef[i] === b.coef[i]) same++;
    expect(same / a.coef.length).toBeGreaterThan(0.99);
  });

  it('gives null for a progressive JPEG and for bytes that are not a JPEG', async () => {
    const prog = await sharp(synthetic(128, 96), raw(128, 96)).jpeg({ quality: 90, progressive: true }).toBuffer();
    expect(readLumaCoefficients(prog)).toBeNull();
    expect(readLumaCoefficients(Buffer.from('not a jpeg at all'))).toBeNull();
  });
});

describe('the recompression reading', () => {
  it('moves fewer coefficients in a picture already decoded and re-saved at its own quality than in one compressed once', async () => {
    // Compressed once by an encoder other than libjpeg (as a camera's is), with libjpeg's own table at 85; then
    // decoded and re-saved by libjpeg at 85, as an editor would.
    const once = handEncodedGrey(syntheticGrey(480, 360), 480, 360, ijgTable(ANNEX_K_LUMA, 85));
    const twice = await sharp(once).jpeg({ quality: 85, optimiseCoding: false }).toBuffer();
    // The reader agrees with the encoder (a file it did not make itself).
    expect(readLumaCoefficients(once)!.table).toEqual(ijgTable(ANNEX_K_LUMA, 85));
    const r1 = (await recompressionReading(once))!;
    const r2 = (await recompressionReading(twice))!;
    expect(r1.quality).toBe(85);
    expect(r1.blocks).toBe(60 * 45);
    expect(r1.changedShare).toBeGreaterThan(0);
    // Repeated compression converges: the re-saved file is markedly more stable.
    expect(r2.changedShare).toBeLessThan(r1.changedShare / 2);
  });

  it('is not read for a progressive JPEG or a table that is not libjpeg\'s', async () => {
    const px = synthetic(128, 96);
    expect(await recompressionReading(await sharp(px, raw(128, 96)).jpeg({ quality: 90, progressive: true }).toBuffer())).toBeNull();
    // mozjpeg's default tables (quantisationTable 3) are not the Annex K ones.
    expect(await recompressionReading(await sharp(px, raw(128, 96)).jpeg({ quality: 90, quantisationTable: 3 }).toBuffer())).toBeNull();
  });

  it('honours an aborted signal', async () => {
    const once = await sharp(synthetic(128, 96), raw(128, 96)).jpeg({ quality: 85 }).toBuffer();
    await expect(recompressionReading(once, AbortSignal.abort())).rejects.toThrow();
  });
});
