// The working case on screen: sends planned requests (wait=false), keeps the accepted jobs, polls them until every
// file is finished, and records refusals and failures in words. A small store the React views subscribe to.
import type { CaseInfo } from '../../src/api/app-schemas.js';
import type { FileStage, JobProgress, JobResult, PipelineKind } from '../../src/api/schemas.js';
import { ApiFailure, type ApiClient } from './api-client.js';
import type { CollectedFile } from './collect-files.js';
import { fileIndexFromPath, planSubmission, refusalReason, requestMetadata, type CandidateFile, type PlannedRequest, type RefusedFile } from './plan-submission.js';
import { SNIFF_BYTES, sniff } from '../../src/api/media-kinds.js';
import { caseChangeWords, closedCaseWords, failureWords, refusalWords } from './words.js';

export interface AppKey {
  applicationId: string;
  apiKey: string;
}

export interface TrackedJob {
  job: JobResult;
  kind: PipelineKind;
  apiKey: string;
  /**
   * Where each file of the job (by result index) came in the specialist's drops. Requests are grouped by kind and
   * case, so without it a case's images would all come before its PDFs whatever order they were dropped in.
   */
  dropOrder?: number[];
  /** The SHA-256 of each file (by result index) where the window knows it: to flag a duplicate within the case. */
  sha256?: (string | null)[];
  /**
   * The id of the case the job is in, where the window knows it. A job's metadata.case is the name it was submitted
   * under, which a rename leaves behind: the screen and the report follow the case itself (caseNameOf).
   */
  caseId?: string;
}

/** The name of the case a job is in, as it is now: the open case's current name, or the name it was submitted under. */
export function caseNameOf(tracked: TrackedJob, activeCase: Pick<CaseInfo, 'id' | 'name'> | null): string | null {
  if (activeCase && tracked.caseId === activeCase.id) return activeCase.name;
  const named = tracked.job.metadata?.case;
  return typeof named === 'string' ? named : null;
}

/**
 * A drop waiting for the specialist's word (issue 22): files that would join the case on screen join it only once
 * the window has said so, with what it knows of them (PDFs into a case of images, files already in the case).
 */
export interface DropToConfirm {
  id: number;
  caseName: string;
  /** Every file of the drop; `joining` of them would go into the open case, the others name cases of their own. */
  files: CollectedFile[];
  joining: number;
  /** PDFs among the joining files while the open case holds images only: offered a case of their own. */
  pdfs: number;
  /** Names of joining files whose SHA-256 is already in the case. */
  duplicates: string[];
}

export type DropChoice = 'join' | 'join_pdfs_apart' | 'new_case' | 'cancel';

export interface Notice {
  id: number;
  text: string;
  /** `error`: something failed (an alert); `info`: where things went, said as a status, not as a problem. */
  kind: 'error' | 'info';
}

/**
 * Where a dropped file stands before the core has accepted its job, as the window itself knows it: its request body
 * being sent (from the moment of the drop), waiting for its request to go (an earlier request of the drop is being
 * sent first), sent and being received and checked by the core, or not sent (refused by the window's plan or by the
 * core, or the request failed).
 */
export type WindowStage = 'waiting' | 'sending' | 'checking' | 'not_sent';

/** A dropped file not yet in an accepted job: its card shows the window's stage until the job's own cards replace it. */
export interface PendingFile {
  /** Stable key of the card. */
  key: string;
  name: string;
  size: number;
  /** Position in the order the specialist dropped the files, counted across drops (as TrackedJob.dropOrder). */
  dropOrder: number;
  stage: WindowStage;
  /** Why the file was not sent (stage `not_sent`): the same words as its line in `refused` or its notice. */
  reason?: string;
  /**
   * The case the file was dropped for when it is not the open one (a folder naming a case of its own, PDFs put
   * apart); null for a file of the open case (or of the case about to be made for it). Only the open case's files
   * count on its screen (pendingOfCase).
   */
  caseName?: string | null;
}

/** The dropped files not yet in a job that belong on the open case's screen and in its counts. */
export function pendingOfCase(pending: PendingFile[], activeCase: Pick<CaseInfo, 'name'> | null): PendingFile[] {
  return pending.filter((p) => !p.caseName || activeCase === null || p.caseName === activeCase.name);
}

/**
 * Whether the window can reach its engine: `unreachable` once several polls in a row got no answer at all (the core
 * stopped), `restarted` once the core refused this window's per-launch credential (it was started again with a new
 * one). The files keep their last known state meanwhile.
 */
export type EngineState = 'ok' | 'unreachable' | 'restarted';

