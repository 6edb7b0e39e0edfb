// Capture consistency (src/analysis/capture): a real camera original is `consistent`; the same camera's tags copied
// onto another picture (exiftool -TagsFromFile), and crops, resizes and re-saves of the original, are not. Only
// camera data and pixels that do not belong together are `contradicted` (a sign of manipulation); a file a program
// merely saved again is `resaved` (signs.ts). Every orientation, HEIC and several makers: capture-orientation.test.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readCapture, type CaptureReport } from '../../../src/analysis/capture/index.js';
import { makeJpeg, makePng, REPO, tempDir } from './fixtures.js';

// A Canon PowerShot S50 original, 640x480, CC0 (drewnoakes/digicam_corpus; see test/fixtures/capture/README.md).
const DONOR = join(REPO, 'test', 'fixtures', 'capture', 'canon-powershot-s50-640x480.jpg');
const donor = readFileSync(DONOR);
const tmp = tempDir();
afterAll(() => tmp.cleanup());

function exiftool(...args: string[]): void {
  execFileSync('exiftool', ['-q', '-q', '-m', '-overwrite_original', ...args], { stdio: 'ignore' });
}

async function capture(buf: Buffer, mediaType: 'image/jpeg' | 'image/png' | 'image/heic' = 'image/jpeg'): Promise<CaptureReport> {
  const m = await sharp(buf, { failOn: 'none' }).metadata();
  return readCapture({ buf, mediaType, width: m.width!, height: m.height! });
}
const codes = (r: CaptureReport) => r.findings.map((f) => f.code);
const weightOf = (r: CaptureReport, code: string) => r.findings.find((f) => f.code === code)?.weight;

/** An AI-like picture (the suite's generated photo-like image, no camera data) carrying the donor's full tag set. */
async function forge(width: number, height: number, keepThumbnail: boolean): Promise<Buffer> {
  const p = tmp.write(`forged-${width}x${height}-${keepThumbnail}.jpg`, await makeJpeg(width, height));
  exiftool('-TagsFromFile', DONOR, '-all:all', p);
  if (!keepThumbnail) exiftool('-ThumbnailImage=', p);
  return readFileSync(p);
}

describe('a real camera original', () => {
  it('is consistent: the maker table and a matching thumbnail back the claimed camera', async () => {
    const r = await capture(donor);
    expect(r.claimed).toEqual({ make: 'Canon', model: 'Canon PowerShot S50', software: null });
    expect(r.status).toBe('consistent');
    expect(codes(r)).toEqual(expect.arrayContaining(['capture.qtable.known_maker', 'capture.thumbnail.match', 'capture.consistent']));
    expect(r.findings.every((f) => f.weight <= 0 && Math.abs(f.weight) <= 1)).toBe(true);
    expect(r.findings.find((f) => f.code === 'capture.consistent')?.facts).toEqual({ make: 'Canon', model: 'Canon PowerShot S50' });
  });
});

describe('forged: an AI-like image with a real photo\'s tags copied in by exiftool', () => {
  it('at its own size with the thumbnail: contradicted by the size and the transplanted thumbnail', async () => {
    const r = await capture(await forge(512, 512, true));
    expect(r.claimed?.make).toBe('Canon');
    expect(r.status).toBe('contradicted');
    expect(r.findings.find((f) => f.code === 'capture.size.exif_mismatch')?.facts).toEqual({ exifWidth: 640, exifHeight: 480, width: 512, height: 512 });
    expect(codes(r)).toContain('capture.thumbnail.aspect_mismatch');
  });

  it('resized to the donor size with the thumbnail: the thumbnail shows another picture', async () => {
    const r = await capture(await forge(640, 480, true));
    expect(r.status).toBe('contradicted');
    expect(codes(r)).not.toContain('capture.size.exif_mismatch');
    const m = r.findings.find((f) => f.code === 'capture.thumbnail.mismatch');
    expect(m?.weight).toBeGreaterThan(0);
    expect(m?.facts.similarity as number).toBeLessThan(0.6);
  });

  it('resized to the donor size without the thumbnail: never consistent (libjpeg tables, no thumbnail)', async () => {
    const r = await capture(await forge(640, 480, false));
    expect(r.status).not.toBe('consistent');
    expect(codes(r)).toEqual(expect.arrayContaining(['capture.qtable.standard_ijg', 'capture.thumbnail.absent']));
    expect(r.findings.find((f) => f.code === 'capture.qtable.standard_ijg')?.facts).toEqual({ quality: 90, camerasToo: true });
  });

  it('a PNG carrying camera EXIF is not a capture format: converted, so re-saved', async () => {
    const p = tmp.write('forged.png', await makePng(320, 240));
    exiftool('-TagsFromFile', DONOR, '-all:all', p);
    const r = await capture(readFileSync(p), 'image/png');
    expect(r.claimed?.make).toBe('Canon');
    expect(r.status).toBe('resaved');
    expect(codes(r)).toContain('capture.format.not_capture');
  });
});

