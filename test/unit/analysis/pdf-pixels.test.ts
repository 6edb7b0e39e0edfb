// The pieces of the PDF route (detectors/ai-detection.ts, scorePdf): the image XObjects read from the document's
// structure, the pixels handed to the model only where they are those its calibration knows (a JPEG stream decoded as
// a JPEG file is; lossless RGB as written), and a camera original's structure confirmed inside a PDF as it is alone.
import { readFileSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { calibratedPixels, captureConfirmed } from '../../../src/analysis/detectors/ai-detection.js';
import { decodeJpegStream } from '../../../src/analysis/decode-image.js';
import { imageStreamsOf } from '../../../src/analysis/pdf-c2pa-store.js';
import { openPdf, surveyImages } from '../../../src/analysis/pdf-document.js';
import { exiftool, readFixture, scratch } from '../../support/camera-originals.js';
import { buildPdf, pdfStream, pdfWithPictures, photoPdf, REPO } from './fixtures.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** A one-page PDF (600x800) of `content` drawing /Im1, /Im2... (objects 5, 6...: `images`, then `more` unnamed). */
function onePage(content: string, images: Buffer[], more: Buffer[] = []): Buffer {
  const names = images.map((_, i) => `/Im${i + 1} ${5 + i} 0 R`).join(' ');
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << ${names} >> >> /Contents 4 0 R >>`,
    pdfStream('', Buffer.from(content, 'latin1')),
    ...images,
    ...more,
  ]);
}
const dct = (jpeg: Buffer, w: number, h: number, extra = '') => pdfStream(`/Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode ${extra}`, jpeg);

async function rasters(pdf: Buffer) {
  const doc = await openPdf(new Uint8Array(pdf));
  try {
    return (await surveyImages(doc)).rasters;
  } finally {
    await doc.destroy();
  }
}

describe('PDF images as the calibration knows pictures', () => {
  const canon = readFixture('canon-powershot-s50-640x480.jpg');

  it('reads each image XObject with its filters, and the JPEG stream byte for byte', async () => {
    const { data: rgb } = await sharp(canon).raw().toBuffer({ resolveWithObject: true });
    const pdf = pdfWithPictures([[{ width: 640, height: 480, jpeg: canon }], [{ width: 640, height: 480, rgb }, { width: 640, height: 480, jpeg: canon, deflated: true }]]);
    const streams = imageStreamsOf(pdf);
    expect(streams.map((s) => s.filters)).toEqual([['DCTDecode'], ['FlateDecode'], ['FlateDecode', 'DCTDecode']]);
    expect(streams[0]).toMatchObject({ width: 640, height: 480, bitsPerComponent: 8, colourSpace: 'DeviceRGB', remapped: false });
    expect(streams[0].stored.equals(canon)).toBe(true);
  });

  it("decodes a lone JPEG stream with the product's decoder (not pdf.js's), and takes nothing it cannot vouch for", async () => {
    const single = pdfWithPictures([[{ width: 640, height: 480, jpeg: canon }]]);
    const [drawn] = await rasters(single);
    const own = await decodeJpegStream(canon);
    const got = await calibratedPixels(drawn.image, imageStreamsOf(single));
    expect(got?.jpeg?.equals(canon)).toBe(true);
    expect(got?.image.data.equals(own.data)).toBe(true);
    // pdf.js's own decode of the same stream differs from the product's
    expect(drawn.image.data.equals(own.data)).toBe(false);
    // the same JPEG compressed once more: pdf.js decodes it, the product does not vouch for those pixels
    const deflated = pdfWithPictures([[{ width: 640, height: 480, jpeg: canon, deflated: true }]]);
    const [d] = await rasters(deflated);
    expect(await calibratedPixels(d.image, imageStreamsOf(deflated))).toBeNull();
    // a JPEG stream of the right size that is another picture is not taken for the one drawn
    const other = await sharp(canon).flop().jpeg({ quality: 90 }).toBuffer();
    expect(await calibratedPixels(drawn.image, [{ ...imageStreamsOf(single)[0], stored: other }])).toBeNull();
  });

  it("confirms a camera original's structure inside a PDF, and not camera tags copied onto another picture", async () => {
    expect(await captureConfirmed({ image: await decodeJpegStream(canon), jpeg: canon })).toBe(true);
    const forged = join(tmp.dir, 'forged.jpg');
    writeFileSync(forged, await sharp(canon).flop().jpeg({ quality: 90 }).toBuffer());
    exiftool('-TagsFromFile', join(REPO, 'test', 'fixtures', 'capture', 'canon-powershot-s50-640x480.jpg'), '-all:all', forged);
    const bytes = readFileSync(forged);
    expect(await captureConfirmed({ image: await decodeJpegStream(bytes), jpeg: bytes })).toBe(false);
  });

  it('is not fooled by objects that are not the picture drawn (the attack run on the PDF route)', async () => {
    const draw = 'q 480 0 0 360 60 300 cm /Im1 Do Q';
    // a soft mask, an identity /Decode: the picture is still the JPEG
    const mask = pdfStream('/Type /XObject /Subtype /Image /Width 640 /Height 480 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode', deflateSync(Buffer.alloc(640 * 480, 255)));
    const masked = imageStreamsOf(onePage(draw, [dct(canon, 640, 480, '/SMask 6 0 R /Decode [0 1 0 1 0 1]')], [mask]));
    expect(masked).toHaveLength(1);
    expect(masked[0]).toMatchObject({ filters: ['DCTDecode'], remapped: false });
    // a header written inside the JPEG's own data to pass for a newer object 5 (a JPEG 2000 of the same size)
    const fake = Buffer.from('5 0 obj << /Type /XObject /Subtype /Image /Width 640 /Height 480 /Filter /JPXDecode /Length 1 >> stream\nx\nendstream endobj ', 'latin1');
    const com = Buffer.concat([Buffer.from([0xff, 0xfe, (fake.length + 2) >> 8, (fake.length + 2) & 0xff]), fake]);
    const withCom = Buffer.concat([canon.subarray(0, 2), com, canon.subarray(2)]);
    const faked = onePage(draw, [dct(withCom, 640, 480)]);
    const [drawn] = await rasters(faked);
    expect((await calibratedPixels(drawn.image, imageStreamsOf(faked)))?.jpeg?.equals(withCom)).toBe(true);
    // undrawn JPEGs of the same size placed first (another picture, and a blurred copy of this one): the drawn one is chosen
    const other = await sharp(canon).flop().jpeg({ quality: 90 }).toBuffer();
    const blurred = await sharp(canon).blur(1).jpeg({ quality: 90 }).toBuffer();
    const decoys = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << /Im1 7 0 R >> >> /Contents 4 0 R >>',
      pdfStream('', Buffer.from(draw, 'latin1')),
      dct(other, 640, 480),
      dct(blurred, 640, 480),
      dct(canon, 640, 480),
    ]);
    const [d] = await rasters(decoys);
    expect((await calibratedPixels(d.image, imageStreamsOf(decoys)))?.jpeg?.equals(canon)).toBe(true);
  });

  it('reads a file of unterminated objects in one pass, not one per object', { timeout: 20_000 }, () => {
    // 40,000 objects that each open a string and never close it: read to the end of the file each, the walk took 70 s
    const junk = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `${1000 + i} 0 obj(\n`).join(''), 'latin1');
    const pdf = Buffer.concat([onePage('q 480 0 0 360 60 300 cm /Im1 Do Q', [dct(canon, 640, 480)]), junk]);
    expect(imageStreamsOf(pdf).map((s) => s.filters)).toEqual([['DCTDecode']]);
  });

  it('tells the pictures a reader sees from those drawn off the page or under another, and the parts of a scan', async () => {
    // photographic enough to be scored (a flat picture is line art): noise over a colour
    const jpeg = (c: number) => sharp({ create: { width: 320, height: 240, channels: 3, background: { r: c, g: 90, b: 40 }, noise: { type: 'gaussian', mean: 120, sigma: 40 } } }).jpeg().toBuffer();
    const [a, b] = await Promise.all([jpeg(30), jpeg(200)]);
    const imgs = [dct(a, 320, 240), dct(b, 320, 240)];
    const off = await rasters(onePage('q 320 0 0 240 -2000 -2000 cm /Im1 Do Q q 480 0 0 360 60 300 cm /Im2 Do Q', imgs));
    expect(off.map((r) => r.visible > 0)).toEqual([false, true]);
    const under = await rasters(onePage('q 320 0 0 240 100 350 cm /Im1 Do Q q 480 0 0 360 60 300 cm /Im2 Do Q', imgs));
    expect(under.map((r) => r.visible > 0)).toEqual([false, true]);
    // two halves of a page drawn side by side make a scan: the page is rendered, the halves are parts of it
    const halves = await rasters(onePage('q 300 0 0 800 0 0 cm /Im1 Do Q q 300 0 0 800 300 0 cm /Im2 Do Q', imgs));
    expect(halves.map((r) => [r.kind, r.inScan ?? false])).toEqual([['pdf_page', false], ['pdf_image', true], ['pdf_image', true]]);
  });

  it('decrypts the image streams of a PDF encrypted with permissions only (RC4 40 and 128, AES-128, AES-256 R5) to the JPEG itself', async () => {
    const [plain] = imageStreamsOf(await photoPdf());
    expect(plain.filters).toEqual(['DCTDecode']);
    for (const pdfVersion of ['1.3', '1.4', '1.6', '1.7ext3'] as const) {
      const encrypted = await photoPdf({ ownerPassword: 'owner', pdfVersion, permissions: { printing: 'highResolution', copying: false } });
      expect(encrypted.includes('/Encrypt'), pdfVersion).toBe(true);
      const streams = imageStreamsOf(encrypted);
      expect(streams.map((x) => x.stored.equals(plain.stored)), pdfVersion).toEqual([true]);
    }
  });
});
