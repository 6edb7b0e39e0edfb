// Phones that lay their photos out as libjpeg lays out its tables, without a JFIF header, and pick their tables per
// photo: Samsung's recent Galaxies (the 36 Galaxy S25 Ultra and Z Fold6 originals of frederiksjr/TravelBlog, 24
// different tables among them). The catalogue's older Samsung phones merge their tables, so all 36 read "re-saved by a
// program" and none could be `authentic`. The catalogue now names the models that always write this layout
// (layoutWriters) with the range their tables span; for those, the layout is the phone's, and a table of the kind the
// phone picks lets the camera's thumbnail confirm the file, while a program's tables with the thumbnail copied back do
// not. A Samsung model the catalogue never saw is not accused of a re-save for this layout, and with tables of the
// kind its recent models pick it is read as their sibling. A file without the parts every original of the model carries
// and exiftool cannot copy (the MPF index of its HDR gain map, Samsung's APP4) is not confirmed: the informed forger's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import catalogueJson from '../../../src/analysis/capture/quant-tables.json' with { type: 'json' };
import { createCaptureReader, type Catalogue } from '../../../src/analysis/capture/index.js';
import { jpegSegments, readJpegStructure } from '../../../src/analysis/capture/jpeg-structure.js';
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

/**
 * The file with the APPn segments of these markers taken out, every other byte as it was: what the informed forger's
 * file is like (the phone's own tables encoded by any libjpeg, the header stripped, every tag exiftool copies and a
 * thumbnail made again), since exiftool copies neither the MPF index of the HDR gain map nor Samsung's APP4.
 */
function withoutSegments(buf: Buffer, markers: number[]): Buffer {
  const keep: Buffer[] = [buf.subarray(0, 2)];
  let from = 2;
  for (const { marker, start, end } of jpegSegments(buf)) {
    if (markers.includes(marker)) {
      keep.push(buf.subarray(from, start - 4));
      from = end;
    }
  }
  keep.push(buf.subarray(from));
  return Buffer.concat(keep);
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

  it("a Samsung model the catalogue never saw, on this layout with tables of the kind its recent models pick: read as their sibling", async () => {
    const p = tmp.write('fold6-as-unseen.jpg', fold6);
    exiftool('-Model=Galaxy A99', p);
    const r = await unseen(readFileSync(p));
    expect(codes(r)).not.toContain('capture.jpeg.layout_unlike_maker');
    const writers = shipped.makers.samsung.layoutWriters.map((w) => w.model);
    const layout = finding(r, 'capture.jpeg.model_layout');
    expect(layout?.facts.model).toBe('Galaxy A99');
    expect(writers).toContain(layout?.facts.like);
    expect(finding(r, 'capture.qtable.model_range')?.facts).toEqual({ model: 'Galaxy A99', like: layout?.facts.like });
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(r.status).toBe('consistent');
    expect(findingSentence(layout!)).toMatch(/we hold no original of the Galaxy A99 itself/);
    expect(findingSentence(finding(r, 'capture.qtable.model_range')!)).toMatch(/we hold no original of the Galaxy A99 itself/);

    // The same model name on a program's own tables (mozjpeg's), the header stripped and the tags copied: not accused,
    // not confirmed by its thumbnail.
    const body = await sharp(fold6).jpeg({ quality: 92, mozjpeg: true, quantisationTable: 3, progressive: false, optimiseScans: false }).toBuffer();
    const m = tmp.write('unseen-mozjpeg.jpg', body);
    exiftool('-TagsFromFile', p, '-all:all', m);
    exiftool('-JFIF:all=', m);
    const moz = await unseen(readFileSync(m));
    expect(moz.claimed?.model).toBe('Galaxy A99');
    expect(codes(moz)).not.toContain('capture.jpeg.layout_unlike_maker');
    expect(codes(moz)).not.toContain('capture.jpeg.model_layout');
    expect(codes(moz)).toContain('capture.thumbnail.match');
    expect(moz.status).toBe('insufficient');

    // The same model name on libjpeg's standard tables in this layout, which no Samsung original was written with: re-saved.
    const q = tmp.write('unseen-resaved.jpg', await sharp(fold6).jpeg({ quality: 95 }).toBuffer());
    exiftool('-TagsFromFile', p, '-all:all', q);
    const resaved = await unseen(readFileSync(q));
    expect(resaved.claimed?.model).toBe('Galaxy A99');
    expect(resaved.status).toBe('resaved');
  });

  it("the phone's own tables, tags and thumbnail without the parts exiftool cannot copy (MPF, APP4): not confirmed, not accused", async () => {
    const forged = withoutSegments(fold6, [0xe2, 0xe4]);
    const s = readJpegStructure(forged);
    expect(s.segments.some((x) => x.startsWith('APP2') || x.startsWith('APP4'))).toBe(false);
    expect([s.jfif, s.libjpegLayout]).toEqual([false, true]);
    for (const read of [captureOf, unseen]) {
      const r = await read(forged);
      expect(codes(r)).toContain('capture.thumbnail.match');
      expect(finding(r, 'capture.jpeg.parts_missing')?.facts).toMatchObject({ model: 'Galaxy Z Fold6', missing: 'APP2:ICC_PROFILE, APP2:MPF, APP4' });
      expect(r.findings.filter((x) => x.weight > 0)).toEqual([]);
      expect(r.status).toBe('insufficient');
    }
    const sentence = findingSentence(finding(await captureOf(forged), 'capture.jpeg.parts_missing')!);
    expect(sentence).toMatch(/every original of the Galaxy Z Fold6 we hold carries \(APP2:ICC_PROFILE, APP2:MPF, APP4\)/);
    // Only Samsung's APP4 gone: still not confirmed.
    const noMpf = await captureOf(withoutSegments(fold6, [0xe4]));
    expect(finding(noMpf, 'capture.jpeg.parts_missing')?.facts.missing).toBe('APP4');
    expect(noMpf.status).toBe('insufficient');
    // Read as an unseen model's, the same file lacks what its sibling's originals all carry.
    const p = tmp.write('forged-as-unseen.jpg', forged);
    exiftool('-Model=Galaxy A99', p);
    const asUnseen = await unseen(readFileSync(p));
    expect(finding(asUnseen, 'capture.jpeg.parts_missing')?.facts).toMatchObject({ model: 'Galaxy A99' });
    expect(asUnseen.status).toBe('insufficient');
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
