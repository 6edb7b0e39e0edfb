// One vocabulary (issue 13): the core's copy (verdict.display, dimension labels), the case report and the window name
// each verdict, confidence and check the same way, from src/api/vocabulary.ts; the card's explanation of a verdict
// less certain than one of its checks is copy too.
import { describe, expect, it } from 'vitest';
import { Verdict } from '../../../src/api/schemas.js';
import {
  CAPTURE_CONTRADICTED_LABEL,
  CAPTURE_RESAVED_LABEL,
  CHECK_WORDS,
  GLOSSARY,
  SIGNER_TRUST_WORDS,
  VERDICT_WORDS,
  dimensionFinding,
  isEvidence,
  lessCertainWords,
  verdictTitle,
} from '../../../src/api/vocabulary.js';
import { writeVerdict } from '../../../src/analysis/copy.js';
import { captureOutput } from '../../../src/analysis/detectors/capture.js';
import { aiDimension, fuse } from '../../../src/analysis/fusion.js';
import { pixelFinding } from '../../../src/analysis/detectors/ai-detection.js';
import { ASSESSMENT_WORDS, verdictTitleWords } from '../../../renderer/lib/words.js';

const T = { decision: 0.6, highAi: 0.9, highAuthentic: 0.15, inconclusiveBand: [0.4, 0.6] as [number, number] };
const capture = (code: string, weight: number) => ({ code, weight, facts: {} });

describe('one name per verdict, confidence and check', () => {
  it('the core labels and titles a verdict with the words the window shows', () => {
    for (const assessment of ['ai_generated', 'authentic', 'inconclusive'] as const) {
      const v = Verdict.parse(writeVerdict({ assessment, confidence: 'medium', evidence: [], dimensions: [aiDimension(0.2, T)] }));
      expect(v.display.label).toBe(VERDICT_WORDS[assessment]);
      expect(v.display.label).toBe(ASSESSMENT_WORDS[assessment]);
      expect(v.display.title?.startsWith(`${VERDICT_WORDS[assessment]}: `)).toBe(true);
      // The card's line under the badge is the title's own reason, not a title with its prefix cut off.
      expect(v.display.title?.toLowerCase()).toContain(verdictTitleWords(v)!.toLowerCase());
    }
    expect(Object.values(VERDICT_WORDS)).toEqual(['AI-generated', 'Authentic', 'Inconclusive']);
    expect(verdictTitle('authentic', 'medium')).toBe('Authentic: capture evidence and no sign of AI generation (medium confidence)');
    expect(verdictTitle('inconclusive', 'low')).toBe('Inconclusive: the checks cannot decide');
    // Older names of the authentic verdict are gone from the core's copy.
    const authentic = writeVerdict({ assessment: 'authentic', confidence: 'low', evidence: [], dimensions: [] });
    expect(JSON.stringify(authentic.display)).not.toMatch(/No AI detected|Likely authentic/);
  });

  it('a dimension is labelled with the name of its check, and the glossary explains every verdict and check name', () => {
    expect(aiDimension(0.2, T).label).toBe(CHECK_WORDS.ai_detection);
    expect(captureOutput({ status: 'consistent', findings: [] } as never).dimension?.label).toBe(CHECK_WORDS.capture);
    const terms = GLOSSARY.map((g) => g.term);
    for (const word of [...Object.values(VERDICT_WORDS), ...Object.values(CHECK_WORDS)]) expect(terms).toContain(word);
  });

  it('a check that found nothing is not a measurement', () => {
    expect(isEvidence({ assessment: 'inconclusive', confidence: 'high' })).toBe(false);
    expect(isEvidence({ assessment: 'likely_authentic', confidence: 'low' })).toBe(false);
    expect(isEvidence({ assessment: 'likely_ai', confidence: 'medium' })).toBe(true);
    expect(dimensionFinding({ assessment: 'inconclusive', confidence: 'low' })).toBe('No evidence either way');
    expect(dimensionFinding({ assessment: 'likely_authentic', confidence: 'high' })).toBe('Points to authentic · high confidence');
    expect(dimensionFinding({ assessment: 'likely_ai', confidence: 'low' })).toBe('Weak hint only: points to ai-generated (low confidence)');
  });
});

describe('a contradicted capture', () => {
  it('is labelled a sign of manipulation, points neither way at low confidence, and is never a reason for "less certain"', () => {
    const d = captureOutput({ status: 'contradicted', findings: [capture('capture.thumbnail.mismatch', 0.9)] } as never).dimension!;
    expect(d).toMatchObject({ key: 'capture', label: CAPTURE_CONTRADICTED_LABEL, assessment: 'inconclusive', confidence: 'low' });
    expect(d.label).toMatch(/contradicted, a sign of manipulation/);
    // The strength of the contradiction stays in the score.
    expect(d.score).toBeCloseTo(0.95, 6);
    expect(dimensionFinding(d)).toMatch(/^Contradicted: .* A sign of manipulation, not of AI generation\.$/);
    expect(isEvidence(d)).toBe(false);
    // Beside a low-confidence verdict it no longer reads as a surer check than the verdict.
    expect(lessCertainWords('low', [aiDimension(0.5, T), d])).toBeNull();
    const weaker = captureOutput({ status: 'contradicted', findings: [capture('capture.software.edited', 0.3)] } as never).dimension!;
    expect(weaker).toMatchObject({ confidence: 'low', label: CAPTURE_CONTRADICTED_LABEL });
    expect(weaker.score).toBeLessThan(d.score);
  });
});

