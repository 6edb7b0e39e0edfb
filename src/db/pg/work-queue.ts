// The team server's analysis queue (src/db/stores.ts WorkQueue) on pg-boss 10: one pg-boss job per stored file, sent
// on the client of the transaction that inserts the job, taken by any worker process on any machine. Recovery is
// pg-boss's own: a unit whose taker goes silent past its expiry is failed by pg-boss's maintenance and retried
// under its retry policy. Attempts that decide a file's fate are job_files.attempts, counted from `started` only:
// a unit expired or released before a worker began it spends none (its pg-boss retry count is only a bound
// against a unit no node can ever take to the end). A unit that reaches that bound (expired again and again before
// any worker began it, or failed again and again) is moved by pg-boss to a dead-letter queue; the next take()
// hands it out marked givenUp, and its taker ends the file in error: a file is never left `processing` forever,
// and no attempt is counted for a start that never happened.
// A worker that dies does not wait for that expiry: take() records the taking node (job_files.held_by, the node's id
// in src/db/pg/node-registry.ts), and whichever node reaps a node that stopped beating hands its units back at once
// (handOn: failed, so retried under the same policy, seconds after the last heartbeat). A holder that was judged
// dead while it was only slow records nothing: confirm() holds the unit in the transaction recording the outcome and
// refuses a lease that is no longer the unit's current taking.
import crypto from 'node:crypto';
import PgBoss from 'pg-boss';
import pg from 'pg';
import type { FileWork, JobsTx, WorkLease, WorkQueue } from '../stores.js';
import type { PgPool, Queryable } from './connection.js';
import { clientOfTransaction, inTransaction } from './jobs-store.js';

export const WORK_AVAILABLE_CHANNEL = 'veracity_work_available';
/** Any number, fixed: serialises pg-boss's start (its schema install) across nodes. */
const PG_BOSS_START_LOCK = 7_281_504_114;

export interface PgWorkQueueOptions {
  /** postgres:// URL, for the connection that listens for new work. */
  connectionString: string;
  /** pg-boss queue name. */
  queue?: string;
  /** pg-boss schema. */
  schema?: string;
  /** A unit taken and not settled for this long is failed by pg-boss and retried (keep it above the analysis timeout). */
  expireInSeconds?: number;
  /** pg-boss retries of one unit (expiries and failures), a bound well above the file's own attempt limit. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** How often pg-boss's maintenance (expiry of silent units) runs, cluster-wide. */
  maintenanceIntervalSeconds?: number;
  /** How often listeners are woken without a notification (retries falling due after a delay or an expiry). */
  pollIntervalMs?: number;
  /** This node's id in the node registry, recorded as the holder of the units it takes. */
  nodeId?: string;
  onError?: (err: Error) => void;
}

export interface PgWorkQueue extends WorkQueue {
  readonly boss: PgBoss;
  readonly queue: string;
  /**
   * Hands the units held by `deadNodes` back to the queue (pg-boss fail: retried under the queue's policy, as after
   * an expiry), on `client`'s transaction (the reap's, which holds the dead nodes' rows); returns how many.
   */
  handOn(deadNodes: string[], client: pg.PoolClient): Promise<number>;
  close(): Promise<void>;
}

interface PgLease extends WorkLease {
  /** The pg-boss queue the unit is in: the analysis queue, or its dead-letter queue for a unit given up. */
  readonly bossQueue: string;
  readonly bossId: string;
  /** pg-boss's retry count when taken: with the id, it names this taking of the unit and no later one. */
  readonly retryCount: number;
  started: boolean;
}

/**
 * A time-ordered UUID (version 7 layout: milliseconds, then a counter): pg-boss takes units by created_on (the
 * sending transaction's start, the same for every file of a job), then id; these ids keep a job's files in
 * submission order.
 */
let lastMs = 0;
let counter = 0;
export function orderedUuid(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
  }
  const b = crypto.randomBytes(16);
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** pg-boss's Db contract on one client or the pool. */
const asDb = (q: Queryable): PgBoss.Db => ({
  executeSql: (text: string, values: unknown[]) => q.query(text, values),
});

