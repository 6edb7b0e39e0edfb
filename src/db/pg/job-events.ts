// Job completion across nodes (src/db/stores.ts JobEvents) by PostgreSQL LISTEN/NOTIFY: whichever node finishes a
// job publishes it, and a GET ?wait=true held open on any other node wakes up. One listening connection per node,
// reconnected when it drops; a notification missed while it was down costs a waiter only its timeout, since the
// waiter reads the job's state again when it wakes either way.
import type { JobEvents } from '../stores.js';
import type { PgPool } from './connection.js';
import { listen, type ListenerOptions } from './listener.js';

export const JOB_FINISHED_CHANNEL = 'veracity_job_finished';

export type PgJobEventsOptions = ListenerOptions;

/** Starts listening; resolves once the LISTEN is in place (so a publish after this is never missed). */
export async function createPgJobEvents(pool: PgPool, connectionString: string, opts: PgJobEventsOptions = {}): Promise<JobEvents> {
  const waiters = new Map<string, Set<() => void>>();
  const deliver = (jobId: string) => {
    const set = waiters.get(jobId);
    if (!set) return;
    for (const fn of [...set]) fn();
  };
  const listener = await listen(connectionString, JOB_FINISHED_CHANNEL, 'veracity-events', { onNotify: (jobId) => jobId && deliver(jobId) }, opts);

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
    close: () => listener.close(),
  };
}
