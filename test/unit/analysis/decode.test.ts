// Decoding to the detector's pixels: EXIF orientation, 16-bit and alpha, HEIC through heic-decode, tiling geometry,
// and hostile inputs (bombs, corruption, abort) that must end in an error within bounds, never a crash or a hang.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { padToTile, tileOrigins, topKMean } from '../../../src/analysis/ai-detection.js';
import { DecodeError, decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { REPO, makeJpeg, makePng, pngBomb, jpegWithDeclaredSize, tempDir } from './fixtures.js';

const HEIC = join(REPO, 'test', 'fixtures', 'analysis', 'gradient-64x48.heic');
const hasHeifEnc = (() => {
  try {
    execFileSync('heif-enc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    try {
      execFileSync('which', ['heif-enc'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }
})();

describe('decodeImageBuffer', () => {
  it('applies EXIF orientation (a 120x80 JPEG tagged orientation 6 decodes as 80x120)', async () => {
    const jpeg = await makeJpeg(120, 80, (s) => s.withMetadata({ orientation: 6 }));
    const img = await decodeImageBuffer(jpeg, 'image/jpeg');
    expect([img.width, img.height]).toEqual([80, 120]);
    expect(img.data.length).toBe(80 * 120 * 3);
  });

  it('reduces 16-bit RGBA PNG to 8-bit RGB, keeping the colour under the alpha', async () => {
    const raw = Buffer.alloc(40 * 40 * 4);
    for (let i = 0; i < 40 * 40; i++) raw.set([200, 100, 50, i % 2 ? 0 : 255], i * 4);
    const png16 = await sharp(raw, { raw: { width: 40, height: 40, channels: 4 } }).toColourspace('rgb16').png().toBuffer();
    expect((await sharp(png16).metadata()).depth).toBe('ushort');
    const img = await decodeImageBuffer(png16, 'image/png');
    expect(img.data.length).toBe(40 * 40 * 3);
    expect([img.data[3], img.data[4], img.data[5]]).toEqual([200, 100, 50]); // a fully transparent pixel
  });

  it('converts greyscale to three channels', async () => {
    const grey = await sharp(Buffer.alloc(50 * 50, 77), { raw: { width: 50, height: 50, channels: 1 } }).png().toBuffer();
    const img = await decodeImageBuffer(grey, 'image/png');
    expect(img.data.subarray(0, 3)).toEqual(Buffer.from([77, 77, 77]));
  });

  it('decodes HEIC (HEVC) with heic-decode', async () => {
    const img = await decodeImageBuffer(readFileSync(HEIC), 'image/heic');
    expect([img.width, img.height]).toEqual([64, 48]);
    // the fixture is a horizontal red ramp: red grows left to right
    expect(img.data[(10 * 64 + 60) * 3]).toBeGreaterThan(img.data[(10 * 64 + 2) * 3] + 100);
  });

  it.skipIf(!hasHeifEnc)('decodes a HEIC made now by heif-enc (apt libheif-examples) from a 300x200 photo', async () => {
    const tmp = tempDir();
    try {
      const png = tmp.write('in.png', await makePng(300, 200));
      execFileSync('heif-enc', ['-q', '85', png, '-o', join(tmp.dir, 'out.heic')], { stdio: 'ignore' });
      const img = await decodeImageBuffer(readFileSync(join(tmp.dir, 'out.heic')), 'image/heic');
      expect([img.width, img.height]).toEqual([300, 200]);
    } finally {
      tmp.cleanup();
    }
  });

  it('refuses bombs from the header before any decoder runs', async () => {
    await expect(decodeImageBuffer(pngBomb(30000, 30000), 'image/png')).rejects.toThrow(DecodeError);
    await expect(decodeImageBuffer(jpegWithDeclaredSize(await makeJpeg(64, 64), 65500, 65500), 'image/jpeg')).rejects.toThrow(/100-megapixel/);
  });

  it('random byte corruption ends in an image or an error, never a crash, within seconds', async () => {
    const sources: Array<[Buffer, 'image/jpeg' | 'image/png']> = [
      [await makeJpeg(256, 192), 'image/jpeg'],
      [await makePng(256, 192), 'image/png'],
    ];
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const t0 = performance.now();
    let errors = 0;
    for (const [src, type] of sources) {
      for (let trial = 0; trial < 12; trial++) {
        const bad = Buffer.from(src);
        for (let k = 0; k < 20; k++) bad[100 + rnd(bad.length - 100)] = rnd(256);
        try {
          const img = await decodeImageBuffer(bad, type);
          expect(img.data.length).toBe(img.width * img.height * 3);
        } catch (err) {
          errors++;
          expect(err).toBeInstanceOf(Error);
        }
      }
    }
    expect(errors).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('a progressive JPEG with its last scan repeated 1000 times (scan bomb) ends in an error within seconds', async () => {
    const prog = await sharp(await makeJpeg(256, 256)).jpeg({ progressive: true, quality: 90 }).toBuffer();
    const scans: Array<[number, number]> = [];
    for (let off = 2; off < prog.length && prog[off + 1] !== 0xd9; ) {
      const len = prog.readUInt16BE(off + 2);
      if (prog[off + 1] !== 0xda) {
        off += 2 + len;
        continue;
      }
      let end = off + 2 + len;
      while (end + 1 < prog.length && !(prog[end] === 0xff && prog[end + 1] !== 0 && (prog[end + 1] < 0xd0 || prog[end + 1] > 0xd7))) end++;
      scans.push([off, end]);
      off = end;
    }
    expect(scans.length).toBeGreaterThan(3);
    const [s0, s1] = scans[scans.length - 1];
    const bomb = Buffer.concat([prog.subarray(0, s1), ...Array<Buffer>(1000).fill(prog.subarray(s0, s1)), prog.subarray(s1)]);
    const t0 = performance.now();
    await expect(decodeImageBuffer(bomb, 'image/jpeg')).rejects.toThrow(/progression/);
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('honours an aborted signal', async () => {
    const jpeg = await makeJpeg(64, 64);
    await expect(decodeImageBuffer(jpeg, 'image/jpeg', AbortSignal.abort())).rejects.toThrow();
  });
});

describe('tiling (the same geometry the model card was measured with)', () => {
  it('grid origins every stride with whole tiles, sampled evenly down to maxTiles', () => {
    expect(tileOrigins(96, 96, 96, 64, 64)).toEqual([[0, 0]]);
    expect(tileOrigins(223, 96, 96, 64, 64)).toEqual([
      [0, 0],
      [64, 0],
    ]);
    expect(tileOrigins(224, 96, 96, 64, 64)).toHaveLength(3); // 128 + 96 = 224: the last tile still fits
    const many = tileOrigins(4000, 3000, 96, 64, 64);
    expect(many).toHaveLength(64);
    expect(many[0]).toEqual([0, 0]);
    const full = tileOrigins(4000, 3000, 96, 64, 100000);
    expect(many[63]).toEqual(full[Math.floor((63 * full.length) / 64)]);
    expect(tileOrigins(95, 400, 96, 64, 64)).toEqual([]);
  });

  it('small images are centre-padded by reflection to one tile; extreme aspect ratios do not break it', () => {
    const img = { width: 40, height: 32, data: Buffer.alloc(40 * 32 * 3, 9) };
    const p = padToTile(img, 96);
    expect([p.image.width, p.image.height, p.offsetX, p.offsetY]).toEqual([96, 96, 28, 32]);
    expect(p.image.data.every((v) => v === 9)).toBe(true);
    const thin = padToTile({ width: 5000, height: 32, data: Buffer.alloc(5000 * 32 * 3, 1) }, 96);
    expect([thin.image.width, thin.image.height]).toEqual([5000, 96]);
  });

  it('top-k mean', () => {
    expect(topKMean([0.1, 0.9, 0.5, 0.7], 3)).toBeCloseTo((0.9 + 0.7 + 0.5) / 3);
    expect(topKMean([0.4], 3)).toBeCloseTo(0.4);
  });
});
