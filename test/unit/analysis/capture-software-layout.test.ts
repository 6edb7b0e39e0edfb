// A forgery that passed the capture check (an adversarial audit): an AI picture encoded with a camera's own
// quantization tables (any encoder takes them), every tag copied from that camera's photo with exiftool, and the EXIF
// thumbnail made again from the new pixels. Tables, tags and thumbnail then all agree, and 17 of 20 such files were
// `authentic`. What the forger's encoder does not copy is how the camera lays the file out: libjpeg (PIL, sharp,
// ImageMagick, exiftool's inputs) writes a JFIF header and one table per marker. Here a camera original is laid out
// that way with its bytes otherwise unchanged (the same tables, the same scan), so the layout is all that differs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import catalogueJson from '../../../src/analysis/capture/quant-tables.json' with { type: 'json' };
import { createCaptureReader, readCapture, type Catalogue } from '../../../src/analysis/capture/index.js';
import { readJpegStructure } from '../../../src/analysis/capture/jpeg-structure.js';
import { tablesHash, usedTables } from '../../../src/analysis/capture/quant-tables.js';
import { findingSentence } from '../../../src/analysis/copy.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { REPO, tempDir } from './fixtures.js';

const CAPTURE = join(REPO, 'test', 'fixtures', 'capture');
const MODELS = join(REPO, 'models');
const tmp = tempDir();
afterAll(async () => {
  tmp.cleanup();
  await closeAnalysis();
});

const segment = (marker: number, payload: Buffer) => {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
};
const JFIF = segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]));

/** Each table of a DQT or DHT payload on its own. */
function tablesOf(marker: number, p: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < p.length; ) {
    let size: number;
    if (marker === 0xdb) size = 1 + (p[at] >> 4 ? 128 : 64);
    else {
      let symbols = 0;
      for (let i = 1; i <= 16; i++) symbols += p[at + i];
      size = 17 + symbols;
    }
    out.push(p.subarray(at, at + size));
    at += size;
  }
  return out;
}

/**
 * The same JPEG laid out as libjpeg writes it: SOI, (JFIF), the APPn segments, one DQT per table, the frame, one DHT
 * per table, then the scan unchanged. `jfif` and `split` choose which of the two traits the file gets.
 */
function relaidOut(jpeg: Buffer, { jfif, split }: { jfif: boolean; split: boolean }): Buffer {
  const app: Buffer[] = [];
  const dqt: Buffer[] = [];
  const dht: Buffer[] = [];
  const other: Buffer[] = [];
  let sof: Buffer | null = null;
  let at = 2;
  while (jpeg[at + 1] !== 0xda) {
    const marker = jpeg[at + 1];
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    const whole = jpeg.subarray(at, end);
    const payload = jpeg.subarray(at + 4, end);
    if (marker >= 0xe0 && marker <= 0xef) app.push(whole);
    else if (marker === 0xdb || marker === 0xc4) (marker === 0xdb ? dqt : dht).push(...(split ? tablesOf(marker, payload).map((t) => segment(marker, t)) : [whole]));
    else if (marker >= 0xc0 && marker <= 0xcf) sof = whole;
    else other.push(whole);
    at = end;
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...(jfif ? [JFIF] : []), ...app, ...dqt, sof!, ...dht, ...other, jpeg.subarray(at)]);
}

async function capture(buf: Buffer) {
  const m = await sharp(buf).metadata();
  return readCapture({ buf, mediaType: 'image/jpeg', width: m.width!, height: m.height! });
}

