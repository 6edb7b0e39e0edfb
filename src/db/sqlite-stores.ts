// The desktop's implementations of the storage interfaces (src/db/stores.ts) on its one SQLite connection: the jobs
// store, the key store and the work queue of the in-process pool. better-sqlite3 is synchronous, so each call runs
// at once and resolves; what needs care is that asynchronous transactions share that one connection, hence the gate.
import type { ApplicationsRepository } from './applications-repository.js';
import { createApplicationsRepository } from './applications-repository.js';
import { createCasesRepository } from './cases-repository.js';
import type { Db } from './connection.js';
import { createJobsRepository, type JobsRepository } from './jobs-repository.js';
import type { CaseRows, FileWork, JobRows, JobsStore, JobsTx, KeyRows, KeyStore, WorkLease, WorkQueue } from './stores.js';

type Async<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<R> : never };

/**
 * One open transaction at a time on the connection, and no statement from outside it while it is open: a statement
 * issued by other code between the transaction's awaits would otherwise become part of it (and be rolled back with
 * it). Outside calls wait for the transaction to end; transactions queue behind each other.
 */
interface Gate {
  outside<T>(op: () => T): Promise<T>;
  transaction<T>(fn: (onCommit: (cb: () => void) => void) => Promise<T>): Promise<T>;
}

const gates = new WeakMap<Db, Gate>();

function gateOf(db: Db): Gate {
  let gate = gates.get(db);
  if (gate) return gate;
  let active: Promise<void> | null = null;
  gate = {
    async outside(op) {
      while (active) await active;
      return op();
    },
    async transaction(fn) {
      while (active) await active;
      let release!: () => void;
      active = new Promise<void>((resolve) => (release = resolve));
      const commits: (() => void)[] = [];
      let result;
      try {
        // IMMEDIATE: the write lock from the start, so reads in the transaction (max(seq), an idempotency re-check)
        // see what no other process can change before this one commits.
        db.exec('BEGIN IMMEDIATE');
        try {
          result = await fn((cb) => commits.push(cb));
          db.exec('COMMIT');
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      } finally {
        active = null;
        release();
      }
      for (const cb of commits) cb();
      return result;
    },
  };
  gates.set(db, gate);
  return gate;
}

/** The named methods of a synchronous repository as asynchronous ones, each run through `run`. */
function wrap<T extends object, K extends keyof T>(repo: T, keys: readonly K[], run: <R>(op: () => R) => Promise<R>): Async<Pick<T, K>> {
  const out = {} as Record<K, unknown>;
  for (const k of keys) {
    const fn = repo[k] as (...a: unknown[]) => unknown;
    out[k] = (...a: unknown[]) => run(() => fn.apply(repo, a));
  }
  return out as Async<Pick<T, K>>;
}

const JOB_METHODS = [
  'insertJob',
  'getJob',
  'getJobWithFiles',
  'getFiles',
  'getFile',
  'getFileRegions',
  'getTileScores',
  'putTileScores',
  'listJobs',
  'countJobs',
  'finishFile',
  'lockJob',
  'updateJobStatus',
  'touchJob',
  'setReview',
  'pendingFiles',
  'allFileIds',
  'countProcessingFiles',
  'findIdempotency',
  'insertIdempotency',
  'pruneIdempotency',
] as const;
const CASE_METHODS = ['insert', 'get', 'idByName', 'list', 'count', 'update', 'touch', 'jobs', 'countJobs', 'removeFile', 'removedFiles', 'history', 'countHistory'] as const;
const KEY_METHODS = [
  'insertApplication',
  'getApplication',
  'listApplications',
  'countApplications',
  'insertKey',
  'getKey',
  'listKeys',
  'revokeKey',
  'revokeApplicationKeys',
] as const;

/** Inside a transaction: straight to the connection (the gate is already held). */
const direct = async <R>(op: () => R): Promise<R> => op();

export function createSqliteJobsStore(db: Db, repos = { jobs: createJobsRepository(db), cases: createCasesRepository(db) }): JobsStore {
  const gate = gateOf(db);
  const jobs: JobRows = wrap(repos.jobs, JOB_METHODS, gate.outside);
  const cases: CaseRows = wrap(repos.cases, CASE_METHODS, gate.outside);
  const inTx = { jobs: wrap(repos.jobs, JOB_METHODS, direct) as JobRows, cases: wrap(repos.cases, CASE_METHODS, direct) as CaseRows };
  return {
    jobs,
    cases,
    withTransaction: (fn) => gate.transaction((onCommit) => fn({ ...inTx, onCommit } satisfies JobsTx)),
  };
}

/** The key store on the connection of `apps` (the CLI and the core open it through src/core.ts openDataDir). */
export function createSqliteKeyStore(apps: ApplicationsRepository): KeyStore {
  const gate = gateOf(apps.db);
  const inTx: KeyRows = wrap(apps, KEY_METHODS, direct);
  return {
    ...wrap(apps, KEY_METHODS, gate.outside),
    withTransaction: (fn) => gate.transaction(() => fn(inTx)),
    // Straight to the connection even while a transaction is open: a read of the WAL index, which a transaction of
    // this connection cannot make stale (it holds the write lock, so no other connection commits meanwhile).
    keysRevision: () => apps.keysRevision(),
  };
}

export function createSqliteKeyStoreFor(db: Db): KeyStore {
  return createSqliteKeyStore(createApplicationsRepository(db));
}

interface LocalLease extends WorkLease {
  started: boolean;
}

/**
 * The desktop's work queue: units in memory, in submission order, for the in-process pool; their attempts are the
 * job_files rows' (a file's attempt counts when a worker began it, is handed back on a clean stop). A crash loses
 * only the memory: recover() at the next start queues every file still processing again, with its attempts.
 */
export function createLocalWorkQueue(db: Db, repo: JobsRepository = createJobsRepository(db)): WorkQueue {
  const gate = gateOf(db);
  const queued: LocalLease[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const fn of [...listeners]) fn();
  };
  const push = (units: { work: FileWork; attempts: number }[]) => {
    for (const u of units) queued.push({ ...u, started: false });
    if (units.length) notify();
  };
  return {
    async enqueue(tx, work) {
      tx.onCommit(() => push(work.map((w) => ({ work: w, attempts: 0 }))));
    },
    async take() {
      return queued.shift() ?? null;
    },
    onAvailable(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    async started(lease, at) {
      (lease as LocalLease).started = true;
      await gate.outside(() => repo.startFile(lease.work.fileId, at));
    },
    async complete() {
      // The outcome is in job_files already: nothing else holds the unit.
    },
    async fail() {
      // Left processing: the next start's recover() queues it again (its attempt is spent).
    },
    async release(lease) {
      // A clean stop: the unit is resumed at the next start; an attempt it began says nothing about the file.
      if ((lease as LocalLease).started) await gate.outside(() => repo.handBackFile(lease.work.fileId));
    },
    async recover() {
      const pending = await gate.outside(() => repo.pendingFiles());
      push(pending.map((f) => ({ work: { fileId: f.id, jobId: f.jobId, mediaType: f.mediaType }, attempts: f.attempts })));
      return pending.length;
    },
  };
}
