// The Content Credentials rules of fusion (README "Fusion", rule 0), one test per rule, on hand-built findings with
// the C2PA specification's status codes; the same rules end to end on signed files are in test/api/c2pa-verdicts.test.ts.
import { describe, expect, it } from 'vitest';
import { writeVerdict } from '../../../src/analysis/copy.js';
import { pixelFinding } from '../../../src/analysis/detectors/ai-detection.js';
import type { Finding } from '../../../src/analysis/finding.js';
import { aiDimension, fuse } from '../../../src/analysis/fusion.js';

const T = { decision: 0.5, highAi: 0.8, highAuthentic: 0.2, inconclusiveBand: [0.4, 0.6] as [number, number] };
const finding = (code: string, weight = 0, facts: Finding['facts'] = {}): Finding => ({ code, facts, weight });

/** A model whose calibration lets the pixels decide `ai_generated` above highAi (every shipped model since 1.3.1). */
const CAL = { pixelsDecide: true, realAtHighAi: 0.03, aiAtHighAi: 0.55, split: 'validation' };

function verdict(score: number, findings: Finding[], calibration?: typeof CAL) {
  const dims = [aiDimension(score, T)];
  const fused = fuse({ dimensions: dims, findings: [pixelFinding(dims[0], {}, calibration), ...findings] });
  return { ...writeVerdict(fused), codes: fused.evidence.map((f) => f.code) };
}

const MANIFEST = finding('provenance.c2pa.manifest', 0, { claimGenerator: 'Leica M11-P', signer: 'Leica Camera AG / M11-P', actions: 'c2pa.created (digitalCapture)', trust: 'trusted' });
const VALID = [finding('claimSignature.validated'), finding('assertion.hashedURI.match', 0, { count: 2 }), finding('assertion.dataHash.match')];
const TRUSTED = finding('signingCredential.trusted', 0, { signer: 'Leica Camera AG / M11-P' });
const UNTRUSTED = finding('signingCredential.untrusted', 0, { signer: 'Leica Camera AG / M11-P', anchors: 0 });
const EXPIRED = finding('signingCredential.expired', 0, { signer: 'Leica Camera AG / M11-P' });
const TRUSTED_CAPTURE = finding('provenance.capture.c2pa_trusted', -1, { signer: 'Leica Camera AG / M11-P' });
const SIGNED_CAPTURE = finding('provenance.capture.c2pa_signed', -0.2, { signer: 'Leica Camera AG / M11-P', trust: 'not_established' });
const AI_DECLARED = finding('provenance.ai.c2pa_generator', 1, { generator: 'OpenAI', sourceType: 'trainedAlgorithmicMedia', partly: false, embedded: false });

