// Every finding code has copy, so no person ever reads a raw code: the copy table itself, every code written in
// src/analysis, the capture detector's codes, and every code the real detectors emit on the test fixtures.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { FINDING_COPY, findingSentence, hasCopy } from '../../../src/analysis/copy.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import type { MediaType } from '../../../src/api/schemas.js';
import {
  HAS_MODEL,
  MODELS_DIR,
  REPO,
  appendUpdate,
  buildPdf,
  c2paStore,
  iTXt,
  jpegApp11,
  jpegXmpSegment,
  makeJpeg,
  makePng,
  pdfWithJpeg,
  signedC2paJpeg,
  tEXt,
  tempDir,
  textPdf,
  withJpegSegments,
  withPngChunks,
  xmpPacket,
} from './fixtures.js';

/** A dotted code as it would look if it leaked into the copy (`provenance.ai.png_chunk`). */
const RAW_CODE = /\b(pixels|provenance|pdf|capture|verdict)\.[a-z0-9_]+\b/;

/** Facts of every name a copy entry quotes, so each entry can be rendered. */
const SAMPLE_FACTS = {
  score: 0.42, count: 5, page: 2, image: 1, width: 800, height: 600, scannedPage: false, colours: 2, items: 'page 1 image 0: 20x20, under 64 px',
  generator: 'Midjourney', partly: true, embedded: false, sourceType: 'trainedAlgorithmicMedia', declaredIn: 'xmp', chunk: 'parameters',
  writer: 'ComfyUI workflow', value: 'Midjourney v6', field: 'Software', producer: 'ChatGPT', claimGenerator: 'Leica M11-P', signer: 'Leica',
  actions: 'c2pa.created', signatureValid: true, assertionsValid: true, dataHashValid: false, chunks: 'prompt, workflow', editors: 'GIMP',
  make: 'Canon', model: 'EOS R5', lens: null, cameras: 'Nikon Z 8', creator: 'Word', revisions: 3, modDate: '2024-03-05T09:30:00.000Z',
  creationDate: '2024-01-01T12:00:00.000Z', historySteps: 2, history: 'saved by Word; saved by iLovePDF', javascript: true, openAction: false,
  launch: false, embeddedFiles: true, quality: 75, claimedMake: 'Canon', tableMake: 'libjpeg', similarity: 0.1, thumbAspect: '4:3',
  imageAspect: '16:9', exifWidth: 6000, exifHeight: 4000, software: 'Adobe Photoshop 25.0', delta: 86400 * 3, agent: 'Adobe Photoshop',
  detail: 'no thumbnail item',
};

/** The capture detector's codes (issue #11), which it emits without touching copy.ts. */
const CAPTURE_CODES = [
  'capture.exif.absent', 'capture.consistent', 'capture.qtable.standard_ijg', 'capture.qtable.maker_mismatch', 'capture.qtable.known_maker',
  'capture.qtable.unknown', 'capture.thumbnail.mismatch', 'capture.thumbnail.aspect_mismatch', 'capture.thumbnail.match',
  'capture.thumbnail.absent', 'capture.size.exif_mismatch', 'capture.size.not_device', 'capture.makernote.missing',
  'capture.makernote.malformed', 'capture.software.edited', 'capture.dates.inconsistent', 'capture.jpeg.double_quantization',
  'capture.xmp.edit_history', 'capture.heic.structure_mismatch', 'capture.heic.phone_structure',
];

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

