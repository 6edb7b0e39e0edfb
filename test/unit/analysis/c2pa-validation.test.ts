// C2PA validation through @trustnxt/c2pa-ts with the product's own trust decision, on files the tests sign
// themselves (openssl PKI, the library's signing API), then tamper with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateC2pa, type C2paValidation } from '../../../src/analysis/c2pa-validation.js';
import { chainsToAnchor, parseTrustAnchors, type TrustAnchor } from '../../../src/analysis/trust-anchors.js';
import { encodeStream, issueSigner, makeAuthority, pkiDir, replaceOnce, signC2pa, signC2paEdit, signPdfC2pa, signedStore, withEmbeddedStore, type TestAuthority, type TestSigner } from '../../support/c2pa-signing.js';
import { REPO, jpegSegment, makeJpeg, makePng, textPdf, withJpegSegments } from './fixtures.js';

const pki = pkiDir();
let ca: TestAuthority;
let other: TestAuthority;
let camera: TestSigner;
let expired: TestSigner;
let anchors: TrustAnchor[];
let photo: Buffer;
const capture = { claimGenerator: 'Veracity Test Camera', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture', softwareAgent: 'Test Firmware 1.0' }] };

beforeAll(async () => {
  ca = makeAuthority(pki.dir, 'Veracity Test Root');
  other = makeAuthority(pki.dir, 'Some Other Root');
  camera = issueSigner(ca, 'Test Camera Signer');
  expired = issueSigner(ca, 'Expired Signer', { start: '20200101000000Z', end: '20210101000000Z' });
  anchors = parseTrustAnchors(ca.certPem);
  photo = withJpegSegments(await makeJpeg(96, 64), [jpegSegment(0xfe, Buffer.from('Veracity original comment', 'latin1'))]);
});
afterAll(() => pki.cleanup());

async function manifestOf(bytes: Buffer, type: 'image/jpeg' | 'image/png' | 'image/heic', a: TrustAnchor[]): Promise<C2paValidation> {
  const r = await validateC2pa(bytes, type, a);
  if (r?.kind !== 'manifest') throw new Error(`no manifest: ${JSON.stringify(r)}`);
  return r.manifest;
}
const codes = (m: C2paValidation) => m.statuses.map((s) => s.code);

describe('C2PA validation with the product deciding trust', () => {
  it('a capture signed by a signer that chains to an anchor: signature, hashed URIs and data hash validate, signer trusted', async () => {
    const m = await manifestOf(await signC2pa(photo, camera, capture), 'image/jpeg', anchors);
    expect(codes(m)).toEqual(expect.arrayContaining(['claimSignature.validated', 'signingCredential.trusted', 'assertion.hashedURI.match', 'assertion.dataHash.match']));
    expect(m).toMatchObject({ valid: true, trust: 'trusted', claimGenerator: 'Veracity Test Camera', signer: 'Veracity tests / Test Camera Signer', issuer: 'Veracity tests / Veracity Test Root' });
    expect(m.actions).toEqual([{ action: 'c2pa.created', digitalSourceType: 'digitalCapture', softwareAgent: 'Test Firmware 1.0' }]);
  });

  it('no anchors configured: the signature is valid, the signer is not established (signingCredential.untrusted)', async () => {
    const m = await manifestOf(await signC2pa(photo, camera, capture), 'image/jpeg', []);
    expect(codes(m)).toContain('claimSignature.validated');
    expect(codes(m)).toContain('signingCredential.untrusted');
    expect(codes(m)).not.toContain('signingCredential.trusted');
    expect(m).toMatchObject({ valid: true, trust: 'not_established', anchors: 0 });
  });

  it("anchors that are not the signer's authority: untrusted (the library alone would say trusted)", async () => {
    const m = await manifestOf(await signC2pa(photo, camera, capture), 'image/jpeg', parseTrustAnchors(other.certPem));
    expect(codes(m)).toContain('signingCredential.untrusted');
    expect(m).toMatchObject({ valid: true, trust: 'untrusted', anchors: 1 });
  });

  it('a certificate outside its validity period: signingCredential.expired, not trusted even though it chains', async () => {
    const m = await manifestOf(await signC2pa(photo, expired, capture), 'image/jpeg', anchors);
    expect(codes(m)).toContain('signingCredential.expired');
    expect(m).toMatchObject({ valid: true, trust: 'expired' });
  });

  it('bytes changed after signing: assertion.dataHash.mismatch, the manifest is not valid', async () => {
    const signed = await signC2pa(photo, camera, capture);
    const m = await manifestOf(replaceOnce(signed, 'Veracity original comment', 'Veracity altered  comment'), 'image/jpeg', anchors);
    expect(codes(m)).toContain('assertion.dataHash.mismatch');
    expect(codes(m)).toContain('claimSignature.validated');
    expect(m.valid).toBe(false);
  });

  it('the claim changed after signing: claimSignature.mismatch', async () => {
    const signed = await signC2pa(photo, camera, capture);
    const m = await manifestOf(replaceOnce(signed, 'Veracity Test Camera', 'Veracity Fake Camera'), 'image/jpeg', anchors);
    expect(codes(m)).toContain('claimSignature.mismatch');
    expect(m.valid).toBe(false);
  });

  it('an assertion changed after signing: assertion.hashedURI.mismatch', async () => {
    const signed = await signC2pa(photo, camera, capture);
    const m = await manifestOf(replaceOnce(signed, 'Test Firmware 1.0', 'Test Firmware 2.0'), 'image/jpeg', anchors);
    expect(codes(m)).toContain('assertion.hashedURI.mismatch');
    expect(m.valid).toBe(false);
  });

  it('a PNG (caBX chunk) validates the same way', async () => {
    const m = await manifestOf(await signC2pa(await makePng(64, 48), camera, capture), 'image/png', anchors);
    expect(m).toMatchObject({ valid: true, trust: 'trusted' });
    expect(codes(m)).toContain('assertion.dataHash.match');
  });

  it('a time-stamp by an authority that chains to an anchor: timeStamp.trusted and the signing time; by another: timeStamp.untrusted', async () => {
    const tsa = issueSigner(ca, 'Test Time-Stamp Authority', { tsa: true });
    const m = await manifestOf(await signC2pa(photo, camera, capture, tsa), 'image/jpeg', anchors);
    expect(codes(m)).toEqual(expect.arrayContaining(['timeStamp.trusted', 'signingCredential.trusted', 'claimSignature.validated']));
    expect(Math.abs(Date.parse(m.signedAt!) - Date.now())).toBeLessThan(600_000);
    const foreign = issueSigner(other, 'Foreign Time-Stamp Authority', { tsa: true });
    const f = await manifestOf(await signC2pa(photo, camera, capture, foreign), 'image/jpeg', anchors);
    expect(codes(f)).toContain('timeStamp.untrusted');
    expect(codes(f)).not.toContain('timeStamp.trusted');
    expect(f).toMatchObject({ valid: true, trust: 'trusted' });
  });

  it('HEIF: a BMFF hash binds the file; a changed byte outside the manifest breaks it (assertion.bmffHash.mismatch)', async () => {
    const heic = readFileSync(join(REPO, 'test', 'fixtures', 'analysis', 'gradient-64x48.heic'));
    const signed = await signC2pa(heic, camera, capture);
    const m = await manifestOf(signed, 'image/heic', anchors);
    expect(codes(m)).toEqual(expect.arrayContaining(['claimSignature.validated', 'signingCredential.trusted', 'assertion.bmffHash.match']));
    expect(m.valid).toBe(true);
    const changed = Buffer.from(signed);
    changed[changed.length - 1] ^= 0xff; // the last byte of the coded image (mdat is last)
    const c = await manifestOf(changed, 'image/heic', anchors);
    expect(codes(c)).toContain('assertion.bmffHash.mismatch');
    expect(c.valid).toBe(false);
  });

  it('PDF: a store in the document validates against the document bytes; a changed byte gives assertion.dataHash.mismatch', async () => {
    const signed = await signPdfC2pa(textPdf(), camera, { claimGenerator: 'Veracity Test Scanner', actions: [{ action: 'c2pa.created' }] });
    const r = await validateC2pa(signed, 'application/pdf', anchors);
    if (r?.kind !== 'manifest') throw new Error(JSON.stringify(r));
    expect(codes(r.manifest)).toEqual(expect.arrayContaining(['claimSignature.validated', 'signingCredential.trusted', 'assertion.dataHash.match']));
    expect(r.manifest).toMatchObject({ valid: true, claimGenerator: 'Veracity Test Scanner' });
    const changed = replaceOnce(signed, '%PDF-1.7', '%PDF-1.6');
    const c = await validateC2pa(changed, 'application/pdf', anchors);
    expect(c?.kind === 'manifest' && codes(c.manifest)).toContain('assertion.dataHash.mismatch');
  });

  // The PDF form of the C2PA specification: the store is an embedded file stream named by the catalog's /AF (an
  // associated file with /AFRelationship /C2PA_Manifest), written in an incremental update, and may be compressed.
  describe('PDF: a store embedded as the specification describes, compressed', () => {
    const scanner = { claimGenerator: 'Veracity Test Scanner', actions: [{ action: 'c2pa.created' }] };
    /** The stored bytes of the file's embedded C2PA stream (the last one): where withEmbeddedStore put them. */
    const streamData = (pdf: Buffer) => {
      const at = pdf.lastIndexOf('/Subtype /application#2Fc2pa');
      const start = pdf.indexOf('stream\n', at) + 'stream\n'.length;
      return { start, end: pdf.indexOf('\nendstream', start) };
    };

    it('a FlateDecode store validates against the document bytes; a changed byte gives assertion.dataHash.mismatch', async () => {
      const signed = await signPdfC2pa(textPdf(), camera, scanner, { compressed: {} });
      expect(signed.includes('jumb')).toBe(false); // nothing a search of the raw bytes could find
      const r = await validateC2pa(signed, 'application/pdf', anchors);
      if (r?.kind !== 'manifest') throw new Error(JSON.stringify(r));
      expect(codes(r.manifest)).toEqual(expect.arrayContaining(['claimSignature.validated', 'signingCredential.trusted', 'assertion.dataHash.match']));
      expect(r.manifest).toMatchObject({ valid: true, claimGenerator: 'Veracity Test Scanner' });
      const c = await validateC2pa(replaceOnce(signed, '(Hello)', '(Hallo)'), 'application/pdf', anchors);
      expect(c?.kind === 'manifest' && codes(c.manifest)).toContain('assertion.dataHash.mismatch');
    });

    it('a store under a PNG predictor (/DecodeParms << /Predictor 12 /Columns N >>) is decoded and validates', async () => {
      const signed = await signPdfC2pa(textPdf(), camera, scanner, { compressed: { pngUpColumns: 61 } });
      const r = await validateC2pa(signed, 'application/pdf', anchors);
      if (r?.kind !== 'manifest') throw new Error(JSON.stringify(r));
      expect(r.manifest).toMatchObject({ valid: true, claimGenerator: 'Veracity Test Scanner' });
    });

    it('a corrupt compressed stream is a store that cannot be read, not a document without credentials', async () => {
      const signed = await signPdfC2pa(textPdf(), camera, scanner, { compressed: {} });
      const { start } = streamData(signed);
      const corrupt = Buffer.from(signed);
      for (let i = start + 20; i < start + 40; i++) corrupt[i] ^= 0x5a;
      const r = await validateC2pa(corrupt, 'application/pdf', anchors);
      expect(r).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(/manifest store's stream/) });
    });

    it('a decompression bomb stops at the 16 MiB limit: refused, without inflating the rest', async () => {
      const bomb = deflateSync(Buffer.alloc(256 * 1024 * 1024)); // 256 MiB of zeros in about 256 KB
      const { pdf } = withEmbeddedStore(textPdf(), bomb, '/Filter /FlateDecode');
      const t0 = performance.now();
      const r = await validateC2pa(pdf, 'application/pdf', anchors);
      expect(r).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(/larger than 16 MiB/) });
      expect(performance.now() - t0).toBeLessThan(5_000);
    });

    it('a filter the reader does not decode is refused by name rather than guessed', async () => {
      const store = await signedStore(camera, scanner);
      const { pdf } = withEmbeddedStore(textPdf(), Buffer.from(store.toString('hex') + '>', 'latin1'), '/Filter /ASCIIHexDecode');
      expect(await validateC2pa(pdf, 'application/pdf', anchors)).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(/ASCIIHexDecode/) });
    });

    it('a catalog and file specification compressed in an object stream lead to a store whose stream names no subtype (as Adobe writes it)', async () => {
      const base = textPdf();
      const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))![1]);
      const store = deflateSync(await signedStore(camera, scanner));
      // Object 6 the store (FlateDecode, no /Type or /Subtype), object 7 an object stream holding the file
      // specification (8) and the new catalog (1). The reader finds objects by their headers, not by the xref.
      const objects = ['<< /Type /Filespec /F (c) /AFRelationship /C2PA_Manifest /EF << /F 6 0 R >> >>', '<< /Type /Catalog /Pages 2 0 R /AF [8 0 R] >>'];
      const header = `8 0 1 ${objects[0].length + 1} `;
      const objStm = deflateSync(Buffer.from(header + objects.join(' '), 'latin1'));
      const at6 = base.length;
      const obj6 = Buffer.concat([Buffer.from(`6 0 obj\n<< /Filter /FlateDecode /Length ${store.length} >>\nstream\n`, 'latin1'), store, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
      const obj7 = Buffer.concat([Buffer.from(`7 0 obj\n<< /Type /ObjStm /N 2 /First ${header.length} /Filter /FlateDecode /Length ${objStm.length} >>\nstream\n`, 'latin1'), objStm, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
      const xrefAt = at6 + obj6.length + obj7.length;
      const tail = `xref\n6 2\n${String(at6).padStart(10, '0')} 00000 n \n${String(at6 + obj6.length).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 9 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
      const pdf = Buffer.concat([base, obj6, obj7, Buffer.from(tail, 'latin1')]);
      const r = await validateC2pa(pdf, 'application/pdf', anchors);
      expect(r?.kind === 'manifest' && r.manifest.claimGenerator).toBe('Veracity Test Scanner');
    });

    it('the store the catalog names is read, in the last revision: an earlier one left in the file is not', async () => {
      const first = await signPdfC2pa(textPdf(), camera, { claimGenerator: 'First Scanner', actions: [{ action: 'c2pa.created' }] }, { compressed: {} });
      // A later update embeds another store (its data hash is of another file: only which store is read matters here).
      const later = withEmbeddedStore(first, encodeStream(await signedStore(camera, scanner)), '/Filter /FlateDecode').pdf;
      const r = await validateC2pa(later, 'application/pdf', anchors);
      expect(r?.kind === 'manifest' && r.manifest.claimGenerator).toBe('Veracity Test Scanner');
    });
  });

  // C2PA 2.x added rules for actions (the first action is c2pa.created or c2pa.opened; an opening, placing or removing
  // action names its ingredients); a 1.x claim (`c2pa.claim`) is judged by the rules of 1.x, as c2pa-rs does
  // (claim.rs verify_actions: 1.x claims get only "one actions assertion").
  it('a 1.x claim is judged by 1.x rules: no c2pa.created/c2pa.opened first, or c2pa.opened without ingredients, is no failure, and its data hash is still checked', async () => {
    const editOnly = { claimGenerator: 'Veracity Test Editor 1.x', claimVersion: 1 as const, actions: [{ action: 'c2pa.color_adjustments', softwareAgent: 'Test Editor 1.0' }] };
    const signed = await signC2pa(photo, camera, editOnly);
    const m = await manifestOf(signed, 'image/jpeg', anchors);
    expect(codes(m)).not.toContain('assertion.action.malformed');
    expect(codes(m)).toEqual(expect.arrayContaining(['claimSignature.validated', 'assertion.dataHash.match']));
    expect(m).toMatchObject({ valid: true, trust: 'trusted' });
    // The library stopped before the hard binding when it found a 2.x-only failure: the bytes must still be checked.
    const changed = await manifestOf(replaceOnce(signed, 'Veracity original comment', 'Veracity altered  comment'), 'image/jpeg', anchors);
    expect(changed.statuses.filter((s) => !s.success).map((s) => s.code)).toEqual(['assertion.dataHash.mismatch']);
    expect(changed.valid).toBe(false);

    const opened = await manifestOf(await signC2pa(photo, camera, { ...editOnly, actions: [{ action: 'c2pa.opened' }] }), 'image/jpeg', anchors);
    expect(codes(opened)).not.toContain('assertion.action.ingredientMismatch');
    expect(opened).toMatchObject({ valid: true, trust: 'trusted' });
  });

  it('a 2.x claim keeps the 2.x rules: assertion.action.malformed without c2pa.created/c2pa.opened first, assertion.action.ingredientMismatch for c2pa.opened without ingredients', async () => {
    const editOnly = { claimGenerator: 'Veracity Test Editor 2.x', actions: [{ action: 'c2pa.color_adjustments' }] };
    const m = await manifestOf(await signC2pa(photo, camera, editOnly), 'image/jpeg', anchors);
    expect(codes(m)).toContain('assertion.action.malformed');
    expect(m.valid).toBe(false);
    const opened = await manifestOf(await signC2pa(photo, camera, { ...editOnly, actions: [{ action: 'c2pa.opened' }] }), 'image/jpeg', anchors);
    expect(codes(opened)).toContain('assertion.action.ingredientMismatch');
    expect(opened.valid).toBe(false);
  });

  it('a file without a store is null; a broken store is unreadable, never thrown', async () => {
    expect(await validateC2pa(photo, 'image/jpeg', anchors)).toBeNull();
    const signed = await signC2pa(photo, camera, capture);
    const at = signed.indexOf('jumd', 0, 'latin1');
    const broken = Buffer.from(signed);
    broken.fill(0xee, at - 4, at + 40); // the store's first box header and description
    const r = await validateC2pa(broken, 'image/jpeg', anchors);
    expect(r === null || r.kind === 'unreadable' || !r.manifest.valid).toBe(true);
  });
});

// Issue 24: the ingredient chain. An edit that keeps Content Credentials carries the original's manifest as its
// ingredient's; that manifest is validated too, and what broke in it is reported on the file's statuses with its URL.
describe('C2PA ingredient manifests', () => {
  const edit = { claimGenerator: 'Veracity Test Editor', actions: [{ action: 'c2pa.color_adjustments', softwareAgent: 'Test Editor 2.0' }] };
  let editor: TestSigner;
  let pixels: Buffer;
  let original: Buffer;
  let originalLabel: string;
  beforeAll(async () => {
    editor = issueSigner(ca, 'Test Editor Signer');
    pixels = await makeJpeg(80, 60);
    original = await signC2pa(photo, camera, capture);
    originalLabel = (await manifestOf(original, 'image/jpeg', anchors)).label;
  });
  const failures = (m: C2paValidation) => m.statuses.filter((s) => !s.success);

  it("an intact edit: the ingredient manifest validates, its link's hash matches (ingredient.manifest.validated), the chain is clean", async () => {
    const m = await manifestOf(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, edit), 'image/jpeg', anchors);
    expect(failures(m)).toEqual([]);
    expect(m.statuses.filter((s) => s.code.startsWith('ingredient.'))).toEqual([expect.objectContaining({ code: 'ingredient.manifest.validated', success: true, url: `self#jumbf=/c2pa/${originalLabel}` })]);
    expect(m).toMatchObject({ valid: true, trust: 'trusted', ingredientFailures: [] });
    expect(m.chain.map((c) => c.valid)).toEqual([true, true]);
  });

  describe("the hashed link to the ingredient's manifest (c2pa-rs store.rs ingredient_checks)", () => {
    const mismatch = (code: string) => [expect.objectContaining({ code, success: false, url: `self#jumbf=/c2pa/${originalLabel}`, manifest: originalLabel, ingredient: 'IMG_0001.jpg' })];

    it('a link whose hash was wrong when signed: ingredient.manifest.mismatch on the ingredient, every signature still valid, the Content Credentials not valid', async () => {
      const m = await manifestOf(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, edit, { tamperLink: 'hash' }), 'image/jpeg', anchors);
      expect(failures(m)).toEqual(mismatch('ingredient.manifest.mismatch'));
      expect(m.statuses.map((s) => s.code)).not.toContain('ingredient.manifest.validated');
      expect(m.valid).toBe(false);
      expect(m.ingredientFailures).toEqual([{ title: 'IMG_0001.jpg', manifest: originalLabel, failures: ['ingredient.manifest.mismatch'], recorded: false }]);
      expect(m.chain.map((c) => c.valid)).toEqual([true, true]);
      expect(m.chain[0].ingredients).toEqual([{ title: 'IMG_0001.jpg', relationship: 'parentOf', manifest: originalLabel, validated: false }]);
    });

    it("the ingredient's manifest box changed after the link was hashed, its own signature intact: ingredient.manifest.mismatch", async () => {
      const m = await manifestOf(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, edit, { tamperLink: 'manifest' }), 'image/jpeg', anchors);
      expect(failures(m)).toEqual(mismatch('ingredient.manifest.mismatch'));
      expect(m.valid).toBe(false);
      expect(m.chain.map((c) => c.valid)).toEqual([true, true]);
    });

    it('a recorded failure does not cover the link: the claim cannot have recorded that its own link is broken', async () => {
      const m = await manifestOf(
        await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, edit, { tamperLink: 'hash', recordedFailures: ['ingredient.manifest.mismatch'] }),
        'image/jpeg',
        anchors,
      );
      expect(failures(m)).toEqual(mismatch('ingredient.manifest.mismatch'));
      expect(m.ingredientFailures[0]).toMatchObject({ failures: ['ingredient.manifest.mismatch'], recorded: false });
    });

    it('a 1.x claim (c2pa_manifest link): the C2PA 1.x code ingredient.hashedURI.mismatch; intact, it matches', async () => {
      const v1 = { ...edit, claimVersion: 1 as const };
      const broken = await manifestOf(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, v1, { tamperLink: 'manifest' }), 'image/jpeg', anchors);
      expect(failures(broken)).toEqual(mismatch('ingredient.hashedURI.mismatch'));
      expect(broken.valid).toBe(false);
      const intact = await manifestOf(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, v1), 'image/jpeg', anchors);
      expect(failures(intact)).toEqual([]);
      expect(intact.statuses.map((s) => s.code)).toContain('ingredient.manifest.validated');
      expect(intact.valid).toBe(true);
    });
  });

  it("an ingredient's manifest altered after the edit took it in: its failure is on the statuses with that manifest's URL, and the Content Credentials are not valid", async () => {
    const altered = replaceOnce(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, edit), 'Test Firmware 1.0', 'Test Firmware 2.0');
    const m = await manifestOf(altered, 'image/jpeg', anchors);
    // The manifest's bytes changed, so the edit's link to it no longer matches either (as c2pa-rs reports both).
    expect(failures(m)).toEqual([
      expect.objectContaining({ code: 'ingredient.manifest.mismatch', url: `self#jumbf=/c2pa/${originalLabel}`, manifest: originalLabel, ingredient: 'IMG_0001.jpg' }),
      expect.objectContaining({ code: 'assertion.hashedURI.mismatch', url: `self#jumbf=/c2pa/${originalLabel}/c2pa.assertions/c2pa.actions.v2`, manifest: originalLabel, ingredient: 'IMG_0001.jpg' }),
    ]);
    expect(m.valid).toBe(false);
    expect(m.ingredientFailures).toEqual([{ title: 'IMG_0001.jpg', manifest: originalLabel, failures: ['ingredient.manifest.mismatch', 'assertion.hashedURI.mismatch'], recorded: false }]);
    // Each manifest of the chain is still judged on its own: the editor's holds, the camera's does not.
    expect(m.chain.map((c) => c.valid)).toEqual([true, false]);
  });

  it('an ingredient whose link names a manifest the store does not hold: claim.missing with the URL of the link', async () => {
    const m = await manifestOf(await signC2paEdit(pixels, original, 'IMG_0001.jpg', editor, edit, { dropParent: true }), 'image/jpeg', anchors);
    expect(failures(m)).toEqual([expect.objectContaining({ code: 'claim.missing', url: `self#jumbf=/c2pa/${originalLabel}`, manifest: originalLabel, ingredient: 'IMG_0001.jpg' })]);
    expect(m.valid).toBe(false);
    expect(m.chain[0].ingredients).toEqual([{ title: 'IMG_0001.jpg', relationship: 'parentOf', manifest: originalLabel, validated: false }]);
  });

  it('a failure the edit recorded when it took the ingredient in is not reported again (as c2patool), but the chain is not clean: ingredientFailures names it', async () => {
    const broken = replaceOnce(original, 'Veracity Test Camera', 'Veracity Fake Camera');
    const m = await manifestOf(await signC2paEdit(pixels, broken, 'IMG_0001.jpg', editor, edit, { recordedFailures: ['claimSignature.mismatch'] }), 'image/jpeg', anchors);
    expect(failures(m)).toEqual([]);
    expect(m.valid).toBe(true);
    expect(m.ingredientFailures).toEqual([{ title: 'IMG_0001.jpg', manifest: originalLabel, failures: ['claimSignature.mismatch'], recorded: true }]);
    // Not recorded, the same failure is reported.
    const unrecorded = await manifestOf(await signC2paEdit(pixels, broken, 'IMG_0001.jpg', editor, edit), 'image/jpeg', anchors);
    expect(failures(unrecorded).map((s) => s.code)).toEqual(['claimSignature.mismatch']);
    expect(unrecorded.valid).toBe(false);
  });
});

