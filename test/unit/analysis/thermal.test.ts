// Thermal camera pictures (src/analysis/thermal.ts): a FLIR JPEG whose radiometric image explains its colours is read
// as a thermal picture, and the pixel score, which was never calibrated on thermal imaging, decides nothing; the same
// segments copied onto another picture earn nothing, and malformed segments are ignored without harm.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { jpegSegments } from '../../../src/analysis/capture/jpeg-structure.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { DETAIL_AGREEMENT, djiRawImage, flirPayload, flirRawRecord, readThermal, THERMAL_AGREEMENT } from '../../../src/analysis/thermal.js';
import { HAS_MODEL, MODELS_DIR, REPO, tempDir } from './fixtures.js';

const fixture = (name: string) => readFileSync(join(REPO, 'test', 'fixtures', 'thermal', name));
const STEAM = 'flir-t420-steam-train-valves.jpg';
const DUCKS = 'flir-i7-four-ducks.jpg';
const FLOOR = 'flir-e60-underfloor-heating.jpg';
const DJI = 'dji-h20t-survey.jpg';

/** The JPEG's segments that `keep` selects, whole (marker and length included). */
const segmentsOf = (jpeg: Buffer, keep: (marker: number, payload: Buffer) => boolean) =>
  [...jpegSegments(jpeg)].filter((g) => keep(g.marker, jpeg.subarray(g.start, g.end))).map((g) => jpeg.subarray(g.start - 4, g.end));
/** The APP1 "FLIR" segments (FLIR's radiometric image). */
const flirSegments = (jpeg: Buffer) => segmentsOf(jpeg, (m, p) => m === 0xe1 && p.toString('latin1', 0, 5) === 'FLIR\0');
/** The APP3 and APP4 segments (DJI's radiometric image). */
const djiSegments = (jpeg: Buffer) => segmentsOf(jpeg, (m) => m === 0xe3 || m === 0xe4);
/** `segments` put into `jpeg` right after its SOI marker. */
const withSegments = (jpeg: Buffer, segments: Buffer[]) => Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
const decode = (b: Buffer) => decodeImageBuffer(b, 'image/jpeg');

