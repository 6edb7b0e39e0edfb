// History: every file of both applications, newest first, searched by case (part of its name), file name, SHA-256,
// date range and verdict (GET /app/history); any file's job, or its whole case, can be reopened on the Assess screen.
import { useCallback, useEffect, useState } from 'react';
import type { ApplicationInfo, HistoryEntry, HistoryList } from '../../src/api/app-schemas.js';
import type { PipelineKind, VerdictAssessment } from '../../src/api/schemas.js';
import { ApiFailure, type ApiClient, type HistorySearch } from '../lib/api-client.js';
import { rememberActiveCase, type AppKey, type TrackedJob } from '../lib/case-session.js';
import { failureWords } from '../lib/words.js';
import { usableKey } from '../lib/active-keys.js';

interface Props {
  client: ApiClient;
  applications: ApplicationInfo[];
  keys: Partial<Record<PipelineKind, AppKey>>;
  onOpen: (jobs: TrackedJob[]) => void;
}

export const PAGE_SIZE = 10;

type Filters = Omit<HistorySearch, 'page' | 'pageSize'>;

const VERDICT_WORDS: Record<VerdictAssessment, string> = {
  ai_generated: 'AI-generated',
  authentic: 'Authentic',
  inconclusive: 'Inconclusive',
};

/** A date field (yyyy-mm-dd, local) as the instant its day starts or ends, in the window's time zone. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number);
  return (end ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d)).toISOString();
}

export function HistoryView({ client, applications, onOpen }: Props): React.JSX.Element {
  const [form, setForm] = useState({ caseName: '', fileName: '', sha256: '', from: '', to: '', verdict: '' });
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState(1);
  const [list, setList] = useState<HistoryList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    setBusy(true);
    setError(null);
    try {
      setList(await client.searchHistory({ ...filters, page, pageSize: PAGE_SIZE }));
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: 'Searching the history' }) : String(e));
    } finally {
      setBusy(false);
    }
  }, [client, filters, page]);

  useEffect(() => {
    void load();
  }, [load]);

  // Rows of files still being analysed are read again every 2 s while History is open.
  useEffect(() => {
    if (!list?.files.some((f) => f.status === 'processing')) return;
    const timer = setTimeout(() => void load(), 2000);
    return () => clearTimeout(timer);
  }, [list, load]);

  /** The window's key for an application's /v1 calls (the job's own application: keys never cross applications). */
  const keyFor = (applicationId: string): { apiKey: string; kind: PipelineKind } | null => {
    const application = applications.find((a) => a.id === applicationId);
    const apiKey = application ? usableKey(application) : null;
    return application && apiKey ? { apiKey, kind: application.kind } : null;
  };

  const openJob = async (entry: HistoryEntry): Promise<void> => {
    const key = keyFor(entry.applicationId);
    if (!key) return setError('The application of this job is no longer available.');
    try {
      const job = await client.getJob(key.apiKey, entry.jobId);
      rememberActiveCase(entry.caseId);
      onOpen([{ job, kind: key.kind, apiKey: key.apiKey }]);
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: 'Opening the job' }) : String(e));
    }
  };

  /** Every job of the case, of both applications, in the order they were submitted; the case becomes the active one. */
  const openCase = async (caseId: string, caseName: string): Promise<void> => {
    try {
      const tracked: TrackedJob[] = [];
      for (let p = 1; p <= 20; p++) {
        const listed = await client.caseJobs(caseId, p, 100);
        for (const entry of listed.jobs) {
          const key = keyFor(entry.applicationId);
          if (key) tracked.push({ job: entry.job, kind: entry.kind, apiKey: key.apiKey });
        }
        if (!listed.pagination.hasNextPage) break;
      }
      rememberActiveCase(caseId);
      onOpen(tracked);
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: `Opening case “${caseName}”` }) : String(e));
    }
  };

  const search = (): void => {
    const text = (s: string) => s.trim() || undefined;
    setPage(1);
    setFilters({
      caseName: text(form.caseName),
      fileName: text(form.fileName),
      sha256: text(form.sha256),
      from: dayBound(form.from, false),
      to: dayBound(form.to, true),
      verdict: (form.verdict || undefined) as VerdictAssessment | undefined,
    });
  };
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const field = (name: keyof typeof form) => ({ value: form[name], onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }) });

  const pagination = list?.pagination;
  return (
    <section aria-labelledby="history-title" className="history">
      <h2 id="history-title">History</h2>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          search();
        }}
      >
        <label>
          Case <input {...field('caseName')} maxLength={500} placeholder="part of a case name" />
        </label>
        <label>
          File name <input {...field('fileName')} maxLength={500} placeholder="part of a file name" />
        </label>
        <label>
          SHA-256 <input {...field('sha256')} maxLength={64} pattern="[0-9a-fA-F]{64}" placeholder="64 hex digits" spellCheck={false} />
        </label>
        <label>
          From <input type="date" {...field('from')} />
        </label>
        <label>
          To <input type="date" {...field('to')} />
        </label>
        <label>
          Verdict{' '}
          <select {...field('verdict')}>
            <option value="">Any</option>
            {(Object.keys(VERDICT_WORDS) as VerdictAssessment[]).map((v) => (
              <option key={v} value={v}>
                {VERDICT_WORDS[v]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
        {filtered && (
          <button
            type="button"
            onClick={() => {
              setForm({ caseName: '', fileName: '', sha256: '', from: '', to: '', verdict: '' });
              setFilters({});
              setPage(1);
            }}
          >
            Show everything
          </button>
        )}
      </form>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
      {list && list.files.length === 0 && <p>No files{filtered ? ' match this search' : ' yet'}.</p>}
      {list && list.files.length > 0 && (
        <div className="table-scroll">
        <table className="jobs" aria-busy={busy}>
          <caption className="visually-hidden">Files of every application</caption>
          <thead>
            <tr>
              <th scope="col">Submitted</th>
              <th scope="col">Case</th>
              <th scope="col">File</th>
              <th scope="col">Verdict</th>
              <th scope="col">Status</th>
              <th scope="col">SHA-256</th>
              <th scope="col">Job</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.files.map((entry) => (
              <tr key={entry.fileId} data-testid="history-row" data-sha256={entry.sha256}>
                <td>{new Date(entry.createdAt).toLocaleString()}</td>
                <td>{entry.caseName ?? <span className="hint">none</span>}</td>
                <td>
                  {entry.name} <span className="hint">({entry.kind === 'images' ? 'image' : 'PDF'})</span>
                </td>
                <td data-testid="history-verdict">
                  {entry.assessment ? VERDICT_WORDS[entry.assessment] : '–'}
                  {entry.reviewAssessment && <span className="hint"> · reviewed: {VERDICT_WORDS[entry.reviewAssessment]}</span>}
                </td>
                <td>{STATUS_WORDS[entry.status]}</td>
                <td>
                  <span className="hash" title={entry.sha256}>
                    {entry.sha256.slice(0, 12)}…
                  </span>
                </td>
                <td>
                  <code title={entry.jobId}>{entry.jobId.slice(0, 8)}</code>
                </td>
                <td>
                  <div className="row">
                    <button type="button" onClick={() => void openJob(entry)} aria-label={`Open job ${entry.jobId.slice(0, 8)}`}>
                      Open
                    </button>
                    {entry.caseId && entry.caseName !== null && (
                      <button type="button" onClick={() => void openCase(entry.caseId!, entry.caseName!)} aria-label={`Open every job of case ${entry.caseName}`}>
                        Open case
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
      {pagination && pagination.total > 0 && (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={page <= 1 || busy} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span data-testid="page-status">
            Page {pagination.page} of {Math.max(pagination.totalPages, 1)} · {pagination.total} file{pagination.total === 1 ? '' : 's'}
          </span>
          <button type="button" disabled={!pagination.hasNextPage || busy} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

const STATUS_WORDS: Record<HistoryEntry['status'], string> = {
  processing: 'Being analysed',
  completed: 'Finished',
  error: 'Failed',
};
