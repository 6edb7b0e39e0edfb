// History: the jobs of each application, page by page, filtered by case; any job, or every job of its case, can be
// reopened on the Assess screen (where its report can be exported again).
import { useCallback, useEffect, useState } from 'react';
import type { ApplicationInfo } from '../../src/api/app-schemas.js';
import type { JobList, JobResult, PipelineKind } from '../../src/api/schemas.js';
import { ApiFailure, type ApiClient } from '../lib/api-client.js';
import type { AppKey, TrackedJob } from '../lib/case-session.js';
import { failureWords } from '../lib/words.js';
import { usableKey } from '../lib/active-keys.js';

interface Props {
  client: ApiClient;
  applications: ApplicationInfo[];
  keys: Partial<Record<PipelineKind, AppKey>>;
  onOpen: (jobs: TrackedJob[]) => void;
}

export const PAGE_SIZE = 10;

const keyOf = (application: ApplicationInfo): string | null => usableKey(application);

export function HistoryView({ client, applications, onOpen }: Props): React.JSX.Element {
  const usable = applications.filter((a) => keyOf(a) !== null);
  const [applicationId, setApplicationId] = useState(usable[0]?.id ?? '');
  const [caseInput, setCaseInput] = useState('');
  const [caseFilter, setCaseFilter] = useState('');
  const [page, setPage] = useState(1);
  const [list, setList] = useState<JobList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const application = usable.find((a) => a.id === applicationId) ?? null;
  const [details, setDetails] = useState<Record<string, JobResult>>({});

  const load = useCallback(async () => {
    if (!application) return;
    const apiKey = keyOf(application);
    if (!apiKey) return;
    setBusy(true);
    setError(null);
    try {
      setList(await client.listJobs(apiKey, { applicationId: application.id, page, pageSize: PAGE_SIZE, caseName: caseFilter || undefined }));
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: 'Loading the history' }) : String(e));
    } finally {
      setBusy(false);
    }
  }, [client, application, page, caseFilter]);

  useEffect(() => {
    void load();
  }, [load]);

  // What each listed job holds (files, status): ten small reads per page, so the list says more than an id.
  useEffect(() => {
    if (!list || !application) return;
    const apiKey = keyOf(application);
    if (!apiKey) return;
    let live = true;
    void (async () => {
      let pending = list.jobs.map((entry) => entry.id);
      // Rows of jobs still being analysed are read again every 2 s while History is open.
      for (let round = 0; round < 300 && pending.length > 0 && live; round++) {
        if (round > 0) await new Promise((r) => setTimeout(r, 2000));
        const next: string[] = [];
        for (const id of pending) {
          if (!live) return;
          try {
            const job = await client.getJob(apiKey, id);
            if (live) setDetails((d) => ({ ...d, [id]: job }));
            if (job.status === 'processing') next.push(id);
          } catch {
            // The row keeps its id; opening it will say what is wrong.
          }
        }
        pending = next;
      }
    })();
    return () => {
      live = false;
    };
  }, [list, application, client]);

  const openJob = async (jobId: string): Promise<void> => {
    if (!application) return;
    const apiKey = keyOf(application);
    if (!apiKey) return;
    try {
      const job = await client.getJob(apiKey, jobId);
      onOpen([{ job, kind: application.kind, apiKey }]);
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: 'Opening the job' }) : String(e));
    }
  };

  /** Every job of a case, across all applications (images and PDFs of one case live in different applications). */
  const openCase = async (caseName: string): Promise<void> => {
    try {
      const tracked: TrackedJob[] = [];
      for (const app of usable) {
        const apiKey = keyOf(app);
        if (!apiKey) continue;
        for (let p = 1; p <= 20; p++) {
          const listed = await client.listJobs(apiKey, { applicationId: app.id, page: p, pageSize: 100, caseName });
          for (const entry of listed.jobs) tracked.push({ job: await client.getJob(apiKey, entry.id), kind: app.kind, apiKey });
          if (!listed.pagination.hasNextPage) break;
        }
      }
      tracked.sort((a, b) => a.job.createdAt.localeCompare(b.job.createdAt));
      onOpen(tracked);
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: `Opening case “${caseName}”` }) : String(e));
    }
  };

  if (usable.length === 0) return <p className="warning">No application yet. Create one in Settings.</p>;

  const pagination = list?.pagination;
  return (
    <section aria-labelledby="history-title" className="history">
      <h2 id="history-title">History</h2>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setCaseFilter(caseInput.trim());
        }}
      >
        <label>
          Application{' '}
          <select
            value={applicationId}
            onChange={(e) => {
              setApplicationId(e.target.value);
              setPage(1);
            }}
          >
            {usable.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.kind === 'images' ? 'images' : 'PDFs'})
              </option>
            ))}
          </select>
        </label>
        <label>
          Case <input value={caseInput} onChange={(e) => setCaseInput(e.target.value)} maxLength={200} placeholder="exact case name" />
        </label>
        <button type="submit">Filter</button>
        {caseFilter && (
          <button
            type="button"
            onClick={() => {
              setCaseInput('');
              setCaseFilter('');
              setPage(1);
            }}
          >
            Show all cases
          </button>
        )}
      </form>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
      {list && list.jobs.length === 0 && <p>No jobs{caseFilter ? ` for case “${caseFilter}”` : ''} yet.</p>}
      {list && list.jobs.length > 0 && (
        <table className="jobs" aria-busy={busy}>
          <caption className="visually-hidden">Jobs of {application?.name}</caption>
          <thead>
            <tr>
              <th scope="col">Submitted</th>
              <th scope="col">Case</th>
              <th scope="col">Files</th>
              <th scope="col">Status</th>
              <th scope="col">Job</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.jobs.map((entry) => {
              const caseName = typeof entry.metadata.case === 'string' ? entry.metadata.case : null;
              return (
                <tr key={entry.id} data-testid="history-row">
                  <td>{entry.createdAt ? new Date(entry.createdAt).toLocaleString() : '–'}</td>
                  <td>{caseName ?? <span className="hint">none</span>}</td>
                  <td>{describeFiles(details[entry.id])}</td>
                  <td>{describeStatus(details[entry.id])}</td>
                  <td>
                    <code title={entry.id}>{entry.id.slice(0, 8)}</code>
                  </td>
                  <td>
                    <div className="row">
                    <button type="button" onClick={() => void openJob(entry.id)} aria-label={`Open job ${entry.id.slice(0, 8)}`}>
                      Open
                    </button>
                    {caseName && (
                      <button type="button" onClick={() => void openCase(caseName)} aria-label={`Open every job of case ${caseName}`}>
                        Open case
                      </button>
                    )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {pagination && pagination.total > 0 && (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={page <= 1 || busy} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span data-testid="page-status">
            Page {pagination.page} of {Math.max(pagination.totalPages, 1)} · {pagination.total} job{pagination.total === 1 ? '' : 's'}
          </span>
          <button type="button" disabled={!pagination.hasNextPage || busy} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

function describeFiles(job: JobResult | undefined): string {
  if (!job) return '…';
  const first = job.results[0]?.file.name ?? '';
  const more = job.results.length - 1;
  return more > 0 ? `${first} and ${more} more` : first || 'none';
}

const STATUS_WORDS: Record<JobResult['status'], string> = {
  processing: 'Being analysed',
  completed: 'Finished',
  error: 'Finished with errors',
  rejected: 'Rejected',
};

function describeStatus(job: JobResult | undefined): string {
  if (!job) return '…';
  const reviewed = job.results.filter((r) => r.expertReview).length;
  return `${STATUS_WORDS[job.status]}${reviewed > 0 ? ` · ${reviewed} reviewed` : ''}`;
}
