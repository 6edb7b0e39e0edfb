// The desktop's storage interfaces on a real SQLite file (src/db/sqlite-stores.ts): an asynchronous transaction is
// all or nothing even while other code uses the same connection between its awaits, and the local work queue
// spends an attempt only on a file a worker really began.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/db/connection.js';
import { createApplicationsRepository } from '../../../src/db/applications-repository.js';
import { createJobsRepository } from '../../../src/db/jobs-repository.js';
import { createLocalWorkQueue, createSqliteJobsStore } from '../../../src/db/sqlite-stores.js';
import type { JobsStore, NewFile } from '../../../src/db/stores.js';

const open: { db: Db; dir: string }[] = [];
afterEach(() => {
  for (const { db, dir } of open.splice(0)) {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-stores-'));
  const db = openDatabase(path.join(dir, 'veracity.db'));
  open.push({ db, dir });
  const appId = crypto.randomUUID();
  createApplicationsRepository(db).insertApplication({ id: appId, name: 'Images', kind: 'images', createdAt: new Date().toISOString() });
  return { db, appId, store: createSqliteJobsStore(db), repo: createJobsRepository(db) };
}

const file = (position: number): NewFile => ({ id: crypto.randomUUID(), position, name: `f${position}.jpg`, size: 1, mediaType: 'image/jpeg', sha256: '0'.repeat(64) });

async function insertJob(store: JobsStore, appId: string, files = [file(0)]): Promise<string> {
  const id = crypto.randomUUID();
  await store.withTransaction(async (tx) => {
    await tx.jobs.insertJob({ id, applicationId: appId, metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() }, files);
  });
  return id;
}

describe('SQLite jobs store', () => {
  it('rolls a failed transaction back whole, while a write made outside it meanwhile is kept', async () => {
    const { store, appId } = setup();
    const kept = crypto.randomUUID();
    let outside: Promise<void> | undefined;
    const failed = store.withTransaction(async (tx) => {
      await tx.cases.insert({ id: crypto.randomUUID(), name: 'rolled back', notes: '', at: new Date().toISOString() });
      // Another request writes while this transaction is open (between its awaits).
      outside = store.cases.insert({ id: kept, name: 'kept', notes: '', at: new Date().toISOString() });
      await tx.jobs.countJobs(appId, null);
      throw new Error('refused');
    });
    await expect(failed).rejects.toThrow('refused');
    await outside;
    expect(await store.cases.idByName('rolled back')).toBeUndefined();
    expect(await store.cases.idByName('kept')).toBe(kept);
  });

  it('runs onCommit callbacks after a commit only', async () => {
    const { store } = setup();
    const ran: string[] = [];
    await store.withTransaction(async (tx) => tx.onCommit(() => ran.push('committed')));
    await store
      .withTransaction(async (tx) => {
        tx.onCommit(() => ran.push('rolled back'));
        throw new Error('no');
      })
      .catch(() => undefined);
    expect(ran).toEqual(['committed']);
  });

  it('gives concurrent jobs distinct list positions, newest first', async () => {
    const { store, appId } = setup();
    const ids = await Promise.all(Array.from({ length: 20 }, () => insertJob(store, appId)));
    const listed = (await store.jobs.listJobs(appId, null, 100, 0)).map((j) => j.id);
    expect(new Set(listed).size).toBe(20);
    expect([...listed].reverse()).toEqual(ids);
  });
});

describe('local work queue', () => {
  it('queues a job\'s files only when its transaction commits', async () => {
    const { db, store, appId } = setup();
    const queue = createLocalWorkQueue(db);
    await store
      .withTransaction(async (tx) => {
        await queue.enqueue(tx, [{ fileId: 'never', jobId: 'never', mediaType: 'image/jpeg' }]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await queue.take()).toBeNull();
    const f = file(0);
    const jobId = crypto.randomUUID();
    await store.withTransaction(async (tx) => {
      await tx.jobs.insertJob({ id: jobId, applicationId: appId, metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() }, [f]);
      await queue.enqueue(tx, [{ fileId: f.id, jobId, mediaType: f.mediaType }]);
    });
    expect((await queue.take())?.work).toEqual({ fileId: f.id, jobId, mediaType: 'image/jpeg' });
  });

  it('spends an attempt only on a started file; a clean stop hands it back; recovery resumes every unfinished file with its attempts', async () => {
    const { db, store, appId } = setup();
    const [a, b, c] = [file(0), file(1), file(2)];
    const jobId = await insertJob(store, appId, [a, b, c]);
    const queue = createLocalWorkQueue(db);
    expect(await queue.recover()).toBe(3);
    const leases = [await queue.take(), await queue.take(), await queue.take()];
    expect(leases.map((l) => l?.attempts)).toEqual([0, 0, 0]);
    const at = new Date().toISOString();
    await queue.started(leases[0]!, at); // begun, then the process is killed
    await queue.started(leases[1]!, at); // begun, then a clean stop
    await queue.release(leases[1]!);
    await queue.release(leases[2]!); // never begun
    const attempts = Object.fromEntries((await store.jobs.getFiles(jobId)).map((f) => [f.id, f.attempts]));
    expect(attempts).toEqual({ [a.id]: 1, [b.id]: 0, [c.id]: 0 });

    const afterRestart = createLocalWorkQueue(db);
    expect(await afterRestart.recover()).toBe(3);
    const resumed = [await afterRestart.take(), await afterRestart.take(), await afterRestart.take()];
    expect(resumed.map((l) => [l?.work.fileId, l?.attempts])).toEqual([
      [a.id, 1],
      [b.id, 0],
      [c.id, 0],
    ]);
    expect(await afterRestart.take()).toBeNull();
  });
});
