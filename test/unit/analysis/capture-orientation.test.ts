// Issue 22, item 1: no capture check calls an unedited original manipulated, in any of the eight EXIF orientations,
// on HEIC, for any maker. Until this test, the thumbnail check compared the thumbnail (stored in the sensor's
// orientation, as every camera stores it) with the picture's size as SHOWN, so every portrait phone or camera
// original (Orientation 5-8) was "contradicted: the embedded thumbnail has a different shape (1.33) from the photo
// (0.75)". Each original is read twice, with the size as the analysis passes it (turned as shown) and as stored;
// forged thumbnails (another picture, a crop) must still be caught in every orientation, and a file a program only
// saved again is "re-saved", never "contradicted".
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readCapture, type CaptureReport } from '../../../src/analysis/capture/index.js';
import { isResaveSign } from '../../../src/analysis/capture/signs.js';
import { captureOutput } from '../../../src/analysis/detectors/capture.js';
import { CAPTURE_CONTRADICTED_LABEL, CAPTURE_RESAVED_LABEL, dimensionFinding } from '../../../src/api/vocabulary.js';
import { readHeifHeader } from '../../../src/analysis/image-headers.js';
import { MADE_MAKERS, ORIENTATIONS, REAL_ORIGINALS, exiftool, madeOriginal, readFixture, scratch, shownSize, withOrientation } from '../../support/camera-originals.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** Codes that would call the file manipulated: any finding against the capture that is not a mere re-save. */
const accusations = (r: CaptureReport) => r.findings.filter((f) => f.weight > 0 && !isResaveSign(f.code)).map((f) => f.code);
const codes = (r: CaptureReport) => r.findings.map((f) => f.code);

async function storedSize(buf: Buffer, mediaType: 'image/jpeg' | 'image/heic'): Promise<{ width: number; height: number }> {
  if (mediaType === 'image/heic') {
    const h = readHeifHeader(buf);
    return { width: h.width, height: h.height };
  }
  const m = await sharp(buf).metadata();
  return { width: m.width!, height: m.height! };
}

/** The report with the size the analysis passes (as shown: EXIF orientation applied) and with the stored size. */
async function bothWays(buf: Buffer, mediaType: 'image/jpeg' | 'image/heic', orientation: number) {
  const stored = await storedSize(buf, mediaType);
  // For HEIC the header's ispe size is already the coded one; the shown size turns with irot as EXIF does.
  const shown = shownSize(stored.width, stored.height, orientation);
  const asShown = await readCapture({ buf, mediaType, ...shown });
  const asStored = await readCapture({ buf, mediaType, ...stored });
  return { asShown, asStored };
}

describe('real originals of several makers (Canon, HP, Kodak, Nikon, Sony, Epson, Google Pixel 5, Samsung Galaxy Z Fold6, Apple HEIC) in all eight orientations', () => {
  it.each(REAL_ORIGINALS.map((o) => [o.maker, o.file, o.mediaType] as const))(
    '%s %s: never a sign of manipulation, and as consistent as the untouched file in every orientation',
    { timeout: 120_000 },
    async (_maker, file, mediaType) => {
      const original = readFixture(file);
      const ext = mediaType === 'image/heic' ? 'heic' : 'jpg';
      const untouched = (await bothWays(original, mediaType, 1)).asStored;
      expect(untouched.status).toBe('consistent');
      for (const o of ORIENTATIONS) {
        const buf = withOrientation(original, o, tmp.dir, ext);
        const { asShown, asStored } = await bothWays(buf, mediaType, o);
        for (const r of [asShown, asStored]) {
          expect(accusations(r), `${file} orientation ${o}`).toEqual([]);
          expect(r.status, `${file} orientation ${o}`).toBe('consistent');
          expect(codes(r)).toEqual(codes(untouched));
        }
      }
    },
  );

  it('the real portrait Canon original (Orientation 6) as the analysis reads it: the thumbnail matches, no shape contradiction', async () => {
    const buf = readFixture('canon-eos-5d-mark-iii-720x480-orientation-6.jpg');
    // What analyseFile passes: the decoded picture, turned as shown (480x720).
    const { info } = await sharp(buf).rotate().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([480, 720]);
    const r = await readCapture({ buf, mediaType: 'image/jpeg', width: info.width, height: info.height });
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(codes(r)).not.toContain('capture.thumbnail.aspect_mismatch');
    expect(r.status).toBe('consistent');
  });
});