describe('a real photo edited with its EXIF kept', () => {
  it('cropped to 320x320: not a size the device takes, and the thumbnail has the old shape', async () => {
    const buf = await sharp(donor).extract({ left: 160, top: 80, width: 320, height: 320 }).keepMetadata().jpeg({ quality: 95 }).toBuffer();
    const r = await capture(buf);
    expect(r.status).toBe('contradicted');
    expect(r.findings.find((f) => f.code === 'capture.size.not_device')?.facts).toEqual({ width: 320, height: 320, make: 'Canon' });
    expect(r.findings.find((f) => f.code === 'capture.thumbnail.aspect_mismatch')?.facts).toEqual({ thumbAspect: 1.33, imageAspect: 1 });
  });

  it('cropped to another shape with the original tags copied back: the EXIF size contradicts the pixels', async () => {
    const p = tmp.write('crop-copied.jpg', await sharp(donor).extract({ left: 0, top: 0, width: 600, height: 400 }).jpeg({ quality: 95 }).toBuffer());
    exiftool('-TagsFromFile', DONOR, '-all:all', p);
    const r = await capture(readFileSync(p));
    expect(r.status).toBe('contradicted');
    expect(r.findings.find((f) => f.code === 'capture.size.exif_mismatch')?.facts).toEqual({ exifWidth: 640, exifHeight: 480, width: 600, height: 400 });
  });

  it('cropped to the same shape, or resized, with the tags copied back: the recorded picture scaled, so re-saved (a size cannot tell the two apart)', async () => {
    const p = tmp.write('crop-same-shape.jpg', await sharp(donor).extract({ left: 0, top: 0, width: 600, height: 450 }).jpeg({ quality: 95 }).toBuffer());
    exiftool('-TagsFromFile', DONOR, '-all:all', p);
    const r = await capture(readFileSync(p));
    expect(r.status).toBe('resaved');
    expect(r.findings.find((f) => f.code === 'capture.size.resized')?.facts).toEqual({ exifWidth: 640, exifHeight: 480, width: 600, height: 450 });
    expect(codes(r)).not.toContain('capture.size.exif_mismatch');
  });

  it('resized down: smaller than any capture, re-saved', async () => {
    const r = await capture(await sharp(donor).resize(320).keepMetadata().jpeg().toBuffer());
    expect(r.status).toBe('resaved');
    expect(codes(r)).toContain('capture.size.not_device');
  });

  it('re-saved at the same size: libjpeg tables, so the matching thumbnail is not enough', async () => {
    const r = await capture(await sharp(donor).keepMetadata().jpeg({ quality: 80 }).toBuffer());
    expect(r.status).not.toBe('consistent');
    expect(r.findings.find((f) => f.code === 'capture.qtable.standard_ijg')?.facts).toEqual({ quality: 80, camerasToo: true });
    expect(codes(r)).toContain('capture.thumbnail.match');
  });

  it('re-saved at a libjpeg quality some Canon originals also used (95): the kept thumbnail still does not make it consistent, and libjpeg\'s table layout shows the re-save', async () => {
    const r = await capture(await sharp(donor).keepMetadata().jpeg({ quality: 95 }).toBuffer());
    expect(r.findings.find((f) => f.code === 'capture.qtable.standard_ijg')?.facts).toEqual({ quality: 95, camerasToo: true });
    expect(codes(r)).toContain('capture.thumbnail.match');
    expect(r.findings.find((f) => f.code === 'capture.jpeg.layout_unlike_maker')?.facts).toEqual({ make: 'Canon' });
    expect(r.status).toBe('resaved');
  });

  it('re-saved as a progressive JPEG: read all the same, and not consistent', async () => {
    const buf = await sharp(donor).keepMetadata().jpeg({ quality: 80, progressive: true }).toBuffer();
    const r = await capture(buf);
    expect(r.claimed?.make).toBe('Canon');
    expect(r.status).not.toBe('consistent');
    expect(codes(r)).toContain('capture.qtable.standard_ijg');
  });

  it('named editing software in Software or in the XMP history: re-saved, not an unedited capture', async () => {
    const p = tmp.write('software.jpg', donor);
    exiftool('-Software=Adobe Photoshop 25.0 (Windows)', p);
    const r = await capture(readFileSync(p));
    expect(r.status).toBe('resaved');
    expect(r.findings.find((f) => f.code === 'capture.software.edited')?.facts).toEqual({ software: 'Adobe Photoshop 25.0 (Windows)' });
    const q = tmp.write('history.jpg', donor);
    exiftool('-XMP-xmpMM:HistoryAction=saved', '-XMP-xmpMM:HistorySoftwareAgent=Adobe Lightroom Classic 13.0', q);
    const h = await capture(readFileSync(q));
    expect(h.status).toBe('resaved');
    expect(h.findings.find((f) => f.code === 'capture.xmp.edit_history')?.facts).toEqual({ agent: 'Adobe Lightroom Classic 13.0' });
  });

  it('dates that disagree (digitized a day after the exposure) are inconsistent: the camera data was rewritten, re-saved', async () => {
    const p = tmp.write('dates.jpg', donor);
    exiftool('-CreateDate=2021:09:24 11:11:53', p);
    const r = await capture(readFileSync(p));
    expect(r.status).toBe('resaved');
    expect(r.findings.find((f) => f.code === 'capture.dates.inconsistent')?.facts).toEqual({ field: 'CreateDate', delta: 86400 });
  });
});

