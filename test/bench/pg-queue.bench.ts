// The team server's bookkeeping cost per file, without analysis: on a real PostgreSQL (test/support/postgres.ts),
// 300 files in jobs of 10 pass through the pg-boss queue (take, started, finishFile + job status in a transaction,
// complete) with 1, 2 and 3 consumer instances (each its own pool, as worker processes would have), while a poller
// reads one job (getJobWithFiles) every 10 ms. Writes test/bench/results/pg-queue.json. Run:
// node --import tsx test/bench/pg-queue.bench.ts
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPgPool } from '../../src/db/pg/connection.js';
import { createPgJobsStore } from '../../src/db/pg/jobs-store.js';
import { createPgKeyStore } from '../../src/db/pg/key-store.js';
import { createPgWorkQueue } from '../../src/db/pg/work-queue.js';
import type { FileWork } from '../../src/db/stores.js';
import { startPostgres } from '../support/postgres.js';
import { RESULTS } from './bench-support.js';

const FILES = 300;
const PER_JOB = 10;

const pg = await startPostgres();
const runs: { consumers: number; filesPerSecond: number; pollP50Ms: number; pollP99Ms: number; polls: number }[] = [];
try {
  for (const consumers of [1, 2, 3]) {
    const url = await pg.createDatabase(`bench${consumers}`);
    const apiPool = await openPgPool(url);
    const store = createPgJobsStore(apiPool);
    await createPgKeyStore(apiPool).insertApplication({ id: 'app', name: 'Images', kind: 'images', createdAt: new Date().toISOString() });
    const api = await createPgWorkQueue(apiPool, { connectionString: url });
    const jobIds: string[] = [];
    for (let j = 0; j < FILES / PER_JOB; j++) {
      const jobId = crypto.randomUUID();
      jobIds.push(jobId);
      const work: FileWork[] = Array.from({ length: PER_JOB }, () => ({ fileId: crypto.randomUUID(), jobId, mediaType: 'image/jpeg' }));
      await store.withTransaction(async (tx) => {
        await tx.jobs.insertJob(
          { id: jobId, applicationId: 'app', metadataJson: null, caseName: null, caseId: null, createdAt: new Date().toISOString() },
          work.map((w, i) => ({ id: w.fileId, position: i, name: `f${i}.jpg`, size: 1, mediaType: 'image/jpeg', sha256: 'a'.repeat(64) })),
        );
        await api.enqueue(tx, work);
      });
    }
    const workers = await Promise.all(
      Array.from({ length: consumers }, async () => {
        const pool = await openPgPool(url, { maxConnections: 4 });
        return { pool, store: createPgJobsStore(pool), queue: await createPgWorkQueue(pool, { connectionString: url }) };
      }),
    );
    let polling = true;
    const latencies: number[] = [];
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        await store.jobs.getJobWithFiles(jobIds[latencies.length % jobIds.length]);
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const t0 = performance.now();
    await Promise.all(
      workers.map(async (w) => {
        for (let lease = await w.queue.take(); lease; lease = await w.queue.take()) {
          const at = new Date().toISOString();
          await w.queue.started(lease, at);
          const jobId = lease.work.jobId;
          await w.store.withTransaction(async (tx) => {
            await tx.jobs.finishFile(lease.work.fileId, { status: 'completed', completedAt: at });
            const files = await tx.jobs.getFiles(jobId);
            const done = files.every((f) => f.status !== 'processing');
            await tx.jobs.updateJobStatus(jobId, { status: done ? 'completed' : 'processing', errorCode: null, errorMessage: null, updatedAt: at, completedAt: done ? at : null });
          });
          await w.queue.complete(lease);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    polling = false;
    await poller;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] * 100) / 100;
    runs.push({ consumers, filesPerSecond: Math.round((FILES / seconds) * 10) / 10, pollP50Ms: q(0.5), pollP99Ms: q(0.99), polls: latencies.length });
    console.log(runs.at(-1));
    for (const w of workers) {
      await w.queue.close();
      await w.pool.end();
    }
    await api.close();
    await apiPool.end();
  }
} finally {
  await pg.stop();
}
fs.mkdirSync(RESULTS, { recursive: true });
fs.writeFileSync(
  path.join(RESULTS, 'pg-queue.json'),
  `${JSON.stringify({ name: 'pg-queue', at: new Date().toISOString(), load: os.loadavg()[0], files: FILES, perJob: PER_JOB, runs }, null, 2)}\n`,
);
