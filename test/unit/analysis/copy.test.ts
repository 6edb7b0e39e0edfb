// Every finding code has copy, so no person ever reads a raw code: the copy table itself, every code written in
// src/analysis, the capture detector's codes, and every code the real detectors emit on the test fixtures.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { FINDING_COPY, findingSentence, hasCopy } from '../../../src/analysis/copy.js';
import { issueSigner, makeAuthority, pkiDir, replaceOnce, signC2pa, signedStore } from '../../support/c2pa-signing.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import type { MediaType } from '../../../src/api/schemas.js';
import {
  HAS_MODEL,
  MODELS_DIR,
  REPO,
  appendUpdate,
  buildPdf,
  iTXt,
  jpegApp11,
  jpegXmpSegment,
  makeJpeg,
  makePng,
  pdfWithJpeg,
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
  detail: 'no thumbnail item', issuer: 'Veracity tests / Test Root', signedAt: '2026-11-24T10:00:00.000Z', ingredients: 1, manifests: 2,
  trust: 'untrusted', parents: 1, reason: 'box too short', explanation: 'the signing certificate does not chain to a configured trust anchor.',
  url: 'self#jumbf=c2pa.assertions/c2pa.hash.data', anchors: 2,
};

/** C2PA validation status codes (the specification's, verbatim): worded one by one, or by their family. */
const C2PA_CODES = [
  'claimSignature.validated', 'claimSignature.mismatch', 'claimSignature.missing', 'signingCredential.trusted', 'signingCredential.untrusted',
  'signingCredential.expired', 'signingCredential.invalid', 'timeStamp.trusted', 'timeStamp.untrusted', 'assertion.hashedURI.match',
  'assertion.hashedURI.mismatch', 'assertion.dataHash.match', 'assertion.dataHash.mismatch', 'assertion.bmffHash.mismatch',
  'claim.hardBindings.missing', 'ingredient.manifest.mismatch', 'assertion.action.malformed', 'manifest.multipleParents', 'general.error',
];

/** The capture detector's codes (issue #11), which it emits without touching copy.ts. */
const CAPTURE_CODES = [
  'capture.exif.absent', 'capture.consistent', 'capture.qtable.standard_ijg', 'capture.qtable.camera_ijg', 'capture.jpeg.phone_libjpeg', 'capture.jpeg.layout_unlike_model', 'capture.jpeg.layout_unlike_tables', 'capture.jpeg.model_layout', 'capture.jpeg.parts_missing', 'capture.qtable.model_range', 'capture.qtable.maker_mismatch', 'capture.qtable.known_maker',
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

  it('every C2PA validation status reads as a plain sentence; a failure and an edit after signing say so', () => {
    for (const code of C2PA_CODES) {
      expect(hasCopy(code), code).toBe(true);
      for (const weight of [0, 0.6]) {
        const s = findingSentence({ code, facts: SAMPLE_FACTS, weight });
        expect(s, code).toMatch(/^[A-Z].*\.$/);
        expect(s, code).not.toMatch(/undefined|null|NaN|\[object|\.\./);
      }
    }
    expect(findingSentence({ code: 'assertion.dataHash.mismatch', facts: {}, weight: 0.6 })).toMatch(/edited after it was signed/);
    expect(findingSentence({ code: 'signingCredential.untrusted', facts: { signer: 'Acme', anchors: 0 }, weight: 0 })).toMatch(/not established: no trust anchors are configured/);
    expect(findingSentence({ code: 'manifest.multipleParents', facts: {}, weight: 0.6 })).toBe('A Content Credentials check failed, so the manifest cannot be relied on.');
  });

  it('a code without copy is left out of a description rather than shown raw', () => {
    expect(findingSentence({ code: 'capture.not_yet_worded', facts: {}, weight: 0.5 })).toBeNull();
  });
});

describe.skipIf(!HAS_MODEL)('codes the real detectors emit on the test fixtures', () => {
  const tmp = tempDir();
  const pki = pkiDir();
  afterAll(async () => {
    await closeAnalysis();
    tmp.cleanup();
    pki.cleanup();
  });

  it('every emitted code has copy, and no verdict shows a raw code', async () => {
    const xmpAi = xmpPacket('Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"');
    const capture = { claimGenerator: 'Leica M11-P', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] };
    const stripes = Buffer.alloc(128 * 128 * 3);
    for (let i = 0; i < 128 * 128; i++) stripes.fill(((i % 128) >> 4) % 2 ? 255 : 0, i * 3, i * 3 + 3);
    const photo = await makeJpeg(256, 192);
    const ca = makeAuthority(pki.dir, 'Copy Test Root');
    const signer = issueSigner(ca, 'Copy Test Signer');
    const expired = issueSigner(ca, 'Copy Expired Signer', { start: '20200101000000Z', end: '20210101000000Z' });
    const trustAnchorsFile = tmp.write('anchors.pem', ca.certPem);
    const dalle = { claimGenerator: 'OpenAI DALL-E 3', actions: [{ action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia' }] };
    const signedCapture = await signC2pa(photo, signer, capture);
    const files: Array<[string, MediaType, Buffer]> = [
      ['photo.jpg', 'image/jpeg', photo],
      ['chart.png', 'image/png', readFileSync(join(REPO, 'test', 'fixtures', 'photo-guard', 'chart-563x293.png'))],
      ['camera.jpg', 'image/jpeg', await makeJpeg(256, 192, (s) => s.withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5', Software: 'Adobe Photoshop 25.0' } }))],
      ['midjourney.jpg', 'image/jpeg', await makeJpeg(256, 192, (s) => s.withExif({ IFD0: { Software: 'Midjourney v6' } }))],
      ['xmp-ai.jpg', 'image/jpeg', withJpegSegments(photo, [jpegXmpSegment(xmpAi)])],
      ['signed-capture.jpg', 'image/jpeg', signedCapture],
      ['expired-capture.jpg', 'image/jpeg', await signC2pa(photo, expired, capture)],
      ['edited-capture.jpg', 'image/jpeg', await signC2pa(photo, signer, { ...capture, actions: [...capture.actions, { action: 'c2pa.cropped' }] })],
      ['claim-altered.jpg', 'image/jpeg', replaceOnce(signedCapture, 'Leica M11-P', 'Leica M10-P')],
      ['other-file-store.jpg', 'image/jpeg', withJpegSegments(photo, [jpegApp11(await signedStore(signer, capture))])],
      ['dalle.jpg', 'image/jpeg', await signC2pa(photo, signer, dalle)],
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
      const r = await analyseFile(tmp.write(name, bytes), type, { modelsDir: MODELS_DIR, trustAnchorsFile });
      for (const f of r.findings) emitted.add(f.code);
      expect(`${r.verdict.display.title} ${r.verdict.display.description}`, name).not.toMatch(RAW_CODE);
    }
    expect([...emitted].filter((c) => !hasCopy(c))).toEqual([]);
    // the fixtures reach every detector and most kinds of evidence
    for (const prefix of ['pixels.score.', 'pixels.line_art', 'pixels.not_photographic', 'pixels.no_raster', 'provenance.ai.', 'provenance.c2pa.manifest', 'provenance.capture.c2pa_trusted', 'provenance.capture.', 'provenance.editor', 'pdf.changed', 'pdf.active_content', 'claimSignature.mismatch', 'signingCredential.expired', 'assertion.dataHash.mismatch']) {
      expect([...emitted].some((c) => c.startsWith(prefix)), prefix).toBe(true);
    }
    console.info(`codes emitted on the fixtures: ${[...emitted].sort().join(', ')}`);
  }, 120_000);
});
