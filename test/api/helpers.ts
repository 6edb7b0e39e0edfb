// Shared harness of the API tests: a real core driven by inject() or real HTTP, multipart builders, and the "nothing
// left behind" oracle every refusal test uses. Two backends (issue 15), chosen by VERACITY_TEST_BACKEND:
// - unset: the desktop core (a real SQLite file in a temp dir, real worker processes);
// - `pg`: a team API node plus an in-process team worker on a real PostgreSQL (one server per test file, started on
//   the first startCore, a fresh database per core), its shared blob directory being the core's dataDir.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import type { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { loadOrCreateSecret, type KeyService } from '../../src/auth/api-keys.js';
import { loadConfig, type CoreConfig } from '../../src/config/config.js';
import { createCore, listen, type Core } from '../../src/core.js';
import type { Db } from '../../src/db/connection.js';
import type { PgPool } from '../../src/db/pg/connection.js';
import type { JobsStore, KeyStore } from '../../src/db/stores.js';
import type { JobService } from '../../src/jobs/job-service.js';
import { UI_TOKEN_ENV, createTeamApiNode, createTeamWorker, keySecretFromEnv, newKeySecret, uiTokenFromEnv } from '../../src/team-core.js';
import { ApiError, JobResult } from '../../src/api/schemas.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const SLOW_WORKER = path.join(REPO, 'test', 'fixtures', 'workers', 'slow-analysis-worker.mjs');

/** The active backend: the v1 suite runs on both (`VERACITY_TEST_BACKEND=pg vitest run test/api`). */
export const onPg = process.env.VERACITY_TEST_BACKEND === 'pg';

/**
 * How long a core or temp dir lives: 'test' (the default) ends after the test that made it; 'file' after the test
 * file, for a core several tests share (its analysis processes then load the model once, not once per test).
 */
export type Lifetime = 'test' | 'file';
const open: Record<Lifetime, { close(): Promise<void> }[]> = { test: [], file: [] };
const dirs: Record<Lifetime, string[]> = { test: [], file: [] };
async function release(lifetime: Lifetime): Promise<void> {
  await Promise.all(open[lifetime].splice(0).map((c) => c.close()));
  for (const d of dirs[lifetime].splice(0)) fs.rmSync(d, { recursive: true, force: true });
}
afterEach(() => release('test'));

let postgres: Promise<TestPostgres> | undefined;
/** A team server's database and secret per data dir: a core started again on a data dir reopens the same database. */
const teams = new Map<string, { databaseUrl: string; keySecret: Uint8Array }>();
afterAll(async () => {
  await release('file');
  const server = postgres;
  postgres = undefined;
  teams.clear();
  if (server) await (await server).stop();
});

export function tempDir(prefix = 'veracity-api-', lifetime: Lifetime = 'test'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs[lifetime].push(d);
  return d;
}

/** What the API tests use of a core, on either backend. */
export interface TestCore {
  backend: 'sqlite' | 'pg';
  app: FastifyInstance;
  keys: KeyService;
  /**
   * The job service; on pg its whenIdle also waits for the team worker to settle every file, and fails after
   * WHEN_IDLE_LIMIT_MS (or the limit given) with the files and pg-boss units still unsettled.
   */
  jobs: JobService;
  jobsStore: JobsStore;
  keyStore: KeyStore;
  /** The key-signing secret (desktop: the data dir's secret.key; team server: VERACITY_KEY_SECRET). */
  keySecret: Uint8Array;
  config: CoreConfig;
  /**
   * The window's token: the desktop's per-launch token, or the team API node's VERACITY_UI_TOKEN (the harness gives
   * each team node start a fresh one, as a desktop launch gets; `uiToken` in the config overrides both).
   */
  uiToken: string | null;
  setPort(port: number): void;
  close(): Promise<void>;
  imagesKey: string;
  pdfsKey: string;
  imagesAppId: string;
  pdfsAppId: string;
  /** The desktop's data dir; on pg, the shared blob directory (files/, tmp/<node>/). */
  dataDir: string;
  /** The desktop core itself (SQLite connection and synchronous repositories); undefined on pg. */
  desktop?: Core;
  /** The team server's PostgreSQL pool; undefined on the desktop. */
  pgPool?: PgPool;
}

