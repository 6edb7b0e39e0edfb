// The verdict fusion rules of src/analysis/README.md, one test per rule, on hand-built findings (fusion is the unit
// under test: it reads codes, weights and dimensions), with the copy copy.ts writes from them.
import { describe, expect, it } from 'vitest';
import { Verdict } from '../../../src/api/schemas.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { aiDimension, fuse } from '../../../src/analysis/fusion.js';
import { writeVerdict } from '../../../src/analysis/copy.js';
import { pixelFinding } from '../../../src/analysis/detectors/ai-detection.js';
import type { Finding } from '../../../src/analysis/finding.js';
import { calibrationTable } from '../../../src/analysis/calibration-table.js';
import { REPO } from './fixtures.js';

const T = { decision: 0.5, highAi: 0.8, highAuthentic: 0.2, inconclusiveBand: [0.4, 0.6] as [number, number] };
const finding = (code: string, weight = 0, facts: Finding['facts'] = {}): Finding => ({ code, facts, weight });

const NOTHING = [finding('provenance.none')];
const CAMERA = [finding('provenance.camera', 0, { make: 'Canon', model: 'Canon EOS R5', lens: null }), finding('provenance.capture.camera_exif', -0.2)];
/** Camera EXIF that the capture detector found consistent with the camera it names (the only EXIF that counts). */
const CONSISTENT = finding('capture.consistent', -0.6, { make: 'Canon', model: 'Canon EOS R5' });
const CAMERA_OK = [...CAMERA, CONSISTENT];
// A trusted signer's capture with edits recorded (medium evidence); the C2PA rules proper are in fusion-c2pa.test.ts.
const SIGNED_CAPTURE = [finding('provenance.source_type', 0, { sourceType: 'digitalCapture' }), finding('provenance.capture.c2pa_trusted_edited', -0.5)];
const SD_CHUNK = finding('provenance.ai.png_chunk', 1, {
  generator: 'Stable Diffusion WebUI (A1111/Forge)',
  chunk: 'parameters',
  writer: 'Stable Diffusion WebUI (A1111/Forge) generation parameters',
  partly: false,
  embedded: false,
});
const PHOTOSHOP = finding('provenance.editor', 0.2, { editors: 'Adobe Photoshop' });
const QTABLE_MISMATCH = finding('capture.qtable.maker_mismatch', 0.6, { claimedMake: 'Canon', tableMake: 'libjpeg' });
const THUMB_MISMATCH = finding('capture.thumbnail.mismatch', 0.8, { similarity: 0.12 });

/** An image whose pixel detector scored `score` (null: a PDF with nothing to score), with these other findings. */
function fused(score: number | null, findings: Finding[] = NOTHING, where: Finding['facts'] = {}) {
  const dims = score === null ? [] : [aiDimension(score, T)];
  const pixel = score === null ? finding('pixels.no_raster') : pixelFinding(dims[0], where);
  return fuse({ dimensions: dims, findings: [pixel, ...findings] });
}
const verdict = (score: number | null, findings?: Finding[], where?: Finding['facts']) => writeVerdict(fused(score, findings, where));

describe('ai_detection dimension from the calibrated thresholds', () => {
  it.each([
    [0.95, 'likely_ai', 'high', 'pixels.score.high_ai'],
    [0.7, 'likely_ai', 'medium', 'pixels.score.leans_ai'],
    [0.5, 'inconclusive', 'low', 'pixels.score.uncertain'],
    [0.3, 'likely_authentic', 'medium', 'pixels.score.leans_authentic'],
    [0.1, 'likely_authentic', 'high', 'pixels.score.leans_authentic'],
  ])('score %s -> %s (%s), finding %s', (score, assessment, confidence, code) => {
    const d = aiDimension(score, T);
    expect(d).toMatchObject({ key: 'ai_detection', label: 'AI-generation detector', assessment, confidence });
    expect(pixelFinding(d)).toMatchObject({ code, facts: { score } });
  });
});

