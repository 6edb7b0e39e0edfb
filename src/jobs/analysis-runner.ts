// Takes files from the work queue and analyses them in a worker pool, then records each outcome in the jobs store and
// tells waiting polls (JobEvents). The desktop runs one inside the core; a team server runs it in `veracity worker`
// processes. Every side effect goes through the interfaces of src/db/stores.ts.
import type { FileAnalysis } from '../analysis/index.js';
import type { BlobStore, FileOutcome, FileStages, JobEvents, JobsStore, JobsTx, RunningStage, WorkLease, WorkQueue } from '../db/stores.js';
import { deriveJobStatus } from './job-status.js';
import { WorkerTaskError, type WorkerPool } from './worker-pool.js';

/** Tries of a failed bookkeeping write (about 5 minutes of backoff) before the file is left to the queue's retry. */
const BOOKKEEPING_ATTEMPTS = 36;

/** Attempts after which a file that keeps interrupting its analysis (crash, kill) ends in internal_error. */
export const MAX_ATTEMPTS = 3;

export interface AnalysisRunnerDeps {
  store: JobsStore;
  blobs: BlobStore;
  queue: WorkQueue;
  events: JobEvents;
  pool: WorkerPool;
  modelsDir: string;
  /** The C2PA trust-anchor bundle the analysis reads (config trustAnchorsFileOf); null: no anchors. */
  trustAnchorsFile?: string | null;
  threadsPerWorker: number;
  fileTimeoutMs: number;
  /** Units under analysis at once on this node (the desktop: every unit at once, the pool queues them). */
  concurrency?: number;
  /** Where to record each file's stage for other nodes (a team worker); the desktop keeps them in memory only. */
  stages?: FileStages;
  /** Called after each write of a job's rows by this runner (the job service forgets its kept answers). */
  changed?: (jobId: string) => void;
  now?: () => Date;
  log?: { error: (obj: object, msg: string) => void; info: (obj: object, msg: string) => void };
}

/**
 * Recomputes and stores the job's status in `tx`; returns true if the job is now terminal. The job is held first:
 * another node recording a file of the same job at the same moment commits before these files are read.
 */
export async function refreshJobStatus(tx: JobsTx, jobId: string, at: string): Promise<boolean> {
  await tx.jobs.lockJob(jobId);
  const files = await tx.jobs.getFiles(jobId);
  const derived = deriveJobStatus(files.map((f) => ({ status: f.status, errorCode: f.errorCode })));
  await tx.jobs.updateJobStatus(jobId, {
    status: derived.status,
    errorCode: derived.error?.code ?? null,
    errorMessage: derived.error?.message ?? null,
    updatedAt: at,
    completedAt: derived.status === 'processing' ? null : at,
  });
  return derived.status !== 'processing';
}