describe('trust anchors', () => {
  it('parses a PEM bundle with subjects and expiry; refuses a bundle without certificates or with a broken one', () => {
    const list = parseTrustAnchors(ca.certPem + other.certPem);
    expect(list.map((a) => a.subject)).toEqual(['CN=Veracity Test Root, O=Veracity tests', 'CN=Some Other Root, O=Veracity tests']);
    expect(Date.parse(list[0].notAfter)).toBeGreaterThan(Date.now());
    expect(() => parseTrustAnchors('not a certificate')).toThrow(/no PEM certificate/);
    expect(() => parseTrustAnchors('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toThrow(/certificate 1 is not a valid X.509/);
  });

  it("an allowed signer: a signer's own certificate in the bundle is trusted without its CA (and only that signer)", async () => {
    const { X509Certificate } = await import('@peculiar/x509');
    const allowed = parseTrustAnchors(camera.certPem);
    expect(await chainsToAnchor(new X509Certificate(camera.certPem), [], allowed, new Date())).toBe(true);
    expect(await chainsToAnchor(new X509Certificate(camera.certPem), [], allowed, new Date('2001-01-01'))).toBe(false);
    const m = await manifestOf(await signC2pa(photo, camera, capture), 'image/jpeg', allowed);
    expect(m).toMatchObject({ valid: true, trust: 'trusted' });
    const sibling = issueSigner(ca, 'Sibling Signer');
    expect((await manifestOf(await signC2pa(photo, sibling, capture), 'image/jpeg', allowed)).trust).toBe('untrusted');
  });

  it('a chain is checked at the given time: a signer valid now does not chain at a date before it was issued', async () => {
    const { X509Certificate } = await import('@peculiar/x509');
    const leaf = new X509Certificate(camera.certPem);
    expect(await chainsToAnchor(leaf, [], anchors, new Date())).toBe(true);
    expect(await chainsToAnchor(leaf, [], anchors, new Date('2001-01-01'))).toBe(false);
    expect(await chainsToAnchor(leaf, [], parseTrustAnchors(other.certPem), new Date())).toBe(false);
  });
});