describe('fuse', () => {
  it('rule 2: pixels of a model not calibrated to decide never decide, even at their high-AI end; the copy gives the score, its direction and its limits', () => {
    const v = verdict(0.93);
    expect(Verdict.parse(v)).toBeTruthy();
    expect(v.dimensions[0]).toMatchObject({ key: 'ai_detection', assessment: 'likely_ai', confidence: 'high' });
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low', display: { label: 'Inconclusive' } });
    expect(v.display.description).toMatch(/AI score is 93%; it is at the high end of its scale and points to AI generation, but this model is not reliable enough .* to decide on its own.*a specialist should review/);
  });

  it('rule 2: a model calibrated to decide makes a high-AI picture ai_generated (medium), and says what the score means', () => {
    const CAL = { pixelsDecide: true, realAtHighAi: 0.03, aiAtHighAi: 0.55, split: 'validation' };
    const decide = (score: number, others: Finding[] = NOTHING, where: Finding['facts'] = {}) => {
      const d = aiDimension(score, T);
      return writeVerdict(fuse({ dimensions: [d], findings: [pixelFinding(d, where, CAL), ...others] }));
    };
    const v = decide(0.93);
    expect(Verdict.parse(v)).toBeTruthy();
    expect(v).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
    expect(v.display.description).toMatch(/AI score is 93%, a level that 3% of real photos reached in its validation/);
    expect(v.display.description).toMatch(/statistical reading, not proof/);
    expect(v.display.description).not.toMatch(/Metadata can be added/);
    // below highAi the calibrated model does not decide
    expect(decide(0.7)).toMatchObject({ assessment: 'inconclusive' });
    // capture evidence that counts disagrees: inconclusive, and the copy says the two disagree
    const clash = decide(0.93, CAMERA_OK);
    expect(clash).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(clash.display.description).toMatch(/pixels look generated, but the file is built as a camera builds its files \(which someone who copies a camera file's structure can imitate\)/);
    // camera EXIF that does not count (unconfirmed, or contradicted) does not stop the pixels
    expect(decide(0.93, CAMERA)).toMatchObject({ assessment: 'ai_generated' });
    expect(decide(0.93, [...CAMERA, QTABLE_MISMATCH])).toMatchObject({ assessment: 'ai_generated' });
    // with strong AI provenance too: high confidence, and the metadata caveat
    expect(decide(0.93, [SD_CHUNK])).toMatchObject({ assessment: 'ai_generated', confidence: 'high' });
    // a model without calibration (0.2.0) never lets the pixels decide
    expect(pixelFinding(aiDimension(0.93, T)).code).toBe('pixels.score.high_ai');
    expect(pixelFinding(aiDimension(0.93, T), {}, { ...CAL, pixelsDecide: false }).code).toBe('pixels.score.high_ai');
  });

  it('rule 2: any other pixel reading alone is inconclusive, and says which way it leans', () => {
    expect(verdict(0.7)).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(verdict(0.7).display.description).toMatch(/leans towards AI generation, but below the level at which it is reliable/);
    expect(verdict(0.1)).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(verdict(0.1).display.description).toMatch(/leans away from AI generation, which on its own does not show a file is authentic/);
    expect(verdict(0.45)).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
  });

  it('rule 1: strong AI provenance outweighs a weak pixel score, and the copy says the metadata decided', () => {
    const f = fused(0.3, [SD_CHUNK]);
    expect(f.evidence.map((e) => e.code)).toEqual(['provenance.ai.png_chunk', 'pixels.score.leans_authentic', 'verdict.metadata_decided']);
    const v = writeVerdict(f);
    expect(v).toMatchObject({ assessment: 'ai_generated', confidence: 'high' });
    expect(v.display.title).toMatch(/own metadata or its pixels show an image generator/);
    expect(v.display.description).toMatch(/^The file's own metadata names Stable Diffusion WebUI \(A1111\/Forge\) as its source: it carries a PNG "parameters" text chunk.*The pixels do not look generated; the metadata claim is what decided/);
  });

  it('rule 1: against a high-confidence authentic pixel score, provenance still decides but at medium confidence', () => {
    expect(fused(0.05, [SD_CHUNK])).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
  });

  it('rule 1 reads the weight of provenance findings only: a weight-1 finding of another detector never decides', () => {
    expect(fused(0.3, [finding('capture.thumbnail.mismatch', 1)])).toMatchObject({ assessment: 'inconclusive' });
    expect(fused(0.3, [finding('provenance.camera', 0.9)])).toMatchObject({ assessment: 'inconclusive' });
  });

  it('rule 3: authentic needs capture evidence: camera EXIF confirmed by the file -> low, intact signed claim -> medium/high, edits cap it', () => {
    expect(fused(0.3, CAMERA_OK)).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    expect(fused(0.3, SIGNED_CAPTURE)).toMatchObject({ assessment: 'authentic', confidence: 'medium' });
    expect(fused(0.05, SIGNED_CAPTURE)).toMatchObject({ assessment: 'authentic', confidence: 'high' });
    expect(fused(0.05, [PHOTOSHOP, ...SIGNED_CAPTURE])).toMatchObject({ assessment: 'authentic', confidence: 'medium' });
    expect(fused(0.05, [...SIGNED_CAPTURE, finding('pdf.changed', 0.3, { revisions: 2 })])).toMatchObject({ assessment: 'authentic', confidence: 'medium' });
    // camera EXIF does not rescue a pixel score that leans AI
    expect(fused(0.7, CAMERA_OK)).toMatchObject({ assessment: 'inconclusive' });
    // camera EXIF the capture detector could not confirm (copied tags: no maker's tables, no matching thumbnail)
    const unconfirmed = writeVerdict(fused(0.05, CAMERA));
    expect(unconfirmed).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(unconfirmed.display.description).toMatch(/could not be confirmed by the way the file is built/);
    // no capture evidence, however clean the pixels
    expect(fused(0.05, [finding('provenance.camera', 0, { make: 'Canon' })])).toMatchObject({ assessment: 'inconclusive' });
    // a signed capture claim against a high AI pixel score: the two disagree
    const clash = writeVerdict(fused(0.95, SIGNED_CAPTURE));
    expect(clash).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(clash.display.description).toMatch(/disagree/);
  });

  it('rule 3: a face framed as StyleGAN\'s FFHQ faces are is not cleared by camera EXIF or an unvouched signature; a trusted signer\'s capture still clears it', () => {
    const FRAMED = finding('pixels.ffhq_framing', 0, { faceShare: 0.65, centreX: 0.5, centreY: 0.54 });
    expect(fused(0.3, CAMERA_OK)).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    const v = writeVerdict(fused(0.3, [...CAMERA_OK, FRAMED]));
    expect(Verdict.parse(v)).toBeTruthy();
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(v.display.description).toMatch(/camera metadata would make this picture authentic, but its face is framed as generated faces are/);
    expect(v.display.description).toMatch(/exactly where StyleGAN's face generators .* put every face/);
    // an intact signature nobody vouches for is low evidence too
    const UNTRUSTED = [finding('provenance.capture.c2pa_signed', -0.3), CONSISTENT];
    expect(fused(0.3, UNTRUSTED)).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    expect(fused(0.3, [...UNTRUSTED, FRAMED])).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    // a trusted signer's capture (edits recorded) still decides; the framing is said but accuses nothing
    const trusted = writeVerdict(fused(0.3, [...SIGNED_CAPTURE, FRAMED]));
    expect(trusted).toMatchObject({ assessment: 'authentic', confidence: 'medium' });
    expect(trusted.display.description).not.toMatch(/would make this picture authentic/);
    expect(trusted.display.description).toMatch(/camera metadata alone does not clear it/);
    // without capture evidence the framing changes nothing: inconclusive either way, and it never accuses
    expect(fused(0.3, [FRAMED])).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(fused(0.05, [FRAMED])).toMatchObject({ assessment: 'inconclusive' });
  });

  it('rule 4: nothing scoreable and no strong provenance is inconclusive, and says why', () => {
    const v = verdict(null);
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(v.display.description).toMatch(/no raster image the pixel detector can read/);
  });

  it('PDFs: the copy names the page and image with the highest score', () => {
    const v = verdict(0.9, [], { page: 3, image: 2, scannedPage: false, width: 800, height: 600, count: 4 });
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(v.display.description).toMatch(/highest on page 3, image 2 \(800x600\), of 4 analysed/);
  });
});

describe('capture consistency (the capture detector plugs in here)', () => {
  it('(a) camera EXIF makes a file authentic only when no capture.* finding contradicts it (weight > 0)', () => {
    expect(fused(0.3, CAMERA_OK)).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    const contradicted = fused(0.3, [...CAMERA, QTABLE_MISMATCH]);
    expect(contradicted).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(writeVerdict(contradicted).display.description).toMatch(/The capture evidence is contradicted by the way the file itself is built, so it does not count/);
    // findings that support the capture, or say nothing either way, do not take it away
    const supported = [...CAMERA_OK, finding('capture.qtable.known_maker', -0.3, { make: 'Canon' }), finding('capture.qtable.unknown', 0), finding('capture.thumbnail.match', -0.3)];
    expect(fused(0.3, supported)).toMatchObject({ assessment: 'authentic', confidence: 'low' });
  });

  it('(a) a file a program only saved again loses its camera evidence too, but is said to be re-saved, never contradicted (issue 22)', () => {
    const resaved = fused(0.3, [...CAMERA, finding('capture.software.edited', 0.5, { software: 'Adobe Photoshop 25.0' }), finding('capture.qtable.standard_ijg', 0.7, { quality: 85 })]);
    expect(resaved).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(resaved.evidence.map((e) => e.code)).toContain('verdict.capture_resaved');
    const text = writeVerdict(resaved).display.description!;
    expect(text).toContain('A program saved the file again after the camera did');
    expect(text).not.toMatch(/contradicted|manipulat/i);
    // One finding that the camera data and the pixels do not belong together makes it a contradiction again.
    const both = fused(0.3, [...CAMERA, finding('capture.software.edited', 0.5, { software: 'Adobe Photoshop 25.0' }), THUMB_MISMATCH]);
    expect(both.evidence.map((e) => e.code)).toContain('verdict.capture_contradicted');
    expect(both.evidence.map((e) => e.code)).not.toContain('verdict.capture_resaved');
  });

  it('(a) a contradiction also takes away a signed capture claim that is not decisive (edited since capture)', () => {
    expect(fused(0.05, SIGNED_CAPTURE)).toMatchObject({ assessment: 'authentic', confidence: 'high' });
    expect(fused(0.05, [...SIGNED_CAPTURE, THUMB_MISMATCH])).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
  });

  it('(b) every contradiction is in the verdict evidence, strongest first, whatever the verdict; supporting ones are not', () => {
    const support = finding('capture.consistent', -0.4, { make: 'Canon', model: 'EOS R5' });
    const inconclusive = fused(0.3, [...CAMERA, QTABLE_MISMATCH, support, THUMB_MISMATCH]);
    const codes = inconclusive.evidence.map((e) => e.code);
    expect(codes.filter((c) => c.startsWith('capture.'))).toEqual(['capture.thumbnail.mismatch', 'capture.qtable.maker_mismatch']);
    const text = writeVerdict(inconclusive).display.description!;
    expect(text).toContain("The photo's embedded thumbnail shows a different picture from the photo itself.");
    expect(text).toContain('The photo says it comes from a Canon camera, but it is compressed the way libjpeg compresses photos.');
    expect(text).not.toMatch(/matches what a Canon/);

    const generated = fused(0.3, [SD_CHUNK, THUMB_MISMATCH]);
    expect(generated.assessment).toBe('ai_generated');
    expect(generated.evidence.map((e) => e.code)).toContain('capture.thumbnail.mismatch');
  });

  it('a capture finding of weight 0 (capture.exif.absent) changes no verdict of any rule', () => {
    for (const score of [0.05, 0.3, 0.45, 0.7, 0.95]) {
      for (const others of [NOTHING, CAMERA, SIGNED_CAPTURE, [SD_CHUNK]]) {
        const withNeutral = fused(score, [...others, finding('capture.exif.absent', 0)]);
        const { evidence: _e, ...withoutEvidence } = fused(score, others);
        expect(withNeutral).toMatchObject(withoutEvidence);
      }
    }
  });
});

describe.skipIf(!existsSync(join(REPO, 'models', 'veracity-detector', 'eval-results.json')))('calibration table of the shipped model', () => {
  it('every row of recorded scores falls into exactly one assessment bucket (shares sum to 100 %)', () => {
    const table = calibrationTable(join(REPO, 'models'));
    const rows = table.split('\n').filter((l) => /^\| (validation|modern)/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const r of rows) {
      const shares = [...r.matchAll(/([\d.]+) %/g)].map((m) => Number(m[1]));
      expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 0);
    }
  });
});