async function withKeys(core: Omit<TestCore, 'imagesKey' | 'pdfsKey' | 'imagesAppId' | 'pdfsAppId'>): Promise<TestCore> {
  const apps = await core.keyStore.listApplications();
  const images = apps.find((a) => a.kind === 'images')!;
  const pdfs = apps.find((a) => a.kind === 'pdfs')!;
  // The database keeps digests only: a test gets its keys the way a tool does, at creation.
  return Object.assign(core, {
    imagesKey: (await core.keys.issueKey(images.id, 'test key')).token,
    pdfsKey: (await core.keys.issueKey(pdfs.id, 'test key')).token,
    imagesAppId: images.id,
    pdfsAppId: pdfs.id,
  });
}

/** A core on a fresh data dir. `modelsDir` defaults to an empty dir: results end in result_unavailable, deterministically. */
export async function startCore(
  overrides: Partial<Record<keyof CoreConfig, unknown>> = {},
  opts: { workerEntry?: string; dataDir?: string; now?: () => Date; lifetime?: Lifetime } = {},
): Promise<TestCore> {
  const lifetime = opts.lifetime ?? 'test';
  const dataDir = opts.dataDir ?? tempDir('veracity-api-', lifetime);
  // The worker processes start with the first file, as they did before warmWorkers: a core made for a test that sends no file
  // (most of them) would otherwise load the model for nothing; tests of the warm-up ask for it.
  const config = loadConfig(
    { dataDir, modelsDir: tempDir('veracity-nomodel-', lifetime), logLevel: 'silent', rendererDir: tempDir('veracity-norenderer-', lifetime), warmWorkers: false, ...overrides },
    {},
  );
  if (onPg) return startTeamCore(config, dataDir, { ...opts, lifetime });
  const core = await createCore(config, { workerEntry: opts.workerEntry, now: opts.now });
  open[lifetime].push(core);
  return withKeys({
    backend: 'sqlite',
    app: core.app,
    keys: core.keys,
    jobs: core.jobs,
    jobsStore: core.jobsStore,
    keyStore: core.keyStore,
    keySecret: loadOrCreateSecret(dataDir),
    config: core.config,
    uiToken: core.uiToken,
    setPort: (p) => core.setPort(p),
    close: () => core.close(),
    dataDir,
    desktop: core,
  });
}

/**
 * How long a test's whenIdle waits for every file to settle before it fails with what is left. Below the suites'
 * 60 s test timeout (a file's analysis is bounded by its 60 s timeout, far above what any test file needs).
 */
export const WHEN_IDLE_LIMIT_MS = 50_000;

/** The team server's unsettled work, for a wait that gave up: the files processing and their pg-boss units. */
async function describeTeamWork(pool: PgPool): Promise<string> {
  try {
    const files = await pool.query(
      "SELECT id, job_id, stage, attempts, started_at FROM job_files WHERE status = 'processing' ORDER BY job_id, position",
    );
    const units = await pool.query(
      "SELECT name, state, retry_count, data->>'fileId' AS file_id, started_on, expire_in FROM pgboss.job WHERE state NOT IN ('completed') ORDER BY created_on",
    );
    return `processing files: ${JSON.stringify(files.rows)}\npg-boss units not completed: ${JSON.stringify(units.rows)}`;
  } catch (err) {
    return `(could not read the unsettled work: ${(err as Error).message})`;
  }
}