describe('fusion rule 0: Content Credentials', () => {
  it('valid + trusted signer + capture with no later edit -> authentic/high whatever the pixel detector says, naming signer and device', () => {
    for (const score of [0.05, 0.5, 0.95]) {
      const v = verdict(score, [MANIFEST, ...VALID, TRUSTED, TRUSTED_CAPTURE]);
      expect(v, String(score)).toMatchObject({ assessment: 'authentic', confidence: 'high' });
      expect(v.codes).toEqual(expect.arrayContaining(['provenance.c2pa.manifest', 'provenance.capture.c2pa_trusted', 'signingCredential.trusted']));
      expect(v.display.description).toMatch(/made by Leica M11-P, signed by Leica Camera AG \/ M11-P/);
    }
    expect(verdict(0.95, [MANIFEST, ...VALID, TRUSTED, TRUSTED_CAPTURE]).display.description).toMatch(/A trusted signature decided/);
  });

  it('valid + trusted signer + generative AI source type -> ai_generated/high, even when the pixels look authentic', () => {
    const v = verdict(0.05, [AI_DECLARED, MANIFEST, ...VALID, TRUSTED]);
    expect(v).toMatchObject({ assessment: 'ai_generated', confidence: 'high' });
    // the same declaration from a signer nobody vouches for is metadata: pixels that look authentic lower it
    expect(verdict(0.05, [AI_DECLARED, MANIFEST, ...VALID, UNTRUSTED])).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
  });

  it("an ingredient whose own manifest fails -> never authentic, even beside a trusted capture, and the card names the ingredient", () => {
    const ingredient = finding('provenance.c2pa.ingredient_invalid', 0, { ingredient: 'L1000001.JPG', manifest: 'urn:uuid:0001', failures: 'claimSignature.mismatch', recorded: true });
    for (const score of [0.05, 0.5]) {
      const v = verdict(score, [MANIFEST, ingredient, ...VALID, TRUSTED, TRUSTED_CAPTURE]);
      expect(v.assessment, String(score)).not.toBe('authentic');
      expect(v.codes).toEqual(expect.arrayContaining(['provenance.c2pa.ingredient_invalid', 'verdict.c2pa_ingredient_invalid']));
      expect(v.display.description).toMatch(/L1000001.JPG/);
    }
  });

  it('bytes changed after signing -> never authentic, and the card says "edited after it was signed"', () => {
    const broken = [MANIFEST, finding('claimSignature.validated'), TRUSTED, finding('assertion.dataHash.mismatch', 0.6), TRUSTED_CAPTURE];
    for (const score of [0.05, 0.5]) {
      const v = verdict(score, broken);
      expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
      expect(v.codes).toContain('assertion.dataHash.mismatch');
      expect(v.codes).toContain('verdict.c2pa_edited_after_signing');
      expect(v.display.description).toMatch(/edited after it was signed/);
    }
  });

  it('a broken claim signature or assertion -> never authentic, and the card says what broke', () => {
    const sig = verdict(0.05, [MANIFEST, finding('claimSignature.mismatch', 0.6), TRUSTED, TRUSTED_CAPTURE]);
    expect(sig).toMatchObject({ assessment: 'inconclusive' });
    expect(sig.display.description).toMatch(/claim was changed after it was signed.*fail validation \(tampered with or damaged\)/);
    const uri = verdict(0.05, [MANIFEST, finding('assertion.hashedURI.mismatch', 0.6), TRUSTED, TRUSTED_CAPTURE]);
    expect(uri).toMatchObject({ assessment: 'inconclusive' });
    expect(uri.codes).toContain('verdict.c2pa_invalid');
    // camera EXIF confirmed by the file does not rescue a manifest that fails validation either
    const exif = [finding('provenance.camera', 0, { make: 'Leica' }), finding('provenance.capture.camera_exif', -0.2), finding('capture.consistent', -0.6, { make: 'Leica' })];
    expect(verdict(0.05, [MANIFEST, finding('assertion.dataHash.mismatch', 0.6), ...exif])).toMatchObject({ assessment: 'inconclusive' });
  });

  it('a failing manifest stops authentic but never hides pixels that decide: pasted into a generated picture, it is still ai_generated', () => {
    // Content Credentials whose bytes or claim changed, pasted into a picture the pixels call generated (the attack:
    // any broken manifest turned an AI verdict into inconclusive)
    for (const failure of [finding('assertion.hashedURI.mismatch', 0.6), finding('assertion.dataHash.mismatch', 0.6), finding('claimSignature.mismatch', 0.6)]) {
      const v = verdict(0.95, [MANIFEST, failure, UNTRUSTED, SIGNED_CAPTURE], CAL);
      expect(v, failure.code).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
      expect(v.codes).toEqual(expect.arrayContaining(['pixels.score.generated', failure.code]));
      // below highAi the pixels do not decide, and the failure still stops authentic
      expect(verdict(0.05, [MANIFEST, failure, UNTRUSTED, SIGNED_CAPTURE], CAL), failure.code).toMatchObject({ assessment: 'inconclusive' });
    }
  });

  it('a store that is there but cannot be read -> never authentic, the card says why; the pixels still decide', () => {
    const unreadable = finding('provenance.c2pa.unreadable', 0, { reason: 'the Content Credentials block is damaged or cut off' });
    const exif = [finding('provenance.camera', 0, { make: 'Canon' }), finding('provenance.capture.camera_exif', -0.2), finding('capture.consistent', -0.6, { make: 'Canon' })];
    // the same camera data without the broken store is authentic
    expect(verdict(0.05, exif, CAL)).toMatchObject({ assessment: 'authentic' });
    const v = verdict(0.05, [unreadable, ...exif], CAL);
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(v.codes).toEqual(expect.arrayContaining(['provenance.c2pa.unreadable', 'verdict.c2pa_unreadable']));
    expect(v.display.description).toMatch(/Content Credentials that cannot be read, so what they declared is unknown/);
    expect(verdict(0.95, [unreadable], CAL)).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
  });

  it('an untrusted, unestablished or expired signer lowers a capture to camera-EXIF strength, and the card says so', () => {
    // not confirmed by the file: inconclusive
    const unconfirmed = verdict(0.05, [MANIFEST, ...VALID, UNTRUSTED, SIGNED_CAPTURE]);
    expect(unconfirmed).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(unconfirmed.display.description).toMatch(/not established: no trust anchors are configured/);
    // confirmed by the file: authentic, low at most
    const confirmed = verdict(0.05, [MANIFEST, ...VALID, UNTRUSTED, SIGNED_CAPTURE, finding('capture.consistent', -0.6, { make: 'Leica' })]);
    expect(confirmed).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    const expired = verdict(0.05, [MANIFEST, ...VALID, EXPIRED, { ...SIGNED_CAPTURE, facts: { trust: 'expired' } }, finding('capture.consistent', -0.6)]);
    expect(expired).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    expect(expired.display.description).toMatch(/is not valid today, and no trusted time-stamp shows that it signed while it was valid/);
    // judged at a trusted time-stamp's time, the card says it was not valid when it signed
    const stamped = verdict(0.05, [MANIFEST, ...VALID, { ...EXPIRED, facts: { ...EXPIRED.facts, timeTrusted: true } }, SIGNED_CAPTURE]);
    expect(stamped.display.description).toMatch(/was not valid at the time of signing, as its trusted time-stamp dates it/);
  });
});
