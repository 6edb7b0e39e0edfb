// Fuses the detectors' findings and dimensions into one verdict with a calibrated confidence and the findings it rests
// on, in the order the copy tells them. It reads codes, weights and dimensions only, never words meant for people
// (copy.ts writes those last). The rules are documented in README.md.
import { detectorReading } from '../api/detector-bands.js';
import type { ConfidenceLevel, Dimension, VerdictAssessment } from '../api/schemas.js';
import { dimensionOf } from './copy.js';
import { isResaveSign } from './capture/signs.js';
import { BYTES_CHANGED } from './c2pa-codes.js';
import { FRAMING_FINDING } from './face-framing.js';
import { isC2paStatus, type Finding } from './finding.js';
import type { ModelManifest } from './model-manifest.js';

export type Thresholds = ModelManifest['thresholds'];

/** The ai_detection dimension from the aggregated score and the manifest's calibrated thresholds (src/api/detector-bands.ts). */
export function aiDimension(score: number, t: Thresholds): Dimension {
  const { assessment, confidence } = detectorReading(score, t);
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
  captureVsFraming: 'verdict.capture_vs_framing',
  pixelsVsCapture: 'verdict.pixels_vs_capture',
  c2paEditedAfterSigning: 'verdict.c2pa_edited_after_signing',
  c2paInvalid: 'verdict.c2pa_invalid',
  c2paUnreadable: 'verdict.c2pa_unreadable',
  c2paIngredientInvalid: 'verdict.c2pa_ingredient_invalid',
  c2paDecided: 'verdict.c2pa_decided',
  noPixelScore: 'pixels.none',
} as const;

const note = (code: string): Finding => ({ code, facts: {}, weight: 0 });

/** The pixel detector's reading of the file (one of `pixels.score.*`, or `pixels.no_raster` for a PDF without images). */
const isPixelReading = (f: Finding) => f.code.startsWith('pixels.score.') || f.code === 'pixels.no_raster';
/** A pixel reading calibrated to decide `ai_generated` alone (a picture scored >= highAi by a model whose manifest allows it). */
export const PIXELS_DECIDE = 'pixels.score.generated';
/** A capture-consistency finding that contradicts the claimed capture (the capture detector's `capture.*`, weight > 0). */
export const isCaptureContradiction = (f: Finding) => f.code.startsWith('capture.') && f.weight > 0;

/**
 * Capture evidence by strength: a C2PA capture from a trusted signer, unedited, decides (rule 0); edited, medium; a
 * valid capture signature nobody vouches for and camera EXIF are low (anyone can write or sign them).
 */
