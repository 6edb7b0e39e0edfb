// The analysis loads the C2PA library only for a file that may hold a manifest store (c2pa-reading.ts): a picture
// without a JUMBF box. These tests hold the pre-check to the full reader's own answer, so that skipping the library
// never hides Content Credentials: on signed, altered, broken and real-world files it lets the reader through, and on
// every picture it turns away the reader finds nothing either.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaType } from '../../../src/analysis/analysis-results.js';
import { mayHoldC2pa, readC2pa } from '../../../src/analysis/c2pa-reading.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { validateC2pa } from '../../../src/analysis/c2pa-validation.js';
import { parseTrustAnchors, type TrustAnchor } from '../../../src/analysis/trust-anchors.js';
import { issueSigner, makeAuthority, pkiDir, replaceOnce, signC2pa, signPdfC2pa, type TestSigner } from '../../support/c2pa-signing.js';
import { DATASETS, HAS_MODEL, MODELS_DIR, REPO, jpegSegment, makeJpeg, makePng, textPdf, withJpegSegments } from './fixtures.js';

const pki = pkiDir();
afterAll(() => pki.cleanup());
let camera: TestSigner;
let anchors: TrustAnchor[];
const capture = { claimGenerator: 'Veracity Test Camera', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] };

beforeAll(() => {
  const ca = makeAuthority(pki.dir, 'Reading Test Root');
  camera = issueSigner(ca, 'Reading Test Camera');
  anchors = parseTrustAnchors(ca.certPem);
});

const typeOf = (name: string): MediaType =>
  /\.png$/i.test(name) ? 'image/png' : /\.hei[cf]$/i.test(name) ? 'image/heic' : /\.pdf$/i.test(name) ? 'application/pdf' : 'image/jpeg';

/** readC2pa as the analysis calls it, counting how often it asked for the trust anchors. */
async function readCounting(bytes: Buffer, type: MediaType) {
  let asked = 0;
  const reading = await readC2pa(bytes, type, async () => {
    asked++;
    return anchors;
  });
  return { reading, asked };
}

