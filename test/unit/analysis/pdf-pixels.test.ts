// The pieces of the PDF route (detectors/ai-detection.ts, scorePdf): the image XObjects read from the document's
// structure, the pixels handed to the model only where they are those its calibration knows (a JPEG stream decoded as
// a JPEG file is; lossless RGB as written), and a camera original's structure confirmed inside a PDF as it is alone.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { calibratedPixels, captureConfirmed } from '../../../src/analysis/detectors/ai-detection.js';
import { decodeJpegStream } from '../../../src/analysis/decode-image.js';
import { imageStreamsOf } from '../../../src/analysis/pdf-c2pa-store.js';
import { openPdf, surveyImages } from '../../../src/analysis/pdf-document.js';
import { exiftool, readFixture, scratch } from '../../support/camera-originals.js';
import { pdfWithPictures, REPO } from './fixtures.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

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
});