describe('a re-saved capture (issue 22)', () => {
  it('is labelled re-saved, scores 0.5, and its words never say manipulation or contradicted', () => {
    const d = captureOutput({ status: 'resaved', findings: [capture('capture.software.edited', 0.5), capture('capture.qtable.standard_ijg', 0.7)] } as never).dimension!;
    expect(d).toMatchObject({ key: 'capture', label: CAPTURE_RESAVED_LABEL, assessment: 'inconclusive', confidence: 'low', score: 0.5 });
    expect(dimensionFinding(d)).toMatch(/^Re-saved: a program saved the file again after the camera did/);
    expect(dimensionFinding(d)).not.toMatch(/contradicted|manipulat/i);
    expect(isEvidence(d)).toBe(false);
    expect(lessCertainWords('low', [aiDimension(0.5, T), d])).toBeNull();
  });
});

describe('why the verdict can be less certain than one of its checks', () => {
  const detector = { key: 'ai_detection', label: CHECK_WORDS.ai_detection, confidence: 'high' as const, assessment: 'likely_authentic' as const };

  it('names the surer checks and says the verdict weighs them all; the detector decides alone only at its highest scores', () => {
    expect(lessCertainWords('low', [detector])).toEqual({
      summary: 'Why is the verdict less certain than the “AI-generation detector” check?',
      detail:
        "A check's confidence is about that check alone; the verdict weighs all the checks together. The AI-generation detector decides alone only at its highest scores, which few real photos reach in its validation, and then with medium confidence at most: it can be wrong on generators it never saw, so below them, or where another check or the kind of picture stands in the way, on its own it can only make a file inconclusive.",
    });
    expect(lessCertainWords('high', [detector])).toBeNull();
  });

  it('says what fusion does when the pixels decide: AI-generated at medium confidence, never "only inconclusive"', () => {
    // A picture scored at highAi by a model calibrated to decide: fusion's rule 2.
    const high = aiDimension(0.95, T);
    const fused = fuse({ dimensions: [high], findings: [pixelFinding(high, {}, { pixelsDecide: true, realAtHighAi: 0.02, aiAtHighAi: 0.35, split: 'test' })] });
    expect(fused).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
    const why = lessCertainWords(fused.confidence, fused.dimensions);
    expect(why?.detail).toMatch(/decides alone only at its highest scores.*medium confidence at most/);
    expect(why?.detail).not.toMatch(/never decides alone/);
    // The glossary says the same of the verdict and of the detector.
    const meaning = (term: string) => GLOSSARY.find((g) => g.term === term)!.meaning;
    expect(meaning(VERDICT_WORDS.ai_generated)).toMatch(/pixels/);
    expect(meaning(VERDICT_WORDS.ai_generated)).not.toMatch(/never from pixels/);
    expect(meaning(CHECK_WORDS.ai_detection)).toMatch(/decides alone only at its highest scores/);
    // what the other entries promise is what the checks do: a trusted capture decides whatever the pixels say; the PDF
    // check reads no signatures; an expired signer may have been valid when it signed
    expect(meaning(VERDICT_WORDS.authentic)).toMatch(/trusted signer is authentic whatever the pixels say/);
    expect(meaning(CHECK_WORDS.pdf_structure)).not.toMatch(/signing/);
    expect(SIGNER_TRUST_WORDS.expired).toMatch(/not valid today with no trusted time-stamp/);
  });

  it('an authentic verdict whose pixel score a check set aside does not say the pixels show no sign of AI', () => {
    const camera = { code: 'provenance.capture.camera_exif', facts: { make: 'Canon', model: 'EOS' }, weight: -0.5 };
    const consistent = { code: 'capture.consistent', facts: {}, weight: 0 };
    const d = { ...aiDimension(0.95, T), assessment: 'inconclusive' as const, confidence: 'low' as const };
    const thermal = { code: 'pixels.thermal', facts: { maker: 'FLIR', rawWidth: 160, rawHeight: 120, agreement: 0.9 }, weight: 0 };
    const setAside = fuse({ dimensions: [d], findings: [pixelFinding(d, { setAside: true }), thermal, camera, consistent] });
    expect(setAside.assessment).toBe('authentic');
    const words = writeVerdict(setAside).display.description;
    expect(words).toMatch(/cannot read this kind of picture, so its score was not used either way/);
    expect(words).not.toMatch(/pixels show no clear sign/);
    const plain = fuse({ dimensions: [aiDimension(0.1, T)], findings: [pixelFinding(aiDimension(0.1, T)), camera, consistent] });
    expect(plain.assessment).toBe('authentic');
    expect(writeVerdict(plain).display.description).toMatch(/pixels show no clear sign of AI generation/);
  });

  it('says when the checks point different ways', () => {
    const provenance = { key: 'provenance', label: CHECK_WORDS.provenance, confidence: 'high' as const, assessment: 'likely_ai' as const };
    const why = lessCertainWords('medium', [detector, provenance]);
    expect(why?.summary).toBe('Why is the verdict less certain than the “AI-generation detector” and “Provenance metadata” checks?');
    expect(why?.detail).toMatch(/Here the checks point different ways\./);
  });
});