describe('the C2PA library is loaded only for files that may hold Content Credentials', () => {
  it('signed, altered and broken stores (JPEG, PNG, HEIC, PDF) and real generators\' files are read exactly as the full reader reads them', async () => {
    const heic = readFileSync(join(REPO, 'test', 'fixtures', 'analysis', 'camera-exif-128x96.heic'));
    const jpeg = withJpegSegments(await makeJpeg(96, 64), [jpegSegment(0xfe, Buffer.from('Veracity original comment', 'latin1'))]);
    const signedJpeg = await signC2pa(jpeg, camera, capture);
    const files: Array<[string, Buffer]> = [
      ['signed.jpg', signedJpeg],
      ['signed.png', await signC2pa(await makePng(64, 48), camera, capture)],
      ['signed.heic', await signC2pa(heic, camera, capture)],
      ['signed.pdf', await signPdfC2pa(textPdf(), camera, capture)],
      ['edited-after-signing.jpg', replaceOnce(signedJpeg, 'Veracity original comment', 'Veracity altered  comment')],
      ['claim-altered.jpg', replaceOnce(signedJpeg, 'Veracity Test Camera', 'Veracity Fake Camera')],
      // the store cut off half-way: the reader says it cannot read it, and so must the analysis
      ['truncated-store.jpg', signedJpeg.subarray(0, signedJpeg.indexOf('jumb') + 200)],
    ];
    const real = join(REPO, 'test', 'fixtures', 'c2pa-real');
    for (const f of readdirSync(real).filter((n) => /\.(png|jpe?g)$/i.test(n))) files.push([f, readFileSync(join(real, f))]);
    let manifests = 0;
    for (const [name, bytes] of files) {
      const type = typeOf(name);
      expect(mayHoldC2pa(bytes, type), name).toBe(true);
      const full = await validateC2pa(bytes, type, anchors);
      expect(full, `${name}: the full reader finds a store`).not.toBeNull();
      const { reading, asked } = await readCounting(bytes, type);
      expect(reading, name).toEqual(full);
      if (full?.kind === 'manifest') manifests++;
      // the anchors are read once, for the store found
      expect(asked, name).toBe(1);
    }
    expect(manifests).toBeGreaterThanOrEqual(files.length - 1);
  });

  it('every picture it turns away has no Content Credentials by the full reader either, and their anchors are never read', async () => {
    const pictures: Array<[string, Buffer]> = [
      ['plain.jpg', await makeJpeg(96, 64)],
      ['plain.png', await makePng(64, 48)],
      // the words alone are no store: a comment that names C2PA, with no JUMBF box
      ['says-c2pa.jpg', withJpegSegments(await makeJpeg(64, 48), [jpegSegment(0xfe, Buffer.from('c2pa manifest was here', 'latin1'))])],
    ];
    for (const dir of ['analysis', 'capture', 'portraits', 'thermal', 'documents']) {
      const d = join(REPO, 'test', 'fixtures', dir);
      if (!existsSync(d)) continue;
      for (const f of readdirSync(d).filter((n) => /\.(png|jpe?g|hei[cf])$/i.test(n))) pictures.push([`${dir}/${f}`, readFileSync(join(d, f))]);
    }
    // and the labelled pictures of ../shared, a few per source, where this machine has them
    const train = join(DATASETS, 'train');
    if (existsSync(train)) {
      for (const label of ['ai', 'real']) {
        for (const src of readdirSync(join(train, label)).sort()) {
          const names = readdirSync(join(train, label, src)).filter((n) => /\.(png|jpe?g)$/i.test(n)).sort().slice(0, 3);
          for (const f of names) pictures.push([`${label}/${src}/${f}`, readFileSync(join(train, label, src, f))]);
        }
      }
    }
    let turnedAway = 0;
    for (const [name, bytes] of pictures) {
      const type = typeOf(name);
      if (mayHoldC2pa(bytes, type)) continue;
      turnedAway++;
      expect(await validateC2pa(bytes, type, anchors), name).toBeNull();
      const { reading, asked } = await readCounting(bytes, type);
      expect(reading, name).toBeNull();
      expect(asked, name).toBe(0);
    }
    expect(turnedAway).toBeGreaterThan(pictures.length / 2);
  });

  it('a PDF is always read: its store may sit in a compressed stream', async () => {
    expect(mayHoldC2pa(textPdf(), 'application/pdf')).toBe(true);
    expect(await readC2pa(textPdf(), 'application/pdf', anchors)).toEqual(await validateC2pa(textPdf(), 'application/pdf', anchors));
  });
});

describe.skipIf(!HAS_MODEL)('a broken trust anchors file, read only when a store is judged (real model)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'veracity-reading-'));
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await closeAnalysis();
  });

  it('never reads as "no anchors": a signed picture fails with the reason; a picture without Content Credentials, which needs no anchors, gets its verdict', async () => {
    const broken = join(dir, 'trust-anchors.pem');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const plain = join(dir, 'plain.jpg');
    writeFileSync(plain, await makeJpeg(128, 96));
    const signed = join(dir, 'signed.jpg');
    writeFileSync(signed, await signC2pa(readFileSync(plain), camera, capture));
    const opts = { modelsDir: MODELS_DIR, trustAnchorsFile: broken };
    await expect(analyseFile(signed, 'image/jpeg', opts)).rejects.toThrow(/certificate 1 is not a valid X\.509/);
    const r = await analyseFile(plain, 'image/jpeg', opts);
    expect(r.verdict.dimensions.map((d) => d.key)).toContain('ai_detection');
    expect(r.findings.map((f) => f.code).filter((c) => c.startsWith('provenance.c2pa') || c.startsWith('signingCredential'))).toEqual([]);
  }, 120_000);
});
