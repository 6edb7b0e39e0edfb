// Issue 11 end to end: the real analysis (model, provenance, capture consistency, fusion, copy) on files forged the
// way fraudsters forge them, with exiftool copying a real camera photo's whole tag set onto another picture, and on
// crops and re-saves of that photo. None may come out `authentic`; the untouched original does.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseFile } from '../../../src/analysis/index.js';
import { CAPTURE_CONTRADICTED_LABEL, CAPTURE_RESAVED_LABEL, dimensionFinding, lessCertainWords } from '../../../src/api/vocabulary.js';
import { REPO } from './fixtures.js';

const DONOR = path.join(REPO, 'test', 'fixtures', 'capture', 'canon-powershot-s50-640x480.jpg');
const MODELS = path.join(REPO, 'models');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-capture-verdict-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function exiftool(...args: string[]): void {
  execFileSync('exiftool', ['-q', '-q', '-m', '-overwrite_original', ...args], { stdio: 'ignore' });
}

/** A picture that is not the donor's (smooth synthetic texture, as a generator's output would be) at w x h. */
async function otherPicture(w: number, h: number): Promise<Buffer> {
  const px = Buffer.alloc(w * h * 3);
  for (let i = 0; i < px.length; i++) px[i] = (Math.sin(i / 97) * 60 + 128 + ((i * 7919) % 23)) | 0;
  return sharp(px, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

async function write(name: string, bytes: Buffer): Promise<string> {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return p;
}

async function verdictOf(p: string) {
  const r = await analyseFile(p, 'image/jpeg', { modelsDir: MODELS });
  return { ...r.verdict, capture: r.verdict.dimensions.find((d) => d.key === 'capture') };
}

describe('forged camera metadata never makes a file authentic (real pipeline)', () => {
  it('the untouched camera original is authentic, and says the file is built as that camera builds files', { timeout: 60_000 }, async () => {
    const v = await verdictOf(DONOR);
    expect(v.capture).toMatchObject({ assessment: 'likely_authentic' });
    expect(v.assessment).toBe('authentic');
    expect(v.display.description).toContain('The way the file is built matches what a Canon PowerShot S50 camera writes.');
  });

  it.each([
    ['at its own size, thumbnail copied', 800, 600, true],
    ['at its own size, thumbnail removed', 800, 600, false],
    ["at the donor's size, thumbnail copied", 640, 480, true],
    ["at the donor's size, thumbnail removed", 640, 480, false],
  ])('another picture with the whole tag set of a real Canon photo (%s) is not authentic', { timeout: 60_000 }, async (_label, w, h, keepThumb) => {
    const p = await write(`forged-${w}-${keepThumb}.jpg`, await otherPicture(w, h));
    exiftool('-TagsFromFile', DONOR, '-all:all', p);
    if (!keepThumb) exiftool('-ThumbnailImage=', p);
    const v = await verdictOf(p);
    expect(v.assessment).not.toBe('authentic');
    expect(v.capture?.assessment).not.toBe('likely_authentic');
    // the card says why the camera data does not count
    expect(v.display.description).toMatch(/contradicted by the way the file itself is built|could not be confirmed by the way the file is built|A program saved the file again after the camera did/);
  });

  it.each([
    ['cropped to 320 x 320', (s: Sharp) => s.extract({ left: 100, top: 80, width: 320, height: 320 }), 'contradicted'],
    ['resized to half', (s: Sharp) => s.resize(320, 240), 'resaved'],
    ['re-saved at quality 80', (s: Sharp) => s, 'resaved'],
  ] as const)('the real photo %s with its EXIF kept is not authentic', { timeout: 60_000 }, async (label, edit, outcome) => {
    const bytes = await edit(sharp(DONOR)).keepExif().jpeg({ quality: 80 }).toBuffer();
    const p = await write(`edited-${label.replace(/\W+/g, '-')}.jpg`, bytes);
    const v = await verdictOf(p);
    expect(v.assessment).not.toBe('authentic');
    expect(v.capture?.assessment).not.toBe('likely_authentic');
    // The check says what it found and claims no more confidence than a reading that points neither way: never
    // "inconclusive, high confidence" beside a low-confidence verdict. A crop leaves a thumbnail of another shape (a
    // sign of manipulation); a resize is only a re-save (issue 22: never called manipulation); so is a re-save at the
    // same size: Canon used libjpeg's tables too, so they weigh nothing, but libjpeg lays them out one per marker and
    // Canon's cameras do not.
    const labels = { contradicted: CAPTURE_CONTRADICTED_LABEL, resaved: CAPTURE_RESAVED_LABEL, unconfirmed: 'Capture consistency' };
    const words = { contradicted: /sign of manipulation, not of AI generation/, resaved: /^Re-saved: .*A re-save alone does not show that the picture was changed/, unconfirmed: /^No evidence either way$/ };
    expect(v.capture).toMatchObject({ label: labels[outcome], assessment: 'inconclusive', confidence: 'low' });
    expect(dimensionFinding(v.capture!)).toMatch(words[outcome]);
    if (outcome !== 'contradicted') expect(v.display.description).not.toMatch(/manipulat|contradicted/i);
    expect(lessCertainWords(v.confidence, v.dimensions)?.summary ?? '').not.toMatch(/Capture consistency/);
  });
});
