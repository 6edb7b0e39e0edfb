// The PDF route over real HTTP (real model): a generated picture handed in as a one-page PDF is called ai_generated
// from its pixels as it is when handed in alone, whether the PDF keeps its JPEG stream or its PNG's pixels; the
// pixels do not decide where the calibration does not carry over: a document of several photographs (one high score
// among several can be chance), an image stored in a way the model was not calibrated on, or a camera original whose
// structure the capture check confirms. Forged camera tags do not stop the decision. Needs ../shared/datasets.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPdf, DATASETS, HAS_DATASETS, MODELS_DIR, pdfStream, pdfWithPictures, REPO, type PdfPicture } from '../unit/analysis/fixtures.js';
import { exiftool, readFixture, scratch } from '../support/camera-originals.js';
import { assessOverHttp, startCore, startListening } from './helpers.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());
const FLUX = join(DATASETS, 'modern', 'ai', 'comfyui_examples', 'flux__flux_dev_example.png');

describe.skipIf(!HAS_DATASETS)('POST /v1/assess (PDFs): the pixels of a lone photograph decide (real model, real HTTP)', () => {
  it('a FLUX picture in a one-page PDF is ai_generated; beside a photo, stored otherwise, or a camera original, the pixels do not decide', { timeout: 240_000 }, async () => {
    const png = readFileSync(FLUX);
    const { data: rgb, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const size = { width: info.width, height: info.height };
    const jpeg = await sharp(png).removeAlpha().jpeg({ quality: 90 }).toBuffer();
    const forgedPath = join(tmp.dir, 'forged.jpg');
    writeFileSync(forgedPath, jpeg);
    exiftool('-TagsFromFile', join(REPO, 'test', 'fixtures', 'capture', 'canon-powershot-s50-640x480.jpg'), '-all:all', forgedPath);
    const canon = readFixture('canon-powershot-s50-640x480.jpg');
    const nikon = readFixture('nikon-coolpix-s3100-640x480.jpg');
    const photo = (j: Buffer): PdfPicture => ({ width: 640, height: 480, jpeg: j });
    const pdf = (name: string, pages: PdfPicture[][]) => ({ name, data: pdfWithPictures(pages), type: 'application/pdf' });
    // a genuine photo drawn off the page before the picture, to pass for a second photograph: a reader sees one
    const image = (j: Buffer, w: number, h: number) => pdfStream(`/Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`, j);
    const decoy = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << /Im1 5 0 R /Im2 6 0 R >> >> /Contents 4 0 R >>',
      pdfStream('', Buffer.from(`q 640 0 0 480 -3000 -3000 cm /Im1 Do Q q 500 0 0 500 50 150 cm /Im2 Do Q`, 'latin1')),
      image(nikon, 640, 480),
      image(jpeg, size.width, size.height),
    ]);
    const files = [
      { name: 'flux-offpage-decoy.pdf', data: decoy, type: 'application/pdf' },
      pdf('flux-jpeg.pdf', [[{ ...size, jpeg }]]),
      pdf('flux-pixels.pdf', [[{ ...size, rgb }]]),
      pdf('flux-canon-tags.pdf', [[{ ...size, jpeg: readFileSync(forgedPath) }]]),
      pdf('flux-and-photo.pdf', [[{ ...size, jpeg }], [photo(nikon)]]),
      pdf('flux-deflated.pdf', [[{ ...size, jpeg, deflated: true }]]),
      pdf('canon-original.pdf', [[photo(canon)]]),
    ];
    const core = await startCore({ modelsDir: MODELS_DIR });
    const base = await startListening(core);
    const alone = await assessOverHttp(base, core.imagesKey, [{ name: 'flux.jpg', data: jpeg, type: 'image/jpeg' }], 'Alone');
    const job = await assessOverHttp(base, core.pdfsKey, files, 'PDF route');
    expect(job.status).toBe('completed');
    const by = new Map(job.results.map((r) => [r.file.name, r.verdict!]));
    const score = (v: { dimensions: { key: string; score: number }[] }) => v.dimensions.find((d) => d.key === 'ai_detection')!.score;
    const aloneVerdict = alone.results[0].verdict!;
    expect(aloneVerdict.assessment).toBe('ai_generated');

    for (const name of ['flux-jpeg.pdf', 'flux-pixels.pdf', 'flux-canon-tags.pdf', 'flux-offpage-decoy.pdf']) {
      const v = by.get(name)!;
      expect(v.assessment, name).toBe('ai_generated');
      expect(v.confidence, name).toBe('medium');
      expect(v.display.description, name).toMatch(/AI score of the document's only photograph \(page 1, image \d, \d+x\d+\) is \d+%, a level that \d+% of real photos reached/);
    }
    // The JPEG stream is decoded as the JPEG file is: the same score as the picture alone.
    expect(score(by.get('flux-jpeg.pdf')!)).toBeCloseTo(score(aloneVerdict), 6);

    const two = by.get('flux-and-photo.pdf')!;
    expect(two.assessment).toBe('inconclusive');
    expect(two.display.description).toMatch(/page 1, image 1 .*the document shows 2 photographs, and one high score among several can be chance/);
    const deflated = by.get('flux-deflated.pdf')!;
    expect(deflated.assessment).toBe('inconclusive');
    expect(deflated.display.description).toMatch(/stored in a way the detector was not calibrated on/);
    expect(by.get('canon-original.pdf')!.assessment).not.toBe('ai_generated');
  });
});
