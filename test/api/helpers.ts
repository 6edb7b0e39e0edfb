// Shared harness of the API tests: a real core (real SQLite file in a temp dir, real worker processes) driven by
// inject() or real HTTP, multipart builders, and the "nothing left behind" oracle every refusal test uses.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import type { z } from 'zod';
import { loadConfig, type CoreConfig } from '../../src/config/config.js';
import { createCore, listen, type Core } from '../../src/core.js';
import { ApiError } from '../../src/api/schemas.js';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const SLOW_WORKER = path.join(REPO, 'test', 'fixtures', 'workers', 'slow-analysis-worker.mjs');

const open: Core[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'veracity-api-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export interface TestCore extends Core {
  imagesKey: string;
  pdfsKey: string;
  imagesAppId: string;
  pdfsAppId: string;
  dataDir: string;
}

/** A core on a fresh data dir. `modelsDir` defaults to an empty dir: results end in result_unavailable, deterministically. */
export async function startCore(
  overrides: Partial<Record<keyof CoreConfig, unknown>> = {},
  opts: { workerEntry?: string; dataDir?: string; now?: () => Date } = {},
): Promise<TestCore> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = loadConfig({ dataDir, modelsDir: tempDir('veracity-nomodel-'), logLevel: 'silent', rendererDir: tempDir('veracity-norenderer-'), ...overrides }, {});
  const core = await createCore(config, { workerEntry: opts.workerEntry, now: opts.now });
  open.push(core);
  const apps = core.apps.listApplications();
  const images = apps.find((a) => a.kind === 'images')!;
  const pdfs = apps.find((a) => a.kind === 'pdfs')!;
  // The database keeps digests only: a test gets its keys the way a tool does, at creation.
  return Object.assign(core, {
    imagesKey: (await core.keys.issueKey(images.id, 'test key')).token,
    pdfsKey: (await core.keys.issueKey(pdfs.id, 'test key')).token,
    imagesAppId: images.id,
    pdfsAppId: pdfs.id,
    dataDir,
  });
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

export async function startListening(core: Core): Promise<string> {
  return listen(core);
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

export function footprint(core: TestCore): Footprint {
  return {
    jobs: core.jobsRepo.countAllJobs(),
    files: (core.db.prepare('SELECT count(*) AS n FROM job_files').get() as { n: number }).n,
    idempotency: core.jobsRepo.countIdempotency(),
    stored: fs.readdirSync(path.join(core.dataDir, 'files')).sort(),
    tmp: fs.readdirSync(path.join(core.dataDir, 'tmp')).sort(),
  };
}

/** The oracle of every refusal: no job, no file row, no idempotency record, no stored file, no temp file. */
export async function expectNothingLeft(core: TestCore, before: Footprint) {
  await new Promise((r) => setTimeout(r, 50));
  const after = footprint(core);
  expect(after).toEqual({ ...before, tmp: [] });
}
