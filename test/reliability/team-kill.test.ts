// Reliability of the team server (issue 15), scaled to a small shared machine: 2 API nodes and 3 worker processes on
// one real PostgreSQL, 12 jobs of 5 files. Mid-run one worker and one API node are killed with SIGKILL. Every
// acknowledged job must complete, no file may be left processing, the only attempts spent twice are those of files
// the dead worker had begun, and an idempotent retry sent to the surviving node lands on the original job.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCoreReady } from '../../src/api/core-ready.js';
import { JobResult } from '../../src/api/schemas.js';
import { createKeyService } from '../../src/auth/api-keys.js';
import { createPgKeyStore } from '../../src/db/pg/key-store.js';
import { keySecretFromEnv, newKeySecret } from '../../src/team-core.js';
import { SLOW_WORKER, filePart, multipart } from '../api/helpers.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

const NODE_SCRIPT = path.join(import.meta.dirname, '..', 'support', 'team-node-for-test.mjs');
const JOBS = 12;
const FILES_PER_JOB = 5;

describe('team server: kill -9 of a worker and an API node mid-run', () => {
  let server: TestPostgres;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let pool: pg.Pool;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-team-rel-'));
    const databaseUrl = await server.createDatabase('rel');
    env = {
      ...process.env,
      VERACITY_DATABASE_URL: databaseUrl,
      VERACITY_KEY_SECRET: newKeySecret(),
      VERACITY_BLOB_DIR: path.join(dir, 'blobs'),
      TEAM_MODELS_DIR: path.join(dir, 'no-models'),
      // A unit whose worker went silent is expired after 10 s; pg-boss looks every second. Shorter expiries can hand
      // a live worker's first file (its analysis process still starting on a loaded machine) to a second worker.
      TEAM_OPTIONS: JSON.stringify({ expireInSeconds: 10, maintenanceIntervalSeconds: 1 }),
      TEAM_CONFIG: JSON.stringify({ analysisWorkers: 1 }),
      VERACITY_TEST_ANALYSE_MS: '400',
    };
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        await new Promise((r) => c.once('exit', r));
      }
    }
    await pool?.end();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function startNode(role: 'api' | 'worker', name: string): Promise<{ child: ChildProcess; baseUrl: string }> {
    const child = fork(NODE_SCRIPT, [], {
      env: { ...env, TEAM_ROLE: role, TEAM_DATA_DIR: path.join(dir, name), TEAM_WORKER_ENTRY: role === 'worker' ? SLOW_WORKER : '' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.on('message', (m) => {
        const ready = parseCoreReady(m);
        if (ready) resolve({ child, baseUrl: ready.baseUrl });
        else if ((m as { type?: string }).type === 'worker-ready') resolve({ child, baseUrl: '' });
      });
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
    });
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 1200; i++) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`never: ${what}`);
  }

  it('completes every acknowledged job once, whichever nodes die', async () => {
    // Sequential starts: the first API node migrates and makes the default applications.
    const a = await startNode('api', 'api-a');
    const b = await startNode('api', 'api-b');
    const workers = [];
    for (let i = 0; i < 3; i++) workers.push(await startNode('worker', `worker-${i}`));

    const keyStore = createPgKeyStore(pool);
    const apps = await keyStore.listApplications();
    const keys = createKeyService({ secret: keySecretFromEnv(env), store: keyStore });
    const key = (await keys.issueKey(apps.find((x) => x.kind === 'images')!.id, 'reliability')).token;

    const jpeg = await makeJpeg(64, 64);
    const send = async (baseUrl: string, i: number) => {
      const { body, contentType } = await multipart(Array.from({ length: FILES_PER_JOB }, (_, f) => filePart(jpeg, `j${i}-f${f}.jpg`)));
      const res = await fetch(`${baseUrl}/v1/assess?wait=false`, {
        method: 'POST',
        body: new Uint8Array(body),
        headers: { 'content-type': contentType, authorization: `Bearer ${key}`, 'idempotency-key': `job-${i}` },
      });
      return { status: res.status, job: JobResult.parse(await res.json()) };
    };
    const acknowledged = new Map<number, string>();
    for (let i = 0; i < JOBS; i++) {
      const r = await send(i % 2 ? b.baseUrl : a.baseUrl, i);
      expect(r.status).toBe(202);
      acknowledged.set(i, r.job.jobId);
    }

    // Kill worker 0 while it has a file under analysis (its attempt counted), and API node A.
    const victim = workers[0].child;
    await until('every worker busy', async () => {
      const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM job_files WHERE status = 'processing' AND attempts > 0");
      return rows[0].n === workers.length ? true : undefined;
    });
    victim.kill('SIGKILL');
    a.child.kill('SIGKILL');
    const { rows: inFlight } = await pool.query<{ id: string }>("SELECT id FROM job_files WHERE status = 'processing' AND attempts > 0");

    // Idempotent retries of every job, all to the surviving node, land on the original jobs.
    for (let i = 0; i < JOBS; i++) {
      const r = await send(b.baseUrl, i);
      expect(r.job.jobId).toBe(acknowledged.get(i));
    }

    for (const jobId of acknowledged.values()) {
      const done = await until(`job ${jobId} finished`, async () => {
        const res = await fetch(`${b.baseUrl}/v1/jobs/${jobId}?wait=true`, { headers: { authorization: `Bearer ${key}` } });
        const job = JobResult.parse(await res.json());
        return job.status === 'processing' ? undefined : job;
      });
      expect(done.status).toBe('completed');
      expect(done.results.every((f) => f.status === 'completed')).toBe(true);
    }
    const { rows } = await pool.query<{ processing: number; files: number; extra: number; twice: number }>(
      `SELECT count(*) FILTER (WHERE status = 'processing')::int AS processing, count(*)::int AS files,
         coalesce(sum(attempts - 1), 0)::int AS extra, count(*) FILTER (WHERE attempts > 1)::int AS twice FROM job_files`,
    );
    expect(rows[0]).toMatchObject({ processing: 0, files: JOBS * FILES_PER_JOB });
    // Only files the dead worker had begun were begun again, once each.
    const { rows: retried } = await pool.query<{ id: string }>('SELECT id FROM job_files WHERE attempts > 1');
    expect(retried.map((r) => r.id).filter((id) => !inFlight.some((f) => f.id === id))).toEqual([]);
    expect(rows[0].extra).toBe(rows[0].twice);
    // The dead worker analysed one file at a time: at most that one was begun again.
    expect(rows[0].twice).toBeLessThanOrEqual(1);
    // Every unit settled in pg-boss: none left queued or active.
    const { rows: units } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE state < 'completed'");
    expect(units[0].n).toBe(0);
  }, 180_000);
});
