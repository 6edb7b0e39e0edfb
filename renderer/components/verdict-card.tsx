// One file's card: thumbnail with the heatmap of tile scores (and the way into the evidence viewer), the machine
// verdict in the window's one vocabulary, what each check found (a bar only where it is evidence), why the verdict
// can be less certain than a check, the file's facts, and the expert review beside the machine verdict.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { FileRegions, FileResult, FileStage, JobResult } from '../../src/api/schemas.js';
import type { ApiClient } from '../lib/api-client.js';
import type { TrackedJob } from '../lib/case-session.js';
import { overlayTiles, pickGrid } from '../lib/heatmap.js';
import { aiScore, effectiveState, verdictSource } from '../lib/triage.js';
import { formatBytes } from '../lib/plan-submission.js';
import { ACCEPTED_STAGE_WORD, ASSESSMENT_WORDS, CONFIDENCE_WORDS, MEDIA_WORDS, STAGE_WORDS, checkName, dimensionFinding, errorWords, isEvidence, lessCertainWords, resultErrorWords, verdictTitleWords } from '../lib/words.js';
import { pixelWords } from '../lib/case-view.js';
import { dimensionBand } from '../lib/score-bands.js';
import { ReviewPanel } from './review-panel.js';
import { BandSwatch, ScoreLegend } from './score-legend.js';
import { Sentences } from './sentences.js';
import { Thumbnail } from './thumbnail.js';
import { C2paChain } from './c2pa-chain.js';

interface Props {
  client: ApiClient;
  tracked: TrackedJob;
  result: FileResult;
  /** Marks the card's "View" button, where the focus goes back when the viewer closes. */
  viewerKey?: string;
  onView?: () => void;
  /** Where the file stands while the core works on it (GET /v1/jobs/{jobId}/progress); absent until first read. */
  stage?: FileStage;
  onJobUpdated: (job: JobResult) => void;
  onReassess: () => Promise<void>;
  /** The name of the file already in the case with the same SHA-256, when this one is a copy of it. */
  duplicateOf?: string | null;
  /** History's "Open" asked for this file: the card is marked. */
  focused?: boolean;
  /** Takes the file out of the case on screen (its job stays in History); absent where there is no case to leave. */
  onRemove?: () => Promise<boolean>;
  caseName?: string | null;
  /** The name of the case the file's job is in, as it is now (caseNameOf); null where it is in none. */
  jobCase?: string | null;
  /** Sentences said once for the case, above the cards (renderer/lib/case-view.ts): the card shows their number. */
  notes?: Map<string, number>;
}