describe('the copy table', () => {
  it('every entry reads as a plain sentence: no raw code, no undefined or null, ends with a full stop', () => {
    for (const code of Object.keys(FINDING_COPY)) {
      // The capture detector's facts come from another module: its sentences must still read when one is missing.
      for (const facts of code.startsWith('capture.') ? [SAMPLE_FACTS, {}] : [SAMPLE_FACTS]) {
        const s = findingSentence({ code, facts, weight: 0 });
        expect(s, code).toMatch(/^[A-Z].*\.$/);
        expect(s, code).not.toMatch(/undefined|null|NaN|\[object/);
        expect(s, code).not.toMatch(RAW_CODE);
      }
    }
  });

  it("has a sentence for each of the capture detector's codes, in words a claims handler reads", () => {
    for (const code of CAPTURE_CODES) expect(hasCopy(code), code).toBe(true);
    expect(findingSentence({ code: 'capture.thumbnail.mismatch', facts: { similarity: 0.1 }, weight: 0.8 })).toBe(
      "The photo's embedded thumbnail shows a different picture from the photo itself.",
    );
    expect(findingSentence({ code: 'capture.dates.inconsistent', facts: { field: 'DateTimeOriginal', delta: 86400 * 3 }, weight: 0.4 })).toBe(
      'The dates recorded in the photo disagree: DateTimeOriginal is off by 3 days.',
    );
    expect(findingSentence({ code: 'capture.qtable.maker_mismatch', facts: { claimedMake: 'Apple', tableMake: 'libjpeg (IJG)' }, weight: 0.6 })).toBe(
      'The photo says it comes from an Apple camera, but it is compressed the way libjpeg (IJG) compresses photos.',
    );
  });

  it('has a sentence for every code written anywhere in src/analysis', () => {
    const written = new Set<string>();
    for (const file of sourceFiles(join(REPO, 'src', 'analysis'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/'((?:pixels|provenance|pdf|capture|verdict)(?:\.[a-z0-9_]+)+)'/g)) written.add(m[1]);
    }
    expect(written.size).toBeGreaterThan(40);
    expect([...written].filter((c) => !hasCopy(c))).toEqual([]);
  });

  it('a code without copy is left out of a description rather than shown raw', () => {
    expect(findingSentence({ code: 'capture.not_yet_worded', facts: {}, weight: 0.5 })).toBeNull();
  });
});

describe.skipIf(!HAS_MODEL)('codes the real detectors emit on the test fixtures', () => {
  const tmp = tempDir();
  afterAll(async () => {
    await closeAnalysis();
    tmp.cleanup();
  });

  it('every emitted code has copy, and no verdict shows a raw code', async () => {
    const xmpAi = xmpPacket('Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"');
    const capture = { claimGenerator: 'Leica M11-P', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] };
    const stripes = Buffer.alloc(128 * 128 * 3);
    for (let i = 0; i < 128 * 128; i++) stripes.fill(((i % 128) >> 4) % 2 ? 255 : 0, i * 3, i * 3 + 3);
    const photo = await makeJpeg(256, 192);
    const files: Array<[string, MediaType, Buffer]> = [
      ['photo.jpg', 'image/jpeg', photo],
      ['camera.jpg', 'image/jpeg', await makeJpeg(256, 192, (s) => s.withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5', Software: 'Adobe Photoshop 25.0' } }))],
      ['midjourney.jpg', 'image/jpeg', await makeJpeg(256, 192, (s) => s.withExif({ IFD0: { Software: 'Midjourney v6' } }))],
      ['xmp-ai.jpg', 'image/jpeg', withJpegSegments(photo, [jpegXmpSegment(xmpAi)])],
      ['signed-capture.jpg', 'image/jpeg', signedC2paJpeg(photo, capture)],
      ['unsigned-capture.jpg', 'image/jpeg', withJpegSegments(photo, [jpegApp11(c2paStore(capture))])],
      ['dalle.jpg', 'image/jpeg', withJpegSegments(photo, [jpegApp11(c2paStore({ claimGenerator: 'OpenAI DALL-E 3', actions: [{ action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia' }] }))])],
      ['comfy.png', 'image/png', withPngChunks(await makePng(128, 128), [tEXt('prompt', '{"3":{"class_type":"KSampler","inputs":{}}}'), iTXt('workflow', '{}')])],
      ['dalle-text.png', 'image/png', withPngChunks(await makePng(128, 128), [tEXt('Software', 'DALL-E 3')])],
      ['stripes.png', 'image/png', await sharp(stripes, { raw: { width: 128, height: 128, channels: 3 } }).png().toBuffer()],
      ['camera.heic', 'image/heic', readFileSync(join(REPO, 'test', 'fixtures', 'analysis', 'camera-exif-128x96.heic'))],
      ['doc.pdf', 'application/pdf', pdfWithJpeg(photo, 256, 192)],
      ['ai-inside.pdf', 'application/pdf', pdfWithJpeg(withJpegSegments(photo, [jpegXmpSegment(xmpAi)]), 256, 192)],
      ['updated.pdf', 'application/pdf', appendUpdate(pdfWithJpeg(photo, 256, 192), { 7: '<< /Producer (iLovePDF) /CreationDate (D:20240101120000Z) /ModDate (D:20240305093000Z) >>' }, 8, '/Info 7 0 R')],
      ['chatgpt.pdf', 'application/pdf', buildPdf(['<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] >>', '<< /S /JavaScript /JS (1) >>', '<< /Producer (ChatGPT) >>'], '/Info 5 0 R')],
      ['text.pdf', 'application/pdf', textPdf()],
    ];
    const emitted = new Set<string>();
    for (const [name, type, bytes] of files) {
      const r = await analyseFile(tmp.write(name, bytes), type, { modelsDir: MODELS_DIR });
      for (const f of r.findings) emitted.add(f.code);
      expect(`${r.verdict.display.title} ${r.verdict.display.description}`, name).not.toMatch(RAW_CODE);
    }
    expect([...emitted].filter((c) => !hasCopy(c))).toEqual([]);
    // the fixtures reach every detector and most kinds of evidence
    for (const prefix of ['pixels.score.', 'pixels.line_art', 'pixels.no_raster', 'provenance.ai.', 'provenance.c2pa.manifest', 'provenance.capture.', 'provenance.editor', 'pdf.changed', 'pdf.active_content']) {
      expect([...emitted].some((c) => c.startsWith(prefix)), prefix).toBe(true);
    }
    console.info(`codes emitted on the fixtures: ${[...emitted].sort().join(', ')}`);
  }, 120_000);
});
