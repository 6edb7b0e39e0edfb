// Phones that lay their photos out as libjpeg lays out its tables, without a JFIF header, and pick their tables per
// photo: Samsung's recent Galaxies (the 36 Galaxy S25 Ultra and Z Fold6 originals of frederiksjr/TravelBlog, 24
// different tables among them). The catalogue's older Samsung phones merge their tables, so all 36 read "re-saved by a
// program" and none could be `authentic`. The catalogue now names the models that always write this layout
// (layoutWriters) with the range their tables span; for those, the layout is the phone's, and a table of the kind the
// phone picks lets the camera's thumbnail confirm the file, while a program's tables with the thumbnail copied back do
// not. A Samsung model the catalogue never saw is not accused of a re-save for this layout, and not confirmed either.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import catalogueJson from '../../../src/analysis/capture/quant-tables.json' with { type: 'json' };
import { createCaptureReader, type Catalogue } from '../../../src/analysis/capture/index.js';
import { readJpegStructure } from '../../../src/analysis/capture/jpeg-structure.js';
import { tablesHash, usedTables } from '../../../src/analysis/capture/quant-tables.js';
import { findingSentence } from '../../../src/analysis/copy.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { exiftool } from '../../support/camera-originals.js';
import { captureOf, codesOf, findingOf } from '../../support/capture-read.js';
import { relayoutJpeg } from '../../support/jpeg-relayout.js';
import { REPO, tempDir } from './fixtures.js';

// An unedited Samsung Galaxy Z Fold6 original (4000x3000, Orientation 6, Ultra HDR gain map and Samsung's trailer),
// Unlicense (test/fixtures/capture/README.md).
const FOLD6 = join(REPO, 'test', 'fixtures', 'capture', 'samsung-galaxy-z-fold6-4000x3000.jpg');
const fold6 = readFileSync(FOLD6);
const MODELS = join(REPO, 'models');
const tmp = tempDir();
afterAll(async () => {
  tmp.cleanup();
  await closeAnalysis();
});

const codes = codesOf;
const finding = findingOf;

// The shipped catalogue without the fixture's own tables: the phone's file read as one whose exact tables were never
// seen (the held-out measure, test/eval/capture-forgery.ts, does this for every original with half the corpus).
const shipped = catalogueJson as unknown as Catalogue;
const ownHash = tablesHash(usedTables(readJpegStructure(fold6)));
const withoutOwnTables = createCaptureReader({ ...shipped, tables: shipped.tables.filter((t) => t.hash !== ownHash) });
const unseen = (buf: Buffer) => captureOf(buf, 'image/jpeg', withoutOwnTables);

/** The fixture's tags (and thumbnail) copied onto `body`, optionally without the JFIF header a program writes. */
function withTags(name: string, body: Buffer, stripJfif: boolean): Buffer {
  const p = tmp.write(name, body);
  exiftool('-TagsFromFile', FOLD6, '-all:all', p);
  if (stripJfif) exiftool('-JFIF:all=', p);
  return readFileSync(p);
}

