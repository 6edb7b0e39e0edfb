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
 * Rules, in order (README "Fusion" gives the model-card figures behind them):
 * 1. Strong AI provenance (a C2PA manifest or IPTC source type declaring generative AI, a generator's own PNG
 *    chunk or software tag, a PDF producer that is an AI service) decides `ai_generated`: high confidence unless
 *    the pixels say authentic with high confidence (then medium: the metadata may have been added).
 * 2. The pixel detector alone never decides (model card 0.2.0: at its decision threshold it calls 69 % of modern
 *    camera photos AI, more modern AI images than authentic ones fall under highAuthentic, and its AUC over
 *    generators it never saw has a 95 % interval of 0.498-0.629, which includes chance). A pixel reading alone is
 *    `inconclusive`/low, and the copy says which way it leans, including at the high-AI end.
 * 3. `authentic` needs provenance that points to a capture and pixels that do not point to AI: camera EXIF (easily
 *    forged) -> low; an intact signed C2PA capture claim -> medium, high when the pixels also say authentic with
 *    high confidence. Capped one level down (high -> medium) when editing software is recorded or the PDF changed
 *    after it was made. A signed capture claim against a high AI pixel reading is `inconclusive`.
 * 4. Nothing scoreable (a PDF without raster images) and no strong provenance: inconclusive, low.
 */
export function fuse(input: FusionInput): Verdict {
  const ai = input.dimensions.find((d) => d.key === 'ai_detection');
  const provenance = input.dimensions.find((d) => d.key === 'provenance');
  const evidence: string[] = [];
  let assessment: Verdict['assessment'];
  let confidence: ConfidenceLevel;

  const pixelSentence = (): string => {
    if (!ai) return input.isPdf ? 'The document has no raster image large enough for the pixel detector.' : 'The pixel detector gave no score.';
    const where = input.pixel.where ? ` (highest on ${input.pixel.where}, of ${input.pixel.count} analysed)` : '';
    const reading =
      ai.assessment === 'likely_ai'
        ? ai.confidence === 'high'
          ? 'is at the high end of its scale and points to AI generation, but this model is not reliable enough on images from recent generators to decide on its own'
          : 'leans towards AI generation, but below the level at which it is reliable on its own'
        : ai.assessment === 'likely_authentic'
          ? 'leans away from AI generation, which on its own does not show a file is authentic'
          : 'is in the uncertain band and points neither way';
    return `The pixel detector's AI score is ${pct(ai.score)}${where}; it ${reading}.`;
  };

  const altered =
    input.provenanceNotes.some((n) => n.startsWith('Edited with')) || (input.structureDimension?.score ?? 0) >= 0.6;
  const capture = provenance?.assessment === 'likely_authentic' ? provenance.confidence : undefined; // medium: intact signed claim
  const pixelsHighAi = ai?.assessment === 'likely_ai' && ai.confidence === 'high';

  if (input.strongAiProvenance) {
    assessment = 'ai_generated';
    confidence = ai?.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'medium' : 'high';
    evidence.push(...input.provenanceNotes.slice(0, 2), pixelSentence());
    if (ai?.assessment === 'likely_authentic') evidence.push('The pixels do not look generated; the metadata claim is what decided.');
  } else if (capture && ai && ai.assessment !== 'likely_ai') {
    assessment = 'authentic';
    confidence = capture === 'medium' ? (ai.assessment === 'likely_authentic' && ai.confidence === 'high' ? 'high' : 'medium') : 'low';
    if (altered && confidence === 'high') confidence = 'medium';
    evidence.push(...input.provenanceNotes.slice(0, 2), pixelSentence());
  } else {
    assessment = 'inconclusive';
    confidence = 'low';
    evidence.push(pixelSentence(), ...input.provenanceNotes.slice(0, 2));
    if (pixelsHighAi && capture === 'medium') evidence.push('A signed camera-capture claim and a high AI pixel score disagree.');
  }
  evidence.push(...input.structureNotes.slice(0, 3));

  // `ai_generated` comes from provenance only (rule 2), so its caveat is about metadata.
  const caveat =
    assessment === 'ai_generated'
      ? 'Metadata can be added to any file, so this shows what the file declares, not who made it.'
      : assessment === 'authentic'
        ? 'The capture evidence points to a photograph and the pixels show no clear sign of AI generation; this does not prove the content is true or unedited by hand.'
        : 'The evidence is not strong enough either way; a specialist should review the file.';

  const label =
    assessment === 'ai_generated' ? 'AI-generated' : assessment === 'authentic' ? 'No AI detected' : 'Inconclusive';
  const title =
    assessment === 'ai_generated'
      ? `Likely AI-generated: the file's own metadata says so (${confidence} confidence)`
      : assessment === 'authentic'
        ? `Likely authentic: capture evidence and no sign of AI generation (${confidence} confidence)`
        : 'Inconclusive: the detectors cannot decide';
  return {
    assessment,
    confidence,
    display: { label, title, description: [...evidence, caveat].filter(Boolean).join(' ') },
    dimensions: input.dimensions,
  };
}
