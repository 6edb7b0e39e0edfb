// The AI-generation detector's score bands, from the model's calibrated thresholds (its manifest's `thresholds`),
// in one place: the core reads a file's score through detectorReading() (src/analysis/fusion.ts), and the window
// colours and words the same score, the heatmap's tiles and their legend through the same bands (renderer/lib/
// score-bands.ts), so a score never reads one way on a card and another on the heatmap. Pure, so the renderer may
// bundle it.
import { z } from 'zod';
import type { ConfidenceLevel, DimensionAssessment } from './schemas.js';
import { CHECK_WORDS, dimensionFinding } from './vocabulary.js';

/**
 * The calibrated thresholds on a detector score (0..1), as the model's manifest states them: inside
 * `inconclusiveBand` the detector points neither way; at or above `decision` (outside the band) it points to AI,
 * with high confidence from `highAi`; below, to authentic, with high confidence up to `highAuthentic`.
 */
export const DetectorThresholds = z
  .object({
    decision: z.number().min(0).max(1),
    highAi: z.number().min(0).max(1),
    highAuthentic: z.number().min(0).max(1),
    inconclusiveBand: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]),
  })
  .meta({ id: 'DetectorThresholds', description: "The detector model's calibrated thresholds on a score (its manifest's), which set the score's bands." });
export type DetectorThresholds = z.infer<typeof DetectorThresholds>;

/** Where a detector score falls, from most authentic to most AI-like. */
export const DETECTOR_BANDS = ['authentic_high', 'authentic_medium', 'inconclusive', 'ai_medium', 'ai_high'] as const;
export type DetectorBand = (typeof DETECTOR_BANDS)[number];

export interface DetectorReading {
  assessment: DimensionAssessment;
  confidence: ConfidenceLevel;
}

/** What a score says under the thresholds: the `ai_detection` dimension's assessment and confidence. */
export function detectorReading(score: number, t: DetectorThresholds): DetectorReading {
  const [bandLo, bandHi] = t.inconclusiveBand;
  if (score >= bandLo && score <= bandHi) return { assessment: 'inconclusive', confidence: 'low' };
  if (score >= t.decision) return { assessment: 'likely_ai', confidence: score >= t.highAi ? 'high' : 'medium' };
  return { assessment: 'likely_authentic', confidence: score <= t.highAuthentic ? 'high' : 'medium' };
}

/**
 * The band of a reading. A reading the detector itself overrode (flat graphics it cannot read are inconclusive,
 * whatever their score) keeps the band of what it says, so the colour always agrees with the words.
 */
export function bandOfReading(r: Partial<DetectorReading>): DetectorBand {
  if (r.assessment === 'likely_ai') return r.confidence === 'high' ? 'ai_high' : 'ai_medium';
  if (r.assessment === 'likely_authentic') return r.confidence === 'high' ? 'authentic_high' : 'authentic_medium';
  return 'inconclusive';
}

export const scoreBand = (score: number, t: DetectorThresholds): DetectorBand => bandOfReading(detectorReading(score, t));

const READING_OF_BAND: Record<DetectorBand, DetectorReading> = {
  authentic_high: { assessment: 'likely_authentic', confidence: 'high' },
  authentic_medium: { assessment: 'likely_authentic', confidence: 'medium' },
  inconclusive: { assessment: 'inconclusive', confidence: 'low' },
  ai_medium: { assessment: 'likely_ai', confidence: 'medium' },
  ai_high: { assessment: 'likely_ai', confidence: 'high' },
};

/**
 * What a score in each band says: the words of the ai_detection dimension that reads so (the vocabulary's
 * dimensionFinding, which the card, the compact row, the heatmap's legend and the case report all use).
 */
export const bandWords = (band: DetectorBand): string => dimensionFinding({ key: 'ai_detection', ...READING_OF_BAND[band] });

export interface BandRange {
  band: DetectorBand;
  /** Lowest and highest score of the band (0..1); a band a model leaves empty is not listed. */
  from: number;
  to: number;
}

/** The bands a model's thresholds make, lowest scores first, each with its range (for legends and sentences). */
export function bandRanges(t: DetectorThresholds): BandRange[] {
  // Every threshold is a place where the band may change; the band between two of them is read at its middle.
  const cuts = [...new Set([0, 1, t.decision, t.highAi, t.highAuthentic, ...t.inconclusiveBand].map((v) => Math.min(1, Math.max(0, v))))].sort((a, b) => a - b);
  const ranges: BandRange[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const band = scoreBand((cuts[i] + cuts[i + 1]) / 2, t);
    const last = ranges.at(-1);
    if (last?.band === band) last.to = cuts[i + 1];
    else ranges.push({ band, from: cuts[i], to: cuts[i + 1] });
  }
  return ranges;
}

/** Each band's colour, [r, g, b]: red for AI, blue for authentic, stronger at high confidence, grey for neither way. */
export const BAND_RGB: Record<DetectorBand, readonly [number, number, number]> = {
  authentic_high: [37, 99, 235],
  authentic_medium: [96, 165, 250],
  inconclusive: [148, 163, 184],
  ai_medium: [249, 115, 22],
  ai_high: [220, 38, 38],
};

/** How opaque a heatmap tile of each band is drawn (0..1): tiles that point neither way stay clear. */
export const TILE_ALPHA: Record<DetectorBand, number> = { authentic_high: 0.45, authentic_medium: 0.3, inconclusive: 0, ai_medium: 0.4, ai_high: 0.6 };

/**
 * A heatmap tile's colour, [r, g, b, alpha 0..1], in its band under the thresholds of the model that scored it. Tile
 * scores stored before the thresholds were kept with them have no band: they are shaded grey by score alone.
 */
export function tileRgba(score: number, t: DetectorThresholds | null | undefined): [number, number, number, number] {
  if (!t) return [...BAND_RGB.inconclusive, Math.round(Math.min(1, Math.max(0, score)) * 0.6 * 1000) / 1000];
  const band = scoreBand(score, t);
  return [...BAND_RGB[band], TILE_ALPHA[band]];
}

const pct = (v: number): string => `${Math.round(v * 1000) / 10}`;

/** "41.1–87.7 %": a band's range as the legend prints it. */
export const rangeWords = (r: Pick<BandRange, 'from' | 'to'>): string => `${pct(r.from)}–${pct(r.to)} %`;

/** One sentence on a score's band for the card: where this model's thresholds put it. */
export function bandSentence(score: number, t: DetectorThresholds): string {
  const range = bandRanges(t).find((r) => r.band === scoreBand(score, t));
  return `${CHECK_WORDS.ai_detection} score ${Math.round(score * 100)} %: ${bandWords(scoreBand(score, t)).toLowerCase()}${range ? ` (this model's band ${rangeWords(range)})` : ''}.`;
}