export interface SessionState {
  jobs: TrackedJob[];
  /** Every dropped file whose job the core has not accepted yet, and the files not sent, in drop order. */
  pending: PendingFile[];
  refused: RefusedFile[];
  notices: Notice[];
  /** Requests planned but not yet accepted, with a line saying what is being sent. */
  sending: string[];
  /** The case on screen: loose files join it, and the window reopens on it after a reload. */
  activeCase: CaseInfo | null;
  /** Each unfinished file's stage, from GET /v1/jobs/{jobId}/progress (by file id). */
  stages: Record<string, FileStage>;
  /** A drop into the open case waiting for the specialist's word, if any. */
  confirm: DropToConfirm | null;
  /** The file the window was asked to show (History's "Open"): its card is scrolled to and marked. */
  focusFile: string | null;
  /** Whether the last polls reached the engine (see EngineState). */
  engine: EngineState;
}

const EMPTY: SessionState = { jobs: [], pending: [], refused: [], notices: [], sending: [], activeCase: null, stages: {}, confirm: null, focusFile: null, engine: 'ok' };

/** Polls in a row that got no answer before the window says the engine cannot be reached. */
export const UNREACHABLE_AFTER = 3;

/** The name of a case made for files dropped with none named: the local date and time, to the second. */
export function dateCaseName(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/** The lower-case hex SHA-256 of a file, or null where the page has no Web Crypto (an insecure origin). */
export async function sha256Of(file: Blob): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const digest = new Uint8Array(await subtle.digest('SHA-256', await file.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Where the window remembers its case between reloads (the id only; the core holds the case). */
export const ACTIVE_CASE_KEY = 'veracity.activeCaseId';

export interface CaseStorage {
  getItem: (key: string) => string | null;
  setItem: (key: string, value: string) => void;
  removeItem: (key: string) => void;
}

const browserStorage = (): CaseStorage | null => {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage refused (a sandboxed page): the case is not remembered
  }
};

/** Makes `caseId` the case the window opens on (History calls this before opening a case's jobs). */
export function rememberActiveCase(caseId: string | null, storage: CaseStorage | null = browserStorage()): void {
  if (!storage) return;
  if (caseId === null) storage.removeItem(ACTIVE_CASE_KEY);
  else storage.setItem(ACTIVE_CASE_KEY, caseId);
}

export interface SessionDeps {
  client: ApiClient;
  keys: () => Partial<Record<PipelineKind, AppKey>>;
  sleep?: (ms: number) => Promise<void>;
  pollIntervalMs?: number;
  newId?: () => string;
  /** Where the active case's id is kept; defaults to localStorage. */
  storage?: CaseStorage | null;
  now?: () => Date;
  /**
   * Whether the window's credential is made afresh at each start of the core (browser mode of `npm start`): a refusal
   * of it then means Veracity was restarted, not that a job is gone.
   */
  tokenPerLaunch?: boolean;
}

/** Jobs of a case read back at once when the window opens on it (a case larger than this shows its first part). */
const CASE_JOBS_MAX = 2000;

const MAX_RETRIES = 5;

export function isTerminal(job: JobResult): boolean {
  return job.status !== 'processing';
}

/** How many unfinished files are at each stage, for the progress line ("3 queued, 1 analysing"). */
export function stageCounts(jobs: TrackedJob[], stages: Record<string, FileStage>): Partial<Record<FileStage, number>> {
  const counts: Partial<Record<FileStage, number>> = {};
  for (const { job } of jobs) {
    for (const result of job.results) {
      const stage = result.status === 'processing' ? stages[result.file.id] : undefined;
      if (stage) counts[stage] = (counts[stage] ?? 0) + 1;
    }
  }
  return counts;
}

export function progressOf(jobs: TrackedJob[]): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const { job } of jobs) {
    for (const result of job.results) {
      total++;
      if (result.status !== 'processing') done++;
    }
  }
  return { done, total };
}

export class CaseSession {
  private state: SessionState = EMPTY;
  private listeners = new Set<() => void>();
  private pollTimer: ReturnType<typeof setTimeout> | null = null;
  private noticeId = 0;
  private generation = 0;
  /** Polls in a row that got no answer from the engine (see UNREACHABLE_AFTER). */
  private unanswered = 0;
  /** Drop position of each file sent, counted across drops (see TrackedJob.dropOrder). */
  private dropped = new Map<File, number>();
  private nextDrop = 0;
  /** The key of each dropped file's pending card until its job is accepted. */
  private pendingKey = new Map<File, string>();
  /** SHA-256 of dropped files as they are computed, and the files of each job sent (by result index). */
  private hashes = new Map<File, string | null>();
  private jobFiles = new Map<string, File[]>();
  private confirmId = 0;
  /** A case being made for an unnamed drop: a drop arriving meanwhile waits for it (and is then asked about). */
  private making: Promise<CaseInfo | null> | null = null;

  private readonly storage: CaseStorage | null;

  constructor(private readonly deps: SessionDeps) {
    this.storage = deps.storage === undefined ? browserStorage() : deps.storage;
    // The window opens on the case it last worked on (the session is made once the window has its credentials).
    if (this.storage?.getItem(ACTIVE_CASE_KEY)) void this.restore();
  }

