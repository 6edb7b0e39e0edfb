// The PostgreSQL jobs and key stores against a real server: what the services see of a job's life, transactions
// that commit or leave nothing, and the guarantees two API nodes on one database need (one job per idempotency
// key, one case per name, distinct list order), each checked with two pools as the two nodes.
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Verdict } from '../../../src/api/schemas.js';
import { openPgPool } from '../../../src/db/pg/connection.js';
import { createPgJobsStore } from '../../../src/db/pg/jobs-store.js';
import { createPgKeyStore } from '../../../src/db/pg/key-store.js';
import type { JobsStore, KeyStore, NewFile } from '../../../src/db/stores.js';
import { refreshJobStatus } from '../../../src/jobs/analysis-runner.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

const verdict = (assessment: Verdict['assessment']): Verdict => ({
  assessment,
  confidence: 'high',
  display: { label: assessment, description: 'Gewählt – 検証' },
  dimensions: [{ key: 'model', label: 'Model', score: 0.8123456789012345 }],
});

const newFile = (position: number, name = `photo-${position}.jpg`): NewFile => ({
  id: crypto.randomUUID(),
  position,
  name,
  size: 3_000_000_000 + position,
  mediaType: 'image/jpeg',
  sha256: crypto.createHash('sha256').update(`${name}:${position}:${Math.random()}`).digest('hex'),
});

/** Waits until some session waits for a lock (the second node is queued behind the first). */
async function untilSomeoneWaitsForALock(pool: pg.Pool): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted');
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no session ever waited for a lock');
}

