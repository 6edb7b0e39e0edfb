// History: opens on the cases (name, status, notes, counts by effective verdict, last change; GET /app/cases), then a
// case's files; or every file of both applications, searched by case, file name, SHA-256 (or its first 8+ digits),
// date range, effective verdict and review (GET /app/history). "Open" on a file opens its case at that file on the
// Assess screen (a file in no case opens alone).
import { useCallback, useEffect, useState } from 'react';
import type { ApplicationInfo, CaseInfo, CaseList, CaseStatus, HistoryEntry, HistoryList } from '../../src/api/app-schemas.js';
import type { PipelineKind, VerdictAssessment } from '../../src/api/schemas.js';
import type { ApiClient, HistorySearch } from '../lib/api-client.js';
import { rememberActiveCase, type AppKey, type TrackedJob } from '../lib/case-session.js';
import { CASE_STATUS_WORDS, errorWords } from '../lib/words.js';
import { usableKey } from '../lib/active-keys.js';

interface Props {
  client: ApiClient;
  applications: ApplicationInfo[];
  keys: Partial<Record<PipelineKind, AppKey>>;
  /** Shows jobs in no case on the Assess screen. */
  onOpen: (jobs: TrackedJob[]) => void;
  /** Opens a case on the Assess screen, at one of its files when given. */
  onOpenCase: (caseId: string, fileId?: string) => void;
}

export const PAGE_SIZE = 10;

type Filters = Omit<HistorySearch, 'page' | 'pageSize'>;
type View = { kind: 'cases' } | { kind: 'case'; info: CaseInfo } | { kind: 'files' };

const VERDICT_WORDS: Record<VerdictAssessment, string> = {
  ai_generated: 'AI-generated',
  authentic: 'Authentic',
  inconclusive: 'Inconclusive',
};
const VERDICTS = Object.keys(VERDICT_WORDS) as VerdictAssessment[];

/** A date field (yyyy-mm-dd, local) as the instant its day starts or ends, in the window's time zone. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number);
  return (end ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d)).toISOString();
}

/**
 * A page of a list read from the core by `read` (a callback that changes when the page or the search does), read
 * again every 2 s while History is open and `stillRunning` says some of it is still being analysed.
 */
function usePolledList<T>(read: () => Promise<T>, action: string, stillRunning: (list: T) => boolean) {
  const [list, setList] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    setBusy(true);
    setError(null);
    try {
      setList(await read());
    } catch (e) {
      setError(errorWords(e, { action }));
    } finally {
      setBusy(false);
    }
  }, [read, action]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!list || !stillRunning(list)) return;
    const timer = setTimeout(() => void load(), 2000);
    return () => clearTimeout(timer);
  }, [list, load, stillRunning]);
  return { list, error, setError, busy };
}

const casesRunning = (list: CaseList): boolean => list.cases.some((c) => c.counts.processing > 0);
const filesRunning = (list: HistoryList): boolean => list.files.some((f) => f.status === 'processing');

export function HistoryView(props: Props): React.JSX.Element {
  const [view, setView] = useState<View>({ kind: 'cases' });
  return (
    <section aria-labelledby="history-title" className="history">
      <h2 id="history-title">History</h2>
      <nav className="row history-views" aria-label="History views">
        <button type="button" aria-pressed={view.kind !== 'files'} onClick={() => setView({ kind: 'cases' })}>
          Cases
        </button>
        <button type="button" aria-pressed={view.kind === 'files'} onClick={() => setView({ kind: 'files' })}>
          All files
        </button>
      </nav>
      {view.kind === 'cases' && <CaseTable client={props.client} onFiles={(info) => setView({ kind: 'case', info })} onOpenCase={props.onOpenCase} />}
      {view.kind === 'case' && (
        <>
          <div className="row case-files-head">
            <button type="button" className="link" onClick={() => setView({ kind: 'cases' })}>
              ← All cases
            </button>
            <h3 data-testid="history-case-title">Files of case “{view.info.name}”</h3>
            <button type="button" onClick={() => props.onOpenCase(view.info.id)}>
              Open case
            </button>
          </div>
          <FileSearch {...props} key={view.info.id} caseId={view.info.id} />
        </>
      )}
      {view.kind === 'files' && <FileSearch {...props} caseId={null} />}
    </section>
  );
}

