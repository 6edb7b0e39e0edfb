// The case at a glance: one row per file (thumbnail, name, verdict as it counts and sorts: the expert review where there
// is one, confidence, detector score in its band, review, pixel size), the compact alternative to the cards; a row's name opens the evidence viewer as a card's does.
import type { CaseCard } from '../lib/triage.js';
import type { ApiClient } from '../lib/api-client.js';
import { pixelWords } from '../lib/case-view.js';
import { dimensionBand } from '../lib/score-bands.js';
import { aiScore, effectiveState, verdictSource } from '../lib/triage.js';
import { ASSESSMENT_WORDS, CONFIDENCE_WORDS, dimensionFinding, REVIEW_FILTER_WORDS, STATE_WORDS, WINDOW_STAGE_WORDS } from '../lib/words.js';
import { BandSwatch } from './score-legend.js';
import { Thumbnail } from './thumbnail.js';

interface Props {
  client: ApiClient;
  cards: CaseCard[];
  onView: (key: string) => void;
}

export function CaseRows({ client, cards, onView }: Props): React.JSX.Element {
  return (
    <table className="case-rows" data-testid="case-rows">
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Picture</span>
          </th>
          <th scope="col">File</th>
          <th scope="col">Verdict</th>
          <th scope="col">Confidence</th>
          <th scope="col">Detector score</th>
          <th scope="col">Review</th>
          <th scope="col">Pixels</th>
        </tr>
      </thead>
      <tbody>
        {cards.map((card) => {
          if (card.kind === 'pending') {
            return (
              <tr key={card.key} data-testid="case-row" data-file-name={card.pending.name} data-status="pending">
                <td />
                <th scope="row" className="file-name">
                  {card.pending.name}
                </th>
                <td colSpan={5}>{WINDOW_STAGE_WORDS[card.pending.stage]}</td>
              </tr>
            );
          }
          const { result, tracked } = card.file;
          const verdict = result.status === 'completed' ? result.verdict : undefined;
          const detector = verdict?.dimensions.find((d) => d.key === 'ai_detection');
          const score = aiScore(result);
          const review = result.expertReview;
          const band = detector ? dimensionBand(detector) : null;
          return (
            <tr
              key={card.key}
              data-testid="case-row"
              data-file-name={result.file.name}
              data-file-id={result.file.id}
              data-status={result.status}
              data-verdict={verdict?.assessment ?? ''}
              data-effective={effectiveState(result)}
              data-band={band ?? undefined}
            >
              <td className="row-thumb">
                <Thumbnail client={client} apiKey={tracked.apiKey} jobId={tracked.job.jobId} file={result.file} />
              </td>
              <th scope="row" className="file-name">
                <button type="button" className="link" onClick={() => onView(card.key)} title={`View ${result.file.name} full size`}>
                  {result.file.name}
                </button>
              </th>
              <td data-testid="row-verdict" data-source={verdictSource(result)}>
                {review ? (
                  // The verdict the file counts and sorts by, as on its card: the expert review, marked as such.
                  <>
                    <span className={`badge badge-${review.assessment}`}>{ASSESSMENT_WORDS[review.assessment]}</span>{' '}
                    <span className="hint" data-testid="row-verdict-source">
                      (expert review{verdict && verdict.assessment !== review.assessment ? `; machine: ${ASSESSMENT_WORDS[verdict.assessment]}` : ''})
                    </span>
                  </>
                ) : verdict ? (
                  <span className={`badge badge-${verdict.assessment}`}>{ASSESSMENT_WORDS[verdict.assessment]}</span>
                ) : (
                  STATE_WORDS[effectiveState(result)]
                )}
              </td>
              <td>{verdict ? CONFIDENCE_WORDS[verdict.confidence] : ''}</td>
              <td data-testid="row-score">
                {band && detector && score !== null ? (
                  <>
                    <BandSwatch band={band} /> {Math.round(score * 100)} % <span className="hint">{dimensionFinding(detector)}</span>
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td data-testid="row-review">
                {result.expertReview ? `${ASSESSMENT_WORDS[result.expertReview.assessment]} (${result.expertReview.reviewer})` : REVIEW_FILTER_WORDS.not_reviewed}
              </td>
              <td data-testid="row-pixels">{pixelWords(result.pixelSize) ?? '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