/** A team API node and an in-process team worker on this file's PostgreSQL; the data dir is their blob directory. */
async function startTeamCore(config: CoreConfig, dataDir: string, opts: { workerEntry?: string; now?: () => Date; lifetime: Lifetime }): Promise<TestCore> {
  postgres ??= startPostgres();
  const server = await postgres;
  let team = teams.get(dataDir);
  if (!team) {
    team = { databaseUrl: await server.createDatabase('api'), keySecret: keySecretFromEnv({ VERACITY_KEY_SECRET: newKeySecret() }) };
    teams.set(dataDir, team);
  }
  const options = { ...team, blobDir: dataDir };
  // The operator's VERACITY_UI_TOKEN (what `veracity serve --database-url` reads with uiTokenFromEnv): the API node
  // serves the window and its /app routes. Fresh per start unless the config names one (another node of the same
  // server, or a restart with the same secret); at least 32 characters of base64url, the shape a team node requires.
  const uiToken = uiTokenFromEnv({ [UI_TOKEN_ENV]: config.uiToken ?? crypto.randomBytes(32).toString('base64url') });
  const node = await createTeamApiNode(config, { ...options, uiToken }, { workerEntry: opts.workerEntry, now: opts.now });
  let worker;
  try {
    worker = await createTeamWorker(config, options, { workerEntry: opts.workerEntry, now: opts.now });
  } catch (err) {
    await node.close();
    throw err;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await node.close();
    await worker.close();
  };
  open[opts.lifetime].push({ close });
  const store = node.backend.jobsStore;
  const pool = node.backend.pool;
  // Settled when no file of any node is still processing and the worker has recorded what it took. Bounded: a file
  // left processing (a unit pg-boss never hands out, a worker that never settles) fails the test with what is stuck
  // instead of running into its timeout with no word of why.
  const whenIdle = async (limitMs = WHEN_IDLE_LIMIT_MS) => {
    const deadline = Date.now() + limitMs;
    while ((await store.jobs.countProcessingFiles()) > 0) {
      if (Date.now() > deadline) throw new Error(`whenIdle: files still processing after ${limitMs} ms.\n${await describeTeamWork(pool)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        worker.whenIdle(),
        new Promise((_, reject) => {
          timer = setTimeout(() => {
            describeTeamWork(pool).then(
              (d) => reject(new Error(`whenIdle: no file is processing, but the team worker has not settled what it took after ${limitMs} ms.\n${d}`)),
              reject,
            );
          }, Math.max(0, deadline - Date.now()));
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    // Every file ended and recorded: a job still processing now would hold every wait=true read of it to its window.
    const { rows: stuck } = await pool.query<{ id: string }>(
      "SELECT id FROM jobs j WHERE status = 'processing' AND NOT EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = j.id AND f.status = 'processing')",
    );
    if (stuck.length) throw new Error(`whenIdle: jobs left processing with every file ended: ${stuck.map((r) => r.id).join(', ')}`);
  };
  return withKeys({
    backend: 'pg',
    app: node.app,
    keys: node.keys,
    jobs: { ...node.jobs, whenIdle },
    jobsStore: store,
    keyStore: node.backend.keyStore,
    keySecret: team.keySecret,
    config: node.config,
    uiToken,
    setPort: (p) => node.setPort(p),
    close,
    dataDir,
    pgPool: node.backend.pool,
  });
}

/**
 * core.jobs.whenIdle with a bound of the caller's (a test with a longer timeout than the suite's): fails with the
 * files still processing instead of waiting past the test's timeout.
 */
export async function settled(core: TestCore, limitMs = WHEN_IDLE_LIMIT_MS): Promise<void> {
  if (core.backend === 'pg') return (core.jobs.whenIdle as (limitMs?: number) => Promise<void>)(limitMs);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      core.jobs.whenIdle(),
      new Promise((_, reject) => {
        timer = setTimeout(() => {
          sql(core, "SELECT id, job_id, attempts, started_at FROM job_files WHERE status = 'processing'").then(
            (rows) => reject(new Error(`whenIdle: the core has not settled its files after ${limitMs} ms; processing: ${JSON.stringify(rows)}`)),
            reject,
          );
        }, limitMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one statement on the active backend's database (`?` placeholders; the table and column names are the same on
 * both): the rows it returns, if any. For tests that read or corrupt a stored row directly.
 */
export async function sql<T = Record<string, unknown>>(core: TestCore, text: string, params: unknown[] = []): Promise<T[]> {
  if (core.pgPool) {
    let n = 0;
    return (await core.pgPool.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as T[];
  }
  const stmt = (core.desktop!.db as Db).prepare(text);
  if (stmt.reader) return stmt.all(...params) as T[];
  stmt.run(...params);
  return [];
}

/**
 * A key for the first application of `kind` in a data dir that a core in another process may be serving, made by
 * the real CLI (`veracity keys create --application`): the database holds no key to read back.
 */
export function cliKey(dataDir: string, kind: 'images' | 'pdfs'): { applicationId: string; apiKey: string } {
  const bin = path.join(REPO, 'src', 'bin', 'veracity.mjs');
  const run = (...args: string[]) => execFileSync(process.execPath, [bin, ...args, '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const apps = JSON.parse(run('keys', 'list')) as { applicationId: string; kind: string }[];
  const app = apps.find((a) => a.kind === kind);
  if (!app) throw new Error(`No ${kind} application in ${dataDir}.`);
  return JSON.parse(run('keys', 'create', '--application', app.applicationId, '--name', 'test key')) as { applicationId: string; apiKey: string };
}

export async function startListening(core: TestCore): Promise<string> {
  return listen(core);
}

export interface HttpFile {
  name: string;
  data: Buffer;
  type: string;
}

/** POST /v1/assess over real HTTP (fetch, FormData): the files, and the case named in `metadata` when given. */
export function postAssess(base: string, key: string, files: HttpFile[], opts: { caseName?: string; wait?: boolean } = {}): Promise<Response> {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
  if (opts.caseName !== undefined) form.append('metadata', JSON.stringify({ case: opts.caseName }));
  return fetch(`${base}/v1/assess?wait=${opts.wait ?? false}`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
}

/** Every file of the job, once the job has settled (real HTTP: POST, then GET with wait=true until terminal). */
export async function assessOverHttp(base: string, key: string, files: HttpFile[], caseName?: string): Promise<JobResult> {
  const posted = await postAssess(base, key, files, { caseName });
  expect(posted.status).toBe(202);
  let job = JobResult.parse(await posted.json());
  while (job.status === 'processing') {
    const polled = await fetch(`${base}/v1/jobs/${job.jobId}?wait=true`, { headers: { authorization: `Bearer ${key}` } });
    expect([200, 202]).toContain(polled.status);
    job = JobResult.parse(await polled.json());
  }
  return job;
}

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `request` verbatim on a fresh socket (request lines and headers no HTTP client sends: absolute-form targets,
 * repeated headers, dot segments) and resolves with the answer once the server closes (send `Connection: close`).
 */
export async function rawHttp(base: string, request: string | Buffer): Promise<RawAnswer> {
  const net = await import('node:net');
  const { hostname, port } = new URL(base);
  const text = await new Promise<string>((resolve, reject) => {
    const s = net.connect(Number(port), hostname, () => s.write(request));
    let d = '';
    s.setEncoding('utf8');
    s.on('data', (c) => (d += c));
    s.on('error', reject);
    s.on('close', () => resolve(d));
  });
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: text.slice(split + 4) };
}

export interface Part {
  name: string;
  data: Buffer | string;
  filename?: string;
  contentType?: string;
}

export const filePart = (data: Buffer, filename = 'photo.jpg', contentType = 'application/octet-stream'): Part => ({ name: 'file', data, filename, contentType });

/** Encodes parts as multipart/form-data with the platform's own encoder. */
export async function multipart(parts: Part[]): Promise<{ body: Buffer; contentType: string }> {
  const fd = new FormData();
  for (const p of parts) {
    if (p.filename !== undefined) fd.append(p.name, new Blob([typeof p.data === 'string' ? p.data : new Uint8Array(p.data)], { type: p.contentType ?? 'application/octet-stream' }), p.filename);
    else fd.append(p.name, typeof p.data === 'string' ? p.data : p.data.toString('utf8'));
  }
  const res = new Response(fd);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

export async function assess(
  core: TestCore,
  parts: Part[],
  opts: { key?: string; wait?: string; idempotencyKey?: string; headers?: Record<string, string> } = {},
) {
  const { body, contentType } = await multipart(parts);
  const qs = opts.wait === undefined ? '' : `?wait=${opts.wait}`;
  return core.app.inject({
    method: 'POST',
    url: `/v1/assess${qs}`,
    payload: body,
    headers: {
      'content-type': contentType,
      authorization: `Bearer ${opts.key ?? core.imagesKey}`,
      ...(opts.idempotencyKey !== undefined ? { 'idempotency-key': opts.idempotencyKey } : {}),
      ...opts.headers,
    },
  });
}

export function get(core: TestCore, url: string, key = core.imagesKey, headers: Record<string, string> = {}) {
  return core.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}`, ...headers } });
}