describe('edge cases', () => {
  it('no thumbnail: reported, and for a maker that always writes one it weighs against', async () => {
    const p = tmp.write('nothumb.jpg', donor);
    exiftool('-ThumbnailImage=', p);
    const r = await capture(readFileSync(p));
    expect(codes(r)).toContain('capture.thumbnail.absent');
    expect(codes(r)).toContain('capture.qtable.known_maker');
    expect(weightOf(r, 'capture.thumbnail.absent')).toBeGreaterThan(0); // Canon: 81 of 84 originals have one
    expect(r.status).toBe('resaved');
  });

  it('a turned thumbnail (the picture was turned, the thumbnail was not) is the same picture turned: re-saved, never another shape', async () => {
    const thumb = tmp.write('thumb-rot.jpg', await sharp(await sharp(donor).resize(160, 120).toBuffer()).rotate(90).jpeg().toBuffer());
    const p = tmp.write('rotthumb.jpg', donor);
    exiftool('-ThumbnailImage<=' + thumb, p);
    const r = await capture(readFileSync(p));
    expect(r.status).toBe('resaved');
    expect(codes(r)).not.toContain('capture.thumbnail.aspect_mismatch');
    expect(r.findings.find((f) => f.code === 'capture.thumbnail.turned')).toMatchObject({ facts: { orientation: 6 } });
    expect(weightOf(r, 'capture.thumbnail.turned')).toBeGreaterThan(0);
  });

  it('a thumbnail of neither shape (a crop of the picture) is an aspect mismatch', async () => {
    const thumb = tmp.write('thumb-sq.jpg', await sharp(donor).extract({ left: 160, top: 0, width: 480, height: 480 }).resize(120, 120).jpeg().toBuffer());
    const p = tmp.write('sqthumb.jpg', donor);
    exiftool('-ThumbnailImage<=' + thumb, p);
    const r = await capture(readFileSync(p));
    expect(r.status).toBe('contradicted');
    expect(r.findings.find((f) => f.code === 'capture.thumbnail.aspect_mismatch')?.facts).toEqual({ thumbAspect: 1, imageAspect: 1.33 });
  });

  it('a maker absent from the catalogue: its table is unknown, nothing is held against it, and it is not consistent', async () => {
    const p = tmp.write('unknown-maker.jpg', donor);
    exiftool('-Make=Zorblax Optical', '-Model=ZX-1', p);
    const r = await capture(readFileSync(p));
    expect(r.claimed).toEqual({ make: 'Zorblax Optical', model: 'ZX-1', software: null });
    expect(codes(r)).toEqual(expect.arrayContaining(['capture.qtable.unknown', 'capture.thumbnail.match']));
    expect(r.findings.every((f) => f.weight <= 0)).toBe(true);
    expect(r.status).toBe('insufficient');
  });

  it('another maker\'s table under these tags is reported; Canon shares tables with other makers, so it weighs nothing, and the size no Pentax takes leaves it re-saved', async () => {
    const p = tmp.write('pentax.jpg', donor);
    exiftool('-Make=PENTAX Corporation', '-Model=PENTAX *ist DL', p);
    const r = await capture(readFileSync(p));
    expect(r.findings.find((f) => f.code === 'capture.qtable.maker_mismatch')).toMatchObject({ facts: { claimedMake: 'PENTAX Corporation', tableMake: 'canon' }, weight: 0 });
    expect(r.status).toBe('resaved');
  });

  it('no capture metadata at all: absent, and absence weighs nothing', async () => {
    const r = await capture(await makeJpeg(320, 240));
    expect(r).toEqual({ claimed: null, findings: [{ code: 'capture.exif.absent', facts: {}, weight: 0 }], status: 'absent' });
  });

  it('honours an aborted signal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(readCapture({ buf: donor, mediaType: 'image/jpeg', width: 640, height: 480, signal: ac.signal })).rejects.toThrow();
  });
});

