// The pg-boss work queue against a real PostgreSQL, with several queue instances as several worker processes: units
// exist only once their job commits, each is taken by one worker, a worker that dies is replaced through pg-boss's
// expiry, and only a unit a worker really began spends one of its file's attempts.
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgPool } from '../../../src/db/pg/connection.js';
import { createPgJobsStore } from '../../../src/db/pg/jobs-store.js';
import { createPgKeyStore } from '../../../src/db/pg/key-store.js';
import { createPgWorkQueue, type PgWorkQueue } from '../../../src/db/pg/work-queue.js';
import type { BlobStore, FileWork, JobEvents, JobsStore, WorkLease } from '../../../src/db/stores.js';
import { createAnalysisRunner } from '../../../src/jobs/analysis-runner.js';
import type { WorkerPool } from '../../../src/jobs/worker-pool.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('PostgreSQL work queue (pg-boss 10)', () => {
  let server: TestPostgres;
  let url: string;
  let pools: pg.Pool[] = [];
  let queues: PgWorkQueue[] = [];
  let store: JobsStore;

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    url = await server.createDatabase('queue');
    const pool = await openPgPool(url);
    pools.push(pool);
    store = createPgJobsStore(pool);
    await createPgKeyStore(pool).insertApplication({ id: 'app', name: 'Images', kind: 'images', createdAt: '2026-01-01T00:00:00.000Z' });
  });
  afterEach(async () => {
    for (const q of queues) await q.close();
    for (const p of pools) await p.end();
    queues = [];
    pools = [];
  });

  /** A worker process: its own pool and queue instance. */
  async function worker(opts: { expireInSeconds?: number; retryLimit?: number; nodeId?: string } = {}): Promise<PgWorkQueue> {
    const pool = await openPgPool(url);
    pools.push(pool);
    const q = await createPgWorkQueue(pool, {
      connectionString: url,
      expireInSeconds: opts.expireInSeconds ?? 60,
      retryLimit: opts.retryLimit,
      pollIntervalMs: 100,
      nodeId: opts.nodeId,
    });
    queues.push(q);
    return q;
  }

  /** Submits a job of `n` files and queues them in its transaction, as the job service does. */
  async function submit(q: PgWorkQueue, n: number, fail?: Error): Promise<FileWork[]> {
    const jobId = crypto.randomUUID();
    const work: FileWork[] = Array.from({ length: n }, () => ({ fileId: crypto.randomUUID(), jobId, mediaType: 'image/jpeg' }));
    await store.withTransaction(async (tx) => {
      await tx.jobs.insertJob(
        { id: jobId, applicationId: 'app', metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() },
        work.map((w, i) => ({ id: w.fileId, position: i, name: `f${i}.jpg`, size: 10, mediaType: 'image/jpeg', sha256: 'a'.repeat(64) })),
      );
      await q.enqueue(tx, work);
      if (fail) throw fail;
    });
    return work;
  }

  /** Takes until a unit comes (after an expiry: once pg-boss's maintenance has failed the silent one). */
  async function takeEventually(q: PgWorkQueue, expireFirst = false): Promise<WorkLease> {
    for (let i = 0; i < 300; i++) {
      if (expireFirst) await q.boss.expire();
      const lease = await q.take();
      if (lease) return lease;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no unit became available');
  }

  it('queues units only when the job commits, and wakes another node when it does', async () => {
    const api = await worker();
    const w = await worker();
    await expect(submit(api, 2, new Error('rolled back'))).rejects.toThrow('rolled back');
    expect(await w.take()).toBeNull();

    const woken = new Promise<void>((resolve) => {
      const off = w.onAvailable(() => {
        off();
        resolve();
      });
    });
    const work = await submit(api, 2);
    await woken;
    const a = await w.take();
    const b = await w.take();
    expect([a?.work, b?.work]).toEqual(work);
    expect([a?.attempts, b?.attempts]).toEqual([0, 0]);
    expect(await w.take()).toBeNull();
  });

  it('starts several nodes at once on a fresh database (pg-boss installs its schema once)', async () => {
    url = await server.createDatabase('fresh_queue');
    const nodePools = [await openPgPool(url), await openPgPool(url), await openPgPool(url)];
    pools.push(...nodePools);
    // The pools are ready first, so the three pg-boss starts really overlap.
    const nodes = await Promise.all(nodePools.map((p) => createPgWorkQueue(p, { connectionString: url })));
    queues.push(...nodes);
    expect(nodes.map((n) => n.queue)).toEqual(['veracity-analysis', 'veracity-analysis', 'veracity-analysis']);
  });

  it('gives each unit to exactly one of several workers', async () => {
    const api = await worker();
    const workers = [await worker(), await worker(), await worker()];
    const submitted = (await Promise.all(Array.from({ length: 5 }, () => submit(api, 6)))).flat();
    const taken: string[] = [];
    await Promise.all(
      workers.map(async (w) => {
        for (let lease = await w.take(); lease; lease = await w.take()) {
          taken.push(lease.work.fileId);
          await w.started(lease, new Date().toISOString());
          await w.complete(lease);
        }
      }),
    );
    expect(taken.sort()).toEqual(submitted.map((u) => u.fileId).sort());
    expect(await api.boss.getQueueSize(api.queue)).toBe(0);
  });

  it('retries the unit of a worker that died, spending an attempt only if it had begun the file', async () => {
    // The API node's policy goes with each unit it sends: here, a unit silent for a second is expired.
    const api = await worker({ expireInSeconds: 1 });
    const [unit] = await submit(api, 1);
    // Worker 1 takes the unit and dies before beginning it (no settle, no started).
    const w1 = await worker({ expireInSeconds: 1 });
    expect((await w1.take())?.work).toEqual(unit);
    const w2 = await worker({ expireInSeconds: 1 });
    expect(await w2.take()).toBeNull();
    const second = await takeEventually(w2, true);
    expect(second.work).toEqual(unit);
    expect(second.attempts).toBe(0);

    // Worker 2 begins it, then dies: the next taker sees one attempt spent.
    await w2.started(second, new Date().toISOString());
    const w3 = await worker({ expireInSeconds: 1 });
    const third = await takeEventually(w3, true);
    expect(third.attempts).toBe(1);
    const file = await store.jobs.getFile(unit.jobId, unit.fileId);
    expect(file?.attempts).toBe(1);
  });

  it("hands a dead node's units on at once, and refuses the outcome it records late", async () => {
    // pg-boss's own expiry is an hour away: only the hand-on can give the unit to another worker.
    const api = await worker({ expireInSeconds: 3600 });
    const [unit, other] = await submit(api, 2);
    const dead = await worker({ expireInSeconds: 3600, nodeId: 'node-dead' });
    const live = await worker({ expireInSeconds: 3600, nodeId: 'node-live' });
    const lease = (await dead.take())!;
    const kept = (await live.take())!;
    expect([lease.work, kept.work]).toEqual([unit, other]);
    await dead.started(lease, new Date().toISOString());
    expect(await api.take()).toBeNull();

    // The reap of node-dead (its row held by the reaping transaction): its unit only goes back, at once.
    const client = await pools[0].connect();
    try {
      await client.query('BEGIN');
      expect(await api.handOn(['node-dead'], client)).toBe(1);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const next = (await api.take())!;
    expect(next.work).toEqual(unit);
    expect(next.attempts).toBe(1);
    // node-dead was only slow: what it records now is refused; the new taking, and node-live's, are current.
    expect(await store.withTransaction((tx) => dead.confirm!(tx, lease))).toBe(false);
    expect(await store.withTransaction((tx) => api.confirm!(tx, next))).toBe(true);
    expect(await store.withTransaction((tx) => live.confirm!(tx, kept))).toBe(true);
  });

  it('never lets a worker whose unit expired settle the unit another worker now holds', async () => {
    const api = await worker({ expireInSeconds: 1 });
    const [unit] = await submit(api, 1);
    const slow = await worker({ expireInSeconds: 1 });
    const stale = (await slow.take())!;
    const fresh = await takeEventually(api, true);
    expect(fresh.work).toEqual(unit);
    // The slow worker wakes up and settles its old lease: nothing happens to the unit the other worker holds.
    await slow.fail(stale);
    await slow.complete(stale);
    expect((await api.boss.getJobById(api.queue, (fresh as unknown as { bossId: string }).bossId))?.state).toBe('active');
    await api.complete(fresh);
    expect((await api.boss.getJobById(api.queue, (fresh as unknown as { bossId: string }).bossId))?.state).toBe('completed');
  });

  it('puts a released unit back without spending its attempt or a pg-boss retry', async () => {
    const api = await worker();
    const [unit] = await submit(api, 1);
    const w = await worker();
    const lease = (await w.take())!;
    await w.started(lease, new Date().toISOString());
    expect((await store.jobs.getFile(unit.jobId, unit.fileId))?.attempts).toBe(1);
    await w.release(lease);
    expect((await store.jobs.getFile(unit.jobId, unit.fileId))?.attempts).toBe(0);
    const again = (await api.take())!;
    expect(again.work).toEqual(unit);
    expect(again.attempts).toBe(0);
    const [{ retry_count }] = (await pools[0].query<{ retry_count: number }>("SELECT retry_count FROM pgboss.job WHERE state = 'active'")).rows;
    expect(retry_count).toBe(0);
  });

  it('retries a failed unit under the queue policy and skips units whose file is already finished', async () => {
    const api = await worker();
    const [a, b] = await submit(api, 2);
    const w = await worker();
    const first = (await w.take())!;
    const bLease = (await w.take())!;
    expect([first.work, bLease.work]).toEqual([a, b]);
    await w.started(first, new Date().toISOString());
    await w.fail(first);
    // b's worker recorded its outcome and then could not settle the unit (its connection dropped): pg-boss retries it.
    await w.started(bLease, new Date().toISOString());
    await store.jobs.finishFile(b.fileId, { status: 'completed', completedAt: new Date().toISOString() });
    await w.fail(bLease);
    const retried = (await api.take())!;
    expect(retried.work).toEqual(a);
    expect(retried.attempts).toBe(1);
    // b's retry is settled by take() itself: its file is done.
    expect(await api.take()).toBeNull();
    expect((await api.boss.getJobById(api.queue, (bLease as unknown as { bossId: string }).bossId))?.state).toBe('completed');
  });

  it('ends in error a file whose unit pg-boss gave up before any worker began it, spending no attempt', async () => {
    // Every unit silent for a second expires; pg-boss retries it once, then gives it up.
    const policy = { expireInSeconds: 1, retryLimit: 1 };
    const api = await worker(policy);
    const [unit] = await submit(api, 1);
    // Two workers in turn take the unit and die before beginning it.
    const w1 = await worker(policy);
    expect((await w1.take())?.work).toEqual(unit);
    const w2 = await worker(policy);
    const retried = await takeEventually(w2, true);
    expect(retried.work).toEqual(unit);
    expect(retried.givenUp).toBeUndefined();
    // Its next expiry spends pg-boss's last retry: the next taker gets the unit marked given up, no attempt spent.
    const w3 = await worker(policy);
    const last = await takeEventually(w3, true);
    expect(last.work).toEqual(unit);
    expect(last.attempts).toBe(0);
    expect(last.givenUp).toMatch(/gave this file up after 2 tries .*0 of them began/);
    const { rows: states } = await pools[0].query<{ name: string; state: string }>('SELECT name, state FROM pgboss.job ORDER BY name');
    expect(states).toEqual([
      { name: 'veracity-analysis', state: 'failed' },
      { name: 'veracity-analysis-given-up', state: 'active' },
    ]);
    // A clean stop of its taker puts it back where it was: given up, not a fresh unit.
    await w3.release(last);
    const again = (await w3.take())!;
    expect(again.givenUp).toBeDefined();

    // The analysis runner of a worker node ends the file in error without analysing it, and settles the unit.
    await w3.release(again);
    const published: string[] = [];
    const runner = createAnalysisRunner({
      store,
      blobs: {} as BlobStore, // never reached: a given-up file is not read
      queue: w3,
      events: { publishFinished: async (jobId: string) => void published.push(jobId) } as unknown as JobEvents,
      pool: {} as WorkerPool, // nor analysed
      modelsDir: '',
      threadsPerWorker: 1,
      fileTimeoutMs: 1000,
      concurrency: 1,
    });
    runner.start();
    for (let i = 0; i < 600 && published.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    runner.stop();
    await runner.whenIdle();
    expect(published).toEqual([unit.jobId]);
    const file = await store.jobs.getFile(unit.jobId, unit.fileId);
    expect(file).toMatchObject({ status: 'error', errorCode: 'internal_error', attempts: 0 });
    expect(file?.errorMessage).toMatch(/gave this file up/);
    expect((await store.jobs.getJob(unit.jobId))?.status).not.toBe('processing');
    const { rows: left } = await pools[0].query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE state < 'completed'");
    expect(left[0].n).toBe(0);
    expect(await w3.take()).toBeNull();
  });

  it('settles a given-up unit whose file was finished meanwhile without handing it out', async () => {
    const policy = { expireInSeconds: 1, retryLimit: 0 };
    const api = await worker(policy);
    const [unit] = await submit(api, 1);
    const w1 = await worker(policy);
    const lease = (await w1.take())!;
    await w1.started(lease, new Date().toISOString());
    // Its worker recorded the outcome, then went silent before settling: pg-boss gives the unit up at its expiry.
    await store.jobs.finishFile(unit.fileId, { status: 'completed', completedAt: new Date().toISOString() });
    for (let i = 0; i < 300; i++) {
      await api.boss.expire();
      const { rows } = await pools[0].query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'veracity-analysis-given-up'");
      if (rows[0].n > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await api.take()).toBeNull();
    const { rows: left } = await pools[0].query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE state < 'completed'");
    expect(left[0].n).toBe(0);
    expect((await store.jobs.getFile(unit.jobId, unit.fileId))?.status).toBe('completed');
  });
});