const CAPTURE_EVIDENCE: Record<string, ConfidenceLevel> = {
  'provenance.capture.c2pa_trusted': 'high',
  'provenance.capture.c2pa_trusted_edited': 'medium',
  'provenance.capture.c2pa_signed': 'low',
  'provenance.capture.camera_exif': 'low',
};
/** Capture evidence from a C2PA claim (the rest is camera EXIF). */
const C2PA_CAPTURE = new Set(['provenance.capture.c2pa_trusted', 'provenance.capture.c2pa_trusted_edited', 'provenance.capture.c2pa_signed']);
/** Capture evidence that counts only when the capture detector confirms the file is built as that camera builds it. */
const NEEDS_CONFIRMATION = new Set(['provenance.capture.camera_exif', 'provenance.capture.c2pa_signed']);
/** An ingredient whose own manifest fails validation or is missing (provenance detector): a broken link in the chain. */
const C2PA_INGREDIENT_INVALID = 'provenance.c2pa.ingredient_invalid';
/** A C2PA store in the file that cannot be read (provenance detector, pdf-structure detector). */
const C2PA_UNREADABLE = 'provenance.c2pa.unreadable';
/** C2PA statuses that lower what a valid manifest proves (the signer or the signing time is not established). */
const C2PA_LOWERING = new Set(['signingCredential.untrusted', 'signingCredential.expired', 'signingCredential.invalid', 'timeStamp.untrusted']);
/** The capture detector's finding that the file is built as the camera its metadata names builds its files. */
const CAPTURE_CONSISTENT = 'capture.consistent';
/** Signs that the file was changed after capture: `authentic` is capped at medium when one is present. */
const ALTERED = new Set(['provenance.editor', 'pdf.changed', 'provenance.c2pa.edited']);

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
 * 2. The pixels decide `ai_generated` alone only where the model's calibration allows it (`pixels.score.generated`:
 *    a picture scored >= highAi by a model whose manifest says `calibration.pixelsDecide`, highAi being the score
 *    that at most 3 % of the validation split's real photos reach, portraits and other pictures each against their
 *    own from 1.5): `ai_generated`, medium confidence, unless
 *    capture evidence that counts (an intact signed C2PA capture claim, or camera EXIF the file confirms) says
 *    otherwise: then `inconclusive` with `verdict.pixels_vs_capture`. Every other pixel reading alone is
 *    `inconclusive`/low, and the copy says which way it leans.
 * 3. `authentic` needs capture evidence (`provenance.capture.*`) and pixels that do not point to AI: camera EXIF
 *    (easily forged) -> low; an intact signed C2PA capture claim -> medium, high when the pixels also say authentic
 *    with high confidence. Capped one level down (high -> medium) when editing software is recorded or the PDF
 *    changed after it was made. A signed capture claim against a high AI pixel reading is `inconclusive`. Capture
 *    evidence counts only when no capture-consistency finding contradicts it (`capture.*` with weight > 0): then
 *    the file is `inconclusive`, and every contradiction is in the evidence, whatever the verdict. Camera EXIF counts
 *    only with `capture.consistent` (the maker's own quantization tables, a matching thumbnail or a phone's HEIF
 *    layout, and nothing against): EXIF alone is one exiftool command away from any file. A picture whose face is
 *    framed as StyleGAN's FFHQ faces are (`pixels.ffhq_framing`) is not cleared by low capture evidence (camera EXIF,
 *    a signature nobody vouches for): `inconclusive` with `verdict.capture_vs_framing`; a trusted signer's capture
 *    still clears it (a recorded square crop is an edit, not a generator).
 * 4. Nothing scoreable (a PDF without raster images) and no strong provenance: inconclusive, low.
 * Content Credentials (C2PA) come first, because they are cryptography rather than words:
 * 0. A C2PA manifest that fails validation (signature, hashed URI, hard binding: a status finding of weight > 0), or a
 *    store that is there but cannot be read, is evidence of tampering: never `authentic`, and the evidence says what
 *    broke ("edited after it was signed" when the bytes changed); the pixels still decide `ai_generated` where rule
 *    2 lets them (a broken manifest pasted into a generated picture must not hide it). A valid manifest from a
 *    trusted signer (`signingCredential.trusted`) decides whatever the pixels say: a capture with nothing edited since (`provenance.capture.c2pa_trusted`) -> `authentic`/high; a
 *    generative-AI declaration -> `ai_generated`/high. An untrusted, unestablished or expired signer lowers a capture
 *    to camera-EXIF strength (low, and only when the capture detector confirms the file). A manifest with an
 *    ingredient whose own manifest fails or is missing (`provenance.c2pa.ingredient_invalid`, even a failure its
 *    signer recorded when taking the ingredient in) decides nothing: no trusted decision, its capture claim is no
 *    capture evidence, never `authentic`, and the evidence names the ingredient (`verdict.c2pa_ingredient_invalid`).
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
  // detector found the file built the way that camera builds its files. So does a C2PA capture signed by a signer
  // nobody vouches for (anyone can make a certificate); a trusted signer's capture stands alone.
  const confirmed = !claim || !NEEDS_CONFIRMATION.has(claim.code) || findings.some((f) => f.code === CAPTURE_CONSISTENT);
  const c2paIngredients = findings.filter((f) => f.code === C2PA_INGREDIENT_INVALID);
  // A C2PA capture claim beside an ingredient whose manifest fails is no capture evidence (the detector gives none).
  const capture = contradictions.length || !confirmed || (c2paIngredients.length > 0 && claim !== undefined && C2PA_CAPTURE.has(claim.code)) ? undefined : claimed;
  const altered = findings.some((f) => ALTERED.has(f.code));
  // a face framed as StyleGAN's FFHQ faces are (face-framing.ts): low capture evidence does not clear such a picture
  const framed = findings.some((f) => f.code === FRAMING_FINDING);
  const pixelsHighAi = ai?.assessment === 'likely_ai' && ai.confidence === 'high';
  const pixelsDecide = findings.some((f) => f.code === PIXELS_DECIDE);
  const c2paFailures = findings.filter((f) => isC2paStatus(f.code) && f.weight > 0);
  // A store that is there but cannot be read (cut off, its boxes broken) may have declared anything.
  const c2paUnreadable = findings.some((f) => f.code === C2PA_UNREADABLE);
  const c2paTrusted = !c2paFailures.length && !c2paIngredients.length && findings.some((f) => f.code === 'signingCredential.trusted');
  const trustedCapture = c2paTrusted && claim?.code === 'provenance.capture.c2pa_trusted';
  const trustedAi = c2paTrusted && provenance.some((f) => f.code === 'provenance.ai.c2pa_generator' || f.code === 'provenance.ai.c2pa_ingredient');

  let assessment: VerdictAssessment;
  let confidence: ConfidenceLevel;
  const notes: Finding[] = [];
  if (strongAi) {
    assessment = 'ai_generated';
    confidence = !trustedAi && ai?.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'medium' : 'high';
    if (ai?.assessment === 'likely_authentic') notes.push(note(trustedAi ? FUSION_CODES.c2paDecided : FUSION_CODES.metadataDecided));
  } else if ((c2paFailures.length || c2paUnreadable) && !pixelsDecide) {
    // Broken Content Credentials stop `authentic`; they do not hide what the pixels show (rule 2 still decides).
    assessment = 'inconclusive';
    confidence = 'low';
    if (!c2paFailures.length) notes.push(note(FUSION_CODES.c2paUnreadable));
    else notes.push(note(c2paFailures.some((f) => BYTES_CHANGED.has(f.code)) ? FUSION_CODES.c2paEditedAfterSigning : FUSION_CODES.c2paInvalid));
  } else if (trustedCapture) {
    assessment = 'authentic';
    confidence = 'high';
    if (ai?.assessment === 'likely_ai') notes.push(note(FUSION_CODES.c2paDecided));
  } else if (capture && ai && ai.assessment !== 'likely_ai' && !(framed && capture === 'low')) {
    assessment = 'authentic';
    confidence = capture === 'medium' ? (ai.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'high' : 'medium') : 'low';
    if (altered && confidence === 'high') confidence = 'medium';
  } else if (pixelsDecide && !capture) {
    assessment = 'ai_generated';
    confidence = 'medium';
  } else {
    assessment = 'inconclusive';
    confidence = 'low';
    if (c2paIngredients.length) notes.push(note(FUSION_CODES.c2paIngredientInvalid));
    else if (pixelsHighAi && claimed === 'medium') notes.push(note(FUSION_CODES.captureVsPixels));
    else if (pixelsDecide && capture) notes.push(note(FUSION_CODES.pixelsVsCapture));
    else if (capture === 'low' && framed && ai?.assessment !== 'likely_ai') notes.push(note(FUSION_CODES.captureVsFraming));
    // A file a program only saved again is said to be re-saved, never contradicted (capture/signs.ts).
    if (claimed && contradictions.length) {
      notes.push(note(contradictions.every((f) => isResaveSign(f.code)) ? FUSION_CODES.captureResaved : FUSION_CODES.captureContradicted));
    } else if (claimed && !confirmed) notes.push(note(FUSION_CODES.captureUnconfirmed));
  }

  const reading = findings.find(isPixelReading) ?? note(FUSION_CODES.noPixelScore);
  const pixelNotes = findings.filter((f) => f.code.startsWith('pixels.') && !isPixelReading(f));
  const lead = provenance.slice(0, LEAD_PROVENANCE);
  // What the C2PA checks add: what broke, what lowers the manifest, or the trusted signature and capture that decided.
  const decided = trustedCapture || trustedAi ? findings.filter((f) => f.code === 'provenance.capture.c2pa_trusted' || f.code === 'signingCredential.trusted') : [];
  const c2pa = [...c2paFailures, ...c2paIngredients, ...findings.filter((f) => C2PA_LOWERING.has(f.code)), ...decided].filter((f) => !lead.includes(f));
  const more = findings.filter((f) => !/^(provenance|pixels|capture|verdict)\./.test(f.code) && !isC2paStatus(f.code)).slice(0, MORE_NOTES);
  // An authentic verdict from camera EXIF says what confirmed it.
  const support = assessment === 'authentic' ? findings.filter((f) => f.code === CAPTURE_CONSISTENT) : [];
  const evidence =
    assessment === 'inconclusive'
      ? [reading, ...pixelNotes, ...lead, ...c2pa, ...notes, ...contradictions, ...more]
      : [...lead, ...c2pa, ...support, reading, ...notes, ...pixelNotes, ...contradictions, ...more];
  return { assessment, confidence, evidence, dimensions: input.dimensions };
}
