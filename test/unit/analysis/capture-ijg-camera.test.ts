// Cameras that compress with libjpeg's standard tables (Epson, Olympus, many Nikon and Sony cameras, some Android
// phones): their originals read `insufficient` because a program writes the same tables, so none of them could be
// `authentic` (40 of the 71 held-out JPEG originals the capture check lost). What tells such a camera's file from a
// program's is how the file is laid out around the tables: the camera puts every table of a kind in one marker, in
// its own order, with no JFIF header; libjpeg-based software (sharp, PIL, ImageMagick, GIMP) writes JFIF and one
// table per marker. The catalogue keeps the layouts of its originals with those tables and the models that wrote
// them; a file in one of them, from one of those models, with the camera's own thumbnail, is the camera's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readJpegStructure } from '../../../src/analysis/capture/jpeg-structure.js';
import { findingSentence } from '../../../src/analysis/copy.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { exiftool } from '../../support/camera-originals.js';
import { captureOf, codesOf, findingOf } from '../../support/capture-read.js';
import { relayoutJpeg } from '../../support/jpeg-relayout.js';
import { REPO, tempDir } from './fixtures.js';

// An unedited Epson PhotoPC 3100Z original, libjpeg's tables at quality 77, CC0 (test/fixtures/capture/README.md).
const EPSON = join(REPO, 'test', 'fixtures', 'capture', 'epson-photopc-3100z-640x480.jpg');
const epson = readFileSync(EPSON);
const MODELS = join(REPO, 'models');
const tmp = tempDir();
afterAll(async () => {
  tmp.cleanup();
  await closeAnalysis();
});

const capture = captureOf;
const codes = codesOf;
const finding = findingOf;

/** The photo decoded and saved again by libjpeg at its own quality, no JFIF header, every tag and the camera's thumbnail copied back. */
async function resavedSameQuality(): Promise<Buffer> {
  const p = tmp.write('epson-resaved.jpg', await sharp(epson).jpeg({ quality: 77, chromaSubsampling: '4:2:0', optimiseCoding: false }).toBuffer());
  exiftool('-all=', p);
  exiftool('-TagsFromFile', EPSON, '-all:all', '-ThumbnailImage', p);
  exiftool('-JFIF:all=', p);
  return readFileSync(p);
}

describe("libjpeg's standard tables written as the camera writes them", () => {
  it('the unedited Epson original is built as that camera builds its files: consistent', async () => {
    expect(readJpegStructure(epson).layout).toBe('Q3 H4 F');
    const r = await capture(epson);
    expect(r.status).toBe('consistent');
    expect(finding(r, 'capture.qtable.camera_ijg')?.facts).toEqual({ quality: 77, model: 'PhotoPC 3100Z' });
    expect(codes(r)).toEqual(expect.arrayContaining(['capture.thumbnail.match', 'capture.consistent']));
    expect(codes(r)).not.toContain('capture.qtable.standard_ijg');
  });

  it('the same tables and the same coded picture in another order of markers (as Go writes JPEGs): not the camera\'s', async () => {
    const moved = relayoutJpeg(epson, ['Q', 'F', 'H']);
    expect(readJpegStructure(moved).layout).toBe('Q3 F H4');
    const r = await capture(moved);
    expect(r.status).not.toBe('consistent');
    expect(finding(r, 'capture.qtable.standard_ijg')?.facts).toEqual({ quality: 77, camerasToo: true });
    expect(codes(r)).not.toContain('capture.qtable.camera_ijg');
  });

  it('re-saved by libjpeg at its own quality with every tag and the thumbnail copied back: re-saved, not consistent', async () => {
    const r = await capture(await resavedSameQuality());
    expect(r.status).toBe('resaved');
    expect(codes(r)).toContain('capture.jpeg.layout_unlike_maker');
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(codes(r)).not.toContain('capture.qtable.camera_ijg');
  });

  it("the re-save with its tables merged but in the wrong camera's order: still not consistent", async () => {
    const merged = relayoutJpeg(await resavedSameQuality(), ['Q', 'H', 'F']);
    // libjpeg wrote two tables (Cb and Cr share one); the Epson writes three
    expect(readJpegStructure(merged).layout).toBe('Q2 H4 F');
    const r = await capture(merged);
    expect(r.status).not.toBe('consistent');
    expect(codes(r)).not.toContain('capture.qtable.camera_ijg');
  });

  it('a model the catalogue never saw use those tables: naming the maker is not enough', async () => {
    const p = tmp.write('epson-renamed.jpg', epson);
    exiftool('-Model=PhotoPC 850Z', p);
    const r = await capture(readFileSync(p));
    expect(readJpegStructure(readFileSync(p)).layout).toBe('Q3 H4 F');
    expect(r.status).not.toBe('consistent');
    expect(finding(r, 'capture.qtable.standard_ijg')?.facts).toEqual({ quality: 77, camerasToo: true });
  });

  it("without the camera's thumbnail the tables and layout alone do not make it the camera's", async () => {
    const p = tmp.write('epson-no-thumb.jpg', epson);
    exiftool('-ThumbnailImage=', p);
    const r = await capture(readFileSync(p));
    expect(codes(r)).toContain('capture.qtable.camera_ijg');
    expect(r.status).not.toBe('consistent');
  });

  it('the sentences: the camera named for its own layout, and no accusation where cameras use the same tables', async () => {
    const r = await capture(epson);
    expect(findingSentence(finding(r, 'capture.qtable.camera_ijg')!)).toMatch(/quality 77.*PhotoPC 3100Z/);
    const moved = await capture(relayoutJpeg(epson, ['Q', 'F', 'H']));
    const sentence = findingSentence(finding(moved, 'capture.qtable.standard_ijg')!);
    expect(sentence).toMatch(/some cameras and phones also use/);
    expect(sentence).not.toMatch(/a program saved it/);
  });

  it('through the whole analysis: the Epson original is authentic (low: camera data), the same bytes in another layout are not', async () => {
    const a = await analyseFile(EPSON, 'image/jpeg', { modelsDir: MODELS });
    expect(a.verdict.assessment).toBe('authentic');
    expect(a.verdict.confidence).toBe('low');
    const b = await analyseFile(tmp.write('epson-moved.jpg', relayoutJpeg(epson, ['Q', 'F', 'H'])), 'image/jpeg', { modelsDir: MODELS });
    expect(b.verdict.assessment).toBe('inconclusive');
  });
});
