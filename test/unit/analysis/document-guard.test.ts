// Pages of text (src/analysis/document-guard.ts): a scanned receipt is read as a page, and
// the pixel score, which the detector gives most genuine documents in the "AI" range, decides nothing; camera
// photographs keep their reading; a scanned page in a PDF is skipped with its reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { documentFeatures, readDocumentGuard } from '../../../src/analysis/document-guard.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { HAS_MODEL, MODELS_DIR, pdfWithJpeg, REPO, tempDir } from './fixtures.js';

const path = (f: string) => join(REPO, 'test', 'fixtures', f);
const RECEIPT = 'documents/receipt-scan-lidl.jpg';
const CAMERA = ['capture/nikon-coolpix-s3100-640x480.jpg', 'capture/hp-photosmart-433-640x480.jpg', 'thermal/flir-t420-steam-train-valves.jpg'];
const decode = (f: string) => decodeImageBuffer(readFileSync(path(f)), 'image/jpeg');

describe('page-of-text guard', () => {
  it.each([RECEIPT])('takes %s for a page: mostly paper, its dark pixels thin strokes beside it', async (f) => {
    const r = readDocumentGuard(await decode(f))!;
    expect(r.page).toBe(true);
    expect(r.features.strokes).toBeGreaterThan(0.7);
    expect(r.features.paper).toBeGreaterThan(0.2);
  });

  it('takes no camera photograph for a page', async () => {
    for (const f of CAMERA) expect(readDocumentGuard(await decode(f))!.page, f).toBe(false);
  });

  it('a blank sheet, a black picture and a tiny one are not pages', () => {
    const blank = { width: 800, height: 600, data: Buffer.alloc(800 * 600 * 3, 240) };
    expect(readDocumentGuard(blank)!.page).toBe(false); // paper, but no ink
    const black = { width: 800, height: 600, data: Buffer.alloc(800 * 600 * 3, 0) };
    expect(readDocumentGuard(black)!.page).toBe(false);
    expect(documentFeatures({ width: 20, height: 600, data: Buffer.alloc(20 * 600 * 3) })).toBeNull();
  });
});

describe.skipIf(!HAS_MODEL)('pages of text in the analysis, with the real model', () => {
  const tmp = tempDir();
  afterAll(async () => {
    tmp.cleanup();
    await closeAnalysis();
  });

  it('a genuine receipt scan the pixels read as AI is inconclusive, and says it is a page of text', async () => {
    const r = await analyseFile(path(RECEIPT), 'image/jpeg', { modelsDir: MODELS_DIR });
    const pixels = r.verdict.dimensions.find((d) => d.key === 'ai_detection')!;
    expect(pixels.score).toBeGreaterThan(0.9); // what 1.5.1 called ai_generated
    expect(pixels).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(r.findings.map((f) => f.code)).toContain('pixels.document');
    expect(r.verdict.assessment).not.toBe('ai_generated');
    expect(r.verdict.display.description).toMatch(/page of text, photographed or scanned/);
  });

  it('a PDF whose only image is a scanned receipt has no pixel reading, and says why', async () => {
    const jpeg = readFileSync(path(RECEIPT));
    const img = await decode(RECEIPT);
    const r = await analyseFile(tmp.write('receipt.pdf', pdfWithJpeg(jpeg, img.width, img.height)), 'application/pdf', { modelsDir: MODELS_DIR });
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('pixels.no_raster');
    expect(codes).toContain('pixels.skipped');
    expect(r.verdict.display.description).toMatch(/scanned or photographed page of text rather than a photograph/);
  });
});
