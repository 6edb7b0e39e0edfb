// The specialist's own assessment of a file, stored by the core as expertReview (DECISIONS 7) and shown beside the
// machine verdict, never in its place.
import { useEffect, useId, useRef, useState } from 'react';
import type { FileResult, JobResult, VerdictAssessment } from '../../src/api/schemas.js';
import type { ApiClient } from '../lib/api-client.js';
import { rememberReviewer, reviewerName } from '../lib/reviewer-name.js';
import { ASSESSMENT_WORDS, errorWords } from '../lib/words.js';

interface Props {
  client: ApiClient;
  apiKey: string;
  job: JobResult;
  result: FileResult;
  onJobUpdated: (job: JobResult) => void;
}

export function ReviewPanel({ client, apiKey, job, result, onJobUpdated }: Props): React.JSX.Element {
  const review = result.expertReview;
  const [editing, setEditing] = useState(false);
  const [assessment, setAssessment] = useState<VerdictAssessment | ''>(review?.assessment ?? '');
  const [note, setNote] = useState(review?.note ?? '');
  const [reviewer, setReviewer] = useState(review?.reviewer ?? reviewerName());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const firstField = useRef<HTMLFieldSetElement>(null);

  // Opening the form moves the keyboard focus into it.
  useEffect(() => {
    if (editing) firstField.current?.querySelector('input')?.focus();
  }, [editing]);

  const run = async (action: string, call: () => Promise<JobResult>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      onJobUpdated(await call());
      setEditing(false);
    } catch (e) {
      setError(errorWords(e, { fileName: result.file.name, action }));
    } finally {
      setBusy(false);
    }
  };

  const save = (event: React.FormEvent): void => {
    event.preventDefault();
    if (!assessment || reviewer.trim() === '') {
      setError('Choose an assessment and give your name.');
      return;
    }
    rememberReviewer(reviewer.trim());
    const body = { assessment, reviewer: reviewer.trim(), ...(note.trim() ? { note: note.trim() } : {}) };
    void run('Saving the review', () => client.putReview(apiKey, job.jobId, result.file.id, body));
  };

  return (
    <section className="review" aria-label={`Expert review of ${result.file.name}`}>
      {review && !editing && (
        <div className="review-shown" data-testid="expert-review">
          <p className="machine-label">Expert review</p>
          <p className={`badge badge-${review.assessment}`}>{ASSESSMENT_WORDS[review.assessment]}</p>
          <p className="hint">
            by {review.reviewer}, {new Date(review.reviewedAt).toLocaleString()}
          </p>
          {review.note && <p className="review-note">{review.note}</p>}
          <div className="row">
            <button type="button" onClick={() => setEditing(true)}>
              Edit review
            </button>
            <button type="button" disabled={busy} onClick={() => void run('Removing the review', () => client.deleteReview(apiKey, job.jobId, result.file.id))}>
              Remove review
            </button>
          </div>
        </div>
      )}
      {!review && !editing && (
        <button
          type="button"
          onClick={() => {
            // The name given in this launch's last review, whichever card it was on.
            setReviewer((typed) => typed.trim() || reviewerName());
            setEditing(true);
          }}
        >
          Add expert review
        </button>
      )}
      {editing && (
        <form onSubmit={save} className="review-form">
          <fieldset ref={firstField}>
            <legend>Your assessment</legend>
            {(['ai_generated', 'authentic', 'inconclusive'] as const).map((value) => (
              <label key={value} className="radio">
                <input type="radio" name={`${id}-assessment`} value={value} checked={assessment === value} onChange={() => setAssessment(value)} /> {ASSESSMENT_WORDS[value]}
              </label>
            ))}
          </fieldset>
          <label>
            Note <span className="hint">(optional)</span>
            <textarea value={note} onChange={(e) => setNote(e.target.value)} maxLength={4000} rows={3} />
          </label>
          <label>
            Reviewer
            <input value={reviewer} onChange={(e) => setReviewer(e.target.value)} maxLength={200} autoComplete="name" />
          </label>
          <div className="row">
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save review'}
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