describe('originals made by the test (exiftool): a thumbnail of the stored pixels, six makers, eight orientations', () => {
  it.each(MADE_MAKERS.map((m) => [m.make, m.model] as const))('%s %s: the thumbnail matches in every orientation; re-saved at worst, never manipulated', { timeout: 120_000 }, async (make, model) => {
    for (const o of ORIENTATIONS) {
      const buf = await madeOriginal(tmp.dir, { make, model, orientation: o });
      const { asShown, asStored } = await bothWays(buf, 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(accusations(r), `${make} orientation ${o}`).toEqual([]);
        expect(r.status, `${make} orientation ${o}`).not.toBe('contradicted');
        expect(codes(r), `${make} orientation ${o}`).toContain('capture.thumbnail.match');
        expect(captureOutput(r).dimension?.label).not.toBe(CAPTURE_CONTRADICTED_LABEL);
      }
    }
  });

  it('a thumbnail written as the picture is shown (turned) is the same picture: nothing either way, never another picture or shape', async () => {
    for (const o of ORIENTATIONS.filter((x) => x !== 1)) {
      const buf = await madeOriginal(tmp.dir, { make: 'Apple', model: 'iPhone 14 Pro', orientation: o, thumbnail: 'shown' });
      const { asShown, asStored } = await bothWays(buf, 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(accusations(r), `orientation ${o}`).toEqual([]);
        const shown = r.findings.find((f) => f.code === 'capture.thumbnail.as_shown');
        expect(shown, `orientation ${o}`).toMatchObject({ weight: 0, facts: { orientation: o } });
        expect(codes(r)).not.toContain('capture.thumbnail.match');
      }
    }
  });
});

describe('a 3:2 picture letterboxed into a 160x120 thumbnail, its own edges dark (Nikon D3100 originals in the mirrors)', () => {
  it('is the same picture in every orientation: the bars are not part of it, even where trimming black edges cannot find them', { timeout: 60_000 }, async () => {
    for (const o of ORIENTATIONS) {
      const buf = await madeOriginal(tmp.dir, { make: 'NIKON CORPORATION', model: 'NIKON D3100', orientation: o, width: 1200, height: 800, thumbnail: 'letterboxed', darkEdges: true });
      const { asShown, asStored } = await bothWays(buf, 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(accusations(r), `orientation ${o}`).toEqual([]);
        expect(codes(r), `orientation ${o}`).toContain('capture.thumbnail.match');
      }
    }
  });
});

describe('what real originals do that a strict check would hold against them', () => {
  it('a 3:2 picture squeezed whole into a 160x120 thumbnail: the same picture, nothing either way, in every orientation', { timeout: 60_000 }, async () => {
    for (const o of ORIENTATIONS) {
      const buf = await madeOriginal(tmp.dir, { make: 'RICOH', model: 'RDC-5300', orientation: o, width: 1200, height: 800, thumbnail: 'squeezed' });
      const { asShown, asStored } = await bothWays(buf, 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(accusations(r), `orientation ${o}`).toEqual([]);
        expect(r.findings.find((f) => f.code === 'capture.thumbnail.squeezed'), `orientation ${o}`).toMatchObject({ weight: 0, facts: { thumbAspect: 1.33, imageAspect: 1.5 } });
      }
    }
  });

  it('a recorded size padded to whole blocks (Konica Q-M100 writes 1152x872 for 1152x864): no size finding, still consistent', async () => {
    const p = join(tmp.dir, 'padded.jpg');
    writeFileSync(p, readFixture('canon-powershot-s50-640x480.jpg'));
    exiftool('-ExifImageHeight=488', p);
    for (const o of ORIENTATIONS) {
      const { asShown, asStored } = await bothWays(withOrientation(readFileSync(p), o, tmp.dir), 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(codes(r).filter((c) => c.startsWith('capture.size.')), `orientation ${o}`).toEqual([]);
        expect(r.status, `orientation ${o}`).toBe('consistent');
      }
    }
  });
});