describe('thermal pictures: the radiometric data against the pixels', () => {
  it.each([
    [STEAM, 640, 480],
    [DUCKS, 120, 120],
    [FLOOR, 320, 240],
  ])('reads %s as a thermal picture: its %ix%i radiometric image explains its colours', async (name, w, h) => {
    const bytes = fixture(name);
    const t = await readThermal(bytes, await decode(bytes));
    expect(t).toMatchObject({ maker: 'FLIR', rawWidth: w, rawHeight: h, consistent: true });
    expect(t!.agreement).toBeGreaterThanOrEqual(THERMAL_AGREEMENT);
  });

  it("another camera's radiometric data copied onto a picture does not explain it", async () => {
    for (const [picture, donor] of [
      [STEAM, DUCKS],
      [DUCKS, FLOOR],
      [FLOOR, STEAM],
    ]) {
      // the picture re-encoded without its own segments, then given the donor's
      const bare = await sharp(fixture(picture)).jpeg({ quality: 92 }).toBuffer();
      expect(flirPayload(bare)).toBeNull();
      const forged = withSegments(bare, flirSegments(fixture(donor)));
      const t = await readThermal(forged, await decode(forged));
      expect(t, `${picture} with ${donor}'s data`).not.toBeNull();
      expect(t!.consistent, `${picture} with ${donor}'s data`).toBe(false);
      expect(t!.agreement).toBeLessThan(0.4);
    }
  });

  it('ignores a picture without FLIR data, and malformed FLIR data, without throwing', async () => {
    const plain = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } }).jpeg().toBuffer();
    expect(await readThermal(plain, await decode(plain))).toBeNull();
    const segs = flirSegments(fixture(FLOOR));
    const fff = flirPayload(fixture(FLOOR))!;
    expect(flirRawRecord(fff)).toMatchObject({ width: 320, height: 240 });
    const img = await decode(fixture(FLOOR));
    // a directory that claims 100,000 entries; a raw record pointing past the data; a raw image of 60,000 x 60,000;
    // a first segment cut short; a PNG body of garbage
    const broken = (mutate: (b: Buffer) => void) => {
      const b = Buffer.from(fff);
      mutate(b);
      return b;
    };
    const le = fff.readUInt32LE(0x14) >= 100 && fff.readUInt32LE(0x14) < 200;
    const put32 = (b: Buffer, o: number, v: number) => (le ? b.writeUInt32LE(v, o) : b.writeUInt32BE(v, o));
    const get32 = (b: Buffer, o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const dir = get32(fff, 0x18);
    const rawEntry = (() => {
      for (let k = 0; k < get32(fff, 0x1c); k++) {
        const e = dir + 32 * k;
        if ((le ? fff.readUInt16LE(e) : fff.readUInt16BE(e)) === 1) return e;
      }
      throw new Error('no raw record');
    })();
    const rawOff = get32(fff, rawEntry + 0x0c);
    const cases = [
      broken((b) => put32(b, 0x1c, 100_000)),
      broken((b) => put32(b, rawEntry + 0x0c, b.length - 10)),
      broken((b) => {
        const little = b.readUInt16LE(rawOff) === 2;
        if (little) {
          b.writeUInt16LE(60_000, rawOff + 2);
          b.writeUInt16LE(60_000, rawOff + 4);
        } else {
          b.writeUInt16BE(60_000, rawOff + 2);
          b.writeUInt16BE(60_000, rawOff + 4);
        }
      }),
      broken((b) => b.fill(0, 0, 4)),
    ];
    for (const c of cases) expect(flirRawRecord(c)).toBeNull();
    // the same faults inside a real JPEG: no reading, no exception
    const cut = Buffer.from(segs[0]);
    cut.writeUInt16BE(12, 2);
    const truncated = withSegments(await sharp(fixture(FLOOR)).jpeg().toBuffer(), [cut.subarray(0, 14)]);
    expect(await readThermal(truncated, img)).toBeNull();
    const ducks = flirPayload(fixture(DUCKS))!;
    const rec = flirRawRecord(ducks)!;
    const garbage = Buffer.from(ducks);
    garbage.fill(0x41, ducks.indexOf(rec.body) + 16, ducks.indexOf(rec.body) + 200); // PNG signature kept, IHDR and data broken
    const header = Buffer.from([0xff, 0xe1, 0, 0]);
    const chunk = Buffer.concat([Buffer.from('FLIR\0\x01\x00\x00', 'latin1'), garbage.subarray(0, 65000)]);
    header.writeUInt16BE(chunk.length + 2, 2);
    const bad = withSegments(await sharp(fixture(DUCKS)).jpeg().toBuffer(), [Buffer.concat([header, chunk])]);
    expect(await readThermal(bad, await decode(bad))).toBeNull();
  });
});