describe('HEIC', () => {
  async function heic(width: number, height: number): Promise<string> {
    const png = tmp.write(`h-${width}.png`, await makePng(width, height));
    const out = join(tmp.dir, `h-${width}.heic`);
    execFileSync('heif-enc', ['-q', '80', '-o', out, png], { stdio: 'ignore' });
    return out;
  }
  const read = (p: string, width: number, height: number) => readCapture({ buf: readFileSync(p), mediaType: 'image/heic', width, height });

  it('without an Exif item: absent', async () => {
    const r = await read(await heic(256, 192), 256, 192);
    expect(r.status).toBe('absent');
  });

  it('an encoder\'s single-image HEIC with an iPhone\'s tags written in: not a phone\'s structure, so converted: re-saved', async () => {
    const p = await heic(640, 480);
    exiftool('-Make=Apple', '-Model=iPhone 13 Pro', '-ExifImageWidth=640', '-ExifImageHeight=480', '-DateTimeOriginal=2024:05:01 10:00:00', p);
    const r = await read(p, 640, 480);
    expect(r.claimed?.make).toBe('Apple');
    expect(r.status).toBe('resaved');
    expect(r.findings.find((f) => f.code === 'capture.heic.structure_mismatch')?.facts.detail).toContain('primary item hvc1 instead of a tile grid');
    // and its picture was coded by x265, which no phone's encoder is
    expect(r.findings.find((f) => f.code === 'capture.heic.software_encoder')?.facts).toEqual({ make: 'Apple' });
  });
});