describe("a camera photo laid out as libjpeg writes JPEGs: the camera's tables and thumbnail no longer make it the camera's", () => {
  const files = ['canon-powershot-s50-640x480.jpg', 'kodak-dc280-896x592.jpg', 'nikon-coolpix-s3100-640x480.jpg', 'sony-fd200-640x480.jpg'];

  it('the original is consistent; with a JFIF header and one table per marker it is a re-save, whatever tables and thumbnail it has', async () => {
    for (const name of files) {
      const original = readFileSync(join(CAPTURE, name));
      expect((await capture(original)).status, name).toBe('consistent');
      const forged = relaidOut(original, { jfif: true, split: true });
      // the pixels are the camera's, bit for bit
      expect((await sharp(forged).raw().toBuffer()).equals(await sharp(original).raw().toBuffer()), name).toBe(true);
      expect(readJpegStructure(forged)).toMatchObject({ jfif: true, libjpegLayout: true });
      const r = await capture(forged);
      expect(r.status, name).toBe('resaved');
      expect(r.findings.map((f) => f.code), name).toEqual(expect.arrayContaining(['capture.jpeg.software_layout', 'capture.qtable.known_maker', 'capture.thumbnail.match']));
    }
  });

  it("a JFIF header alone is a camera's (iPhones write one): still consistent", async () => {
    for (const name of files) {
      const r = await capture(relaidOut(readFileSync(join(CAPTURE, name)), { jfif: true, split: false }));
      expect(r.status, name).toBe('consistent');
      expect(r.findings.map((f) => f.code)).not.toContain('capture.jpeg.software_layout');
    }
  });

  it("one table per marker without the JFIF header (the forger strips it: exiftool -JFIF:all=) is a re-save for a maker whose cameras put the tables together; HP's cameras write it and stay consistent", async () => {
    for (const name of files) {
      const r = await capture(relaidOut(readFileSync(join(CAPTURE, name)), { jfif: false, split: true }));
      expect(r.status, name).toBe('resaved');
      const codes = r.findings.map((f) => f.code);
      expect(codes, name).toEqual(expect.arrayContaining(['capture.jpeg.layout_unlike_maker', 'capture.qtable.known_maker', 'capture.thumbnail.match']));
      expect(codes, name).not.toContain('capture.jpeg.software_layout');
    }
    // the camera that writes one table per marker, as it wrote it
    const hpFile = readFileSync(join(CAPTURE, 'hp-photosmart-433-640x480.jpg'));
    expect(readJpegStructure(hpFile)).toMatchObject({ jfif: false, libjpegLayout: true });
    const hp = await capture(hpFile);
    expect(hp.status).toBe('consistent');
    expect(hp.findings.map((f) => f.code)).not.toContain('capture.jpeg.layout_unlike_maker');
  });

  it('a model the catalogue saw write that layout is left alone only with its own tables: naming it is not enough', async () => {
    // the NIKON D40 original of the corpus lays its tables out one per marker; a Coolpix photo re-laid out so and
    // renamed D40 keeps the Coolpix's tables, which no D40 of the catalogue used
    const path = tmp.write('renamed-d40.jpg', relaidOut(readFileSync(join(CAPTURE, 'nikon-coolpix-s3100-640x480.jpg')), { jfif: false, split: true }));
    execFileSync('exiftool', ['-q', '-q', '-m', '-overwrite_original', '-Model=NIKON D40', path], { stdio: 'ignore' });
    const r = await capture(readFileSync(path));
    expect(r.claimed?.model).toBe('NIKON D40');
    expect(r.findings.map((f) => f.code)).toContain('capture.jpeg.layout_unlike_maker');
    expect(r.status).toBe('resaved');
  });

  it("a maker with too few originals to say how all its cameras lay their tables out: the originals with these very tables still can", async () => {
    // The shipped catalogue holds 29 Kodak originals without a JFIF header, 28 with their tables merged: the maker-wide
    // rule reads the Kodak photo re-laid out as a program's. With only 3 of them (a small maker, as Casio, Ricoh, Sanyo,
    // Konica and JVC are here) that rule cannot speak, and the informed forger with such a donor read consistent; the
    // catalogued originals with the photo's own tables, which all merged them, now say so.
    const shipped = catalogueJson as unknown as Catalogue;
    const kodak = readFileSync(join(CAPTURE, 'kodak-dc280-896x592.jpg'));
    const hash = tablesHash(usedTables(readJpegStructure(kodak)));
    const entry = shipped.tables.find((t) => t.hash === hash)!;
    expect(entry.makes).toContain('kodak');
    expect(entry.libjpegLayoutMakes).not.toContain('kodak');
    const small = { ...shipped, makers: { ...shipped.makers, kodak: { ...shipped.makers.kodak, noJfifFiles: 3, noJfifLibjpegLayoutFiles: 0 } } };
    const readSmall = createCaptureReader(small);
    const read = async (buf: Buffer, reader = readSmall) => {
      const m = await sharp(buf).metadata();
      return reader({ buf, mediaType: 'image/jpeg', width: m.width!, height: m.height! });
    };
    const relaid = relaidOut(kodak, { jfif: false, split: true });
    expect((await read(kodak)).status).toBe('consistent');
    const r = await read(relaid);
    const codes = r.findings.map((f) => f.code);
    expect(codes).toEqual(expect.arrayContaining(['capture.jpeg.layout_unlike_tables', 'capture.qtable.known_maker', 'capture.thumbnail.match']));
    expect(codes).not.toContain('capture.jpeg.layout_unlike_maker');
    expect(r.status).toBe('resaved');
    expect(findingSentence(r.findings.find((f) => f.code === 'capture.jpeg.layout_unlike_tables')!)).toMatch(/EASTMAN KODAK COMPANY originals we hold with these very tables put them together/);
    // An original of the maker with these tables in that layout (a camera that writes it) leaves the layout alone.
    const writesIt = createCaptureReader({ ...small, tables: small.tables.map((t) => (t.hash === hash ? { ...t, libjpegLayoutMakes: ['kodak'] } : t)) });
    const w = await read(relaid, writesIt);
    expect(w.findings.map((f) => f.code)).not.toContain('capture.jpeg.layout_unlike_tables');
    expect(w.status).toBe('consistent');
    // With the full catalogue the maker-wide rule speaks, as before.
    expect((await read(relaid, readCapture)).findings.map((f) => f.code)).toContain('capture.jpeg.layout_unlike_maker');
  });

  it("an EXIF thumbnail a program made again (a JFIF header) is not the camera's: the same picture, yet no confirmation", async () => {
    for (const name of files) {
      const original = readFileSync(join(CAPTURE, name));
      // the forger's last step: the thumbnail made again from the file's own pixels by an encoder that writes a JFIF
      // header (PIL, ImageMagick, cjpeg do; sharp does not, so its output gets the header PIL writes)
      const m = await sharp(original).metadata();
      const encoded = await sharp(original).resize(160, Math.round((160 * m.height!) / m.width!)).jpeg({ quality: 75 }).toBuffer();
      const thumb = Buffer.concat([encoded.subarray(0, 2), JFIF, encoded.subarray(2)]);
      expect(readJpegStructure(thumb).jfif).toBe(true);
      const path = tmp.write(`thumb-${name}`, original);
      const thumbPath = tmp.write(`thumb-${name}.thumb.jpg`, thumb);
      execFileSync('exiftool', ['-q', '-q', '-m', '-overwrite_original', `-ThumbnailImage<=${thumbPath}`, path], { stdio: 'ignore' });
      const r = await capture(readFileSync(path));
      const codes = r.findings.map((f) => f.code);
      expect(codes, name).toContain('capture.thumbnail.software');
      expect(codes, name).not.toContain('capture.thumbnail.match');
      expect(r.status, name).toBe('resaved');
    }
  });

  it('through the whole analysis: the original is authentic, the re-laid-out copy inconclusive and the card says why', async () => {
    const original = readFileSync(join(CAPTURE, 'canon-powershot-s50-640x480.jpg'));
    const a = await analyseFile(tmp.write('original.jpg', original), 'image/jpeg', { modelsDir: MODELS });
    expect(a.verdict.assessment).toBe('authentic');
    const path = tmp.write('forged.jpg', relaidOut(original, { jfif: true, split: true }));
    const b = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS });
    expect(b.verdict.assessment).toBe('inconclusive');
    expect(b.verdict.display.description).toMatch(/libjpeg-based software/);
    // the forger's next step, the JFIF header stripped: still not authentic, and the card says why
    const c = await analyseFile(tmp.write('stripped.jpg', relaidOut(original, { jfif: false, split: true })), 'image/jpeg', { modelsDir: MODELS });
    expect(c.verdict.assessment).toBe('inconclusive');
    expect(c.verdict.display.description).toMatch(/one per marker, as libjpeg-based software writes JPEGs; Canon's cameras put them together/);
  });
});
