// Fuses the detectors' dimensions into one verdict with calibrated confidence and copy a specialist can read aloud:
// which evidence decided, how strong it is, and what it does not prove. The rules are documented in README.md.
import type { ConfidenceLevel, Dimension, Verdict } from '../api/schemas.js';
import type { ModelManifest } from './model-manifest.js';

export interface PixelEvidence {
  /** Aggregated P(AI) of the worst (highest-scoring) analysed image; null when nothing could be scored. */
  score: number | null;
  /** Where the worst score came from, in words ("page 2, image 1"), for PDFs. */
  where: string | null;
  /** How many images/pages were scored. */
  count: number;
}

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
  return { key: 'ai_detection', label: 'AI-generation detector (pixels)', score: round(score), assessment, confidence };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
const pct = (x: number) => `${Math.round(x * 100)}%`;

export interface FusionInput {
  dimensions: Dimension[];
  pixel: PixelEvidence;
  strongAiProvenance: boolean;
  provenanceNotes: string[];
  structureNotes: string[];
  structureDimension: Dimension | null;
  isPdf: boolean;
}

/**
 * Rules, in order:
 * 1. Strong AI provenance (a C2PA manifest or IPTC source type declaring generative AI, a generator's own PNG
 *    chunk or software tag, a PDF producer that is an AI service) decides `ai_generated`: high confidence unless
 *    the pixels say authentic with high confidence (then medium: the metadata may have been added).
 * 2. Otherwise the pixel detector decides through the manifest's thresholds: likely_ai -> ai_generated,
 *    likely_authentic -> authentic, inconclusive band -> inconclusive (low).
 * 3. An `authentic` verdict is capped at medium confidence: the pixel detector cannot show that no generator was
 *    involved (generators it never saw pass as authentic; README figures), and when editing software is recorded or
 *    the PDF was changed after it was made, hand edits are outside what it measures. Only an intact signed capture
 *    claim (C2PA digitalCapture, signature and data hash verified) with an authentic pixel reading reaches high.
 * 4. Nothing scoreable (a PDF without raster images) and no strong provenance: inconclusive, low.
 * 5. A PDF's pixel-only `ai_generated` is at most medium: its images are logos, charts and re-encoded figures more
 *    than the photos the thresholds were calibrated on.
 */
export function fuse(input: FusionInput): Verdict {
  const ai = input.dimensions.find((d) => d.key === 'ai_detection');
  const evidence: string[] = [];
  let assessment: Verdict['assessment'];
  let confidence: ConfidenceLevel;
  let decidedBy: string;

  const pixelSentence = (): string => {
    if (!ai) return input.isPdf ? 'The document has no raster image large enough for the pixel detector.' : 'The pixel detector gave no score.';
    const where = input.pixel.where ? ` (highest on ${input.pixel.where}, of ${input.pixel.count} analysed)` : '';
    const reading =
      ai.assessment === 'likely_ai'
        ? `points to AI generation (${ai.confidence} confidence)`
        : ai.assessment === 'likely_authentic'
          ? `points away from AI generation (${ai.confidence} confidence)`
          : 'is in the uncertain band and points neither way';
    return `The pixel detector's AI score is ${pct(ai.score)}${where}; it ${reading}.`;
  };

  if (input.strongAiProvenance) {
    assessment = 'ai_generated';
    confidence = ai?.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'medium' : 'high';
    decidedBy = 'provenance';
    evidence.push(...input.provenanceNotes.slice(0, 2), pixelSentence());
    if (ai?.assessment === 'likely_authentic') evidence.push('The pixels do not look generated; the metadata claim is what decided.');
  } else if (ai) {
    decidedBy = 'pixels';
    if (ai.assessment === 'likely_ai') {
      assessment = 'ai_generated';
      // Images inside PDFs (logos, charts, re-encoded figures) are outside the photos the thresholds were
      // calibrated on: a pixel-only reading of a document is at most medium.
      confidence = input.isPdf && ai.confidence === 'high' ? 'medium' : (ai.confidence ?? 'low');
    } else if (ai.assessment === 'likely_authentic') {
      assessment = 'authentic';
      confidence = ai.confidence ?? 'low';
    } else {
      assessment = 'inconclusive';
      confidence = 'low';
    }
    evidence.push(pixelSentence(), ...input.provenanceNotes.slice(0, 2));
  } else {
    assessment = 'inconclusive';
    confidence = 'low';
    decidedBy = 'none';
    evidence.push(pixelSentence(), ...input.provenanceNotes.slice(0, 2));
  }
  evidence.push(...input.structureNotes.slice(0, 3));

  const altered =
    input.provenanceNotes.some((n) => n.startsWith('Edited with')) || (input.structureDimension?.score ?? 0) >= 0.6;
  const provenance = input.dimensions.find((d) => d.key === 'provenance');
  const intactCapture = provenance?.assessment === 'likely_authentic' && provenance.confidence === 'medium';
  if (assessment === 'authentic' && confidence === 'high' && (altered || !intactCapture)) confidence = 'medium';

  const caveat =
    assessment === 'ai_generated'
      ? decidedBy === 'provenance'
        ? 'Metadata can be added to any file, so this shows what the file declares, not who made it.'
        : 'A detector score is a statistical reading, not proof; compressed, resized or screenshotted images are harder to read.'
      : assessment === 'authentic'
        ? 'This means no sign of AI generation was found; it does not prove the content is true or unedited by hand.'
        : 'The evidence is not strong enough either way; a specialist should review the file.';

  const label =
    assessment === 'ai_generated' ? 'AI-generated' : assessment === 'authentic' ? 'No AI detected' : 'Inconclusive';
  const title =
    assessment === 'ai_generated'
      ? decidedBy === 'provenance'
        ? `Likely AI-generated: the file's own metadata says so (${confidence} confidence)`
        : `Likely AI-generated (${confidence} confidence)`
      : assessment === 'authentic'
        ? `Likely authentic: no sign of AI generation (${confidence} confidence)`
        : 'Inconclusive: the detectors cannot decide';
  return {
    assessment,
    confidence,
    display: { label, title, description: [...evidence, caveat].filter(Boolean).join(' ') },
    dimensions: input.dimensions,
  };
}
