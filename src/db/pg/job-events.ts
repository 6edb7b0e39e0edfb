// Job completion across nodes (src/db/stores.ts JobEvents) by PostgreSQL LISTEN/NOTIFY: whichever node finishes a
// job publishes it, and a GET ?wait=true held open on any other node wakes up. One listening connection per node,
// reconnected when it drops; a notification missed while it was down costs a waiter only its timeout, since the
// waiter reads the job's state again when it wakes either way.
import pg from 'pg';
import type { JobEvents } from '../stores.js';
import type { PgPool } from './connection.js';

export const JOB_FINISHED_CHANNEL = 'veracity_job_finished';

export interface PgJobEventsOptions {
  /** Delay before reconnecting the listening connection after it drops. */
  reconnectDelayMs?: number;
  /** Told when the listening connection drops or cannot be re-made (for the node's log). */
  onError?: (err: Error) => void;
}

/** Starts listening; resolves once the LISTEN is in place (so a publish after this is never missed). */
export async function createPgJobEvents(pool: PgPool, connectionString: string, opts: PgJobEventsOptions = {}): Promise<JobEvents> {
  const waiters = new Map<string, Set<() => void>>();
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const deliver = (jobId: string) => {
    const set = waiters.get(jobId);
    if (!set) return;
    for (const fn of [...set]) fn();
  };

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString, application_name: 'veracity-events' });
    c.on('notification', (msg) => {
      if (msg.channel === JOB_FINISHED_CHANNEL && msg.payload) deliver(msg.payload);
    });
    c.on('error', (err) => {
      opts.onError?.(err);
      if (client === c) client = null;
      c.end().catch(() => {});
      scheduleReconnect();
    });
    await c.connect();
    try {
      await c.query(`LISTEN ${JOB_FINISHED_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await c.end();
      return;
    }
    client = c;
  }

  function scheduleReconnect(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().catch((err: Error) => {
        opts.onError?.(err);
        scheduleReconnect();
      });
    }, opts.reconnectDelayMs ?? 1000);
    retry.unref();
  }

  await connect();

  return {
    async publishFinished(jobId) {
      await pool.query('SELECT pg_notify($1, $2)', [JOB_FINISHED_CHANNEL, jobId]);
    },
    onFinished(jobId, fn) {
      let set = waiters.get(jobId);
      if (!set) waiters.set(jobId, (set = new Set()));
      set.add(fn);
      return () => {
        set.delete(fn);
        if (set.size === 0 && waiters.get(jobId) === set) waiters.delete(jobId);
      };
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const c = client;
      client = null;
      await c?.end();
    },
  };
}