/** The cases, most recently changed first, with their counts by effective verdict. */
function CaseTable({ client, onFiles, onOpenCase }: { client: ApiClient; onFiles: (info: CaseInfo) => void; onOpenCase: (caseId: string) => void }): React.JSX.Element {
  const [form, setForm] = useState({ q: '', status: '' });
  const [query, setQuery] = useState<{ q?: string; status?: CaseStatus }>({});
  const [page, setPage] = useState(1);
  const read = useCallback(() => client.listCases({ ...query, page, pageSize: PAGE_SIZE }), [client, query, page]);
  const { list, error, busy } = usePolledList(read, 'Listing the cases', casesRunning);

  const filtered = query.q !== undefined || query.status !== undefined;
  return (
    <>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setQuery({ q: form.q.trim() || undefined, status: (form.status || undefined) as CaseStatus | undefined });
        }}
      >
        <label>
          Case name <input value={form.q} onChange={(e) => setForm({ ...form, q: e.target.value })} maxLength={500} placeholder="part of a case name" />
        </label>
        <label>
          Status{' '}
          <select value={form.status} onChange={(e) => setForm({ ...form, status: e.target.value })}>
            <option value="">Any</option>
            {(Object.keys(CASE_STATUS_WORDS) as CaseStatus[]).map((s) => (
              <option key={s} value={s}>
                {CASE_STATUS_WORDS[s]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Find cases</button>
      </form>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
      {list && list.cases.length === 0 && <p>No cases{filtered ? ' match this search' : ' yet'}.</p>}
      {list && list.cases.length > 0 && (
        <div className="table-scroll">
          <table className="jobs" aria-busy={busy}>
            <caption className="visually-hidden">Cases, most recently changed first</caption>
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Status</th>
                <th scope="col">Notes</th>
                <th scope="col">
                  Verdicts <span className="hint">(expert review where there is one)</span>
                </th>
                <th scope="col">Last change</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.cases.map((c) => (
                <tr key={c.id} data-testid="case-row" data-case-id={c.id}>
                  <td>{c.name}</td>
                  <td data-testid="case-row-status">{CASE_STATUS_WORDS[c.status]}</td>
                  <td className="notes-cell" title={c.notes} data-testid="case-row-notes">
                    {c.notes || <span className="hint">none</span>}
                  </td>
                  <td className="case-counts" data-testid="case-row-counts">
                    {caseCountWords(c)}
                  </td>
                  <td>{new Date(c.updatedAt).toLocaleString()}</td>
                  <td>
                    <div className="row">
                      <button type="button" onClick={() => onFiles(c)} aria-label={`Files of case ${c.name}`}>
                        Files
                      </button>
                      <button type="button" onClick={() => onOpenCase(c.id)} aria-label={`Open case ${c.name}`}>
                        Open case
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pagination={list?.pagination} page={page} busy={busy} noun="case" onPage={setPage} />
    </>
  );
}

/** "3 files: 1 AI-generated · 2 authentic · 1 reviewed", by effective verdict. */
export function caseCountWords(c: Pick<CaseInfo, 'fileCount' | 'effectiveCounts' | 'reviewed'>): string {
  const n = c.effectiveCounts;
  const parts = [
    ...VERDICTS.filter((v) => n[v] > 0).map((v) => `${n[v]} ${VERDICT_WORDS[v].toLowerCase()}`),
    ...(n.processing > 0 ? [`${n.processing} being analysed`] : []),
    ...(n.error > 0 ? [`${n.error} not assessed`] : []),
  ];
  const files = `${c.fileCount} file${c.fileCount === 1 ? '' : 's'}`;
  return `${files}${parts.length ? `: ${parts.join(' · ')}` : ''} · ${c.reviewed} reviewed`;
}

/** Files of one case (caseId) or of every case, with the search form. */
function FileSearch({ client, applications, onOpen, onOpenCase, caseId }: Props & { caseId: string | null }): React.JSX.Element {
  const blank = { caseName: '', fileName: '', sha256: '', from: '', to: '', verdict: '', reviewed: '' };
  const [form, setForm] = useState(blank);
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState(1);
  /** The SHA-256 typed when it cannot be searched for (not 8 to 64 hex digits): said on the page, with no list under it. */
  const [badSha, setBadSha] = useState<string | null>(null);
  const read = useCallback(() => client.searchHistory({ ...filters, ...(caseId ? { caseId } : {}), page, pageSize: PAGE_SIZE }), [client, filters, page, caseId]);
  const { list, error, setError, busy } = usePolledList(read, 'Searching the history', filesRunning);

  /** The window's key for an application's /v1 calls (the job's own application: keys never cross applications). */
  const keyFor = (applicationId: string): { apiKey: string; kind: PipelineKind } | null => {
    const application = applications.find((a) => a.id === applicationId);
    const apiKey = application ? usableKey(application) : null;
    return application && apiKey ? { apiKey, kind: application.kind } : null;
  };

  /** A file in a case opens its case at that file; a file in no case opens its job alone. */
  const openFile = async (entry: HistoryEntry): Promise<void> => {
    if (entry.caseId) return onOpenCase(entry.caseId, entry.fileId);
    const key = keyFor(entry.applicationId);
    if (!key) return setError('The application of this job is no longer available.');
    try {
      const job = await client.getJob(key.apiKey, entry.jobId);
      rememberActiveCase(null);
      onOpen([{ job, kind: key.kind, apiKey: key.apiKey }]);
    } catch (e) {
      setError(errorWords(e, { action: 'Opening the job' }));
    }
  };

  const search = (): void => {
    const text = (s: string) => s.trim() || undefined;
    const sha = form.sha256.trim();
    // The browser's own bubble alone leaves the last results listed as if they answered this search (audit item 6).
    if (sha !== '' && !SHA_PREFIX.test(sha)) {
      setBadSha(sha);
      return;
    }
    setBadSha(null);
    setPage(1);
    setFilters({
      caseName: caseId ? undefined : text(form.caseName),
      fileName: text(form.fileName),
      sha256: text(form.sha256),
      from: dayBound(form.from, false),
      to: dayBound(form.to, true),
      verdict: (form.verdict || undefined) as VerdictAssessment | undefined,
      reviewed: form.reviewed === '' ? undefined : form.reviewed === 'yes',
    });
  };
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const field = (name: keyof typeof form) => ({ value: form[name], onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }) });

  return (
    <>
      <form
        className="filters"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          search();
        }}
      >
        {!caseId && (
          <label>
            Case <input {...field('caseName')} maxLength={500} placeholder="part of a case name" />
          </label>
        )}
        <label>
          File name <input {...field('fileName')} maxLength={500} placeholder="part of a file name" />
        </label>
        <label>
          SHA-256{' '}
          <input
            {...field('sha256')}
            maxLength={64}
            pattern="\s*[0-9a-fA-F]{8,64}\s*"
            aria-invalid={badSha !== null}
            aria-describedby={badSha !== null ? 'sha-invalid' : undefined}
            title="The SHA-256, or its first 8 or more hexadecimal digits"
            placeholder="first 8+ hex digits"
            spellCheck={false}
          />
        </label>
        <label>
          From <input type="date" {...field('from')} />
        </label>
        <label>
          To <input type="date" {...field('to')} />
        </label>
        <label>
          Verdict <span className="hint">(expert review where there is one)</span>{' '}
          <select {...field('verdict')}>
            <option value="">Any</option>
            {VERDICTS.map((v) => (
              <option key={v} value={v}>
                {VERDICT_WORDS[v]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Review{' '}
          <select {...field('reviewed')}>
            <option value="">Any</option>
            <option value="yes">Reviewed</option>
            <option value="no">Not reviewed</option>
          </select>
        </label>
        <button type="submit">Filter</button>
        {(filtered || badSha !== null) && (
          <button
            type="button"
            onClick={() => {
              setForm(blank);
              setBadSha(null);
              setFilters({});
              setPage(1);
            }}
          >
            Show everything
          </button>
        )}
      </form>
      {badSha !== null && (
        <p className="result-error" role="alert" id="sha-invalid" data-testid="sha-invalid">
          A SHA-256 search needs 8 to 64 hexadecimal digits (0–9 and a–f), the whole hash or its first digits: “{badSha}” is not one, so nothing was searched.
        </p>
      )}
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
      {badSha === null && list && list.files.length === 0 && <p>No files{filtered ? ' match this search' : ' yet'}.</p>}
      {badSha === null && list && list.files.length > 0 && (
        <div className="table-scroll">
          <table className="jobs" aria-busy={busy}>
            <caption className="visually-hidden">{caseId ? 'Files of the case' : 'Files of every application'}</caption>
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
                <tr key={entry.fileId} data-testid="history-row" data-sha256={entry.sha256} data-file-id={entry.fileId}>
                  <td>{new Date(entry.createdAt).toLocaleString()}</td>
                  <td>{entry.caseName ?? <span className="hint">none</span>}</td>
                  <td>
                    {entry.name} <span className="hint">({entry.kind === 'images' ? 'image' : 'PDF'})</span>
                  </td>
                  <td data-testid="history-verdict" data-source={entry.reviewAssessment ? 'review' : 'machine'}>
                    {verdictCell(entry)}
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
                      <button
                        type="button"
                        onClick={() => void openFile(entry)}
                        aria-label={`Open job ${entry.jobId.slice(0, 8)}: ${entry.name}${entry.caseName !== null ? ` in case ${entry.caseName}` : ''}`}
                      >
                        Open
                      </button>
                      {!caseId && entry.caseId && entry.caseName !== null && (
                        <button type="button" onClick={() => onOpenCase(entry.caseId!)} aria-label={`Open every job of case ${entry.caseName}`}>
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
      <Pager pagination={badSha === null ? list?.pagination : undefined} page={page} busy={busy} noun="file" onPage={setPage} />
    </>
  );
}

/** Previous and Next about "Page 2 of 5 · 43 files" (`noun` in the singular); nothing while the list is empty. */
function Pager({ pagination, page, busy, noun, onPage }: { pagination: HistoryList['pagination'] | undefined; page: number; busy: boolean; noun: string; onPage: (page: number) => void }): React.JSX.Element | null {
  if (!pagination || pagination.total === 0) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1 || busy} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span data-testid="page-status">
        Page {pagination.page} of {Math.max(pagination.totalPages, 1)} · {pagination.total} {noun}{pagination.total === 1 ? '' : 's'}
      </span>
      <button type="button" disabled={!pagination.hasNextPage || busy} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** The effective verdict, and which one it is: the expert review (with the machine's beside it) or the machine's. */
function verdictCell(entry: HistoryEntry): string {
  if (entry.reviewAssessment) {
    const machine = entry.assessment && entry.assessment !== entry.reviewAssessment ? `; machine: ${VERDICT_WORDS[entry.assessment]}` : '';
    return `${VERDICT_WORDS[entry.reviewAssessment]} (expert review${machine})`;
  }
  return entry.assessment ? `${VERDICT_WORDS[entry.assessment]} (machine)` : '–';
}

/** What the SHA-256 field takes: the whole hash or its first 8 or more digits, in either case. */
const SHA_PREFIX = /^[0-9a-fA-F]{8,64}$/;

const STATUS_WORDS: Record<HistoryEntry['status'], string> = {
  processing: 'Being analysed',
  completed: 'Finished',
  error: 'Failed',
};
