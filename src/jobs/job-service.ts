// Jobs: creation (atomic with idempotency), the bounded analysis queue, completion events for wait=true,
// and recovery after a restart. Heavy work goes to the worker pools; this module only orchestrates.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { FileAnalysis, PreviewImage } from '../analysis/index.js';
import type { CaseReport, ExpertReview, FileRegions, FileStage, JobList, JobProgress, JobReport, JobResult, MediaType } from '../api/schemas.js';
import { REPO_ROOT } from '../config/config.js';
import type { CasesRepository } from '../db/cases-repository.js';
import type { FileRecord, JobsRepository, NewFile } from '../db/jobs-repository.js';
import { ForeignApplication, IdempotencyConflict, JobVanished, NotFound, PreviewUnavailable, QueueFull } from '../api/domain-errors.js';
import { caseIdForName } from './case-service.js';
import type { FileStore } from './file-store.js';
import { toJobListEntry, toJobResult } from './job-result.js';
import { deriveJobStatus } from './job-status.js';
import { WorkerTaskError, type WorkerPool } from './worker-pool.js';

/** A file fully received, flushed to a temp path and accepted by the probe. */
export interface ReceivedFile {
  tmpPath: string;
  name: string;
  size: number;
  mediaType: MediaType;
  sha256: string;
}

export interface Submission {
  applicationId: string;
  files: ReceivedFile[];
  metadataJson: string | null;
  caseName: string | null;
  idempotency: { key: string; fingerprint: string } | null;
}

export type SubmitOutcome = { kind: 'created'; jobId: string } | { kind: 'replayed'; jobId: string };

/** Tries of a failed bookkeeping write (about 5 minutes of backoff) before the file is left to start-up recovery. */
const BOOKKEEPING_ATTEMPTS = 36;

/** Attempts after which a file that keeps interrupting its analysis (crash, kill) ends in internal_error. */
const MAX_ATTEMPTS = 3;

/** Answers kept for polls (terminal jobs) and list pages: a few hundred, the oldest dropped first. */
const ANSWERS_KEPT = 256;

/** The app's version as shipped (package.json), printed in case reports. */
const APP_VERSION = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Long side of the previews the core serves and keeps (src/analysis PREVIEW_MAX_SIDE). */
const PREVIEW_SIDE = 2048;

/** A picture of a stored file made by the core, as served by GET .../preview. */
export interface FilePreview {
  mediaType: 'image/png' | 'image/jpeg';
  data: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** Freezes an answer kept for reuse, so that no caller can change what the next caller gets. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function keep<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= ANSWERS_KEPT) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}

export interface JobServiceDeps {
  jobs: JobsRepository;
  /** A job whose metadata names a case joins it (made if missing). */
  cases: CasesRepository;
  store: FileStore;
  pool: WorkerPool;
  modelsDir: string;
  threadsPerWorker: number;
  fileTimeoutMs: number;
  queueMaxFiles: number;
  idempotencyTtlMs: number;
  maxWaiters: number;
  /** Where previews are made (interactive: the probe pool, not the analysis queue); the analysis pool when absent. */
  previewPool?: WorkerPool;
  previewTimeoutMs?: number;
  now?: () => Date;
  log?: { error: (obj: object, msg: string) => void; info: (obj: object, msg: string) => void };
}

/** Why a stored file gives no preview, by how its worker task ended; absent: not the file's doing (500 or 503). */
const PREVIEW_FAILURES: Partial<Record<WorkerTaskError['reason'] | 'internal', string>> = {
  failed: 'its picture cannot be decoded',
  timeout: 'drawing it took longer than allowed',
  memory: 'drawing it needed more memory than allowed',
  crashed: 'the process drawing it stopped',
};