describe('thermal pictures from DJI drones (R-JPEG)', () => {
  it('reads a DJI H20T picture as a thermal picture: its 640x512 radiometric image explains its colours and its detail', async () => {
    const bytes = fixture(DJI);
    const img = await decode(bytes);
    expect(djiRawImage(bytes, img.width, img.height)).toMatchObject({ width: 640, height: 512 });
    const t = await readThermal(bytes, img);
    expect(t).toMatchObject({ maker: 'DJI', rawWidth: 640, rawHeight: 512, consistent: true });
    expect(t!.agreement).toBeGreaterThanOrEqual(THERMAL_AGREEMENT);
    expect(t!.detailAgreement).toBeGreaterThan(0.5);
  });

  it('refuses the same data under other pixels: the picture mirrored, or a photograph of another scene', async () => {
    const segs = djiSegments(fixture(DJI));
    expect(segs.reduce((n, s) => n + s.length - 4, 0)).toBeGreaterThanOrEqual(640 * 512 * 2);
    // mirrored: the same palette, histogram and sky-above-ground layout, so the whole-picture ratio stays high; the
    // detail no longer lines up with the data
    const mirrored = withSegments(await sharp(fixture(DJI)).flop().jpeg({ quality: 92 }).toBuffer(), segs);
    const m = await readThermal(mirrored, await decode(mirrored));
    expect(m).toMatchObject({ maker: 'DJI', consistent: false });
    expect(m!.agreement).toBeGreaterThanOrEqual(THERMAL_AGREEMENT); // the whole-picture ratio alone would be fooled
    expect(m!.detailAgreement).toBeLessThan(DETAIL_AGREEMENT);
    const other = await sharp(join(REPO, 'test', 'fixtures', 'thermal', STEAM)).resize(640, 512, { fit: 'fill' }).jpeg().toBuffer();
    const forged = withSegments(other, segs);
    const o = await readThermal(forged, await decode(forged));
    expect(o).toMatchObject({ maker: 'DJI', consistent: false });
  });

  it('ignores APP3 data of the wrong size, and a picture whose size no longer matches its data, without throwing', async () => {
    const segs = djiSegments(fixture(DJI));
    const cut = withSegments(await sharp(fixture(DJI)).jpeg().toBuffer(), segs.slice(1));
    expect(await readThermal(cut, await decode(cut))).toBeNull();
    const resized = withSegments(await sharp(fixture(DJI)).resize(600, 480).jpeg().toBuffer(), segs);
    expect(await readThermal(resized, await decode(resized))).toBeNull();
  });
});

describe.skipIf(!HAS_MODEL)('thermal pictures in the analysis, with the real model', () => {
  const tmp = tempDir();
  afterAll(async () => {
    tmp.cleanup();
    await closeAnalysis();
  });

  it('a FLIR picture the pixels read as AI is inconclusive, and says it is a thermal picture', async () => {
    const r = await analyseFile(join(REPO, 'test', 'fixtures', 'thermal', STEAM), 'image/jpeg', { modelsDir: MODELS_DIR });
    const pixels = r.verdict.dimensions.find((d) => d.key === 'ai_detection')!;
    expect(pixels.score).toBeGreaterThan(0.9); // what 1.5.1 called ai_generated
    expect(pixels).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(r.findings.map((f) => f.code)).toContain('pixels.thermal');
    expect(r.verdict.assessment).not.toBe('ai_generated');
    expect(r.verdict.display.description).toMatch(/thermal camera picture/);
  });

  it('a DJI drone thermal picture is inconclusive and says it is a thermal picture, mirrored it is read by its pixels', async () => {
    const r = await analyseFile(join(REPO, 'test', 'fixtures', 'thermal', DJI), 'image/jpeg', { modelsDir: MODELS_DIR });
    expect(r.verdict.dimensions.find((d) => d.key === 'ai_detection')).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(r.findings.find((f) => f.code === 'pixels.thermal')?.facts).toMatchObject({ maker: 'DJI', rawWidth: 640, rawHeight: 512 });
    expect(r.verdict.display.description).toMatch(/thermal camera picture/);
    const mirrored = withSegments(await sharp(fixture(DJI)).flop().jpeg({ quality: 92 }).toBuffer(), djiSegments(fixture(DJI)));
    const m = await analyseFile(tmp.write('mirrored-dji.jpg', mirrored), 'image/jpeg', { modelsDir: MODELS_DIR });
    expect(m.findings.map((f) => f.code)).not.toContain('pixels.thermal');
  });

  it('the same picture with another camera\'s radiometric data is still called AI', async () => {
    const bare = await sharp(fixture(STEAM)).jpeg({ quality: 95 }).toBuffer();
    const forged = withSegments(bare, flirSegments(fixture(DUCKS)));
    const r = await analyseFile(tmp.write('forged-thermal.jpg', forged), 'image/jpeg', { modelsDir: MODELS_DIR });
    expect(r.findings.map((f) => f.code)).not.toContain('pixels.thermal');
    expect(r.verdict.dimensions.find((d) => d.key === 'ai_detection')).toMatchObject({ assessment: 'likely_ai', confidence: 'high' });
    expect(r.verdict.assessment).toBe('ai_generated');
  });
});