  /** Opens the case the window last worked on, with its jobs of both applications as the core has them. */
  async restore(): Promise<void> {
    const caseId = this.storage?.getItem(ACTIVE_CASE_KEY) ?? null;
    if (caseId) await this.openCase(caseId);
  }

  /** Shows every job of a case (read from the core) and makes it the active case; `focusFile` is marked on screen. */
  async openCase(caseId: string, focusFile: string | null = null): Promise<void> {
    const generation = ++this.generation;
    try {
      const activeCase = await this.deps.client.getCase(caseId);
      const jobs: TrackedJob[] = [];
      for (let page = 1; page <= CASE_JOBS_MAX / 100; page++) {
        const listed = await this.deps.client.caseJobs(caseId, page, 100);
        for (const entry of listed.jobs) {
          const sha256 = entry.job.results.map((r) => entry.files.find((f) => f.fileId === r.file.id)?.sha256 ?? null);
          // The case's files keep their places before anything dropped next (submission order is the drop order).
          const dropOrder = entry.job.results.map(() => this.nextDrop++);
          jobs.push({ job: entry.job, kind: entry.kind, apiKey: this.keyFor(entry.kind, entry.applicationId), dropOrder, sha256, caseId });
        }
        if (!listed.pagination.hasNextPage) break;
      }
      if (generation !== this.generation) return;
      rememberActiveCase(caseId, this.storage);
      this.stopPolling();
      this.unanswered = 0;
      this.set({ ...EMPTY, jobs, activeCase, focusFile });
      this.readOpenStages();
      this.schedulePoll();
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      if (error.apiError?.code === 'not_found') rememberActiveCase(null, this.storage);
      else this.notice(failureWords(error, { action: 'Opening the case' }));
    }
  }

  /** Makes a new, empty case the active one (loose files dropped next join it). */
  async newCase(name: string, notes?: string): Promise<void> {
    try {
      const created = await this.deps.client.createCase(notes === undefined ? { name } : { name, notes });
      await this.openCase(created.id);
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      this.notice(failureWords(error, { action: `Creating case “${name}”` }));
    }
  }

  /**
   * Makes a case called `name`, or `name (2)`… when another case has that name; null (and a notice) when the core
   * refuses. With `show`, it becomes the case on screen: the remembered one, shown alone when `alone`.
   */
  private async makeCase(name: string, show: 'alone' | 'keep' | 'no'): Promise<CaseInfo | null> {
    for (let n = 1; n <= 20; n++) {
      const candidate = n === 1 ? name : `${name} (${n})`;
      try {
        const created = await this.deps.client.createCase({ name: candidate });
        if (show === 'no') return created;
        if (show === 'alone') this.clear();
        rememberActiveCase(created.id, this.storage);
        this.set({ activeCase: created });
        return created;
      } catch (error) {
        if (!(error instanceof ApiFailure)) throw error;
        if (error.status === 422 && error.apiError?.details?.issues?.[0]?.path === 'name') continue;
        this.notice(failureWords(error, { action: `Creating case “${candidate}”` }));
        return null;
      }
    }
    this.notice(`Creating case “${name}” failed: too many cases have that name.`);
    return null;
  }

  /**
   * Where the window's drops go (issue 22): every file belongs to a case. With no case open, files dropped with no
   * case named go into a new case named after the date and time (renamable); a folder names a case of its own.
   * With a case open, files that would join it wait for the specialist's word (see DropToConfirm, confirmDrop).
   */
  async drop(files: CollectedFile[]): Promise<void> {
    if (files.length === 0) return;
    if (this.making) await this.making;
    // A drop arriving while the window waits for its word on another is asked about with it, as one.
    const waiting = this.state.confirm;
    const dropped = waiting ? [...waiting.files, ...files] : files;
    const active = this.state.activeCase;
    if (!active) {
      if (!dropped.some((item) => item.caseName === null)) return this.submitShown(dropped);
      this.making = this.makeCase(dateCaseName((this.deps.now ?? (() => new Date()))()), 'keep');
      const made = await this.making.finally(() => (this.making = null));
      if (!made) return;
      return this.submitShown(dropped.map((item) => (item.caseName === null ? { ...item, caseName: made.name } : item)));
    }
    const joining = dropped.filter((item) => item.caseName === null || item.caseName === active.name);
    // A closed case takes nothing (submit says so); files naming other cases need no word.
    if (joining.length === 0 || active.status === 'closed') return this.submitShown(dropped);
    const kinds = await Promise.all(joining.map(async (item) => sniff(new Uint8Array(await item.file.slice(0, SNIFF_BYTES).arrayBuffer()))?.kind ?? null));
    const imagesOnly = this.state.jobs.length > 0 && this.state.jobs.every((t) => t.kind === 'images');
    const inCase = new Set(this.state.jobs.flatMap((t) => t.sha256 ?? []).filter((h): h is string => h !== null));
    const hashes = await Promise.all(joining.map((item) => this.hashOf(item.file)));
    // The earlier drop was answered while this one was being read: this one is asked about on its own.
    if (waiting && this.state.confirm?.id !== waiting.id) return this.drop(files);
    const id = ++this.confirmId;
    this.set({
      confirm: {
        id,
        caseName: active.name,
        files: dropped,
        joining: joining.length,
        pdfs: imagesOnly ? kinds.filter((k) => k === 'pdfs').length : 0,
        duplicates: joining.filter((_, i) => hashes[i] !== null && inCase.has(hashes[i])).map((item) => item.path),
      },
    });
  }

