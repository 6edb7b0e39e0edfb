// Phones whose camera app encodes with libjpeg (Google's Pixels): their originals carry a JFIF header and one table per
// marker, which is what a program that re-saves a photo writes, so every one of the 33 Pixel 5 originals the catalogue
// now holds read "re-saved by a program" and none could be `authentic`. The catalogue names the models whose originals
// are all written so; for those, libjpeg's layout is the phone's when the file also has its camera data before the JFIF
// header (libjpeg writes the header first, and exiftool puts copied tags after it) and the model's own tables.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readJpegStructure } from '../../../src/analysis/capture/jpeg-structure.js';
import { findingSentence } from '../../../src/analysis/copy.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { exiftool } from '../../support/camera-originals.js';
import { captureOf, codesOf } from '../../support/capture-read.js';
import { relayoutJpeg } from '../../support/jpeg-relayout.js';
import { REPO, tempDir } from './fixtures.js';

// An unedited Google Pixel 5 original (HDR+), 4032x3024 shown turned (Orientation 6), MIT (test/fixtures/capture/README.md).
const PIXEL = join(REPO, 'test', 'fixtures', 'capture', 'google-pixel-5-4032x3024-orientation-6.jpg');
const pixel = readFileSync(PIXEL);
const MODELS = join(REPO, 'models');
const tmp = tempDir();
afterAll(async () => {
  tmp.cleanup();
  await closeAnalysis();
});

const capture = captureOf;
const codes = codesOf;

/** The same bytes with the JFIF header moved to the front, as libjpeg writes it and as a program's file keeps it when exiftool adds tags. */
function jfifFirst(jpeg: Buffer): Buffer {
  const segments: Buffer[] = [];
  let at = 2;
  while (jpeg[at + 1] >= 0xe0 && jpeg[at + 1] <= 0xef) {
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    segments.push(jpeg.subarray(at, end));
    at = end;
  }
  const jfif = segments.filter((s) => s[1] === 0xe0);
  return Buffer.concat([jpeg.subarray(0, 2), ...jfif, ...segments.filter((s) => s[1] !== 0xe0), jpeg.subarray(at)]);
}

describe("a phone that writes its photos with libjpeg (Google's Pixel 5)", () => {
  it("the unedited original is built as that phone builds its files: consistent, not 're-saved'", async () => {
    const s = readJpegStructure(pixel);
    expect([s.jfif, s.libjpegLayout, s.exifBeforeJfif]).toEqual([true, true, true]);
    const r = await capture(pixel);
    expect(r.status).toBe('consistent');
    expect(r.findings.find((f) => f.code === 'capture.jpeg.phone_libjpeg')?.facts).toEqual({ model: 'Pixel 5' });
    expect(codes(r)).toContain('capture.qtable.known_maker');
    expect(codes(r)).not.toContain('capture.jpeg.software_layout');
    expect(findingSentence(r.findings.find((f) => f.code === 'capture.jpeg.phone_libjpeg')!)).toMatch(/Pixel 5's camera app/);
  });

  it('the same bytes with the JFIF header first, as a program writes it: re-saved', async () => {
    const moved = jfifFirst(pixel);
    expect(readJpegStructure(moved).exifBeforeJfif).toBe(false);
    const r = await capture(moved);
    expect(r.status).toBe('resaved');
    expect(codes(r)).toContain('capture.jpeg.software_layout');
    expect(codes(r)).not.toContain('capture.jpeg.phone_libjpeg');
  });

  it('another model named on the same file: naming a phone is not enough', async () => {
    const p = tmp.write('pixel-renamed.jpg', pixel);
    exiftool('-Model=Pixel 4a', p);
    const renamed = readFileSync(p);
    expect(readJpegStructure(renamed).exifBeforeJfif).toBe(true);
    const r = await capture(renamed);
    expect(r.status).toBe('resaved');
    expect(codes(r)).toContain('capture.jpeg.software_layout');
  });

  it("re-saved by libjpeg with the phone's tags copied back: re-saved", async () => {
    const p = tmp.write('pixel-resaved.jpg', await sharp(pixel).jpeg({ quality: 95 }).toBuffer());
    exiftool('-TagsFromFile', PIXEL, '-all:all', p);
    const r = await capture(readFileSync(p));
    expect(r.claimed?.model).toBe('Pixel 5');
    expect(r.status).not.toBe('consistent');
    expect(codes(r)).toContain('capture.jpeg.software_layout');
  });

  it("the phone's own tables in a file without its JFIF header, or with its tables merged: not the phone's layout, re-saved", async () => {
    const p = tmp.write('pixel-no-jfif.jpg', pixel);
    exiftool('-JFIF:all=', p);
    const noJfif = await capture(readFileSync(p));
    expect(readJpegStructure(readFileSync(p)).jfif).toBe(false);
    expect(noJfif.status).toBe('resaved');
    expect(noJfif.findings.find((f) => f.code === 'capture.jpeg.layout_unlike_model')?.facts).toEqual({ model: 'Pixel 5' });
    const merged = await capture(relayoutJpeg(readFileSync(p), ['Q', 'H', 'F']));
    expect(merged.status).toBe('resaved');
    expect(merged.findings.map((f) => f.code)).toContain('capture.jpeg.layout_unlike_model');
  });

  it('through the whole analysis: the original is authentic (low: camera data), the JFIF-first copy is not', async () => {
    const a = await analyseFile(PIXEL, 'image/jpeg', { modelsDir: MODELS });
    expect(a.verdict.assessment).toBe('authentic');
    expect(a.verdict.confidence).toBe('low');
    const b = await analyseFile(tmp.write('pixel-jfif-first.jpg', jfifFirst(pixel)), 'image/jpeg', { modelsDir: MODELS });
    expect(b.verdict.assessment).toBe('inconclusive');
  });
});
