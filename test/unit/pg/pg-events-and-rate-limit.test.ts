// Job completion events, key revocations and rate-limit counters shared by API nodes on one real PostgreSQL: a wait
// held on one node wakes when another finishes the job (even after its listening connection was cut), a revocation
// on one node moves every node's key revision (and no revision is given while the listener is down), and a key's
// requests count once across nodes, in one window.
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgPool } from '../../../src/db/pg/connection.js';
import { createPgJobEvents } from '../../../src/db/pg/job-events.js';
import { createPgKeyStore, listenForKeyChanges } from '../../../src/db/pg/key-store.js';
import { createPgRateLimitStore } from '../../../src/db/pg/rate-limit-store.js';
import type { JobEvents } from '../../../src/db/stores.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('PostgreSQL job events and rate-limit counters', () => {
  let server: TestPostgres;
  let url: string;
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    url = await server.createDatabase('events');
    poolA = await openPgPool(url);
    poolB = await openPgPool(url);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await poolA?.end();
    await poolB?.end();
  });

  async function events(pool: pg.Pool): Promise<JobEvents> {
    const e = await createPgJobEvents(pool, url, { reconnectDelayMs: 50 });
    closers.push(() => e.close());
    return e;
  }
  const finished = (e: JobEvents, jobId: string) =>
    new Promise<void>((resolve) => {
      const off = e.onFinished(jobId, () => {
        off();
        resolve();
      });
    });

  it('wakes a wait on one node when another node finishes the job, and only that wait', async () => {
    const apiA = await events(poolA);
    const apiB = await events(poolB);
    const job = crypto.randomUUID();
    const other = crypto.randomUUID();
    const calls: string[] = [];
    const offOther = apiB.onFinished(other, () => calls.push('other'));
    const offGone = apiB.onFinished(job, () => calls.push('unsubscribed'));
    offGone();
    const woken = finished(apiB, job).then(() => calls.push('job'));
    // Notifications arrive in commit order: when the job's arrives, the earlier one has been delivered.
    await apiA.publishFinished(crypto.randomUUID());
    await apiA.publishFinished(job);
    await woken;
    expect(calls).toEqual(['job']);
    offOther();
  });

  it('listens again after its connection is cut', async () => {
    const apiA = await events(poolA);
    const apiB = await events(poolB);
    const { rows } = await poolA.query<{ n: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'veracity-events'",
    );
    expect(rows[0].n).toBe(2);
    const job = crypto.randomUUID();
    const woken = finished(apiB, job);
    // Published until the new listening connection is in place (a notification sent before it is not replayed).
    let done = false;
    void woken.then(() => (done = true));
    for (let i = 0; i < 200 && !done; i++) {
      await apiA.publishFinished(job);
      await new Promise((r) => setTimeout(r, 25));
    }
    await woken;
  });

  it('moves every node\'s key revision at a revocation, and gives none while its listening connection is down', async () => {
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(ok()).toBe(true);
    };
    const changesA = await listenForKeyChanges(url, { reconnectDelayMs: 300 });
    closers.push(() => changesA.close());
    const changesB = await listenForKeyChanges(url, { reconnectDelayMs: 50 });
    closers.push(() => changesB.close());
    const nodeA = createPgKeyStore(poolA, changesA);
    const nodeB = createPgKeyStore(poolB, changesB);
    const cli = createPgKeyStore(poolB); // the `keys` CLI: announces, does not listen
    expect(cli.keysRevision()).toBeNull();
    const a0 = nodeA.keysRevision();
    const b0 = nodeB.keysRevision();
    expect(a0).not.toBeNull();
    // Node B's own revocation moves its revision at once, before the notification comes back; node A's on notice.
    await nodeB.revokeKey('no-such-key', new Date().toISOString());
    expect(nodeB.keysRevision()).not.toBe(b0);
    await until(() => nodeA.keysRevision() !== a0);
    const a1 = nodeA.keysRevision();
    await cli.revokeApplicationKeys('no-such-app', new Date().toISOString());
    await until(() => nodeA.keysRevision() !== a1);
    // Listening connection cut: no revision (every key read again) until a new one listens, then a new revision.
    const a2 = nodeA.keysRevision();
    await poolA.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'veracity-keys'");
    await until(() => nodeA.keysRevision() === null);
    await until(() => nodeA.keysRevision() !== null);
    expect(nodeA.keysRevision()).not.toBe(a2);
  });

  it('counts a key once per request across nodes, and starts a new window when one ends', async () => {
    const a = createPgRateLimitStore(poolA);
    const b = createPgRateLimitStore(poolB);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).incr('key-1', 60_000)));
    expect(results.map((r) => r.current).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const r of results) {
      expect(r.ttl).toBeGreaterThan(0);
      expect(r.ttl).toBeLessThanOrEqual(60_000);
    }
    // Another key has its own count.
    expect((await b.incr('key-2', 60_000)).current).toBe(1);
    // A read counts nothing (the server peeks at a client's refusals before verifying its credential).
    const peek = await b.read('key-1');
    expect(peek.current).toBe(40);
    expect(peek.ttl).toBeGreaterThan(0);
    expect(peek.ttl).toBeLessThanOrEqual(60_000);
    expect((await a.incr('key-1', 60_000)).current).toBe(41);
    expect(await a.read('no-such-key')).toEqual({ current: 0, ttl: 0 });

    const short = await a.incr('key-3', 200);
    expect(short.current).toBe(1);
    await new Promise((r) => setTimeout(r, short.ttl + 20));
    expect(await a.read('key-3')).toEqual({ current: 0, ttl: 0 }); // the window ended
    expect((await b.incr('key-3', 200)).current).toBe(1);
  });
});
