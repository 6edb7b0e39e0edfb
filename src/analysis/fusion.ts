// Fuses the detectors' findings and dimensions into one verdict with a calibrated confidence and the findings it rests
// on, in the order the copy tells them. It reads codes, weights and dimensions only, never words meant for people
// (copy.ts writes those last). The rules are documented in README.md.
import type { ConfidenceLevel, Dimension, VerdictAssessment } from '../api/schemas.js';
import { dimensionOf } from './copy.js';
import { isResaveSign } from './capture/signs.js';
import type { Finding } from './finding.js';
import type { ModelManifest } from './model-manifest.js';

export type Thresholds = ModelManifest['thresholds'];

/** The ai_detection dimension from the aggregated score and the manifest's calibrated thresholds. */
export function aiDimension(score: number, t: Thresholds): Dimension {
  const [bandLo, bandHi] = t.inconclusiveBand;
  let assessment: Dimension['assessment'];
  let confidence: ConfidenceLevel;
  if (score >= bandLo && score <= bandHi) {
    assessment = 'inconclusive';
    confidence = 'low';
  } else if (score >= t.decision) {
    assessment = 'likely_ai';
    confidence = score >= t.highAi ? 'high' : 'medium';
  } else {
    assessment = 'likely_authentic';
    confidence = score <= t.highAuthentic ? 'high' : 'medium';
  }
  return dimensionOf('ai_detection', round(score), assessment, confidence);
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export interface FusionInput {
  /** Every detector's dimension, in the registry's order (the order the verdict lists them). */
  dimensions: Dimension[];
  /** Every detector's findings, in the registry's order and each detector's order of importance. */
  findings: Finding[];
}

export interface FusedVerdict {
  assessment: VerdictAssessment;
  confidence: ConfidenceLevel;
  /** The findings the verdict rests on, in the order copy.ts tells them. */
  evidence: Finding[];
  dimensions: Dimension[];
}

/** Codes fusion itself adds to the evidence, where the rules need a sentence of their own. */
export const FUSION_CODES = {
  metadataDecided: 'verdict.metadata_decided',
  captureVsPixels: 'verdict.capture_vs_pixels',
  captureContradicted: 'verdict.capture_contradicted',
  captureResaved: 'verdict.capture_resaved',
  captureUnconfirmed: 'verdict.capture_unconfirmed',
  noPixelScore: 'pixels.none',
} as const;

const note = (code: string): Finding => ({ code, facts: {}, weight: 0 });

/** The pixel detector's reading of the file (one of `pixels.score.*`, or `pixels.no_raster` for a PDF without images). */
const isPixelReading = (f: Finding) => f.code.startsWith('pixels.score.') || f.code === 'pixels.no_raster';
/** A capture-consistency finding that contradicts the claimed capture (the capture detector's `capture.*`, weight > 0). */
export const isCaptureContradiction = (f: Finding) => f.code.startsWith('capture.') && f.weight > 0;

/** Capture evidence by strength: an intact signed C2PA capture claim is medium, the rest low (easily forged). */
const CAPTURE_EVIDENCE: Record<string, ConfidenceLevel> = {
  'provenance.capture.c2pa_signed': 'medium',
  'provenance.capture.c2pa_unverified': 'low',
  'provenance.capture.camera_exif': 'low',
};
/** The capture detector's finding that the file is built as the camera its metadata names builds its files. */
const CAPTURE_CONSISTENT = 'capture.consistent';
/** Signs that the file was changed after capture: `authentic` is capped at medium when one is present. */
const ALTERED = new Set(['provenance.editor', 'pdf.changed']);

/** Provenance findings shown before (or, when inconclusive, after) the pixel reading; the detector orders them. */
const LEAD_PROVENANCE = 2;
/** Further observations (PDF structure and the like) shown after them. */
const MORE_NOTES = 3;

/**
 * Rules, in order (README "Fusion" gives the model-card figures behind them):
 * 1. Strong AI provenance (a `provenance.*` finding of weight 1: a C2PA manifest or IPTC source type declaring
 *    generative AI, a generator's own PNG chunk or software tag, a PDF producer that is an AI service) decides
 *    `ai_generated`: high confidence unless the pixels say authentic with high confidence (then medium: the metadata
 *    may have been added).
 * 2. The pixel detector alone never decides (model card 0.2.0: at its decision threshold it calls 69 % of modern
 *    camera photos AI, more modern AI images than authentic ones fall under highAuthentic, and its AUC over
 *    generators it never saw has a 95 % interval of 0.498-0.629, which includes chance). A pixel reading alone is
 *    `inconclusive`/low, and the copy says which way it leans, including at the high-AI end.
 * 3. `authentic` needs capture evidence (`provenance.capture.*`) and pixels that do not point to AI: camera EXIF
 *    (easily forged) -> low; an intact signed C2PA capture claim -> medium, high when the pixels also say authentic
 *    with high confidence. Capped one level down (high -> medium) when editing software is recorded or the PDF
 *    changed after it was made. A signed capture claim against a high AI pixel reading is `inconclusive`. Capture
 *    evidence counts only when no capture-consistency finding contradicts it (`capture.*` with weight > 0): then
 *    the file is `inconclusive`, and every contradiction is in the evidence, whatever the verdict. Camera EXIF counts
 *    only with `capture.consistent` (the maker's own quantization tables, a matching thumbnail or a phone's HEIF
 *    layout, and nothing against): EXIF alone is one exiftool command away from any file.
 * 4. Nothing scoreable (a PDF without raster images) and no strong provenance: inconclusive, low.
 */
export function fuse(input: FusionInput): FusedVerdict {
  const { findings } = input;
  const ai = input.dimensions.find((d) => d.key === 'ai_detection');
  const provenance = findings.filter((f) => f.code.startsWith('provenance.'));
  const strongAi = provenance.some((f) => f.weight >= 1);
  const contradictions = findings.filter(isCaptureContradiction).sort((a, b) => b.weight - a.weight);
  const claim = findings.find((f) => CAPTURE_EVIDENCE[f.code]);
  const claimed = claim && CAPTURE_EVIDENCE[claim.code];
  // Camera EXIF is only the words of a capture (exiftool copies them in one command): it counts when the capture
  // detector found the file built the way that camera builds its files. A signed, intact C2PA claim stands alone.
  const confirmed = claim?.code !== 'provenance.capture.camera_exif' || findings.some((f) => f.code === CAPTURE_CONSISTENT);
  const capture = contradictions.length || !confirmed ? undefined : claimed;
  const altered = findings.some((f) => ALTERED.has(f.code));
  const pixelsHighAi = ai?.assessment === 'likely_ai' && ai.confidence === 'high';

  let assessment: VerdictAssessment;
  let confidence: ConfidenceLevel;
  const notes: Finding[] = [];
  if (strongAi) {
    assessment = 'ai_generated';
    confidence = ai?.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'medium' : 'high';
    if (ai?.assessment === 'likely_authentic') notes.push(note(FUSION_CODES.metadataDecided));
  } else if (capture && ai && ai.assessment !== 'likely_ai') {
    assessment = 'authentic';
    confidence = capture === 'medium' ? (ai.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'high' : 'medium') : 'low';
    if (altered && confidence === 'high') confidence = 'medium';
  } else {
    assessment = 'inconclusive';
    confidence = 'low';
    if (pixelsHighAi && claimed === 'medium') notes.push(note(FUSION_CODES.captureVsPixels));
    // A file a program only saved again is said to be re-saved, never contradicted (capture/signs.ts).
    if (claimed && contradictions.length) {
      notes.push(note(contradictions.every((f) => isResaveSign(f.code)) ? FUSION_CODES.captureResaved : FUSION_CODES.captureContradicted));
    }
    else if (claimed && !confirmed) notes.push(note(FUSION_CODES.captureUnconfirmed));
  }

  const reading = findings.find(isPixelReading) ?? note(FUSION_CODES.noPixelScore);
  const pixelNotes = findings.filter((f) => f.code.startsWith('pixels.') && !isPixelReading(f));
  const lead = provenance.slice(0, LEAD_PROVENANCE);
  const more = findings.filter((f) => !/^(provenance|pixels|capture|verdict)\./.test(f.code)).slice(0, MORE_NOTES);
  // An authentic verdict from camera EXIF says what confirmed it.
  const support = assessment === 'authentic' ? findings.filter((f) => f.code === CAPTURE_CONSISTENT) : [];
  const evidence =
    assessment === 'inconclusive'
      ? [reading, ...pixelNotes, ...lead, ...notes, ...contradictions, ...more]
      : [...lead, ...support, reading, ...notes, ...pixelNotes, ...contradictions, ...more];
  return { assessment, confidence, evidence, dimensions: input.dimensions };
}