describe('PostgreSQL jobs and key stores', () => {
  let server: TestPostgres;
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  let nodeA: JobsStore;
  let nodeB: JobsStore;
  let keys: KeyStore;
  const appId = 'app-images';

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    const url = await server.createDatabase('jobs');
    poolA = await openPgPool(url);
    poolB = await openPgPool(url);
    nodeA = createPgJobsStore(poolA);
    nodeB = createPgJobsStore(poolB);
    keys = createPgKeyStore(poolA);
    await keys.insertApplication({ id: appId, name: 'Images', kind: 'images', createdAt: '2026-01-01T00:00:00.000Z' });
  });
  afterEach(async () => {
    await poolA?.end();
    await poolB?.end();
  });

  async function submit(store: JobsStore, opts: { caseName?: string; files?: NewFile[]; at?: string } = {}) {
    const id = crypto.randomUUID();
    const files = opts.files ?? [newFile(0), newFile(1)];
    const at = opts.at ?? new Date().toISOString();
    await store.withTransaction(async (tx) => {
      let caseId: string | null = null;
      if (opts.caseName) {
        caseId = (await tx.cases.idByName(opts.caseName)) ?? null;
        if (!caseId) {
          caseId = crypto.randomUUID();
          await tx.cases.insert({ id: caseId, name: opts.caseName, notes: '', at });
        }
      }
      await tx.jobs.insertJob(
        { id, applicationId: appId, metadataJson: opts.caseName ? `{"case":${JSON.stringify(opts.caseName)},"n":1.50}` : null, caseName: opts.caseName ?? null, caseId, createdAt: at },
        files,
      );
    });
    return { id, files };
  }

  it('keeps a job and its files through their life, as the API reads them back', async () => {
    const { id, files } = await submit(nodeA, { caseName: 'Flood claims' });
    const read = await nodeB.jobs.getJobWithFiles(id);
    expect(read?.job).toMatchObject({ id, applicationId: appId, status: 'processing', caseName: 'Flood claims', metadataJson: '{"case":"Flood claims","n":1.50}' });
    expect(read?.job.metadata).toEqual({ case: 'Flood claims', n: 1.5 });
    expect(read?.files.map((f) => [f.id, f.position, f.size, f.status, f.attempts])).toEqual(files.map((f) => [f.id, f.position, f.size, 'processing', 0]));
    expect(await nodeB.jobs.countProcessingFiles()).toBe(2);

    const regions = [{ source: { kind: 'image' as const }, width: 10, height: 10, tiles: [{ x: 0, y: 0, w: 10, h: 10, score: 0.25 }] }];
    const at = new Date().toISOString();
    expect(await nodeA.jobs.finishFile(files[0].id, { status: 'completed', completedAt: at, verdict: verdict('ai_generated'), regions, modelVersion: 'm1', aggregation: 'max' })).toBe(true);
    // The same file finished again (a second worker after an expiry) changes nothing.
    expect(await nodeB.jobs.finishFile(files[0].id, { status: 'error', completedAt: at, errorCode: 'analysis_failed', errorMessage: 'x' })).toBe(false);
    expect(await nodeA.jobs.finishFile(files[1].id, { status: 'error', completedAt: at, errorCode: 'analysis_failed', errorMessage: 'broken' })).toBe(true);
    await nodeA.jobs.updateJobStatus(id, { status: 'completed', errorCode: null, errorMessage: null, updatedAt: at, completedAt: at });

    const done = await nodeB.jobs.getJobWithFiles(id);
    expect(done?.job.status).toBe('completed');
    expect(done?.files[0]).toMatchObject({ status: 'completed', verdict: verdict('ai_generated'), modelVersion: 'm1', aggregation: 'max' });
    expect(done?.files[1]).toMatchObject({ status: 'error', errorCode: 'analysis_failed', errorMessage: 'broken', verdict: null });
    expect(await nodeB.jobs.getFile(id, files[0].id)).toEqual(done?.files[0]);
    expect(await nodeB.jobs.getFileRegions(id, files[0].id)).toEqual(regions);
    expect(await nodeB.jobs.getFileRegions(id, files[1].id)).toBeNull();
    expect(await nodeB.jobs.getFileRegions(id, crypto.randomUUID())).toBeUndefined();
    expect(await nodeB.jobs.countProcessingFiles()).toBe(0);

    // A reviewer's note is kept as written, control characters included.
    const review = { assessment: 'authentic' as const, note: 'nul \u0000 here', reviewer: 'ana', reviewedAt: at };
    expect(await nodeA.jobs.setReview(id, files[0].id, review)).toBe(true);
    expect((await nodeB.jobs.getFile(id, files[0].id))?.review).toEqual(review);
    expect(await nodeA.jobs.setReview(crypto.randomUUID(), files[0].id, review)).toBe(false);

    const caseId = (await nodeA.cases.idByName('Flood claims'))!;
    expect(await nodeA.cases.get(caseId)).toMatchObject({
      name: 'Flood claims',
      jobCount: 1,
      fileCount: 2,
      counts: { ai_generated: 1, authentic: 0, inconclusive: 0, processing: 0, error: 1 },
    });
    expect(await nodeA.cases.jobs(caseId, 10, 0)).toEqual([{ jobId: id, applicationId: appId, kind: 'images' }]);
  });

  it('ends a job when two workers record its last two files at once (the second reads the first\'s outcome)', async () => {
    // READ COMMITTED: each transaction read the job's files while the other's outcome was not yet committed, so both
    // derived `processing` and the job stayed processing forever, all of its files done (the preview test's hang on
    // the team server: every wait=true read of that job held its whole window). The job row is now taken before the
    // files are read: the second transaction waits for the first to commit, then reads both outcomes.
    const { id, files } = await submit(nodeA);
    const at = new Date().toISOString();
    const outcome = { status: 'error', completedAt: at, errorCode: 'result_unavailable', errorMessage: 'no model' } as const;
    let secondRecorded!: () => void;
    const secondWritten = new Promise<void>((r) => (secondRecorded = r));
    let firstHoldsJob!: () => void;
    const firstHolds = new Promise<void>((r) => (firstHoldsJob = r));
    // Both outcomes are written, neither committed; then the first takes the job row (as refreshJobStatus does,
    // which takes it again in the same transaction) so that the order is fixed: when both raced for it, the second
    // sometimes won, and the first then waited for a waiter that never came (CI, a loaded run).
    const first = nodeA.withTransaction(async (tx) => {
      await tx.jobs.finishFile(files[0].id, outcome);
      await secondWritten;
      await tx.jobs.lockJob(id);
      firstHoldsJob();
      const terminal = await refreshJobStatus(tx, id, at);
      // Commits only once the second is blocked behind it: on the job row now; before the fix, on its status update
      // after it had read the files (then it wrote `processing` from that stale read, and the job never ended).
      await untilSomeoneWaitsForALock(poolA);
      return terminal;
    });
    const second = nodeB.withTransaction(async (tx) => {
      await tx.jobs.finishFile(files[1].id, outcome);
      secondRecorded();
      await firstHolds;
      return refreshJobStatus(tx, id, at);
    });
    expect(await Promise.all([first, second])).toEqual([false, true]);
    const read = await nodeA.jobs.getJobWithFiles(id);
    expect(read?.files.map((f) => f.status)).toEqual(['error', 'error']);
    expect(read?.job.status).toBe('error');
  });

  it('lists jobs newest first and searches the history as the SQLite store does', async () => {
    const first = await submit(nodeA, { caseName: 'Alpha Case', at: '2026-02-01T00:00:00.000Z' });
    const second = await submit(nodeB, { files: [newFile(0, 'Scan_100%.PDF')], at: '2026-02-02T00:00:00.000Z' });
    const third = await submit(nodeA, { caseName: 'Alpha Case', at: '2026-02-03T00:00:00.000Z' });
    expect((await nodeA.jobs.listJobs(appId, null, 10, 0)).map((j) => j.id)).toEqual([third.id, second.id, first.id]);
    expect((await nodeA.jobs.listJobs(appId, null, 1, 1)).map((j) => j.id)).toEqual([second.id]);
    expect((await nodeA.jobs.listJobs(appId, 'Alpha Case', 10, 0)).map((j) => j.id)).toEqual([third.id, first.id]);
    expect(await nodeA.jobs.countJobs(appId, 'Alpha Case')).toBe(2);
    expect(await nodeA.jobs.countJobs(appId, null)).toBe(3);

    // Name parts match any case, and % _ \ are literal.
    expect((await nodeA.cases.history({ fileName: 'scan_100%' }, 10, 0)).map((h) => h.jobId)).toEqual([second.id]);
    expect(await nodeA.cases.countHistory({ fileName: 'scan_1000' })).toBe(0);
    expect(await nodeA.cases.countHistory({ caseName: 'alpha' })).toBe(4);
    expect((await nodeA.cases.history({ sha256: first.files[1].sha256 }, 10, 0)).map((h) => [h.fileId, h.caseName, h.size])).toEqual([
      [first.files[1].id, 'Alpha Case', first.files[1].size],
    ]);
    expect(await nodeA.cases.countHistory({ from: '2026-02-02T00:00:00.000Z', to: '2026-02-02T23:59:59.999Z' })).toBe(1);
    await nodeA.jobs.finishFile(third.files[0].id, { status: 'completed', completedAt: '2026-02-03T00:00:01.000Z', verdict: verdict('inconclusive') });
    expect((await nodeA.cases.history({ verdict: 'inconclusive' }, 10, 0)).map((h) => [h.fileId, h.assessment])).toEqual([
      [third.files[0].id, 'inconclusive'],
    ]);
    expect((await nodeA.cases.list({ nameContains: 'ALPHA', status: null, limit: 10, offset: 0 })).map((c) => c.jobCount)).toEqual([2]);
    expect(await nodeA.cases.count({ nameContains: null, status: 'closed' })).toBe(0);
  });

  it('commits a transaction whole or leaves nothing, and runs onCommit only after a commit', async () => {
    const seen: string[] = [];
    const id = crypto.randomUUID();
    await expect(
      nodeA.withTransaction(async (tx) => {
        await tx.jobs.insertJob({ id, applicationId: appId, metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() }, [newFile(0)]);
        tx.onCommit(() => seen.push('rolled back'));
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(await nodeB.jobs.getJob(id)).toBeUndefined();
    expect(await nodeB.jobs.countProcessingFiles()).toBe(0);
    // A statement failing inside the transaction (a duplicate file position) also leaves nothing.
    await expect(
      nodeA.withTransaction(async (tx) => {
        tx.onCommit(() => seen.push('duplicate'));
        await tx.jobs.insertJob({ id, applicationId: appId, metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() }, [newFile(0), newFile(0)]);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await nodeB.jobs.getJob(id)).toBeUndefined();

    const result = await nodeA.withTransaction(async (tx) => {
      await tx.jobs.insertJob({ id, applicationId: appId, metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() }, [newFile(0)]);
      tx.onCommit(() => seen.push('committed'));
      // Not visible to another node before the commit.
      expect(await nodeB.jobs.getJob(id)).toBeUndefined();
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(seen).toEqual(['committed']);
    expect(await nodeB.jobs.getJob(id)).toMatchObject({ id });
  });

  it('lets one of two nodes submitting with the same idempotency key create the job, and the other find it', async () => {
    const key = 'retry-42';
    const ttlStart = Date.now() - 60_000;
    const created: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let aInside!: () => void;
    const inside = new Promise<void>((r) => (aInside = r));
    /** The services' submit: re-check inside the transaction, then insert the job and its record. */
    const submitOnce = (store: JobsStore, hold: boolean) =>
      store.withTransaction(async (tx) => {
        const found = await tx.jobs.findIdempotency(appId, key, ttlStart);
        if (found) return found.jobId;
        const id = crypto.randomUUID();
        await tx.jobs.insertJob({ id, applicationId: appId, metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() }, [newFile(0)]);
        await tx.jobs.insertIdempotency({ applicationId: appId, key, fingerprint: 'fp', jobId: id, createdAtMs: Date.now() });
        if (hold) {
          aInside();
          await held;
        }
        created.push(id);
        return id;
      });
    const a = submitOnce(nodeA, true);
    // Node A has checked, inserted and holds its transaction open; node B arrives with the same key meanwhile.
    await inside;
    const b = submitOnce(nodeB, false);
    await untilSomeoneWaitsForALock(poolA);
    release();
    const [jobA, jobB] = await Promise.all([a, b]);
    expect(jobB).toBe(jobA);
    expect(created).toEqual([jobA]);
    expect(await nodeA.jobs.countJobs(appId, null)).toBe(1);
  });

  it('makes one case for a name two nodes use at once', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(i % 2 ? nodeA : nodeB, { caseName: 'Storm 2026' })));
    const caseId = (await nodeA.cases.idByName('Storm 2026'))!;
    expect(await nodeA.cases.count({ nameContains: null, status: null })).toBe(1);
    expect((await nodeA.cases.jobs(caseId, 10, 0)).map((j) => j.jobId).sort()).toEqual(results.map((r) => r.id).sort());
  });

  it('gives concurrent submissions from two nodes distinct places in the list', async () => {
    const ids = (await Promise.all(Array.from({ length: 20 }, (_, i) => submit(i % 2 ? nodeA : nodeB)))).map((r) => r.id);
    const listed = (await nodeB.jobs.listJobs(appId, null, 100, 0)).map((j) => j.id);
    expect(listed.sort()).toEqual([...ids].sort());
    const { rows } = await poolA.query<{ n: number }>('SELECT count(DISTINCT seq)::int AS n FROM jobs');
    expect(rows[0].n).toBe(20);
  });

  it('replaces an expired idempotency record and prunes old ones', async () => {
    const { id } = await submit(nodeA);
    const { id: later } = await submit(nodeA);
    await nodeA.jobs.insertIdempotency({ applicationId: appId, key: 'k', fingerprint: 'old', jobId: id, createdAtMs: 1_000 });
    expect(await nodeB.jobs.findIdempotency(appId, 'k', 2_000)).toBeUndefined();
    await nodeB.jobs.insertIdempotency({ applicationId: appId, key: 'k', fingerprint: 'new', jobId: later, createdAtMs: 3_000 });
    expect(await nodeA.jobs.findIdempotency(appId, 'k', 2_000)).toEqual({ applicationId: appId, key: 'k', fingerprint: 'new', jobId: later, createdAtMs: 3_000 });
    expect(await nodeA.jobs.pruneIdempotency(3_000)).toBe(1);
    expect(await nodeA.jobs.findIdempotency(appId, 'k', 0)).toBeUndefined();
  });

  it('lets key-store transactions of two nodes take turns (one default pair of applications, not two)', async () => {
    const other = createPgKeyStore(poolB);
    const ensure = (store: KeyStore, kind: 'images' | 'pdfs') =>
      store.withTransaction(async (tx) => {
        if ((await tx.countApplications()) > 1) return;
        await new Promise((r) => setTimeout(r, 20));
        await tx.insertApplication({ id: crypto.randomUUID(), name: kind, kind, createdAt: new Date().toISOString() });
      });
    await Promise.all([ensure(keys, 'pdfs'), ensure(other, 'pdfs'), ensure(keys, 'pdfs'), ensure(other, 'pdfs')]);
    expect(await keys.countApplications()).toBe(2);
  });

  it('keeps keys as digests and revokes them once', async () => {
    const digest = crypto.createHash('sha256').update('vk_secret').digest('hex');
    await keys.withTransaction(async (tx) => {
      await tx.insertApplication({ id: 'app-pdfs', name: 'PDFs', kind: 'pdfs', createdAt: '2026-01-02T00:00:00.000Z' });
      await tx.insertKey({ id: 'k1', applicationId: 'app-pdfs', name: 'ci', tokenSha256: digest, hint: 'cret', createdAt: '2026-01-02T00:00:00.000Z', expiresAt: null });
    });
    const other = createPgKeyStore(poolB);
    expect(await other.getKey('k1')).toEqual({ id: 'k1', applicationId: 'app-pdfs', name: 'ci', tokenSha256: digest, hint: 'cret', createdAt: '2026-01-02T00:00:00.000Z', expiresAt: null, revokedAt: null });
    expect((await other.listApplications()).map((a) => a.kind)).toEqual(['images', 'pdfs']);
    expect(await other.countApplications()).toBe(2);
    expect(await other.revokeKey('k1', '2026-01-03T00:00:00.000Z')).toBe(1);
    expect(await keys.revokeKey('k1', '2026-01-04T00:00:00.000Z')).toBe(0);
    expect((await keys.getKey('k1'))?.revokedAt).toBe('2026-01-03T00:00:00.000Z');
    // Only a digest fits the column: a key in clear text is refused by the database itself.
    await expect(keys.insertKey({ id: 'k2', applicationId: 'app-pdfs', name: 'x', tokenSha256: 'vk_plaintext', hint: 'text', createdAt: 'now', expiresAt: null })).rejects.toThrow(/check constraint/);
    await expect(
      keys.withTransaction(async (tx) => {
        await tx.insertKey({ id: 'k3', applicationId: 'app-pdfs', name: 'y', tokenSha256: digest, hint: 'cret', createdAt: 'now', expiresAt: null });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await keys.listKeys('app-pdfs')).toHaveLength(1);
  });
});
