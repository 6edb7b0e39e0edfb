// The card of a dropped file whose job the core has not accepted yet: its name and size, and where it stands as the
// window itself knows it (waiting to send, sending, checking), or why it was not sent. Shown from the moment of the
// drop, in drop order; the file's verdict card takes its place once the core accepts the job.
import type { PendingFile } from '../lib/case-session.js';
import { formatBytes } from '../lib/plan-submission.js';
import { WINDOW_STAGE_HINTS, WINDOW_STAGE_WORDS } from '../lib/words.js';

export function PendingCard({ file }: { file: PendingFile }): React.JSX.Element {
  const titleId = `pending-${file.key.replace(/\W/g, '-')}`;
  const notSent = file.stage === 'not_sent';
  return (
    <article className={`card pending-card status-${notSent ? 'not-sent' : 'pending'}`} aria-labelledby={titleId} data-testid="pending-card" data-file-name={file.name} data-stage={file.stage}>
      <div className="thumb-wrap" aria-hidden="true">
        <div className="thumb thumb-icon">{notSent ? '—' : '…'}</div>
      </div>
      <div className="card-body">
        <h3 id={titleId} className="file-name" title={file.name}>
          {file.name}
        </h3>
        <p className="facts">{formatBytes(file.size)}</p>
        {notSent ? (
          <p className="result-error" role="status" data-testid="file-stage" data-stage={file.stage}>
            <strong>{WINDOW_STAGE_WORDS.not_sent}:</strong> {file.reason ?? WINDOW_STAGE_HINTS.not_sent}
          </p>
        ) : (
          <>
            <p className="pending" role="status" data-testid="file-stage" data-stage={file.stage}>
              <span className="spinner" aria-hidden="true" /> {WINDOW_STAGE_WORDS[file.stage]}…
            </p>
            <p className="hint">{WINDOW_STAGE_HINTS[file.stage]}</p>
          </>
        )}
      </div>
    </article>
  );
}
