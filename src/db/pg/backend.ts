// Everything a team-server node stores, opened together on one PostgreSQL database and one shared blob directory
// (or, with none given, the blobs in PostgreSQL itself): the node's heartbeat row, the jobs and key stores, the
// pg-boss work queue, LISTEN/NOTIFY job events and key revocations, rate-limit counters and the blobs. Every node,
// API node or worker, also reaps the nodes that died (src/db/pg/node-registry.ts) every sweepIntervalMs: their rows,
// the files they held in the queue (handed on), and their temp folders in the shared blob directory.
import { openPgPool, type PgPool } from './connection.js';
import { createPgFileStages } from './file-stages.js';
import { createPgJobEvents } from './job-events.js';
import { createPgJobsStore } from './jobs-store.js';
import { createPgKeyStore, listenForKeyChanges } from './key-store.js';
import { createNodeRegistry, type NodeRegistry, type NodeRole } from './node-registry.js';
import { createPgBlobStore } from './pg-blob-store.js';
import { createPgRateLimitStore } from './rate-limit-store.js';
import { createSharedBlobStore } from './shared-blob-store.js';
import { createPgWorkQueue, type PgWorkQueue, type PgWorkQueueOptions } from './work-queue.js';
import type { BlobStore, FileStages, JobEvents, JobsStore, KeyStore, RateLimitStore } from '../stores.js';

export interface PgBackendOptions {
  /** postgres://… (from --database-url or VERACITY_DATABASE_URL; its password from the environment, never a file). */
  databaseUrl: string;
  /** The directory every node mounts for uploaded files; none (or ''): they are kept in PostgreSQL (small deployments). */
  blobDir?: string;
  maxConnections?: number;
  queue?: Omit<PgWorkQueueOptions, 'connectionString'>;
  onError?: (err: Error) => void;
  /** Listen for key revocations (an API node, which checks keys); false for a worker, which checks none. Default true. */
  listenForKeys?: boolean;
  /** What this node is, in the node registry. Default 'api'. */
  role?: NodeRole;
  /** Node heartbeats (src/db/pg/node-registry.ts): how often this node beats, and after how long a silent node is dead. */
  nodeBeatMs?: number;
  nodeDeadAfterMs?: number;
  /** How often this node reaps dead nodes (and then sweeps their temp folders); default every second. */
  sweepIntervalMs?: number;
}

export interface PgBackend {
  pool: PgPool;
  jobsStore: JobsStore;
  keyStore: KeyStore;
  queue: PgWorkQueue;
  events: JobEvents;
  /** The stage of each file under analysis, for progress on any node. */
  stages: FileStages;
  rateLimit: RateLimitStore;
  blobs: BlobStore & { close(): Promise<void> };
  /** This node's row among the live nodes. */
  registry: NodeRegistry;
  /** Reaps dead nodes and sweeps their temp folders now (it also runs on its own every sweepIntervalMs). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

/** Migrates (or refuses) the database, then opens every store; on failure closes what it opened. */
export async function openPgBackend(o: PgBackendOptions): Promise<PgBackend> {
  const pool = await openPgPool(o.databaseUrl, { maxConnections: o.maxConnections });
  const opened: (() => Promise<void>)[] = [() => pool.end()];
  const closeAll = async () => {
    for (const close of opened.splice(0).reverse()) await close().catch(() => {});
  };
  try {
    let onLost = () => {};
    const registry = await createNodeRegistry(pool, {
      role: o.role ?? 'api',
      beatMs: o.nodeBeatMs,
      deadAfterMs: o.nodeDeadAfterMs,
      onLost: () => onLost(),
      onError: o.onError,
    });
    opened.push(() => registry.close());
    // The registry's row is written before the temp folder is made: a sweep that sees the folder sees the row.
    const shared = o.blobDir ? createSharedBlobStore(o.blobDir, { nodeId: registry.id, registeredNodes: () => registry.registered() }) : null;
    const blobs = shared ?? createPgBlobStore(pool);
    opened.push(() => blobs.close());
    onLost = () => {
      o.onError?.(new Error('This node was judged dead (no heartbeat for a while) and registered again; its temp folder is made again.'));
      void shared?.reclaim().catch(() => {});
    };
    const events = await createPgJobEvents(pool, o.databaseUrl, { onError: o.onError });
    opened.push(() => events.close());
    // Revocations by any node or by `veracity keys revoke`: what lets the key service keep a verified key's state.
    const keyChanges = o.listenForKeys === false ? undefined : await listenForKeyChanges(o.databaseUrl, { onError: o.onError });
    if (keyChanges) opened.push(() => keyChanges.close());
    const queue = await createPgWorkQueue(pool, { ...o.queue, connectionString: o.databaseUrl, nodeId: registry.id, onError: o.onError ?? o.queue?.onError });
    opened.push(() => queue.close());
    let sweeping: Promise<void> | null = null;
    let lastFolderSweep = 0;
    const sweep = () =>
      (sweeping ??= (async () => {
        // A dead worker's files go back to the queue in the transaction that reaps it: seconds after its last beat.
        const dead = await registry.reap((ids, client) => queue.handOn(ids, client).then(() => undefined));
        // The shared directory is read when a node was just reaped here, else every 30 s (a node reaped by another
        // node, whose sweep removed its folder, or an older version's folder).
        if (shared && (dead.length || Date.now() - lastFolderSweep > 30_000)) {
          lastFolderSweep = Date.now();
          await shared.sweepDeadNodes();
        }
      })()
        .catch((err: Error) => o.onError?.(err))
        .finally(() => {
          sweeping = null;
        }));
    const sweeper = setInterval(() => void sweep(), o.sweepIntervalMs ?? 1000);
    sweeper.unref();
    opened.push(async () => {
      clearInterval(sweeper);
      await sweeping;
    });
    return {
      pool,
      jobsStore: createPgJobsStore(pool),
      keyStore: createPgKeyStore(pool, keyChanges),
      queue,
      events,
      stages: createPgFileStages(pool),
      rateLimit: createPgRateLimitStore(pool),
      blobs,
      registry,
      sweep,
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
