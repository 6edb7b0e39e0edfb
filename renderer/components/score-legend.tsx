// What the heatmap's colours mean: the bands of the detector score under the thresholds of the model that scored the
// file (src/api/detector-bands.ts), each with its range, its words and its colour, the same as on the cards and rows.
import { rangeWords } from '../../src/api/detector-bands.js';
import { bandColor, bandWords, legendEntries, type DetectorBand, type DetectorThresholds } from '../lib/score-bands.js';

/** A band's colour mark, beside the detector's words on a card or a row. */
export function BandSwatch({ band }: { band: DetectorBand }): React.JSX.Element {
  return <span className="swatch band-swatch" aria-hidden="true" data-band={band} style={{ background: bandColor(band) }} />;
}

interface Props {
  thresholds: DetectorThresholds | undefined;
  modelVersion?: string | null;
  /** Shows the hatched "not scored" entry (the viewer draws unscored areas). */
  unscored?: boolean;
}

export function ScoreLegend({ thresholds, modelVersion, unscored }: Props): React.JSX.Element {
  return (
    <div className="hint legend" data-testid="score-legend">
      {thresholds ? (
        <ul aria-label="What the heatmap's colours mean">
          {legendEntries(thresholds).map((e) => (
            <li key={e.band} data-testid="legend-band" data-band={e.band} data-from={e.from} data-to={e.to}>
              <span className="swatch" aria-hidden="true" data-band={e.band} style={{ background: e.color }} /> {rangeWords(e)}: {e.words}
              {e.band === 'inconclusive' ? ' (tiles left clear)' : ''}
            </li>
          ))}
          {unscored && (
            <li>
              <span className="swatch swatch-unscored" aria-hidden="true" /> hatched: not scored
            </li>
          )}
        </ul>
      ) : (
        <p data-testid="legend-no-bands">
          Grey, darker for a higher score: these tile scores were stored without their model&apos;s bands (an earlier version of Veracity). Assess the file again
          to see them in the bands of “{bandWords('ai_high')}” to “{bandWords('authentic_high')}”.
        </p>
      )}
      {modelVersion ? <span>Bands and scores of model {modelVersion}.</span> : null}
    </div>
  );
}
