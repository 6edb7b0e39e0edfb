// Restarts while files wait in the queue (attack run, issue 10.1): with one analysis worker and 20 files accepted
// with wait=false, three clean stops (SIGTERM) or three kill -9 must not fail a single file that never started;
// an attempt counts only when a worker really begins the file, and startedAt says when that was. The retry bound
// still ends a poison file that brings the core down each time its analysis starts.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { eventually, keysOf, multipartBody, rawRequest, removeTempDirs, serve, sleep, tempDir, writeReport, type Served } from './harness.js';

afterAll(() => removeTempDirs());

const FILES = 20;
const ANALYSE_MS = 400; // the test worker's time per file: long enough that 20 files outlast the restarts
const WORKER_ENV = { VERACITY_TEST_ANALYSE_MS: String(ANALYSE_MS), REL_CONFIG: JSON.stringify({ analysisWorkers: 1 }) };

interface FileRow {
  id: string;
  position: number;
  status: string;
  attempts: number;
  started_at: string;
  completed_at: string | null;
  error_message: string | null;
}

function files(dataDir: string): FileRow[] {
  const db = new Database(path.join(dataDir, 'veracity.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, position, status, attempts, started_at, completed_at, error_message FROM job_files ORDER BY position').all() as FileRow[];
  } finally {
    db.close();
  }
}

async function submit(port: number, key: string, images: Buffer[]): Promise<string> {
  const { body, contentType } = multipartBody(images.map((data, i) => ({ name: 'file', filename: `claim-${String(i).padStart(2, '0')}.jpg`, contentType: 'image/jpeg', data })));
  const res = await rawRequest({ port, path: '/v1/assess?wait=false', headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType, 'Content-Length': String(body.length) }, body });
  expect(res.status).toBe(202);
  return (JSON.parse(res.body) as { jobId: string }).jobId;
}

async function images(): Promise<Buffer[]> {
  return Promise.all(Array.from({ length: FILES }, (_, i) => makeJpeg(320 + 8 * i, 240)));
}

async function untilAllTerminal(dataDir: string, ms: number): Promise<FileRow[]> {
  await eventually(() => files(dataDir).every((f) => f.status !== 'processing'), ms, 200);
  return files(dataDir);
}

/** With one worker, real analyses never overlap: each file's [startedAt, completedAt] is its own slice of time. */
function overlaps(rows: FileRow[]): number {
  const spans = rows.filter((f) => f.completed_at).map((f) => [Date.parse(f.started_at), Date.parse(f.completed_at!)] as const).sort((a, b) => a[0] - b[0]);
  let n = 0;
  for (let i = 1; i < spans.length; i++) if (spans[i][0] < spans[i - 1][1]) n++;
  return n;
}

describe('restarts while files are queued', () => {
  it('three clean stops 1.5 s apart end with 20 of 20 files completed, none failed unstarted', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const modelsDir = tempDir('veracity-nomodel-');
    let core: Served = await serve({ dataDir, modelsDir, worker: 'slow', env: WORKER_ENV });
    const key = keysOf(dataDir).images;
    await submit(core.port, key, await images());
    for (let i = 0; i < 3; i++) {
      await sleep(1500);
      await core.stop();
      core = await serve({ dataDir, modelsDir, worker: 'slow', env: WORKER_ENV });
    }
    const rows = await untilAllTerminal(dataDir, 60_000);
    await core.stop();
    const completed = rows.filter((f) => f.status === 'completed').length;
    writeReport({ suite: 'queued-restarts-sigterm', counts: { restarts: 3, acknowledgedFiles: FILES, completed }, notes: [], lost: FILES - completed });
    expect(rows.filter((f) => f.status === 'error').map((f) => f.error_message)).toEqual([]);
    expect(completed).toBe(FILES);
    // A clean stop hands running files back: no file spent more than the one attempt that finished it.
    expect(rows.map((f) => f.attempts)).toEqual(Array(FILES).fill(1));
    // startedAt is when the worker began the file, not when it was queued.
    expect(overlaps(rows)).toBe(0);
  });

  it('three kill -9, each in the middle of a file, fail nothing: only the interrupted files spent an extra attempt', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const modelsDir = tempDir('veracity-nomodel-');
    let core: Served = await serve({ dataDir, modelsDir, worker: 'slow', env: WORKER_ENV });
    const key = keysOf(dataDir).images;
    await submit(core.port, key, await images());
    for (let i = 0; i < 3; i++) {
      // Kill once this run has finished a file and begun the next one, so each kill lands mid-analysis.
      const done = files(dataDir).filter((f) => f.status === 'completed').length;
      await eventually(() => files(dataDir).filter((f) => f.status === 'completed').length > done, 30_000, 50);
      await sleep(ANALYSE_MS / 2);
      await core.kill9();
      core = await serve({ dataDir, modelsDir, worker: 'slow', env: WORKER_ENV });
    }
    const rows = await untilAllTerminal(dataDir, 60_000);
    await core.stop();
    const completed = rows.filter((f) => f.status === 'completed').length;
    writeReport({ suite: 'queued-restarts-kill9', counts: { kills: 3, acknowledgedFiles: FILES, completed }, notes: [], lost: FILES - completed });
    expect(rows.filter((f) => f.status === 'error').map((f) => f.error_message)).toEqual([]);
    expect(completed).toBe(FILES);
    const extra = rows.reduce((n, f) => n + f.attempts - 1, 0);
    expect(extra).toBeGreaterThanOrEqual(1); // the kills did interrupt analyses, and those attempts were counted
    expect(extra).toBeLessThanOrEqual(3); // but only those: one per kill at most
  });

  it('a poison file that takes the core down whenever its analysis starts ends in error after 3 attempts; its neighbour completes', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const modelsDir = tempDir('veracity-nomodel-');
    const marker = 'VERACITY-POISON-7f3a';
    const env = { ...WORKER_ENV, VERACITY_TEST_POISON: marker };
    const poison = Buffer.concat([await makeJpeg(64, 64), Buffer.from(marker)]); // trailing bytes after EOI
    let core: Served = await serve({ dataDir, modelsDir, worker: 'slow', env });
    const key = keysOf(dataDir).images;
    await submit(core.port, key, [poison, await makeJpeg(64, 64)]);
    let deaths = 0;
    for (let start = 0; start < 6; start++) {
      const exited = new Promise<void>((resolve) => core.child.once('exit', () => resolve()));
      const outcome = await Promise.race([exited.then(() => 'died' as const), (async () => ((await untilAllTerminal(dataDir, 20_000)) && 'settled') as 'settled')()]);
      if (outcome === 'settled' && files(dataDir).every((f) => f.status !== 'processing')) break;
      deaths++;
      await core.kill9();
      core = await serve({ dataDir, modelsDir, worker: 'slow', env });
    }
    const rows = await untilAllTerminal(dataDir, 20_000);
    await core.stop();
    expect(deaths).toBe(3);
    expect(rows[0]).toMatchObject({ status: 'error', attempts: 3 });
    expect(rows[0].error_message).toMatch(/interrupted 3 times/);
    expect(rows[1]).toMatchObject({ status: 'completed', attempts: 1 });
  });
});