  /** The specialist's answer to the drop waiting for it. */
  async confirmDrop(choice: DropChoice): Promise<void> {
    const asked = this.state.confirm;
    if (!asked) return;
    this.set({ confirm: null });
    const active = this.state.activeCase;
    if (choice === 'cancel' || !active) return;
    const joins = (item: CollectedFile) => item.caseName === null || item.caseName === asked.caseName;
    if (choice === 'new_case') {
      const made = await this.makeCase(dateCaseName((this.deps.now ?? (() => new Date()))()), 'alone');
      if (made) await this.submitShown(asked.files.map((item) => (joins(item) ? { ...item, caseName: made.name } : item)));
      return;
    }
    let pdfCase: CaseInfo | null = null;
    const isPdf = async (item: CollectedFile) => sniff(new Uint8Array(await item.file.slice(0, SNIFF_BYTES).arrayBuffer()))?.kind === 'pdfs';
    const pdfs = new Set<File>();
    if (choice === 'join_pdfs_apart') {
      for (const item of asked.files) if (joins(item) && (await isPdf(item))) pdfs.add(item.file);
      if (pdfs.size > 0) pdfCase = await this.makeCase(`${asked.caseName} – PDFs`, 'no');
      if (pdfs.size > 0 && !pdfCase) return;
    }
    const routed = asked.files.map((item) => {
      if (!joins(item)) return item;
      return { ...item, caseName: pdfCase && pdfs.has(item.file) ? pdfCase.name : asked.caseName };
    });
    const pdfCaseName = pdfCase?.name ?? null;
    await this.submitShown(routed, pdfCaseName);
    if (pdfCaseName !== null) {
      const what = pdfs.size === 1 ? 'The PDF went' : `The ${pdfs.size} PDFs went`;
      this.notice(`${what} into a case of their own, “${pdfCaseName}” (History lists it).`, 'info');
    }
  }

  /**
   * Sends a drop, then keeps on screen the case on screen only: the jobs of this drop that went into other cases
   * (a folder of its own, PDFs put apart) leave the screen, where a reload would not bring them back, and the window
   * says where they went (`told`: a case the caller speaks of itself).
   */
  private async submitShown(files: CollectedFile[], told: string | null = null): Promise<void> {
    const before = new Set(this.state.jobs.map((t) => t.job.jobId));
    await this.submit(files);
    const shown = this.state.activeCase?.name;
    if (shown === undefined) return;
    const apart = new Map<string, number>();
    const jobs = this.state.jobs.filter((t) => {
      const named = t.job.metadata?.case;
      if (before.has(t.job.jobId) || typeof named !== 'string' || named === shown) return true;
      apart.set(named, (apart.get(named) ?? 0) + t.job.results.length);
      return false;
    });
    if (apart.size === 0) return;
    this.set({ jobs });
    for (const [name, n] of apart) {
      if (name !== told) this.notice(`${n === 1 ? '1 file' : `${n} files`} went into case “${name}”, named by the drop (History lists it).`, 'info');
    }
  }

  /**
   * Takes a file out of the case on screen (DELETE /app/cases/{caseId}/files/{fileId}): its card leaves, its job
   * stays in History. Says whether the core took the change.
   */
  async removeFromCase(jobId: string, fileId: string): Promise<boolean> {
    const active = this.state.activeCase;
    if (!active) return false;
    try {
      const updated = await this.deps.client.removeCaseFile(active.id, fileId);
      const jobs = this.state.jobs.flatMap((t) => {
        if (t.job.jobId !== jobId) return [t];
        const keep = t.job.results.map((r) => r.file.id !== fileId);
        if (!keep.includes(true)) return [];
        const pick = <T>(list: T[] | undefined) => list?.filter((_, i) => keep[i]);
        return [{ ...t, job: { ...t.job, results: t.job.results.filter((_, i) => keep[i]) }, dropOrder: pick(t.dropOrder), sha256: pick(t.sha256) }];
      });
      this.set({ jobs, ...(this.state.activeCase?.id === updated.id ? { activeCase: updated } : {}) });
      return true;
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      this.notice(failureWords(error, { action: 'Removing the file from the case' }));
      return false;
    }
  }

  /** The file History asked to show has been shown. */
  focusShown(): void {
    if (this.state.focusFile !== null) this.set({ focusFile: null });
  }

