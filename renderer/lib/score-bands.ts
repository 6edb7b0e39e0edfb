// The detector's score bands as the window draws them: CSS colours of src/api/detector-bands.ts's bands (which hold
// the bands, their words and their colours in one place), used by the card, the compact row, the heatmap's tiles and
// its legend alike, so a colour means the same thing wherever a score is shown.
import { BAND_RGB, bandOfReading, bandRanges, bandWords, scoreBand, tileRgba, type BandRange, type DetectorBand, type DetectorThresholds } from '../../src/api/detector-bands.js';
import type { Dimension } from '../../src/api/schemas.js';

export { bandWords, scoreBand, type DetectorBand, type DetectorThresholds };

/** The band's colour, solid (swatches, the card's and the row's band marks). */
export function bandColor(band: DetectorBand): string {
  const [r, g, b] = BAND_RGB[band];
  return `rgb(${r}, ${g}, ${b})`;
}

/** A heatmap tile's CSS colour (see tileRgba). */
export function tileColor(score: number, thresholds: DetectorThresholds | null | undefined): string {
  const [r, g, b, a] = tileRgba(score, thresholds);
  return `rgba(${r}, ${g}, ${b}, ${a})`;
}

/** The band of a file's ai_detection dimension, as the detector read it (its assessment and confidence). */
export const dimensionBand = (d: Pick<Dimension, 'assessment' | 'confidence'>): DetectorBand => bandOfReading(d);

export interface LegendEntry extends BandRange {
  words: string;
  color: string;
}

/** The legend of a model's bands, lowest scores first. */
export function legendEntries(thresholds: DetectorThresholds): LegendEntry[] {
  return bandRanges(thresholds).map((r) => ({ ...r, words: bandWords(r.band), color: bandColor(r.band) }));
}