describe('forged thumbnails are still caught, in every orientation', () => {
  it('a thumbnail of another picture: contradicted, a sign of manipulation', { timeout: 60_000 }, async () => {
    for (const o of ORIENTATIONS) {
      const buf = await madeOriginal(tmp.dir, { make: 'Apple', model: 'iPhone 14 Pro', orientation: o, thumbnail: 'other' });
      const { asShown, asStored } = await bothWays(buf, 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(r.status, `orientation ${o}`).toBe('contradicted');
        expect(codes(r), `orientation ${o}`).toContain('capture.thumbnail.mismatch');
        expect(captureOutput(r).dimension?.label).toBe(CAPTURE_CONTRADICTED_LABEL);
      }
    }
  });

  it('a thumbnail of the uncropped picture beside a crop (here: the thumbnail of half the picture): another shape, contradicted', { timeout: 60_000 }, async () => {
    for (const o of ORIENTATIONS) {
      const buf = await madeOriginal(tmp.dir, { make: 'Canon', model: 'Canon EOS R6', orientation: o, thumbnail: 'cropped' });
      const { asShown, asStored } = await bothWays(buf, 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(r.status, `orientation ${o}`).toBe('contradicted');
        expect(r.findings.find((f) => f.code === 'capture.thumbnail.aspect_mismatch')?.facts, `orientation ${o}`).toEqual({ thumbAspect: 0.67, imageAspect: 1.33 });
      }
    }
  });

  it("a real Canon original's own thumbnail swapped for another picture's, in every orientation: contradicted", { timeout: 60_000 }, async () => {
    const other = join(tmp.dir, 'other-thumb.jpg');
    await sharp(readFixture('kodak-dc280-896x592.jpg')).resize(160, 120, { fit: 'fill' }).jpeg().toFile(other);
    for (const o of ORIENTATIONS) {
      const p = join(tmp.dir, `swapped-${o}.jpg`);
      writeFileSync(p, withOrientation(readFixture('canon-powershot-s50-640x480.jpg'), o, tmp.dir));
      exiftool(`-ThumbnailImage<=${other}`, p);
      const { asShown, asStored } = await bothWays(readFileSync(p), 'image/jpeg', o);
      for (const r of [asShown, asStored]) {
        expect(r.status, `orientation ${o}`).toBe('contradicted');
        expect(codes(r)).toContain('capture.thumbnail.mismatch');
      }
    }
  });
});

describe('a web photo re-saved by an editor is re-saved, not manipulated', () => {
  it('a real original resized by an editor that kept its EXIF and named itself: re-saved, and the card says so', async () => {
    const p = join(tmp.dir, 'web.jpg');
    // An editor that resizes for the web and writes the file with libjpeg, keeping the camera's tags (the recorded
    // size too, as many do) and its old thumbnail.
    const src = join(tmp.dir, 'web-src.jpg');
    writeFileSync(src, readFixture('canon-eos-5d-mark-iii-720x480-orientation-6.jpg'));
    writeFileSync(p, await sharp(src).resize(600).jpeg({ quality: 85 }).toBuffer());
    exiftool('-TagsFromFile', src, '-all:all', '-ThumbnailImage', p);
    exiftool('-Software=Adobe Photoshop 25.0 (Windows)', p);
    const buf = readFileSync(p);
    for (const r of Object.values(await bothWays(buf, 'image/jpeg', 6))) {
      expect(r.status).toBe('resaved');
      expect(accusations(r)).toEqual([]);
      expect(codes(r)).toEqual(expect.arrayContaining(['capture.software.edited', 'capture.qtable.standard_ijg', 'capture.size.resized', 'capture.thumbnail.match']));
      const d = captureOutput(r).dimension!;
      expect(d).toMatchObject({ label: CAPTURE_RESAVED_LABEL, assessment: 'inconclusive', confidence: 'low', score: 0.5 });
      expect(dimensionFinding(d)).toMatch(/^Re-saved: /);
      expect(dimensionFinding(d)).not.toMatch(/manipulat|contradicted/i);
    }
  });
});