export async function createPgWorkQueue(pool: PgPool, opts: PgWorkQueueOptions): Promise<PgWorkQueue> {
  const queue = opts.queue ?? 'veracity-analysis';
  const deadQueue = `${queue}-given-up`;
  const schema = opts.schema ?? 'pgboss';
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid pg-boss schema name: ${schema}`);
  const policy = {
    expireInSeconds: opts.expireInSeconds ?? 15 * 60,
    retryLimit: opts.retryLimit ?? 20,
    retryDelay: opts.retryDelaySeconds ?? 0,
    retryBackoff: opts.retryBackoff ?? false,
  };
  // Where pg-boss moves a unit whose retries are spent. On every unit (send) as well as on the queue, so units sent
  // by this node carry it whatever the queue row of an older installation says.
  const withDeadLetter = { ...policy, deadLetter: deadQueue };
  const onError = opts.onError ?? (() => {});
  const boss = new PgBoss({
    db: asDb(pool),
    schema,
    maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? 30,
    // Cron schedules and state monitoring are not used.
    schedule: false,
  });
  boss.on('error', onError);
  // pg-boss installs its schema at the first start, but two nodes starting at once on a fresh database both try
  // (duplicate key on pg_namespace): nodes take turns here, the second finding the schema in place.
  const gate = await pool.connect();
  try {
    await gate.query('SELECT pg_advisory_lock($1)', [PG_BOSS_START_LOCK]);
    try {
      await boss.start();
      // The dead-letter queue first: the analysis queue refers to it. Its units keep the same policy (a taker that
      // dies while ending a given-up file leaves it to expiry and retry like any other unit).
      await boss.createQueue(deadQueue, { name: deadQueue, ...policy });
      await boss.createQueue(queue, { name: queue, ...withDeadLetter });
    } finally {
      await gate.query('SELECT pg_advisory_unlock($1)', [PG_BOSS_START_LOCK]);
    }
  } finally {
    gate.release();
  }

  const listeners = new Set<() => void>();
  const notify = () => {
    for (const fn of [...listeners]) fn();
  };

  // New work is announced by NOTIFY in the inserting transaction (delivered when it commits); retries that fall due
  // are found by the poll.
  let closed = false;
  let listener: pg.Client | null = null;
  let reconnect: NodeJS.Timeout | null = null;
  async function listen(): Promise<void> {
    const c = new pg.Client({ connectionString: opts.connectionString, application_name: 'veracity-queue' });
    c.on('notification', (msg) => {
      if (msg.channel === WORK_AVAILABLE_CHANNEL) notify();
    });
    c.on('error', (err) => {
      onError(err);
      if (listener === c) listener = null;
      c.end().catch(() => {});
      if (!closed && !reconnect) {
        reconnect = setTimeout(() => {
          reconnect = null;
          listen().catch(onError);
        }, 1000);
        reconnect.unref();
      }
    });
    await c.connect();
    await c.query(`LISTEN ${WORK_AVAILABLE_CHANNEL}`);
    if (closed) await c.end();
    else listener = c;
  }
  await listen();
  const poll = setInterval(() => {
    if (listeners.size) notify();
  }, opts.pollIntervalMs ?? 2000);
  poll.unref();

  /**
   * Runs `fn` on a transaction holding the unit's pg-boss row, if this lease still owns it (active, and not taken
   * again since: an expiry and a new taking raise retry_count). A node never settles a unit another node now holds.
   */
  async function settle(lease: PgLease, fn: (client: pg.PoolClient) => Promise<void>): Promise<boolean> {
    return inTransaction(pool, async (client) => {
      const { rows } = await client.query(
        `SELECT 1 FROM ${schema}.job WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3 FOR UPDATE`,
        [lease.bossQueue, lease.bossId, lease.retryCount],
      );
      if (rows.length === 0) return false;
      await fn(client);
      return true;
    });
  }

  const send = (q: Queryable, w: FileWork, to = queue) =>
    boss.send(to, { ...w }, { ...(to === queue ? withDeadLetter : policy), id: orderedUuid(), db: asDb(q) });
  const givenUpMessage = (attempts: number) =>
    `The queue gave this file up after ${policy.retryLimit + 1} tries that did not finish (${attempts} of them began its analysis); it was not tried again.`;

  return {
    boss,
    queue,
    async enqueue(tx: JobsTx, work: FileWork[]) {
      const client = clientOfTransaction(tx);
      for (const w of work) {
        if ((await send(client, w)) === null) throw new Error(`pg-boss did not queue file ${w.fileId}`);
      }
      if (work.length) await client.query('SELECT pg_notify($1, $2)', [WORK_AVAILABLE_CHANNEL, queue]);
    },
    async take() {
      for (;;) {
        // Given-up units first (rare: the dead-letter queue is almost always empty), then the analysis queue.
        let bossQueue = deadQueue;
        let [job] = await boss.fetch<FileWork>(deadQueue, { batchSize: 1, includeMetadata: true });
        if (!job) {
          bossQueue = queue;
          [job] = await boss.fetch<FileWork>(queue, { batchSize: 1, includeMetadata: true });
        }
        if (!job) return null;
        const lease: PgLease = {
          work: { fileId: job.data.fileId, jobId: job.data.jobId, mediaType: job.data.mediaType },
          attempts: 0,
          bossQueue,
          bossId: job.id,
          retryCount: job.retryCount,
          started: false,
        };
        // Taken again after its worker died: the stage that worker recorded is no longer true (queued until started).
        const { rows } = await pool.query<{ status: string; attempts: number }>(
          'UPDATE job_files SET stage = NULL, stage_started_at = NULL, held_by = $2 WHERE id = $1 RETURNING status, attempts',
          [lease.work.fileId, opts.nodeId ?? null],
        );
        if (rows[0]?.status === 'processing') {
          const attempts = rows[0].attempts;
          return bossQueue === deadQueue ? { ...lease, attempts, givenUp: givenUpMessage(attempts) } : { ...lease, attempts };
        }
        // Finished already (a unit retried after its first taker recorded the outcome but died before settling),
        // or its job is gone: nothing to do but settle it.
        await settle(lease, (client) => boss.complete(bossQueue, lease.bossId, {}, { db: asDb(client) }));
      }
    },
    onAvailable(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    async handOn(deadNodes, client) {
      if (!deadNodes.length) return 0;
      const { rows } = await client.query<{ name: string; id: string; file_id: string }>(
        `SELECT j.name, j.id, f.id AS file_id FROM ${schema}.job j JOIN job_files f ON f.id = j.data->>'fileId'
         WHERE j.name = ANY($1::text[]) AND j.state = 'active' AND f.held_by = ANY($2::text[])
         FOR UPDATE OF j`,
        [[queue, deadQueue], deadNodes],
      );
      for (const r of rows) {
        await boss.fail(r.name, r.id, { message: 'its worker stopped beating' }, { db: asDb(client) });
      }
      if (rows.length) {
        // Queued again: no stage, no holder until a worker takes it (a file recorded already is settled by its taker).
        await client.query('UPDATE job_files SET stage = NULL, stage_started_at = NULL, held_by = NULL WHERE id = ANY($1::text[])', [
          rows.map((r) => r.file_id),
        ]);
        await client.query('SELECT pg_notify($1, $2)', [WORK_AVAILABLE_CHANNEL, queue]);
      }
      return rows.length;
    },
    async confirm(tx, lease) {
      const l = lease as PgLease;
      const { rows } = await clientOfTransaction(tx).query(
        `SELECT 1 FROM ${schema}.job WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3 FOR UPDATE`,
        [l.bossQueue, l.bossId, l.retryCount],
      );
      return rows.length === 1;
    },
    async started(lease, at) {
      (lease as PgLease).started = true;
      await pool.query("UPDATE job_files SET attempts = attempts + 1, started_at = $2 WHERE id = $1 AND status = 'processing'", [
        lease.work.fileId,
        at,
      ]);
    },
    async complete(lease) {
      const l = lease as PgLease;
      await settle(l, (client) => boss.complete(l.bossQueue, l.bossId, {}, { db: asDb(client) }));
    },
    async fail(lease) {
      const l = lease as PgLease;
      await settle(l, (client) => boss.fail(l.bossQueue, l.bossId, {}, { db: asDb(client) }));
    },
    async release(lease) {
      const l = lease as PgLease;
      // Back to the queue as a fresh unit (no pg-boss retry spent) and, if a worker began it, its attempt handed
      // back: a clean stop says nothing about the file. One transaction: the unit is never lost nor doubled.
      await settle(l, async (client) => {
        await boss.complete(l.bossQueue, l.bossId, {}, { db: asDb(client) });
        // A given-up unit goes back to the dead-letter queue: a clean stop does not give it a new life.
        if ((await send(client, l.work, l.bossQueue)) === null) throw new Error(`pg-boss did not queue file ${l.work.fileId}`);
        if (l.started) {
          await client.query("UPDATE job_files SET attempts = attempts - 1 WHERE id = $1 AND status = 'processing' AND attempts > 0", [
            l.work.fileId,
          ]);
        }
        // Queued again: no stage until a worker begins it.
        await client.query("UPDATE job_files SET stage = NULL, stage_started_at = NULL WHERE id = $1 AND status = 'processing'", [l.work.fileId]);
        await client.query('SELECT pg_notify($1, $2)', [WORK_AVAILABLE_CHANNEL, queue]);
      });
    },
    async recover() {
      // pg-boss expires and retries the units of a node that died; nothing of this node's is held across a restart.
      return 0;
    },
    async close() {
      closed = true;
      clearInterval(poll);
      if (reconnect) clearTimeout(reconnect);
      const c = listener;
      listener = null;
      await c?.end();
      await boss.stop({ graceful: false, close: false, wait: true });
    },
  };
}
