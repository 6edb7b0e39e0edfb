// Reliability of the team server at the issue's scale (issue 15): 2 API nodes and 3 worker processes on one real
// PostgreSQL, 200 files in 20 jobs (512 x 512 JPEGs, analysed by the real model). Mid-run one worker (while it is
// analysing a file) and one API node are killed with SIGKILL. Every acknowledged job must complete, no file may be
// analysed twice to completion (counted from the analysis processes' own log lines), nothing may be left
// processing, and idempotent retries land on the original job whichever node they reach, before and after the kill.
// No timing is asserted: every wait is for a state, bounded only by the test's timeout.
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
import { filePart, multipart } from '../api/helpers.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

const NODE_SCRIPT = path.join(import.meta.dirname, '..', 'support', 'team-node-for-test.mjs');
const LOGGING_WORKER = path.join(import.meta.dirname, '..', 'fixtures', 'workers', 'logging-analysis-worker.mjs');
const JOBS = 20;
const FILES_PER_JOB = 10;

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
      // A unit taken and not settled is expired after 120 s; pg-boss looks every second. The killed worker's units do
      // not wait for it: the node that reaps the dead worker hands them back seconds after its last heartbeat. Shorter
      // expiries hand a live worker's file (its analysis process still loading the model at nice 19 on a loaded machine)
      // to a second worker, and both begin it: at 20 s that happened once at load 6.5, and at 40 s once in `.ci/run` on
      // a fresh clone (two files begun twice, neither in flight at the kill). The product's own expiry is longer than
      // two file timeouts (src/team-core.ts: 152 s by default), so it never does that.
      TEAM_OPTIONS: JSON.stringify({ expireInSeconds: 120, maintenanceIntervalSeconds: 1 }),
      TEAM_CONFIG: JSON.stringify({ analysisWorkers: 1 }),
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
      env: {
        ...env,
        TEAM_ROLE: role,
        TEAM_DATA_DIR: path.join(dir, name),
        TEAM_WORKER_ENTRY: role === 'worker' ? LOGGING_WORKER : '',
        VERACITY_TEST_ANALYSIS_LOG: path.join(dir, `${name}.analysis.log`),
      },
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
    for (let i = 0; i < 12_000; i++) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`never: ${what}`);
  }

  /** Per worker node: how many times its analysis processes began and finished each stored file (by blob path). */
  function analysisLog(name: string): { started: Map<string, number>; done: Map<string, number>; busy: boolean } {
    const started = new Map<string, number>();
    const done = new Map<string, number>();
    const file = path.join(dir, `${name}.analysis.log`);
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    for (const l of lines) {
      const [what, , p] = l.split(' ');
      const m = what === 'start' ? started : done;
      m.set(path.basename(p), (m.get(path.basename(p)) ?? 0) + 1);
    }
    return { started, done, busy: lines.length > 0 && lines[lines.length - 1].startsWith('start ') };
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

    const jpeg = await makeJpeg(512, 512);
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
    // Idempotent retries sent to the other node land on the original job (both nodes alive).
    for (let i = 0; i < JOBS; i += 3) {
      const r = await send(i % 2 ? a.baseUrl : b.baseUrl, i);
      expect(r.job.jobId).toBe(acknowledged.get(i));
    }

    // Kill worker 0 while its analysis process is inside a file (its attempt counted), and API node A, once a
    // quarter of the files are done and while most are still queued.
    await until('a quarter done, worker 0 analysing, every worker busy', async () => {
      const { rows } = await pool.query<{ begun: number; queued: number; finished: number }>(
        `SELECT count(*) FILTER (WHERE status = 'processing' AND attempts > 0)::int AS begun,
           count(*) FILTER (WHERE status = 'processing' AND attempts = 0)::int AS queued,
           count(*) FILTER (WHERE status <> 'processing')::int AS finished FROM job_files`,
      );
      expect(rows[0].queued).toBeGreaterThan(0); // the kill must come mid-run
      const ready = rows[0].finished >= (JOBS * FILES_PER_JOB) / 4 && rows[0].begun === workers.length && analysisLog('worker-0').busy;
      return ready ? true : undefined;
    });
    const victim = workers[0].child;
    victim.kill('SIGKILL');
    a.child.kill('SIGKILL');
    await Promise.all([victim, a.child].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    const { rows: inFlight } = await pool.query<{ id: string }>("SELECT id FROM job_files WHERE status = 'processing' AND attempts > 0");
    const { rows: midRun } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM job_files WHERE status <> 'processing'");
    expect(midRun[0].n).toBeLessThan(JOBS * FILES_PER_JOB);

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
      expect(done.results).toHaveLength(FILES_PER_JOB);
      expect(done.results.every((f) => f.status === 'completed')).toBe(true);
    }
    // No more jobs than were acknowledged: the retries made none.
    const { rows: jobRows } = await pool.query<{ jobs: number; processing: number }>(
      "SELECT count(*)::int AS jobs, count(*) FILTER (WHERE status = 'processing')::int AS processing FROM jobs",
    );
    expect(jobRows[0]).toEqual({ jobs: JOBS, processing: 0 });
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

    // Analysed to completion, from the analysis processes' own lines: every file exactly once by the workers that
    // lived. The killed worker may have finished its last file in the instant before the kill without recording it
    // (then it was in flight, and the queue's retry analysed it again); no other file of the killed worker's was
    // analysed again.
    const logs = workers.map((_, i) => analysisLog(`worker-${i}`));
    const { rows: fileIds } = await pool.query<{ id: string }>('SELECT id FROM job_files');
    const doneBy = (id: string) => logs.map((l) => l.done.get(id) ?? 0);
    const survivorsTwice = fileIds.filter((f) => doneBy(f.id)[1] + doneBy(f.id)[2] > 1).map((f) => f.id);
    expect(survivorsTwice).toEqual([]);
    const total = fileIds.map((f) => ({ id: f.id, n: doneBy(f.id).reduce((x, y) => x + y, 0) }));
    expect(total.filter((f) => f.n === 0).map((f) => f.id)).toEqual([]);
    const doubled = total.filter((f) => f.n > 1).map((f) => f.id);
    expect(doubled.filter((id) => !inFlight.some((f) => f.id === id))).toEqual([]);
    expect(doubled.length).toBeLessThanOrEqual(1);
    // The kill really came mid-run: the dead worker had analysed some files, and the survivors did the rest.
    expect(logs[0].done.size).toBeGreaterThan(0);
    expect(logs[0].done.size).toBeLessThan(JOBS * FILES_PER_JOB);
    // Every unit settled in pg-boss: none left queued or active.
    const { rows: units } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE state < 'completed'");
    expect(units[0].n).toBe(0);
  }, 900_000);
});