export function createJobService(d: JobServiceDeps) {
  const now = d.now ?? (() => new Date());
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let inFlight = 0; // files queued or under analysis
  let waiters = 0;
  const idle = new Set<() => void>();
  const wakeOnShutdown = new Set<() => void>();
  let stopping = false;
  // Keys are kept 24 h (DECISIONS 14): expired records are ignored at once and pruned hourly.
  /**
   * This service writes every job row (the CLI writes keys only, and one core owns a data dir: it sweeps the data
   * dir's temp files at start). So a terminal job's result, and a page of the list, stay what they were until this
   * service writes again: polls of a finished job and repeated list pages are answered from here, frozen, which
   * lets the server reuse their checked JSON too (src/server/route-schemas.ts). Any job write forgets the pages;
   * a job's own writes (a review, its last file finishing) forget its result.
   */
  const terminalResults = new Map<string, { applicationId: string; result: JobResult }>();
  const listPages = new Map<string, { version: number; list: JobList }>();
  let jobsVersion = 0;
  const jobsChanged = (jobId: string) => {
    jobsVersion++;
    terminalResults.delete(jobId);
  };
  /**
   * Where each file under analysis stands (the worker reports the start and the end of decoding). Memory only: after
   * a restart every unfinished file is queued again, which is what a file absent from here is.
   */
  const stages = new Map<string, { stage: Extract<FileStage, 'decoding' | 'analysing'>; startedAt: string }>();
  const pruneTimer = setInterval(() => d.jobs.pruneIdempotency(now().getTime() - d.idempotencyTtlMs), 3_600_000);
  pruneTimer.unref();

  function queueHasRoom(n: number): boolean {
    return inFlight + n <= d.queueMaxFiles;
  }

  function getJob(jobId: string): JobResult | undefined {
    const job = d.jobs.getJob(jobId);
    return job && toJobResult(job, d.jobs.getFiles(jobId));
  }

  /** A job of the caller's application; another application's job is indistinguishable from none (DECISIONS 12). */
  function getOwnedJob(applicationId: string, jobId: string): JobResult {
    const kept = terminalResults.get(jobId);
    if (kept) {
      if (kept.applicationId !== applicationId) throw new NotFound('job');
      return kept.result;
    }
    const version = jobsVersion;
    const job = d.jobs.getJob(jobId);
    if (!job || job.applicationId !== applicationId) throw new NotFound('job');
    const result = toJobResult(job, d.jobs.getFiles(jobId));
    // Kept only if no write happened while it was read (reads are synchronous: this is belt and braces).
    if (result.status !== 'processing' && version === jobsVersion) keep(terminalResults, jobId, { applicationId, result: deepFreeze(result) });
    return result;
  }

  /** A job just written by this service (submit, review): its absence is a fault, not the caller's. */
  function readBack(jobId: string): JobResult {
    const job = getJob(jobId);
    if (!job) throw new JobVanished(jobId);
    return job;
  }

  function getOwnedFile(applicationId: string, jobId: string, fileId: string): FileRecord {
    getOwnedJobRecord(applicationId, jobId);
    const file = d.jobs.getFile(jobId, fileId);
    if (!file) throw new NotFound('file');
    return file;
  }

  function getOwnedJobRecord(applicationId: string, jobId: string) {
    const job = d.jobs.getJob(jobId);
    if (!job || job.applicationId !== applicationId) throw new NotFound('job');
    return job;
  }

  /**
   * One page of an application's jobs, newest first. A page beyond the last is empty; the offset is only used when it
   * is below the total, so SQLite never sees it overflow.
   */
  function listJobs(callerApplicationId: string, q: { applicationId: string; caseName: string | null; page: number; pageSize: number }): JobList {
    if (q.applicationId !== callerApplicationId) throw new ForeignApplication();
    const key = `${q.applicationId}\n${q.page}\n${q.pageSize}\n${q.caseName ?? ''}\n${q.caseName === null ? 0 : 1}`;
    const kept = listPages.get(key);
    if (kept && kept.version === jobsVersion) return kept.list;
    const version = jobsVersion;
    const total = d.jobs.countJobs(q.applicationId, q.caseName);
    const totalPages = Math.ceil(total / q.pageSize);
    const offset = (q.page - 1) * q.pageSize;
    const jobs = offset >= total ? [] : d.jobs.listJobs(q.applicationId, q.caseName, q.pageSize, offset);
    const list: JobList = {
      jobs: jobs.map(toJobListEntry),
      pagination: { page: q.page, pageSize: q.pageSize, total, totalPages, hasNextPage: q.page < totalPages },
    };
    return keep(listPages, key, { version, list: deepFreeze(list) }).list;
  }

  /** Stores (or, with null, removes) the expert review of one file of the caller's job; returns the job. */
  function reviewFile(applicationId: string, jobId: string, fileId: string, review: ExpertReview | null): JobResult {
    getOwnedFile(applicationId, jobId, fileId);
    setReview(jobId, fileId, review);
    return readBack(jobId);
  }

  function fileRegions(applicationId: string, jobId: string, fileId: string): FileRegions {
    const file = getOwnedFile(applicationId, jobId, fileId);
    return { fileId: file.id, modelVersion: file.modelVersion, aggregation: file.aggregation, grids: d.jobs.getFileRegions(jobId, fileId) ?? [] };
  }

  /** The stored original of one file of the caller's job, for download. */
  function storedFile(applicationId: string, jobId: string, fileId: string): { path: string; name: string; mediaType: MediaType; size: number } {
    const file = getOwnedFile(applicationId, jobId, fileId);
    if (!d.store.exists(file.id)) throw new NotFound('stored file');
    return { path: d.store.pathOf(file.id), name: file.name, mediaType: file.mediaType, size: file.size };
  }

  /** Everything a case report needs: the job, plus each file's SHA-256 and model version. */
  function report(applicationId: string, jobId: string): JobReport {
    const job = getOwnedJob(applicationId, jobId);
    return {
      generatedAt: now().toISOString(),
      applicationId,
      job,
      files: d.jobs.getFiles(jobId).map((f) => ({ fileId: f.id, name: f.name, sha256: f.sha256, modelVersion: f.modelVersion })),
    };
  }

  /** Each file's stage: queued, decoding, analysing (while work runs, from the workers), then done or error. */
  function progress(applicationId: string, jobId: string): JobProgress {
    getOwnedJobRecord(applicationId, jobId);
    return {
      jobId,
      files: d.jobs.getFiles(jobId).map((f) => {
        if (f.status !== 'processing') return { fileId: f.id, stage: f.status === 'completed' ? 'done' : 'error', startedAt: f.startedAt };
        const running = stages.get(f.id);
        return { fileId: f.id, stage: running?.stage ?? 'queued', startedAt: running?.startedAt ?? null };
      }),
    };
  }

  // ---- Previews and case reports (issue 13) ----

  const previewsUnderWay = new Map<string, Promise<FilePreview>>();

  /**
   * The picture of a stored file: made once in a worker process (never on this event loop: the original may be
   * hostile), then kept beside the stored file (0600, removed with it) and read from there. Two requests at once
   * share one decode. Measured on a 12-megapixel HEIC: 1.3-1.5 s to make, under 2 ms to read back.
   */
  async function preview(file: { id: string; mediaType: MediaType }): Promise<FilePreview> {
    const kept = d.store.previewPathOf(file.id);
    try {
      const data = await fsp.readFile(kept);
      return { mediaType: data.subarray(0, 4).equals(PNG_SIGNATURE) ? 'image/png' : 'image/jpeg', data };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const under = previewsUnderWay.get(file.id);
    if (under) return under;
    const made = makePreview(file.id, file.mediaType, kept).finally(() => previewsUnderWay.delete(file.id));
    previewsUnderWay.set(file.id, made);
    return made;
  }

  async function makePreview(fileId: string, mediaType: MediaType, kept: string): Promise<FilePreview> {
    const pool = d.previewPool ?? d.pool;
    const made = await pool.run<PreviewImage>({ op: 'preview', path: d.store.pathOf(fileId), mediaType, maxSide: PREVIEW_SIDE }, d.previewTimeoutMs ?? d.fileTimeoutMs);
    // Across the process boundary a Buffer arrives as a plain Uint8Array.
    const data = Buffer.from(made.data.buffer, made.data.byteOffset, made.data.byteLength);
    // Written whole under a temporary name, then renamed: a reader never sees half a picture. A failed write only
    // costs the next request a decode.
    const tmp = d.store.tempPath();
    try {
      await fsp.writeFile(tmp, data, { mode: 0o600, flag: 'wx' });
      if (d.store.exists(fileId)) await fsp.rename(tmp, kept);
    } catch (err) {
      d.log?.error({ err, fileId }, 'could not keep a preview');
    } finally {
      await fsp.rm(tmp, { force: true });
    }
    return { mediaType: made.mediaType, data };
  }

  /**
   * The preview of one file of the caller's job. A file that gives no picture (refused by the decoder, past its time
   * or memory, or fatal to its worker) is PreviewUnavailable; the core's own faults stay internal errors.
   */
  async function filePreview(applicationId: string, jobId: string, fileId: string): Promise<FilePreview> {
    const file = getOwnedFile(applicationId, jobId, fileId);
    if (!d.store.exists(file.id)) throw new NotFound('stored file');
    try {
      return await preview(file);
    } catch (err) {
      const why = err instanceof WorkerTaskError ? PREVIEW_FAILURES[err.reason === 'failed' && err.code !== 'unprocessable' ? 'internal' : err.reason] : undefined;
      if (!why) throw err;
      d.log?.info({ fileId: file.id, err: (err as Error).message }, 'no preview of this file');
      throw new PreviewUnavailable(why);
    }
  }

  /**
   * The case report of these jobs as data (the canonical JSON's content: nothing in it depends on when it is asked
   * for), with each file's picture for the PDF (absent when the file gives none). Throws NotFound for no jobs.
   */
  async function collectCaseReport(
    of: { caseId: string | null; caseName: string | null },
    jobIds: string[],
  ): Promise<{ report: CaseReport; pictures: Map<string, FilePreview> }> {
    const jobs = jobIds.map((id) => d.jobs.getJob(id)).filter((j) => j !== undefined);
    if (jobs.length === 0) throw new NotFound('job');
    const files: CaseReport['files'] = [];
    const pictures = new Map<string, FilePreview>();
    for (const job of jobs) {
      for (const f of d.jobs.getFiles(job.id)) {
        files.push({
          fileId: f.id,
          jobId: job.id,
          applicationId: job.applicationId,
          name: f.name,
          mediaType: f.mediaType,
          size: f.size,
          sha256: f.sha256,
          status: f.status,
          submittedAt: job.createdAt,
          completedAt: f.status === 'processing' ? null : f.completedAt,
          verdict: f.status === 'completed' ? f.verdict : null,
          error: f.status === 'error' ? { code: (f.errorCode ?? 'internal_error') as NonNullable<JobResult['error']>['code'], message: f.errorMessage ?? '' } : null,
          expertReview: f.review,
          modelVersion: f.modelVersion,
          aggregation: f.aggregation,
          regions: d.jobs.getFileRegions(job.id, f.id) ?? [],
        });
        if (!d.store.exists(f.id)) continue;
        try {
          pictures.set(f.id, await preview(f));
        } catch (err) {
          d.log?.info({ fileId: f.id, err: (err as Error).message }, 'no picture of this file for the case report');
        }
      }
    }
    const count = (a: string) => files.filter((f) => f.verdict?.assessment === a).length;
    const report: CaseReport = {
      format: 'veracity-case-report',
      version: 3,
      caseId: of.caseId,
      caseName: of.caseName,
      appVersion: APP_VERSION,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      asOf: jobs.map((j) => j.updatedAt).reduce((a, b) => (a > b ? a : b)),
      summary: {
        files: files.length,
        ai_generated: count('ai_generated'),
        authentic: count('authentic'),
        inconclusive: count('inconclusive'),
        processing: files.filter((f) => f.status === 'processing').length,
        error: files.filter((f) => f.status === 'error').length,
        reviewed: files.filter((f) => f.expertReview).length,
      },
      jobs: jobs.map((j) => ({ jobId: j.id, applicationId: j.applicationId, status: j.status, createdAt: j.createdAt, completedAt: j.completedAt })),
      files,
    };
    return { report, pictures };
  }

  /** The case report of one job of the caller's application. */
  async function jobCaseReport(applicationId: string, jobId: string): Promise<{ report: CaseReport; pictures: Map<string, FilePreview> }> {
    const job = getOwnedJobRecord(applicationId, jobId);
    return collectCaseReport({ caseId: null, caseName: job.caseName }, [job.id]);
  }

  function enqueue(files: FileRecord[] | { id: string; jobId: string; mediaType: MediaType }[]): void {
    for (const f of files) {
      inFlight++;
      void analyse(f.id, f.jobId, f.mediaType).finally(() => {
        inFlight--;
        if (inFlight === 0) for (const fn of idle) fn();
      });
    }
  }

  /**
   * A bookkeeping write that fails (disk full: SQLITE_FULL, an I/O error) is retried with backoff: giving up at
   * once left the file `processing` until the next restart even after space came back. Stops at shutdown (the
   * start-up recovery then resumes the file).
   */
  async function durably<T>(fileId: string, write: () => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return write();
      } catch (err) {
        if (stopping || attempt >= BOOKKEEPING_ATTEMPTS) throw err;
        d.log?.error({ err, fileId, attempt }, 'could not record the analysis state; retrying');
        await new Promise<void>((resolve) => setTimeout(resolve, Math.min(10_000, 250 * 2 ** attempt)).unref());
      }
    }
  }

  async function analyse(fileId: string, jobId: string, mediaType: MediaType): Promise<void> {
    // An attempt counts only once a worker has really begun the file (issue: files queued behind others were
    // failed after three restarts without ever being analysed, because the attempt was counted when queued).
    let started = false;
    try {
      let outcome: Parameters<JobsRepository['finishFile']>[1];
      try {
        const result = await d.pool.run<FileAnalysis>(
          { op: 'analyse', path: d.store.pathOf(fileId), mediaType, modelsDir: d.modelsDir, threads: d.threadsPerWorker },
          d.fileTimeoutMs,
          {
            onStart: () => ((started = true), recordStart(fileId)),
            onStage: (stage) => {
              const current = stages.get(fileId);
              if (current) current.stage = stage;
            },
          },
        );
        outcome = {
          status: 'completed',
          completedAt: now().toISOString(),
          verdict: result.verdict,
          regions: result.regions,
          modelVersion: result.modelVersion,
          aggregation: result.aggregation,
        };
      } catch (err) {
        stages.delete(fileId);
        if (err instanceof WorkerTaskError && err.reason === 'closed') {
          // A clean shutdown stopped it: the file is resumed at the next start, and a stop is not the file's fault.
          if (started) handBack(fileId);
          return;
        }
        const code = err instanceof WorkerTaskError && err.code === 'result_unavailable' ? 'result_unavailable' : 'internal_error';
        const message = err instanceof Error ? err.message : 'Analysis failed.';
        d.log?.info({ fileId, jobId, code, err: message }, 'file analysis ended in error');
        outcome = { status: 'error', completedAt: now().toISOString(), errorCode: code, errorMessage: message };
      }
      stages.delete(fileId);
      await durably(fileId, () => finishFile(jobId, fileId, outcome));
    } catch (err) {
      d.log?.error({ err, fileId, jobId }, 'analysis bookkeeping failed');
    }
  }

  /**
   * Records that analysis of the file started (attempt + startedAt). Runs while the worker is already at work, so
   * a failed write (disk full) is logged, not retried: the analysis goes on and its result is still recorded.
   */
  function recordStart(fileId: string): void {
    const at = now().toISOString();
    stages.set(fileId, { stage: 'decoding', startedAt: at });
    try {
      d.jobs.startFile(fileId, at);
    } catch (err) {
      d.log?.error({ err, fileId }, 'could not record the start of an analysis');
    }
  }

  function handBack(fileId: string): void {
    try {
      d.jobs.handBackFile(fileId);
    } catch (err) {
      d.log?.error({ err, fileId }, 'could not hand back an interrupted analysis');
    }
  }

  function finishFile(jobId: string, fileId: string, outcome: Parameters<JobsRepository['finishFile']>[1]): void {
    const terminal = d.jobs.transaction(() => {
      d.jobs.finishFile(fileId, outcome);
      return refreshJobStatus(jobId);
    });
    jobsChanged(jobId);
    if (terminal) events.emit(jobId);
  }

  /** Recomputes and stores the job's status; returns true if the job is now terminal. */
  function refreshJobStatus(jobId: string): boolean {
    const files = d.jobs.getFiles(jobId);
    const derived = deriveJobStatus(files.map((f) => ({ status: f.status, errorCode: f.errorCode })));
    const at = now().toISOString();
    d.jobs.updateJobStatus(jobId, {
      status: derived.status,
      errorCode: derived.error?.code ?? null,
      errorMessage: derived.error?.message ?? null,
      updatedAt: at,
      completedAt: derived.status === 'processing' ? null : at,
    });
    return derived.status !== 'processing';
  }

  /**
   * Creates the job (or finds the one an idempotency key already made). Files are moved into the store and the
   * job, its files and its idempotency record are committed in one transaction before this returns.
   */
  async function submit(s: Submission): Promise<SubmitOutcome> {
    const nowMs = now().getTime();
    const existing = s.idempotency && d.jobs.findIdempotency(s.applicationId, s.idempotency.key, nowMs - d.idempotencyTtlMs);
    if (existing) return replayOrConflict(existing.fingerprint, existing.jobId, s);
    if (!queueHasRoom(s.files.length)) throw new QueueFull();

    const jobId = crypto.randomUUID();
    const createdAt = now().toISOString();
    const newFiles: NewFile[] = s.files.map((f, i) => ({
      id: crypto.randomUUID(),
      position: i,
      name: f.name,
      size: f.size,
      mediaType: f.mediaType,
      sha256: f.sha256,
    }));
    const moves = newFiles.map((f, i) => ({ tmpPath: s.files[i].tmpPath, fileId: f.id }));
    await d.store.commit(moves);
    let outcome: SubmitOutcome;
    try {
      outcome = d.jobs.transaction((): SubmitOutcome => {
        // Re-checked inside the transaction: a concurrent request with the same key may have committed meanwhile.
        const raced = s.idempotency && d.jobs.findIdempotency(s.applicationId, s.idempotency.key, nowMs - d.idempotencyTtlMs);
        if (raced) return replayOrConflict(raced.fingerprint, raced.jobId, s);
        const caseId = s.caseName === null ? null : caseIdForName(d.cases, s.caseName, createdAt);
        d.jobs.insertJob({ id: jobId, applicationId: s.applicationId, metadataJson: s.metadataJson, caseName: s.caseName, caseId, createdAt }, newFiles);
        jobsChanged(jobId);
        if (s.idempotency) {
          d.jobs.insertIdempotency({ applicationId: s.applicationId, key: s.idempotency.key, fingerprint: s.idempotency.fingerprint, jobId, createdAtMs: nowMs });
        }
        return { kind: 'created', jobId };
      });
    } catch (err) {
      await d.store.removeFiles(newFiles.map((f) => f.id));
      throw err;
    }
    if (outcome.kind === 'replayed') {
      await d.store.removeFiles(newFiles.map((f) => f.id));
      return outcome;
    }
    enqueue(newFiles.map((f) => ({ id: f.id, jobId, mediaType: f.mediaType })));
    return outcome;
  }

  function replayOrConflict(fingerprint: string, jobId: string, s: Submission): SubmitOutcome {
    if (fingerprint !== s.idempotency!.fingerprint) throw new IdempotencyConflict();
    return { kind: 'replayed', jobId };
  }

  /** True if a live (unexpired) idempotency record exists: the upload then skips probing. */
  function hasIdempotencyRecord(applicationId: string, key: string): boolean {
    return !!d.jobs.findIdempotency(applicationId, key, now().getTime() - d.idempotencyTtlMs);
  }

  /** Resolves when the job is terminal, `ms` elapsed, or `signal` aborted (client gone). Woken by completion events. */
  async function waitForTerminal(jobId: string, ms: number, signal?: AbortSignal): Promise<void> {
    const job = d.jobs.getJob(jobId);
    if (!job || job.status !== 'processing' || ms <= 0) return;
    if (waiters >= d.maxWaiters) return; // answer at once rather than hold another socket
    waiters++;
    try {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wakeOnShutdown.delete(done);
          events.off(jobId, done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        events.on(jobId, done);
        wakeOnShutdown.add(done);
        signal?.addEventListener('abort', done, { once: true });
        // The job may have finished between the read above and the subscription.
        if (d.jobs.getJob(jobId)?.status !== 'processing') done();
      });
    } finally {
      waiters--;
    }
  }

  function setReview(jobId: string, fileId: string, review: ExpertReview | null): boolean {
    return d.jobs.transaction(() => {
      const ok = d.jobs.setReview(jobId, fileId, review);
      if (ok) d.jobs.touchJob(jobId, now().toISOString());
      jobsChanged(jobId);
      return ok;
    });
  }

  /** After a restart: sweep leftovers, re-queue files still processing, end those whose file is gone. */
  function recover(): { requeued: number; failed: number; swept: { tmp: number; orphans: number } } {
    const swept = d.store.sweep(d.jobs.allFileIds());
    d.jobs.pruneIdempotency(now().getTime() - d.idempotencyTtlMs);
    let failed = 0;
    const requeue: FileRecord[] = [];
    for (const f of d.jobs.pendingFiles()) {
      if (!d.store.exists(f.id)) {
        finishFile(f.jobId, f.id, { status: 'error', completedAt: now().toISOString(), errorCode: 'internal_error', errorMessage: 'The stored file is missing; it cannot be analysed.' });
        failed++;
      } else if (f.attempts >= MAX_ATTEMPTS) {
        finishFile(f.jobId, f.id, { status: 'error', completedAt: now().toISOString(), errorCode: 'internal_error', errorMessage: `The analysis was interrupted ${f.attempts} times and was not tried again.` });
        failed++;
      } else requeue.push(f);
    }
    enqueue(requeue);
    return { requeued: requeue.length, failed, swept };
  }

  /** Resolves when no file is queued or under analysis (tests, graceful shutdown). */
  function whenIdle(): Promise<void> {
    if (inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const fn = () => {
        idle.delete(fn);
        resolve();
      };
      idle.add(fn);
    });
  }

  /** Answers every waiting request with the job's current state and stops background timers. */
  function shutdown(): void {
    stopping = true;
    clearInterval(pruneTimer);
    for (const done of [...wakeOnShutdown]) done();
  }

  return {
    shutdown,
    submit,
    getJob,
    readBack,
    getOwnedJob,
    listJobs,
    reviewFile,
    fileRegions,
    storedFile,
    report,
    progress,
    filePreview,
    collectCaseReport,
    jobCaseReport,
    waitForTerminal,
    setReview,
    recover,
    whenIdle,
    queueHasRoom,
    hasIdempotencyRecord,
    get inFlight() {
      return inFlight;
    },
  };
}
export type JobService = ReturnType<typeof createJobService>;