describe("Samsung's recent Galaxies: libjpeg's layout without a JFIF header, tables picked per photo", () => {
  it("the unedited original is built as that phone builds its files: consistent, not 're-saved'", async () => {
    const s = readJpegStructure(fold6);
    expect([s.jfif, s.libjpegLayout]).toEqual([false, true]);
    const r = await captureOf(fold6);
    expect(r.status).toBe('consistent');
    expect(finding(r, 'capture.jpeg.model_layout')?.facts).toEqual({ model: 'Galaxy Z Fold6' });
    expect(codes(r)).not.toContain('capture.jpeg.layout_unlike_maker');
    expect(findingSentence(finding(r, 'capture.jpeg.model_layout')!)).toMatch(/how the Galaxy Z Fold6 writes its photos/);
  });

  it("with tables the catalogue never saw but of the kind the phone picks, the camera's thumbnail confirms it", async () => {
    const r = await unseen(fold6);
    expect(codes(r)).not.toContain('capture.qtable.known_maker');
    expect(codes(r)).toContain('capture.qtable.model_range');
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(r.status).toBe('consistent');
    expect(findingSentence(finding(r, 'capture.qtable.model_range')!)).toMatch(/kind the Galaxy Z Fold6 picks/);
  });

  it("re-saved by libjpeg (sharp, which writes no JFIF header) with the phone's tags and thumbnail copied back: re-saved", async () => {
    const f = withTags('fold6-resaved.jpg', await sharp(fold6).jpeg({ quality: 95 }).toBuffer(), true);
    expect([readJpegStructure(f).jfif, readJpegStructure(f).libjpegLayout]).toEqual([false, true]);
    for (const read of [captureOf, unseen]) {
      const r = await read(f);
      expect(r.claimed?.model).toBe('Galaxy Z Fold6');
      expect(codes(r)).toContain('capture.thumbnail.match');
      // None of Samsung's originals in this layout uses libjpeg's standard tables: a program wrote these.
      expect(r.findings.find((x) => x.code === 'capture.qtable.standard_ijg')?.weight).toBeGreaterThan(0);
      expect(r.status).toBe('resaved');
    }
  });

  it("a program's own tables (mozjpeg's), the header stripped and the thumbnail copied back: not confirmed", async () => {
    const body = await sharp(fold6).jpeg({ quality: 92, mozjpeg: true, quantisationTable: 3, progressive: false, optimiseScans: false }).toBuffer();
    const f = withTags('fold6-mozjpeg.jpg', body, true);
    expect(readJpegStructure(f).libjpegLayout).toBe(true);
    const r = await unseen(f);
    expect(r.claimed?.model).toBe('Galaxy Z Fold6');
    expect(codes(r)).toContain('capture.qtable.unknown');
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(r.status).toBe('insufficient');
  });

  it("the phone's own bytes with the tables merged, as its older models wrote them: not its layout, re-saved", async () => {
    const merged = relayoutJpeg(fold6, ['Q', 'H', 'F']);
    expect(readJpegStructure(merged).libjpegLayout).toBe(false);
    const r = await captureOf(merged);
    expect(r.status).toBe('resaved');
    expect(finding(r, 'capture.jpeg.layout_unlike_model')?.facts).toEqual({ model: 'Galaxy Z Fold6', jfif: false });
    expect(findingSentence(finding(r, 'capture.jpeg.layout_unlike_model')!)).toMatch(/one table per marker, no JFIF header/);
  });

  it('an older Samsung the catalogue holds, which merges its tables, named on this layout: re-saved', async () => {
    const p = tmp.write('fold6-as-s7.jpg', fold6);
    exiftool('-Model=SM-G935L', p);
    const r = await captureOf(readFileSync(p));
    expect(r.status).toBe('resaved');
    expect(codes(r)).toContain('capture.jpeg.layout_unlike_maker');
  });

  it('a Samsung model the catalogue never saw, on this layout: not accused of a re-save, not confirmed by its thumbnail', async () => {
    const p = tmp.write('fold6-as-unseen.jpg', fold6);
    exiftool('-Model=Galaxy A99', p);
    const r = await unseen(readFileSync(p));
    expect(codes(r)).not.toContain('capture.jpeg.layout_unlike_maker');
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(r.status).toBe('insufficient');
    // The same model name on libjpeg's standard tables in this layout, which no Samsung original was written with: re-saved.
    const q = tmp.write('unseen-resaved.jpg', await sharp(fold6).jpeg({ quality: 95 }).toBuffer());
    exiftool('-TagsFromFile', p, '-all:all', q);
    const resaved = await unseen(readFileSync(q));
    expect(resaved.claimed?.model).toBe('Galaxy A99');
    expect(resaved.status).toBe('resaved');
  });

  it('through the whole analysis: the original is authentic (low: camera data), the libjpeg re-save is not', async () => {
    const a = await analyseFile(FOLD6, 'image/jpeg', { modelsDir: MODELS });
    expect(a.verdict.assessment).toBe('authentic');
    expect(a.verdict.confidence).toBe('low');
    const body = await sharp(fold6).jpeg({ quality: 95 }).toBuffer();
    const b = await analyseFile(tmp.write('fold6-resaved-analysis.jpg', withTags('fold6-resaved-2.jpg', body, true)), 'image/jpeg', { modelsDir: MODELS });
    expect(b.verdict.assessment).toBe('inconclusive');
  });
});