  /** The SHA-256 of a dropped file, computed once; the jobs that hold it are given it as soon as it is known. */
  private async hashOf(file: File): Promise<string | null> {
    if (this.hashes.has(file)) return this.hashes.get(file) ?? null;
    let hash: string | null = null;
    try {
      hash = await sha256Of(file);
    } catch {
      hash = null; // unreadable now: the core's hash comes with the case when it is opened again
    }
    this.hashes.set(file, hash);
    this.attachHashes();
    return hash;
  }

  /** Gives the jobs sent from this window the SHA-256 of their files known so far. */
  private attachHashes(): void {
    let changed = false;
    const jobs = this.state.jobs.map((t) => {
      const files = this.jobFiles.get(t.job.jobId);
      if (!files || files.length !== t.job.results.length) return t;
      const sha256 = files.map((f) => this.hashes.get(f) ?? null);
      if (t.sha256 && sha256.every((h, i) => h === t.sha256![i])) return t;
      changed = true;
      return { ...t, sha256 };
    });
    if (changed) this.set({ jobs });
  }

  /** Renames the active case, changes its notes or its status; says whether the core took the change. */
  async updateActiveCase(patch: { name?: string; notes?: string; status?: CaseInfo['status'] }): Promise<boolean> {
    const current = this.state.activeCase;
    if (!current) return false;
    try {
      const updated = await this.deps.client.updateCase(current.id, patch);
      // The specialist may have opened another case while the change was under way: that one stays on screen.
      if (this.state.activeCase?.id === updated.id) this.set({ activeCase: updated });
      return true;
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      this.notice(caseChangeWords(error, patch));
      return false;
    }
  }

  /** The window's key for a job's application: the active key of its kind (the window has one per kind). */
  private keyFor(kind: PipelineKind, applicationId: string): string {
    const key = this.deps.keys()[kind];
    return key && key.applicationId === applicationId ? key.apiKey : (key?.apiKey ?? '');
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): SessionState => this.state;

