// The storage interfaces the services depend on (issue 15): every method is asynchronous, so that the same services
// run on the desktop (SQLite, the in-process worker pool, a data-dir file store: src/db/sqlite-stores.ts,
// src/jobs/local-queue.ts, src/jobs/file-store.ts) and on the team server (PostgreSQL, pg-boss, LISTEN/NOTIFY, a
// shared blob directory). No SQL and no driver type appears here; rows cross this boundary as the domain records of
// src/db/*-repository.ts. Methods are the ones the services call, nothing speculative.
//
// Who uses what: src/jobs/job-service.ts (JobsStore, BlobStore, WorkQueue.enqueue, JobEvents for wait=true),
// src/jobs/analysis-runner.ts (WorkQueue take/started/complete/fail/release, JobsStore, BlobStore.withLocalFile,
// JobEvents.publishFinished: what a `veracity worker` process runs), src/jobs/case-service.ts (JobsStore.cases),
// src/auth/api-keys.ts (KeyStore), src/server/app.ts (a RateLimitStore through src/db/rate-limit-store.ts).
// For an API node beside others: createJobService({ analyse: false, keepAnswers: false }); the per-file stage of
// GET .../progress is known only on the node analysing the file (elsewhere a processing file reads as queued).
import type { Readable } from 'node:stream';
import type { ExpertReview, FileStage, JobStatus, MediaType, RegionGrid } from '../api/schemas.js';
import type { CaseStatus } from '../api/app-schemas.js';
import type { ApiKeyRecord, Application } from './applications-repository.js';
import type { CaseJobRef, CaseRecord, HistoryFilter, HistoryRecord } from './cases-repository.js';
import type { FileOutcome, FileRecord, IdempotencyRecord, JobRecord, NewFile, NewJob, TileScore } from './jobs-repository.js';

export type { ApiKeyRecord, Application, CaseJobRef, CaseRecord, FileOutcome, FileRecord, HistoryFilter, HistoryRecord, IdempotencyRecord, JobRecord, NewFile, NewJob };

// ---- Jobs store: jobs, their files, idempotency records, cases ----

/** Jobs, their files and idempotency records. */
export interface JobRows {
  /**
   * Inserts the job (status processing) and its files (status processing, 0 attempts). The job's list order (`seq`)
   * is given by the store in a form safe under concurrent writers (SQLite: taken under the write lock of the
   * enclosing IMMEDIATE transaction; PostgreSQL: a sequence), never read-then-written by the caller.
   */
  insertJob(job: NewJob, files: NewFile[]): Promise<void>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** The job and its files read together, as of one instant (a poll never mixes before and after a write). */
  getJobWithFiles(id: string): Promise<{ job: JobRecord; files: FileRecord[] } | undefined>;
  /** The job's files in submission order (without their tile scores). */
  getFiles(jobId: string): Promise<FileRecord[]>;
  getFile(jobId: string, fileId: string): Promise<FileRecord | undefined>;
  /** The tile scores of one file: undefined when there is no such file, null when it has none. */
  getFileRegions(jobId: string, fileId: string): Promise<RegionGrid[] | null | undefined>;
  /** Tiles scored for the viewer beyond the analysis' own (issue 22): undefined when there is no such file. */
  getTileScores(jobId: string, fileId: string): Promise<TileScore[] | undefined>;
  /** Keeps the file's tiles scored for the viewer, replacing what was kept; false when there is no such file. */
  putTileScores(jobId: string, fileId: string, scores: TileScore[]): Promise<boolean>;
  /** One page of an application's jobs (of one case name when given), newest first. */
  listJobs(applicationId: string, caseName: string | null, limit: number, offset: number): Promise<JobRecord[]>;
  countJobs(applicationId: string, caseName: string | null): Promise<number>;
  /** Records a file's outcome if it is still processing; false when it was not (already finished elsewhere). */
  finishFile(fileId: string, outcome: FileOutcome): Promise<boolean>;
  /**
   * Holds the job until the enclosing transaction ends, so that writers deriving its status from its files take
   * turns and each reads the outcomes the others committed (PostgreSQL: the job row FOR UPDATE; without it two
   * workers recording a job's last two files at once each read the other's file as processing, and the job stayed
   * processing for good). SQLite: nothing to do, its IMMEDIATE transaction holds the database's one write lock.
   */
  lockJob(jobId: string): Promise<void>;
  updateJobStatus(
    jobId: string,
    v: { status: JobStatus; errorCode: string | null; errorMessage: string | null; updatedAt: string; completedAt: string | null },
  ): Promise<void>;
  touchJob(jobId: string, at: string): Promise<void>;
  /** Sets (null: removes) a file's expert review; false when there is no such file in that job. */
  setReview(jobId: string, fileId: string, review: ExpertReview | null): Promise<boolean>;
  /** Files still processing, oldest job first (start-up recovery of the desktop: one node owns every file). */
  pendingFiles(): Promise<FileRecord[]>;
  /** Ids of every stored file a job names (the desktop's orphan sweep). */
  allFileIds(): Promise<Set<string>>;
  /** Files still processing, every node's: the queue bound (a file is queued or under analysis until it ends). */
  countProcessingFiles(): Promise<number>;
  /** A live record: one made after `notBeforeMs`. */
  findIdempotency(applicationId: string, key: string, notBeforeMs: number): Promise<IdempotencyRecord | undefined>;
  /** Inserts the record, replacing an expired one for the same key. */
  insertIdempotency(rec: IdempotencyRecord): Promise<void>;
  pruneIdempotency(beforeMs: number): Promise<number>;
}