export function createAnalysisRunner(d: AnalysisRunnerDeps) {
  const now = d.now ?? (() => new Date());
  const concurrency = d.concurrency ?? Infinity;
  let running = 0; // units taken and not yet settled
  let stopping = false;
  let draining = false;
  let unsubscribe: (() => void) | null = null;
  const idle = new Set<() => void>();
  /**
   * Where each file under analysis on this node stands (the worker reports the start and the end of decoding).
   * Memory only: a file absent from here is queued.
   */
  const stages = new Map<string, RunningStage>();
  /** The last write of each file's stage to d.stages: writes of one file are chained, so that they land in order. */
  const stageWrites = new Map<string, Promise<void>>();

  function shareStage(fileId: string, stage: RunningStage): void {
    const shared = d.stages;
    if (!shared) return;
    const next = (stageWrites.get(fileId) ?? Promise.resolve())
      .then(() => shared.set(fileId, { ...stage }))
      // Progress only: a lost write shows the file a stage behind, the analysis goes on.
      .catch((err: unknown) => d.log?.error({ err, fileId }, 'could not record the stage of an analysis'));
    stageWrites.set(fileId, next);
    void next.then(() => {
      if (stageWrites.get(fileId) === next) stageWrites.delete(fileId);
    });
  }

  /** Takes units while there is room; re-entered whenever a unit may be available or a slot frees. */
  async function drain(): Promise<void> {
    if (draining) return;
    draining = true;
    try {
      while (!stopping && running < concurrency) {
        const lease = await d.queue.take();
        if (!lease) break;
        running++;
        void handle(lease).finally(() => {
          running--;
          if (running === 0) for (const fn of [...idle]) fn();
          if (running < concurrency && Number.isFinite(concurrency)) void drain();
        });
      }
    } catch (err) {
      d.log?.error({ err }, 'could not take work from the queue');
    } finally {
      draining = false;
    }
  }

  /**
   * A bookkeeping write that fails (disk full: SQLITE_FULL, an I/O error) is retried with backoff: giving up at
   * once left the file `processing` until the next restart even after space came back. Stops at shutdown (the
   * queue's retry then resumes the file).
   */
  async function durably<T>(fileId: string, write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (stopping || attempt >= BOOKKEEPING_ATTEMPTS) throw err;
        d.log?.error({ err, fileId, attempt }, 'could not record the analysis state; retrying');
        await new Promise<void>((resolve) => setTimeout(resolve, Math.min(10_000, 250 * 2 ** attempt)).unref());
      }
    }
  }

  async function handle(lease: WorkLease): Promise<void> {
    const { fileId, jobId, mediaType } = lease.work;
    try {
      const outcome = await analyse(lease);
      if (outcome === null) {
        await d.queue.release(lease);
        return;
      }
      if (!(await durably(fileId, () => finishFile(lease, outcome)))) {
        // Handed on to another worker while this one was judged dead: that one records the file.
        d.log?.info({ fileId, jobId }, 'the file was handed on to another worker; this outcome is not recorded');
        return;
      }
      await d.queue.complete(lease);
    } catch (err) {
      d.log?.error({ err, fileId, jobId, mediaType }, 'analysis bookkeeping failed');
      await d.queue.fail(lease).catch((e: unknown) => d.log?.error({ err: e, fileId }, 'could not hand a unit back to the queue'));
    } finally {
      // Only once the outcome is recorded (or the unit handed back): a progress read in between saw the file still
      // processing and, with no stage left here, called it `queued` after `analysing` (CI, stop 18).
      stages.delete(fileId);
    }
  }

  /** The file's outcome, or null when a clean stop interrupted it (it is resumed later, at no cost to the file). */
  async function analyse(lease: WorkLease): Promise<FileOutcome | null> {
    const { fileId, jobId, mediaType } = lease.work;
    if (lease.givenUp) return { status: 'error', completedAt: now().toISOString(), errorCode: 'internal_error', errorMessage: lease.givenUp };
    if (!(await d.blobs.exists(fileId))) {
      return { status: 'error', completedAt: now().toISOString(), errorCode: 'internal_error', errorMessage: 'The stored file is missing; it cannot be analysed.' };
    }
    if (lease.attempts >= MAX_ATTEMPTS) {
      return {
        status: 'error',
        completedAt: now().toISOString(),
        errorCode: 'internal_error',
        errorMessage: `The analysis was interrupted ${lease.attempts} times and was not tried again.`,
      };
    }
    try {
      const result = await d.blobs.withLocalFile(fileId, (path) =>
        d.pool.run<FileAnalysis>({ op: 'analyse', path, mediaType, modelsDir: d.modelsDir, threads: d.threadsPerWorker, trustAnchorsFile: d.trustAnchorsFile ?? null }, d.fileTimeoutMs, {
          // An attempt counts only once a worker has really begun the file (issue: files queued behind others were
          // failed after three restarts without ever being analysed, because the attempt was counted when queued).
          onStart: () => recordStart(lease),
          onStage: (stage) => {
            const current = stages.get(fileId);
            if (current) {
              current.stage = stage;
              shareStage(fileId, current);
            }
          },
        }),
      );
      return {
        status: 'completed',
        completedAt: now().toISOString(),
        verdict: result.verdict,
        regions: result.regions,
        modelVersion: result.modelVersion,
        aggregation: result.aggregation,
        pixelSize: result.pixelSize,
      };
    } catch (err) {
      // A clean shutdown stopped it: the file is resumed at the next start, and a stop is not the file's fault.
      if (err instanceof WorkerTaskError && err.reason === 'closed') return null;
      const code = err instanceof WorkerTaskError && err.code === 'result_unavailable' ? 'result_unavailable' : 'internal_error';
      const message = err instanceof Error ? err.message : 'Analysis failed.';
      d.log?.info({ fileId, jobId, code, err: message }, 'file analysis ended in error');
      return { status: 'error', completedAt: now().toISOString(), errorCode: code, errorMessage: message };
    }
  }

  /**
   * Records that analysis of the file started (attempt + startedAt). Runs while the worker is already at work, so
   * a failed write (disk full) is logged, not retried: the analysis goes on and its result is still recorded.
   */
  function recordStart(lease: WorkLease): void {
    const at = now().toISOString();
    stages.set(lease.work.fileId, { stage: 'decoding', startedAt: at });
    shareStage(lease.work.fileId, { stage: 'decoding', startedAt: at });
    d.queue.started(lease, at).catch((err: unknown) => d.log?.error({ err, fileId: lease.work.fileId }, 'could not record the start of an analysis'));
  }

  /** Records the outcome; false (nothing recorded) when the lease is no longer the unit's current taking. */
  async function finishFile(lease: WorkLease, outcome: FileOutcome): Promise<boolean> {
    const { fileId, jobId } = lease.work;
    const terminal = await d.store.withTransaction(async (tx) => {
      if (d.queue.confirm && !(await d.queue.confirm(tx, lease))) return null;
      // Also before the commit: a read that began before it and ends after it is then never kept as current.
      d.changed?.(jobId);
      await tx.jobs.finishFile(fileId, outcome);
      return refreshJobStatus(tx, jobId, now().toISOString());
    });
    if (terminal === null) return false;
    d.changed?.(jobId);
    if (terminal) await d.events.publishFinished(jobId);
    return true;
  }

  return {
    /** Starts taking units (call once the queue has been recovered, or at once on a worker node). */
    start(): void {
      if (unsubscribe || stopping) return;
      unsubscribe = d.queue.onAvailable(() => void drain());
      void drain();
    },
    /** Stops taking units; those under way finish or are released when the pool closes. */
    stop(): void {
      stopping = true;
      unsubscribe?.();
      unsubscribe = null;
    },
    /** The stage of a file under analysis on this node, if it is. */
    stageOf(fileId: string) {
      return stages.get(fileId);
    },
    /** Resolves when no unit taken by this node is under analysis or being recorded. */
    whenIdle(): Promise<void> {
      if (running === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const fn = () => {
          idle.delete(fn);
          resolve();
        };
        idle.add(fn);
      });
    },
    get running() {
      return running;
    },
  };
}
export type AnalysisRunner = ReturnType<typeof createAnalysisRunner>;