  private set(patch: Partial<SessionState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  notice(text: string, kind: Notice['kind'] = 'error'): void {
    this.set({ notices: [...this.state.notices, { id: ++this.noticeId, text, kind }] });
  }

  dismissNotice(id: number): void {
    this.set({ notices: this.state.notices.filter((n) => n.id !== id) });
  }

  /** Empties the screen and leaves the case: the next loose files go in no case, and a reload opens none. */
  clear(): void {
    this.generation++;
    this.stopPolling();
    this.dropped.clear();
    this.pendingKey.clear();
    this.hashes.clear();
    this.jobFiles.clear();
    this.unanswered = 0;
    rememberActiveCase(null, this.storage);
    this.set(EMPTY);
  }

  /**
   * Shows jobs reopened from History in place of the current case. History remembers the case it opened
   * (rememberActiveCase) before calling this; that case becomes the active one.
   */
  open(jobs: TrackedJob[]): void {
    const caseId = this.storage?.getItem(ACTIVE_CASE_KEY) ?? null;
    this.clear();
    this.set({ jobs });
    this.readOpenStages();
    this.schedulePoll();
    if (caseId) {
      rememberActiveCase(caseId, this.storage);
      const generation = this.generation;
      void this.deps.client.getCase(caseId).then(
        (activeCase) => {
          if (generation === this.generation) this.set({ activeCase });
        },
        () => undefined, // the jobs are on screen; the case's name is shown when it can be read
      );
    }
  }

  private currentJob(jobId: string): JobResult | undefined {
    return this.state.jobs.find((t) => t.job.jobId === jobId)?.job;
  }

  /**
   * Replaces one job (after a poll or a review) with the files the window shows of it: a job's files never grow,
   * and one taken out of the case stays out although the job still holds it.
   */
  updateJob(job: JobResult): void {
    this.set({
      jobs: this.state.jobs.map((t) => {
        if (t.job.jobId !== job.jobId) return t;
        const shown = new Set(t.job.results.map((r) => r.file.id));
        return { ...t, job: { ...job, results: job.results.filter((r) => shown.has(r.file.id)) } };
      }),
    });
  }

  /** Changes the window's stage of some pending files (by their File). */
  private setPending(files: File[], stage: WindowStage, reason?: string): void {
    const keys = new Set(files.map((f) => this.pendingKey.get(f)));
    this.set({ pending: this.state.pending.map((p) => (keys.has(p.key) ? { ...p, stage, ...(reason === undefined ? {} : { reason }) } : p)) });
  }

  /**
   * Gives every dropped file a card at once (stage "sending"), reads each file's head, plans the requests, lists
   * refusals (on their cards too), then sends the requests one after another (the files of later ones "waiting").
   */
  async submit(dropped: CollectedFile[]): Promise<void> {
    // A closed case takes no more files: the ones that would go into it are not sent, and the window says why.
    const closed = this.state.activeCase?.status === 'closed' ? this.state.activeCase : null;
    const collected = closed ? dropped.filter((item) => (item.caseName ?? closed.name) !== closed.name) : dropped;
    if (closed && collected.length < dropped.length) this.notice(closedCaseWords(closed.name, dropped.length - collected.length));
    if (collected.length === 0) return;
    const generation = this.generation;
    const candidates: CandidateFile<File>[] = [];
    const arriving: PendingFile[] = [];
    for (const item of collected) {
      const dropOrder = this.nextDrop++;
      this.dropped.set(item.file, dropOrder);
      const key = `pending/${dropOrder}`;
      this.pendingKey.set(item.file, key);
      const active = this.state.activeCase;
      const elsewhere = item.caseName !== null && item.caseName !== active?.name ? item.caseName : null;
      arriving.push({ key, name: item.path, size: item.file.size, dropOrder, stage: 'sending', caseName: elsewhere });
    }
    if (arriving.length > 0) this.set({ pending: [...this.state.pending, ...arriving] });
    // Each file's SHA-256, for the duplicate flag: computed beside the sending, never holding it up.
    for (const item of collected) void this.hashOf(item.file);
    for (const item of collected) {
      if (generation !== this.generation) return;
      const head = new Uint8Array(await item.file.slice(0, SNIFF_BYTES).arrayBuffer());
      // Loose files (dropped without a folder naming a case) go into the active case.
      const caseName = item.caseName ?? this.state.activeCase?.name ?? null;
      candidates.push({ file: item.file, name: item.path, size: item.file.size, caseName, sniffed: sniff(head) });
    }
    const plan = planSubmission(candidates);
    const named = plan.requests.find((r) => r.caseName !== null)?.caseName ?? null;
    const keys = this.deps.keys();
    const sendable: PlannedRequest<File>[] = [];
    const refused = [...plan.refused];
    const reasons = new Map(plan.refused.map((r) => [r.name, r.reason]));
    for (const request of plan.requests) {
      if (keys[request.kind]) sendable.push(request);
      else {
        for (const f of request.files) {
          const reason = `No active ${request.kind === 'images' ? 'image' : 'PDF'} application key; create one in Settings.`;
          refused.push({ name: f.name, reason });
          reasons.set(f.name, reason);
        }
      }
    }
    if (generation !== this.generation) return;
    // The files the window will not send say why on their cards, as in the "Not sent" list.
    const sent = new Set(sendable.flatMap((r) => r.files.map((f) => f.file)));
    const notSent = new Map(candidates.filter((c) => !sent.has(c.file)).map((c) => [this.pendingKey.get(c.file), reasons.get(c.name) ?? refusalReason(c) ?? 'Not sent.']));
    const later = new Set(sendable.slice(1).flatMap((r) => r.files.map((f) => this.pendingKey.get(f.file))));
    if (later.size > 0) this.set({ pending: this.state.pending.map((p) => (later.has(p.key) ? { ...p, stage: 'waiting' } : p)) });
    if (notSent.size > 0) {
      this.set({ pending: this.state.pending.map((p) => (notSent.has(p.key) ? { ...p, stage: 'not_sent', reason: notSent.get(p.key) } : p)) });
      for (const c of candidates) if (!sent.has(c.file)) this.dropped.delete(c.file);
    }
    // Several drops may be in flight at once: each one adds its own lines and removes them as they are sent.
    const lines = sendable.map(describeRequest);
    this.set({ refused: [...this.state.refused, ...refused], sending: [...this.state.sending, ...lines] });
    for (let i = 0; i < sendable.length; i++) {
      if (generation !== this.generation) return;
      const key = keys[sendable[i].kind];
      if (key) await this.send(sendable[i], key, generation);
      if (generation !== this.generation) return;
      const index = this.state.sending.indexOf(lines[i]);
      if (index >= 0) this.set({ sending: this.state.sending.filter((_, j) => j !== index) });
    }
    // A folder dropped with no case open names the case of this work: the window reopens on it after a reload.
    if (named !== null && this.state.activeCase === null && this.state.jobs.length > 0) await this.adoptCase(named, generation);
  }

  /** `{ caseId }` of the open case when a request named it (the name it had when the request was sent). */
  private caseIdFor(caseName: string | null): { caseId?: string } {
    const active = this.state.activeCase;
    return active && caseName === active.name ? { caseId: active.id } : {};
  }

  /** Makes the case called `name` (the core made it with the first job naming it) the active one. */
  private async adoptCase(name: string, generation: number): Promise<void> {
    try {
      const found = (await this.deps.client.listCases({ page: 1, pageSize: 100, q: name })).cases.find((c) => c.name === name);
      if (!found || generation !== this.generation) return;
      rememberActiveCase(found.id, this.storage);
      this.set({
        activeCase: found,
        jobs: this.state.jobs.map((t) => (t.caseId === undefined && t.job.metadata?.case === name ? { ...t, caseId: found.id } : t)),
        pending: this.state.pending.map((p) => (p.caseName === name ? { ...p, caseName: null } : p)),
      });
    } catch {
      // Best effort: the jobs are on screen and in the case; only the reopening after a reload is lost.
    }
  }

  /**
   * Sends one stored file again as a new job of the same case (e.g. after the detector model was installed): the
   * original bytes come back from the core, so the specialist does not need to find the file again.
   */
  async reassess(tracked: TrackedJob, fileId: string): Promise<void> {
    const result = tracked.job.results.find((r) => r.file.id === fileId);
    if (!result) return;
    const closed = this.state.activeCase?.status === 'closed' ? this.state.activeCase : null;
    if (closed) {
      this.notice(closedCaseWords(closed.name, 1));
      return;
    }
    try {
      const blob = await this.deps.client.getContent(tracked.apiKey, tracked.job.jobId, fileId);
      const newId = this.deps.newId ?? (() => crypto.randomUUID());
      const job = await this.deps.client.assess(tracked.apiKey, [{ name: result.file.name, blob }], tracked.job.metadata ?? null, newId());
      this.set({ jobs: [...this.state.jobs, { job, kind: tracked.kind, apiKey: tracked.apiKey, dropOrder: [this.nextDrop++], ...(tracked.caseId ? { caseId: tracked.caseId } : {}) }] });
      this.schedulePoll();
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      this.notice(failureWords(error, { fileName: result.file.name, action: `Assessing “${result.file.name}” again` }));
    }
  }

  private async send(request: PlannedRequest<File>, key: AppKey, generation: number): Promise<void> {
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    const newId = this.deps.newId ?? (() => crypto.randomUUID());
    let files = request.files;
    let idempotencyKey = newId();
    let retries = 0;
    while (files.length > 0 && generation === this.generation) {
      const sending = files.map((f) => f.file);
      this.setPending(sending, 'sending');
      try {
        const job = await this.deps.client.assess(
          key.apiKey,
          files.map((f) => ({ name: f.name, blob: f.file })),
          requestMetadata(request),
          idempotencyKey,
          // The body has left the window: the core is now receiving and checking the files (refusals come now).
          { onSent: () => generation === this.generation && this.setPending(sending, 'checking') },
        );
        const dropOrder = files.map((f) => this.dropped.get(f.file) ?? this.nextDrop++);
        const accepted = new Set(files.map((f) => this.pendingKey.get(f.file)));
        for (const f of files) {
          this.dropped.delete(f.file);
          this.pendingKey.delete(f.file);
        }
        // The job's cards take the pending cards' places in one change: same drop positions, never both at once.
        this.jobFiles.set(job.jobId, files.map((f) => f.file));
        this.set({
          jobs: [...this.state.jobs, { job, kind: request.kind, apiKey: key.apiKey, dropOrder, sha256: files.map((f) => this.hashes.get(f.file) ?? null), ...this.caseIdFor(request.caseName) }],
          pending: this.state.pending.filter((p) => !accepted.has(p.key)),
        });
        // Each file's stage is shown at once, not a poll interval later (the first drop of a cold start waits longest).
        if (!isTerminal(job)) void this.readStages(key.apiKey, job.jobId).catch(() => undefined);
        this.schedulePoll();
        return;
      } catch (error) {
        if (!(error instanceof ApiFailure)) throw error;
        const code = error.apiError?.code;
        const index = fileIndexFromPath(error.apiError?.details?.issues?.[0]?.path);
        if (index !== null && index < files.length && (code === 'unsupported_format' || code === 'file_too_large' || code === 'unprocessable')) {
          // The whole request was refused for one file (spec rule 1): list that file, send the others again.
          const bad = files[index];
          const reason = refusalWords(error);
          this.set({ refused: [...this.state.refused, { name: bad.name, reason }] });
          this.setPending([bad.file], 'not_sent', reason);
          this.dropped.delete(bad.file);
          files = files.filter((_, i) => i !== index);
          idempotencyKey = newId();
          continue;
        }
        const retryable = code === 'rate_limited' || code === 'service_unavailable' || error.kind === 'network';
        if (retryable && retries < MAX_RETRIES) {
          retries++;
          this.setPending(files.map((f) => f.file), 'waiting');
          await sleep(Math.min(30, error.retryAfter ?? retries) * 1000);
          continue;
        }
        const words = failureWords(error, { fileNames: files.map((f) => f.name), action: 'Sending' });
        this.notice(words);
        this.setPending(files.map((f) => f.file), 'not_sent', words);
        return;
      }
    }
  }

  /**
   * Reads each file's stage of one job; returns them, or null when they cannot be read (best effort: a file keeps
   * its last stage, and the job itself is read instead). A refusal for too many requests is thrown to the poll.
   */
  private async readStages(apiKey: string, jobId: string, generation = this.generation): Promise<JobProgress['files'] | null> {
    try {
      const { files } = await this.deps.client.getProgress(apiKey, jobId);
      if (generation === this.generation) this.set({ stages: { ...this.state.stages, ...Object.fromEntries(files.map((f) => [f.fileId, f.stage])) } });
      return files;
    } catch (error) {
      if (error instanceof ApiFailure && error.apiError?.code === 'rate_limited') throw error;
      return null;
    }
  }

  /** The stages of every unfinished job at once (one request each), when jobs come on screen still running. */
  private readOpenStages(): void {
    for (const { job, apiKey } of this.state.jobs) if (!isTerminal(job)) void this.readStages(apiKey, job.jobId).catch(() => undefined);
  }

  private schedulePoll(): void {
    if (this.pollTimer !== null) return;
    const generation = this.generation;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.pollOnce(generation);
    }, this.deps.pollIntervalMs ?? 1000);
  }

  private stopPolling(): void {
    if (this.pollTimer !== null) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  private async pollOnce(generation: number): Promise<void> {
    const open = this.state.jobs.filter((t) => !isTerminal(t.job));
    let delayForRateLimit = false;
    // Whether this poll reached the engine at all, and whether it refused the window's credential.
    let answered = false;
    let unreachable = false;
    let refused: ApiFailure | null = null;
    for (const tracked of open) {
      if (generation !== this.generation) return;
      try {
        // One request per job and poll: its files' stages. The job itself is read again only when one of its files
        // has finished (its verdict or error is then there to show), or when its stages cannot be read.
        const stages = await this.readStages(tracked.apiKey, tracked.job.jobId, generation);
        if (generation !== this.generation) return;
        if (stages !== null && !needsJobRead(this.currentJob(tracked.job.jobId) ?? tracked.job, stages)) {
          answered = true;
          continue;
        }
        const job = await this.deps.client.getJob(tracked.apiKey, tracked.job.jobId);
        if (generation !== this.generation) return;
        answered = true;
        this.updateJob(job);
      } catch (error) {
        if (!(error instanceof ApiFailure)) throw error;
        if (error.kind === 'network') {
          // No answer: the engine stopped (or is restarting). The job keeps its state; the other jobs would fail alike.
          unreachable = true;
          break;
        }
        answered = true;
        if (error.apiError?.code === 'rate_limited') {
          delayForRateLimit = true;
          break;
        }
        if (error.apiError?.code === 'unauthorized') {
          // The credential, not the job: every job would be refused alike, and none of them is gone.
          refused = error;
          break;
        }
        this.notice(failureWords(error, { action: `Checking job ${tracked.job.jobId.slice(0, 8)}` }));
        // Stop polling a job the core will not answer about; keep it on screen as it last was.
        this.updateJob({ ...tracked.job, status: 'error', error: { code: 'internal_error', message: 'No longer available' } });
      }
    }
    if (generation !== this.generation) return;
    if (refused) {
      this.unanswered = 0;
      this.refusedCredential(refused);
      return; // polling again with the same credential cannot succeed; a reload with the new address resumes it
    }
    if (unreachable && !answered) {
      this.unanswered++;
      if (this.unanswered >= UNREACHABLE_AFTER && this.state.engine !== 'unreachable') this.set({ engine: 'unreachable' });
    } else if (answered) {
      this.unanswered = 0;
      if (this.state.engine !== 'ok') {
        this.set({ engine: 'ok' });
        // The files' stages moved on while the engine could not be asked: read them at once.
        this.readOpenStages();
      }
    }
    if (this.state.jobs.some((t) => !isTerminal(t.job))) {
      const sleep = this.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
      if (delayForRateLimit) await sleep(2000);
      // An engine that does not answer is asked again less often (every few seconds), until it answers.
      else if (this.unanswered > 0) await sleep(Math.min(5, this.unanswered) * 1000);
      if (generation !== this.generation) return;
      this.schedulePoll();
    }
  }

  /** The core refused this window's credential while it checked the jobs: said once, the jobs kept as they are. */
  private refusedCredential(error: ApiFailure): void {
    if (this.deps.tokenPerLaunch) {
      if (this.state.engine !== 'restarted') this.set({ engine: 'restarted' });
      return;
    }
    const words = failureWords(error, { action: 'Checking the files being analysed' });
    if (!this.state.notices.some((n) => n.text === words)) this.notice(words);
  }
}

/**
 * Whether a job must be read again after its stages: a file the window still shows as processing has finished, or
 * every file has (the job is then terminal), or the stages do not name the job's files.
 */
export function needsJobRead(job: JobResult, stages: JobProgress['files']): boolean {
  const finished = (stage: FileStage): boolean => stage === 'done' || stage === 'error';
  if (stages.length === 0 || stages.every((f) => finished(f.stage))) return true;
  const byId = new Map(stages.map((f) => [f.fileId, f.stage]));
  return job.results.some((r) => {
    const stage = byId.get(r.file.id);
    return stage === undefined || (r.status === 'processing' && finished(stage));
  });
}

function describeRequest(request: PlannedRequest<File>): string {
  const what = `${request.files.length} ${request.kind === 'images' ? 'image' : 'PDF'}${request.files.length === 1 ? '' : 's'}`;
  const part = request.parts > 1 ? ` (part ${request.part} of ${request.parts})` : '';
  return `${what}${request.caseName ? ` of case “${request.caseName}”` : ''}${part}`;
}