export function VerdictCard({ client, tracked, result, viewerKey, onView, stage, onJobUpdated, onReassess, duplicateOf, focused, onRemove, caseName: openCase, jobCase, notes }: Props): React.JSX.Element {
  const [reassessing, setReassessing] = useState(false);
  const [removing, setRemoving] = useState<'ask' | 'busy' | null>(null);
  const { job, apiKey } = tracked;
  const [showHeatmap, setShowHeatmap] = useState(false);
  const [regions, setRegions] = useState<FileRegions | null>(null);
  const [regionsError, setRegionsError] = useState<string | null>(null);
  const dimensions = result.verdict?.dimensions ?? result.dimensions ?? [];
  const caseName = jobCase !== undefined ? jobCase : typeof job.metadata?.case === 'string' ? job.metadata.case : null;
  const titleId = `card-${result.file.id}`;
  // Keyboard focus through the removal: the confirmation's first control when it opens, the "Remove from case" button
  // again when the file is kept (or the core refused); once removed, the case view moves it (AssessView).
  const confirmFirst = useRef<HTMLButtonElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  const backToRemove = useRef(false);
  useEffect(() => {
    if (removing === 'ask') confirmFirst.current?.focus();
    if (removing === null && backToRemove.current) {
      backToRemove.current = false;
      removeButton.current?.focus();
    }
  }, [removing]);
  const keep = (): void => {
    backToRemove.current = true;
    setRemoving(null);
  };

  useEffect(() => {
    if (!showHeatmap || regions || result.status !== 'completed') return;
    let live = true;
    client
      .getRegions(apiKey, job.jobId, result.file.id)
      .then((r) => live && setRegions(r))
      .catch((e: unknown) => live && setRegionsError(errorWords(e, { fileName: result.file.name, action: 'Loading the heatmap' })));
    return () => {
      live = false;
    };
  }, [showHeatmap, regions, result.status, client, apiKey, job.jobId, result.file.id, result.file.name]);

  const grid = useMemo(() => (regions ? pickGrid(regions.grids) : null), [regions]);
  // up to a few thousand cells on a large photo (256 heatmap tiles): computed once per grid, not on every render
  const tiles = useMemo(() => (showHeatmap && grid ? overlayTiles(grid) : []), [showHeatmap, grid]);
  const assessment = result.verdict?.assessment;
  // A heatmap exists where the detector scored pixels: not for a file not assessed, nor a PDF with no picture in it.
  const hasHeatmap = result.status === 'completed' && aiScore(result) !== null;
  const title = verdictTitleWords(result.verdict);
  const lessCertain = result.verdict ? lessCertainWords(result.verdict.confidence, dimensions) : null;
  const pixels = pixelWords(result.pixelSize);

  return (
    <article
      className={`card status-${result.status}${assessment ? ` verdict-${assessment}` : ''}${focused ? ' focused' : ''}`}
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid="verdict-card"
      data-file-name={result.file.name}
      data-status={result.status}
      data-job-id={job.jobId}
      data-file-id={result.file.id}
      data-verdict={assessment ?? ''}
      data-effective={effectiveState(result)}
      data-focused={focused ? 'true' : undefined}
      data-duplicate={duplicateOf ? 'true' : undefined}
      data-ai-score={aiScore(result) ?? ''}
    >
      <div className="thumb-wrap" onClick={onView} data-clickable={onView ? 'true' : undefined}>
        <div className="thumb-frame">
          <Thumbnail client={client} apiKey={apiKey} jobId={job.jobId} file={result.file} />
          {tiles.length > 0 && (
            <div className="heatmap" aria-hidden="true" data-testid="heatmap">
              {tiles.map((t, i) => (
                <span key={i} className="tile" style={{ left: `${t.left}%`, top: `${t.top}%`, width: `${t.width}%`, height: `${t.height}%`, backgroundColor: t.color }} />
              ))}
            </div>
          )}
        </div>
      </div>

      <div className="card-body">
        <h3 id={titleId} className="file-name" title={result.file.name}>
          {result.file.name}
        </h3>
        <p className="facts">
          {MEDIA_WORDS[result.file.type] ?? result.file.type} · {formatBytes(result.file.size)}
          {pixels ? <span data-testid="pixel-size"> · {pixels}</span> : null}
          {caseName ? <> · case “{caseName}”</> : null}
        </p>
        {duplicateOf && (
          <p className="duplicate" data-testid="duplicate" role="note">
            Duplicate: the same file (SHA-256) as “{duplicateOf}”, already in this case.
          </p>
        )}

        {result.status === 'processing' && (
          <p className="pending" role="status" data-testid="file-stage" data-stage={stage ?? ''}>
            <span className="spinner" aria-hidden="true" />{' '}
            {stage === undefined ? `${ACCEPTED_STAGE_WORD}…` : stage === 'done' ? `${STAGE_WORDS.done}: reading the verdict…` : `${STAGE_WORDS[stage]}…`}
          </p>
        )}
        {result.status === 'error' && (
          <p className={result.error?.code === 'result_unavailable' ? 'result-unavailable' : 'result-error'} role="status">
            {resultErrorWords(result.error)}
          </p>
        )}
        {result.status === 'error' && (
          <button
            type="button"
            disabled={reassessing}
            onClick={() => {
              setReassessing(true);
              void onReassess().finally(() => setReassessing(false));
            }}
          >
            {reassessing ? 'Sending…' : 'Assess again'}
          </button>
        )}
        {result.status === 'completed' && result.verdict && (
          <div className="verdict">
            <p className="machine-label">Machine verdict</p>
            <p className={`badge badge-${result.verdict.assessment}`} data-testid="verdict-word">
              {ASSESSMENT_WORDS[result.verdict.assessment]}
            </p>
            <p className="confidence">{CONFIDENCE_WORDS[result.verdict.confidence]}</p>
            {title && <p className="verdict-title">{title}</p>}
            {result.verdict.display.description && (
              <p className="verdict-description">
                <Sentences text={result.verdict.display.description} notes={notes} />
              </p>
            )}
          </div>
        )}

        {dimensions.length > 0 && (
          <ul className="dimensions" aria-label="What each check found">
            {dimensions.map((d) => {
              const pct = Math.round(d.score * 100);
              const band = d.key === 'ai_detection' ? dimensionBand(d) : null;
              return (
                <li key={d.key} className="dimension" data-testid="dimension" data-key={d.key} data-band={band ?? undefined}>
                  <div className="dimension-head">
                    <span className="dimension-label">
                      {band && <BandSwatch band={band} />}
                      {checkName(d)}
                    </span>
                    {isEvidence(d) && <span className="dimension-score">{pct} %</span>}
                  </div>
                  {isEvidence(d) ? (
                    <div className="bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-label={`${checkName(d)}: score towards AI-generated`}>
                      {/* The gradient spans the whole bar (green to red), whatever the fill's width. */}
                      <span className="bar-fill" style={{ width: `${pct}%`, backgroundSize: `${pct > 0 ? 10000 / pct : 100}% 100%` }} />
                    </div>
                  ) : null}
                  <p className="dimension-finding" data-testid="dimension-finding">
                    <Sentences text={dimensionFinding(d)} notes={notes} />
                    {/* The detector's score is a reading even when it decides nothing: it is what "AI score" sorts by. */}
                    {!isEvidence(d) && d.key === 'ai_detection' ? ` · detector score ${pct} %` : ''}
                  </p>
                </li>
              );
            })}
          </ul>
        )}
        <C2paChain dimensions={dimensions} />
        {lessCertain && (
          <details className="why" data-testid="less-certain">
            <summary>{lessCertain.summary}</summary>
            <p>{lessCertain.detail}</p>
          </details>
        )}

        {onView && (
          <button type="button" className="view-button" onClick={onView} data-viewer-open={viewerKey} data-testid="open-viewer" aria-label={`View ${result.file.name} full size${hasHeatmap ? ' with its heatmap' : ''}`}>
            View full size{hasHeatmap ? ' with heatmap' : ''}
          </button>
        )}

        {hasHeatmap && result.file.type !== 'application/pdf' && (
          <label className="heatmap-toggle">
            <input type="checkbox" checked={showHeatmap} onChange={(e) => setShowHeatmap(e.target.checked)} /> Show heatmap of tile scores
          </label>
        )}
        {showHeatmap && regionsError && <p className="result-error">{regionsError}</p>}
        {showHeatmap && regions && !grid && <p className="hint">No tile scores for this file.</p>}
        {showHeatmap && grid && <ScoreLegend thresholds={grid.thresholds} modelVersion={regions?.modelVersion ?? null} />}

        {result.expertReview && (
          <p className="hint effective" data-testid="effective-verdict" data-source={verdictSource(result)}>
            Counts in the case as {ASSESSMENT_WORDS[result.expertReview.assessment]}: the expert review
            {result.verdict && result.verdict.assessment !== result.expertReview.assessment ? `, not the machine verdict (${ASSESSMENT_WORDS[result.verdict.assessment]})` : ''}.
          </p>
        )}
        <ReviewPanel client={client} apiKey={apiKey} job={job} result={result} onJobUpdated={onJobUpdated} />

        {onRemove && removing === null && (
          <button type="button" ref={removeButton} className="link remove-from-case" onClick={() => setRemoving('ask')} aria-label={`Remove ${result.file.name} from the case`}>
            Remove from case
          </button>
        )}
        {onRemove && removing !== null && (
          <div
            className="remove-confirm"
            role="group"
            aria-label={`Remove ${result.file.name} from the case`}
            aria-describedby={`${titleId}-remove-question`}
            data-testid="remove-confirm"
            onKeyDown={(e) => {
              if (e.key === 'Escape' && removing === 'ask') keep();
            }}
          >
            <p id={`${titleId}-remove-question`}>
              Remove “{result.file.name}” from case{openCase ? ` “${openCase}”` : ''}? Its job stays in History.
            </p>
            <div className="row">
              <button
                type="button"
                className="primary"
                ref={confirmFirst}
                disabled={removing === 'busy'}
                onClick={() => {
                  setRemoving('busy');
                  void onRemove().then((ok) => !ok && keep());
                }}
              >
                Remove
              </button>
              <button type="button" onClick={keep}>
                Keep
              </button>
            </div>
          </div>
        )}
      </div>
    </article>
  );
}
