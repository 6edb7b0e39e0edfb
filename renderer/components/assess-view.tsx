// The Assess screen: the drop zone and pickers, what was refused and why, overall progress, and one verdict card
// per file of the working case; exports the case report.
import { useState, useSyncExternalStore } from 'react';
import { CASE_NAME_MAX } from '../../src/api/limits.js';
import type { PipelineKind } from '../../src/api/schemas.js';
import type { ApiClient } from '../lib/api-client.js';
import { progressOf, type AppKey, type CaseSession } from '../lib/case-session.js';
import type { CollectedFile } from '../lib/collect-files.js';
import { DropZone } from './drop-zone.js';
import { ReportExport } from './report-export.js';
import { VerdictCard } from './verdict-card.js';

interface Props {
  client: ApiClient;
  session: CaseSession;
  keys: Partial<Record<PipelineKind, AppKey>>;
}

export function AssessView({ client, session, keys }: Props): React.JSX.Element {
  const state = useSyncExternalStore(session.subscribe, session.getState);
  const [caseName, setCaseName] = useState('');
  const progress = progressOf(state.jobs);
  const cases = [...new Set(state.jobs.map((t) => t.job.metadata?.case).filter((c): c is string => typeof c === 'string'))];
  const missing = (['images', 'pdfs'] as const).filter((k) => !keys[k]);

  const onFiles = (files: CollectedFile[]): void => {
    session.submit(files).catch((error: unknown) => session.notice(`Sending failed: ${String(error)}`));
  };

  return (
    <section aria-labelledby="assess-title" className="assess">
      <h2 id="assess-title" className="visually-hidden">
        Assess files
      </h2>
      <div className="intake">
        <label className="case-name">
          Case name for loose files <span className="hint">(a dropped folder is a case of its own)</span>
          <input value={caseName} onChange={(e) => setCaseName(e.target.value)} maxLength={CASE_NAME_MAX} placeholder="e.g. Harbour fire, 12 May" />
        </label>
        <DropZone caseName={caseName.trim() || null} onFiles={onFiles} />
        {missing.length > 0 && (
          <p className="warning" role="status">
            No application for {missing.join(' and ')}: those files cannot be sent. Create one in Settings.
          </p>
        )}
      </div>

      {state.notices.length > 0 && (
        <ul className="notices" aria-label="Problems">
          {state.notices.map((n) => (
            <li key={n.id} role="alert" className="notice">
              <span>{n.text}</span>
              <button type="button" className="link" onClick={() => session.dismissNotice(n.id)} aria-label="Dismiss this message">
                Dismiss
              </button>
            </li>
          ))}
        </ul>
      )}

      {state.refused.length > 0 && (
        <section className="refused" aria-labelledby="refused-title">
          <h3 id="refused-title">Not sent ({state.refused.length})</h3>
          <ul>
            {state.refused.map((r, i) => (
              <li key={`${r.name}-${i}`}>
                <strong className="file-name">{r.name}</strong>: {r.reason}
              </li>
            ))}
          </ul>
        </section>
      )}

      {(state.jobs.length > 0 || state.sending.length > 0) && (
        <div className="case-bar">
          <div className="progress" role="status" aria-live="polite">
            <span>
              {progress.done} of {progress.total} file{progress.total === 1 ? '' : 's'} finished
              {cases.length > 0 ? ` · case ${cases.map((c) => `“${c}”`).join(', ')}` : ''}
              {state.sending.length > 0 ? ` · sending ${state.sending[0]}${state.sending.length > 1 ? ` and ${state.sending.length - 1} more` : ''}…` : ''}
            </span>
            <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label="Files finished" />
          </div>
          <div className="case-actions">
            <ReportExport client={client} jobs={state.jobs} caseName={cases.length === 1 ? cases[0] : null} />
            <button type="button" onClick={() => session.clear()}>
              Clear
            </button>
          </div>
        </div>
      )}

      <ul className="cards" aria-label="Verdicts">
        {state.jobs.flatMap((tracked) =>
          tracked.job.results.map((result) => (
            <li key={`${tracked.job.jobId}/${result.file.id}`}>
              <VerdictCard
                client={client}
                tracked={tracked}
                result={result}
                onJobUpdated={(job) => session.updateJob(job)}
                onReassess={() => session.reassess(tracked, result.file.id)}
              />
            </li>
          )),
        )}
      </ul>
    </section>
  );
}