/** Parses a response body with a zod schema: every body a test reads is checked against the contract. */
export function body<T extends z.ZodType>(res: { body: string }, schema: T): z.infer<T> {
  const json = JSON.parse(res.body);
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`Response does not match schema: ${JSON.stringify(parsed.error.issues, null, 2)}\n${res.body.slice(0, 2000)}`);
  return parsed.data;
}

/** Asserts an ApiError with this status, code and (optionally) first issue path. */
export function expectError(res: { statusCode: number; body: string }, status: number, code: string, issuePath?: string) {
  const err = body(res, ApiError);
  expect({ status: res.statusCode, code: err.code }).toEqual({ status, code });
  if (issuePath !== undefined) expect(err.details?.issues?.[0]?.path).toBe(issuePath);
  return err;
}

export interface Footprint {
  jobs: number;
  files: number;
  idempotency: number;
  stored: string[];
  tmp: string[];
}

/** Rows of a table on the active backend. */
export async function countRows(core: TestCore, table: 'jobs' | 'job_files' | 'idempotency_keys'): Promise<number> {
  const [row] = await sql<{ n: number | string }>(core, `SELECT count(*) AS n FROM ${table}`);
  return Number(row.n);
}

/**
 * Temporary upload files: the desktop's tmp/, or every node's tmp/<node id>/ on the team server's shared directory
 * (less each node's heartbeat file, which is the folder's own, not an upload).
 */
export function tmpFiles(core: TestCore): string[] {
  const tmp = path.join(core.dataDir, 'tmp');
  if (core.backend === 'sqlite') return fs.readdirSync(tmp).sort();
  const out: string[] = [];
  for (const node of fs.readdirSync(tmp)) {
    const dir = path.join(tmp, node);
    if (!fs.statSync(dir).isDirectory()) out.push(node);
    else for (const f of fs.readdirSync(dir)) if (f !== '.alive') out.push(path.join(node, f));
  }
  return out.sort();
}

export async function footprint(core: TestCore): Promise<Footprint> {
  return {
    jobs: await countRows(core, 'jobs'),
    files: await countRows(core, 'job_files'),
    idempotency: await countRows(core, 'idempotency_keys'),
    stored: fs.readdirSync(path.join(core.dataDir, 'files')).sort(),
    tmp: tmpFiles(core),
  };
}

/** The oracle of every refusal: no job, no file row, no idempotency record, no stored file, no temp file. */
export async function expectNothingLeft(core: TestCore, before: Footprint) {
  await new Promise((r) => setTimeout(r, 50));
  const after = await footprint(core);
  expect(after).toEqual({ ...before, tmp: [] });
}