/** Cases and the history search over every file. */
export interface CaseRows {
  insert(c: { id: string; name: string; notes: string; at: string }): Promise<void>;
  get(id: string): Promise<CaseRecord | undefined>;
  idByName(name: string): Promise<string | undefined>;
  list(q: { nameContains: string | null; status: CaseStatus | null; limit: number; offset: number }): Promise<CaseRecord[]>;
  count(q: { nameContains: string | null; status: CaseStatus | null }): Promise<number>;
  /** Changes what is given; false when there is no such case. */
  update(id: string, patch: { name?: string; notes?: string; status?: CaseStatus }, at: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
  /** The case's jobs in submission order. */
  jobs(caseId: string, limit: number, offset: number): Promise<CaseJobRef[]>;
  countJobs(caseId: string): Promise<number>;
  /** Takes a file out of the case (it stays in its job and in History); false when it is not in the case. */
  removeFile(caseId: string, fileId: string, at: string): Promise<boolean>;
  /** Ids of the files of the case's jobs that were removed from it. */
  removedFiles(caseId: string): Promise<Set<string>>;
  history(f: HistoryFilter, limit: number, offset: number): Promise<HistoryRecord[]>;
  countHistory(f: HistoryFilter): Promise<number>;
}

/** What a transaction sees: the same methods, all in one transaction. */
export interface JobsTx {
  jobs: JobRows;
  cases: CaseRows;
  /** Runs `fn` once the transaction has committed (never when it rolls back). */
  onCommit(fn: () => void): void;
}

/**
 * The jobs store. Outside withTransaction each call commits on its own. Inside, `fn` must use `tx` only (never the
 * store itself: on SQLite's one connection that call would wait for the transaction it is part of) and must not
 * await anything but `tx`: the transaction holds the database's write lock until `fn` settles. It commits when `fn`
 * resolves and rolls back when it throws (the error is rethrown).
 */
export interface JobsStore {
  jobs: JobRows;
  cases: CaseRows;
  withTransaction<T>(fn: (tx: JobsTx) => Promise<T>): Promise<T>;
}

// ---- Key store: applications and their API keys ----

/** Applications (one pipeline kind each) and their keys, kept as digests. */
export interface KeyRows {
  insertApplication(app: Application): Promise<void>;
  getApplication(id: string): Promise<Application | undefined>;
  listApplications(): Promise<Application[]>;
  countApplications(): Promise<number>;
  insertKey(key: Omit<ApiKeyRecord, 'revokedAt'>): Promise<void>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  listKeys(applicationId: string): Promise<ApiKeyRecord[]>;
  /** The number of keys revoked (0 if already revoked or unknown). */
  revokeKey(id: string, at: string): Promise<number>;
  revokeApplicationKeys(applicationId: string, at: string): Promise<number>;
}

/** The key store; its transactions follow JobsStore's rules. The signing secret is not here (src/auth/api-keys.ts). */
export interface KeyStore extends KeyRows {
  withTransaction<T>(fn: (tx: KeyRows) => Promise<T>): Promise<T>;
  /**
   * The revocation signal (issue #14), read on every request instead of the key's row: a number that is different
   * once any key may have changed since it was last read (revoked or written by this process, by another process on
   * the same SQLite file, by another node of the same PostgreSQL database), equal while none did. null while this
   * store has no signal (a PostgreSQL store without its listening connection, or with it down): the key service then
   * reads the key's row on every request. Synchronous, so that it is read before the request goes any further.
   */
  keysRevision(): number | null;
}

// ---- Work queue: analysis of stored files ----

/** One unit of work: analyse one stored file of a job. */
export interface FileWork {
  fileId: string;
  jobId: string;
  mediaType: MediaType;
}

/** A unit taken by this node; settle it exactly once with complete, fail or release. */
export interface WorkLease {
  readonly work: FileWork;
  /** Attempts already spent on this unit (started, never finished): at MAX the taker ends the file in error. */
  readonly attempts: number;
  /**
   * Set when the queue has given the unit up (its own retry bound reached, by expiries or failures, before the file
   * was finished): the taker ends the file in error with this message instead of analysing it.
   */
  readonly givenUp?: string;
}

/**
 * The analysis queue. Attempts are per unit of work and count only from `started` (a worker really began the file):
 * a unit queued behind others, or taken by a node that stopped before starting it, spends none. A unit whose node
 * dies after `started` is retried by the queue's own expiry and retry policy (the desktop: at its next start, in
 * recover()); a unit is taken again with its attempts so far, and the taker ends its file in error once they reach
 * its MAX (src/jobs/analysis-runner.ts). No node settles or removes another node's units.
 */
export interface WorkQueue {
  /**
   * Queues the files of a job, in order, in the transaction that inserts the job: the units become takeable when it
   * commits and never exist if it rolls back (PostgreSQL: pg-boss's send on the transaction's client; the local
   * queue: tx.onCommit).
   */
  enqueue(tx: JobsTx, work: FileWork[]): Promise<void>;
  /** Takes the next unit for this node, or null when none is queued now. */
  take(): Promise<WorkLease | null>;
  /** Calls `fn` whenever units may have become available to take (after enqueue, a retry, a recovery); returns an unsubscribe. */
  onAvailable(fn: () => void): () => void;
  /** The worker began the unit at `at` (ISO 8601): its attempt counts from here (and the file's startedAt says so). */
  started(lease: WorkLease, at: string): Promise<void>;
  /**
   * In the transaction recording the unit's outcome: whether this lease is still the unit's current taking (a team
   * worker judged dead while it was only slow has had its unit handed on, and must not record an outcome). Holds the
   * unit until the transaction ends. Absent: every lease is current (the desktop's one runner).
   */
  confirm?(tx: JobsTx, lease: WorkLease): Promise<boolean>;
  /** The unit's outcome (completed or error) is recorded in the jobs store: it leaves the queue. */
  complete(lease: WorkLease): Promise<void>;
  /** The outcome could not be recorded: the unit is retried by the queue's policy (desktop: at the next start). */
  fail(lease: WorkLease): Promise<void>;
  /** A clean stop interrupted the unit: back to the queue, its attempt (if started) not spent. */
  release(lease: WorkLease): Promise<void>;
  /**
   * At start: puts back in the queue this node's own units left unsettled by a crash (the desktop: every file still
   * processing, as it is the only node); returns how many. A queue with its own expiry (pg-boss) returns 0.
   */
  recover(): Promise<number>;
}

// ---- File stages: where a file under analysis stands, for GET .../progress on any node ----

/** The stage of a file under analysis (GET /v1/jobs/{jobId}/progress) and when its analysis began. */
export interface RunningStage {
  stage: Extract<FileStage, 'decoding' | 'analysing'>;
  startedAt: string;
}

/**
 * Stages of files under analysis, shared by every node (a team server: the worker analysing a file records them,
 * any API node reads them). The desktop has none: its one runner knows its own files' stages in memory.
 */
export interface FileStages {
  /** Records the stage of a file still processing (no effect once the file has its outcome). */
  set(fileId: string, stage: RunningStage): Promise<void>;
  /** The recorded stages of those of `fileIds` still processing that a worker has begun. */
  get(fileIds: string[]): Promise<Map<string, RunningStage>>;
}

// ---- Job events: a job's completion, for GET ?wait=true on any node ----

export interface JobEvents {
  /** Tells every node that the job reached a terminal status (after it was committed). */
  publishFinished(jobId: string): Promise<void>;
  /** Calls `fn` when the job is published as finished; returns an unsubscribe. */
  onFinished(jobId: string, fn: () => void): () => void;
  close(): Promise<void>;
}

// ---- Blob store: the uploaded files ----

/**
 * The stored originals (and the previews made of them). Uploads are streamed to a temporary path on this node, then
 * put; a worker reads a file through withLocalFile (a shared directory: its path; a store with no path, such as
 * PostgreSQL itself: a temporary copy removed afterwards).
 */
export interface BlobStore {
  /** A fresh temporary path on this node (server-made name); its creator deletes it (src/jobs/intake.ts). */
  tempPath(): string;
  /** Deletes temporary paths (no error when gone). */
  removeTemp(paths: string[]): Promise<void>;
  /** Puts flushed temporary files under their file ids, durably, all or none (on failure the temp files are back). */
  put(moves: { tmpPath: string; fileId: string }[]): Promise<void>;
  exists(fileId: string): Promise<boolean>;
  /** Runs `fn` with a local path of the stored file, valid until `fn` settles. */
  withLocalFile<T>(fileId: string, fn: (path: string) => Promise<T>): Promise<T>;
  /** The stored file as a stream (download). */
  openRead(fileId: string): Promise<Readable>;
  /** Removes stored files and their previews (no error when gone). */
  removeFiles(fileIds: string[]): Promise<void>;
  /** The preview kept for a file, or null when none is kept. */
  readPreview(fileId: string): Promise<Buffer | null>;
  /**
   * Where the file's kept preview is on this machine, when previews are local files (the desktop's store): the
   * report process reads it there instead of this event loop reading it for it. Says nothing of whether it is there.
   */
  previewFile?(fileId: string): string;
  /** Keeps a preview, whole or not at all, if the file is still stored. */
  putPreview(fileId: string, data: Buffer): Promise<void>;
  /**
   * Start-up sweep of what a crash left: this node's temporary files, and (only where the store is this node's
   * alone: the desktop) stored files no job names. A shared store never deletes another node's files here.
   */
  sweepLeftovers(knownFileIds: () => Promise<Set<string>>): Promise<{ tmp: number; orphans: number }>;
}

// ---- Rate-limit store: per-key request counters across API nodes ----

/**
 * Fixed-window counters for @fastify/rate-limit (its custom `store`, see src/db/rate-limit-store.ts for the
 * adapter). The desktop passes none and keeps the plugin's in-memory store.
 */
export interface RateLimitStore {
  /** Counts one request for `key` in its current window; returns the count so far and the window's ms left. */
  incr(key: string, timeWindowMs: number): Promise<{ current: number; ttl: number }>;
  /** The count of `key`'s current window without counting anything (0 when no window is open). */
  read(key: string): Promise<{ current: number; ttl: number }>;
}
