// Shared harness of the reliability suite: the core as a real child process (kill -9 able), raw-socket HTTP for
// bodies that are cut, stalled or malformed, a seeded PRNG so every random run can be replayed, the on-disk
// "nothing left behind" oracle, and the report every suite adds its counts to (test/artifacts/, gitignored).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CORE_STDIO } from '../../main/core-process.js';
import { parseCoreReady } from '../../src/api/core-ready.js';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const ARTIFACTS = path.join(REPO, 'test', 'artifacts', 'reliability');
export const SERVE_ENTRY = path.join(REPO, 'test', 'reliability', 'serve-for-test.mjs');
export const SLOW_WORKER = path.join(REPO, 'test', 'fixtures', 'workers', 'slow-analysis-worker.mjs');
export const MODEL_DIR = path.join(REPO, 'models');
export const HAS_MODEL = fs.existsSync(path.join(MODEL_DIR, 'veracity-detector', 'manifest.json'));

// ---------------------------------------------------------------- seeded randomness

/** mulberry32: tiny, fast, good enough to pick kill points; the seed goes into the report. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seed from RELIABILITY_SEED (to replay a failure) or from the clock. */
export function suiteSeed(): number {
  const env = process.env.RELIABILITY_SEED;
  return env ? Number(env) >>> 0 : (Date.now() ^ (process.pid << 8)) >>> 0;
}

// ---------------------------------------------------------------- temp dirs

const made: string[] = [];
export function tempDir(prefix = 'veracity-rel-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}
export function removeTempDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

// ---------------------------------------------------------------- the core as a child process

export interface Served {
  child: ChildProcess;
  base: string;
  port: number;
  stderr: () => string;
  /** SIGKILL and wait for the exit. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServeOptions {
  dataDir: string;
  modelsDir: string;
  /** 'real' runs src/bin/analysis-worker.mjs; 'slow' the test worker that sleeps VERACITY_TEST_ANALYSE_MS. */
  worker?: 'real' | 'slow';
  env?: Record<string, string>;
}

/** Starts the core (createCore + listen, exactly what `veracity serve` runs) in its own process. */
export function serve(o: ServeOptions): Promise<Served> {
  const child = spawn(process.execPath, [SERVE_ENTRY], {
    stdio: CORE_STDIO,
    env: {
      ...process.env,
      VERACITY_LOG_LEVEL: 'warn',
      REL_DATA_DIR: o.dataDir,
      REL_MODELS_DIR: o.modelsDir,
      REL_WORKER: o.worker === 'slow' ? SLOW_WORKER : '',
      ...o.env,
    },
  });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
    if (err.length > 200_000) err = err.slice(-100_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout!.resume(); // the lines printed for people; the ready message comes over IPC
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`core did not start in 30 s: ${err.slice(-2000)}`)), 30_000);
    child.on('message', (message) => {
      const ready = parseCoreReady(message);
      if (ready) {
        clearTimeout(timer);
        resolve({
          child,
          base: ready.baseUrl,
          port: Number(new URL(ready.baseUrl).port),
          stderr: () => err,
          async kill9() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
            await exited;
          },
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const t = setTimeout(() => child.kill('SIGKILL'), 8000);
            await exited;
            clearTimeout(t);
          },
        });
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`core exited (${code ?? sig}) before listening: ${err.slice(-2000)}`));
    });
  });
}

const madeKeys = new Map<string, { images: string; pdfs: string; imagesAppId: string; pdfsAppId: string }>();

/**
 * Keys for the two default applications, made once per data dir by the real CLI (`veracity keys create
 * --application`; the database holds digests only, so there is no key to read back). They outlive restarts.
 */
export function keysOf(dataDir: string): { images: string; pdfs: string; imagesAppId: string; pdfsAppId: string } {
  const known = madeKeys.get(dataDir);
  if (known) return known;
  const bin = path.join(REPO, 'src', 'bin', 'veracity.mjs');
  const run = (...args: string[]) => execFileSync(process.execPath, [bin, ...args, '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const apps = JSON.parse(run('keys', 'list')) as { applicationId: string; kind: string }[];
  const make = (kind: string) => {
    const app = apps.find((a) => a.kind === kind);
    if (!app) throw new Error(`No ${kind} application in ${dataDir}.`);
    return (JSON.parse(run('keys', 'create', '--application', app.applicationId, '--name', 'reliability key')) as { apiKey: string }).apiKey;
  };
  const imagesAppId = apps.find((a) => a.kind === 'images')!.applicationId;
  const pdfsAppId = apps.find((a) => a.kind === 'pdfs')!.applicationId;
  const keys = { images: make('images'), pdfs: make('pdfs'), imagesAppId, pdfsAppId };
  madeKeys.set(dataDir, keys);
  return keys;
}

// ---------------------------------------------------------------- on-disk oracle

export interface DiskState {
  jobs: number;
  files: number;
  idempotency: number;
  stored: string[];
  tmp: string[];
}

/** What is on disk, read from the files and (read-only) from SQLite; safe while the core runs (WAL). */
export function diskState(dataDir: string): DiskState {
  const db = new Database(path.join(dataDir, 'veracity.db'), { readonly: true, fileMustExist: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      jobs: n('SELECT count(*) AS n FROM jobs'),
      files: n('SELECT count(*) AS n FROM job_files'),
      idempotency: n('SELECT count(*) AS n FROM idempotency_keys'),
      stored: fs.readdirSync(path.join(dataDir, 'files')).sort(),
      tmp: fs.readdirSync(path.join(dataDir, 'tmp')).sort(),
    };
  } finally {
    db.close();
  }
}

export function integrityCheck(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'veracity.db'));
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

/** Polls `fn` until it returns true or `ms` pass (for clean-up that completes after a response is sent). */
export async function eventually(fn: () => boolean | Promise<boolean>, ms = 3000, step = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return true;
    await sleep(step);
  }
  return fn();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- multipart and raw HTTP

export interface Part {
  name: string;
  data: Buffer | string;
  filename?: string;
  contentType?: string;
  /** Extra raw header lines for this part (abuse cases). */
  extraHeaders?: string[];
}

/** Hand-built multipart body: lets the abuse cases put anything in names and part headers. */
export function multipartBody(parts: Part[], boundary = `----rel${Math.random().toString(16).slice(2)}`): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp =
      p.filename !== undefined
        ? `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c))}"`
        : `Content-Disposition: form-data; name="${p.name}"`;
    const lines = [`--${boundary}`, disp];
    if (p.filename !== undefined) lines.push(`Content-Type: ${p.contentType ?? 'application/octet-stream'}`);
    if (p.extraHeaders) lines.push(...p.extraHeaders);
    chunks.push(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface RawResponse {
  status: number | null;
  headers: string;
  body: string;
  /** Bytes of the request body the socket accepted before the answer (or close). */
  bodyBytesSent: number;
  closedBy: 'server' | 'client' | 'timeout';
  ms: number;
}

export interface RawRequestOptions {
  port: number;
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** The body, or a prefix of it when `cutAt` is set. */
  body?: Buffer;
  /** Send only this many body bytes, then: 'destroy' the socket, or 'stall' (send nothing more). */
  cutAt?: number;
  after?: 'destroy' | 'stall';
  /** Body sent in chunks of this size, pausing `pauseMs` between them (slow client). */
  chunk?: number;
  pauseMs?: number;
  /** Give up (and destroy) after this long. */
  timeoutMs?: number;
  /** Host header (default: 127.0.0.1:<port>). */
  hostHeader?: string;
}

/** One HTTP/1.1 request over a raw socket: writes what it is told and records what comes back and when. */
export function rawRequest(o: RawRequestOptions): Promise<RawResponse> {
  const started = Date.now();
  return new Promise((resolve) => {
    const s = net.connect(o.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let sent = 0;
    let settled = false;
    let gotHead = false;
    const finish = (closedBy: RawResponse['closedBy']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const text = data.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: m ? Number(m[1]) : null,
        headers: split >= 0 ? text.slice(0, split) : text,
        body: split >= 0 ? data.subarray(split + 4).toString('utf8') : '',
        bodyBytesSent: sent,
        closedBy,
        ms: Date.now() - started,
      });
      s.destroy();
    };
    const timer = setTimeout(() => finish('timeout'), o.timeoutMs ?? 30_000);
    s.on('data', (d) => {
      data = Buffer.concat([data, d]);
      if (!gotHead && data.includes('\r\n\r\n')) gotHead = true;
      // A complete response with Content-Length: done, even if the server keeps the socket open.
      const text = data.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const cl = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split));
      if (split >= 0 && cl && data.length >= split + 4 + Number(cl[1])) finish('server');
    });
    s.on('close', () => finish('server'));
    s.on('error', () => finish('server'));
    s.on('connect', async () => {
      const head = [`${o.method ?? 'POST'} ${o.path} HTTP/1.1`, `Host: ${o.hostHeader ?? `127.0.0.1:${o.port}`}`, ...Object.entries(o.headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
      s.write(head);
      const body = o.body ?? Buffer.alloc(0);
      const end = o.cutAt ?? body.length;
      const step = o.chunk ?? 256 * 1024;
      for (let off = 0; off < end && !settled && !gotHead; off += step) {
        const piece = body.subarray(off, Math.min(end, off + step));
        const ok = s.write(piece);
        sent += piece.length;
        if (!ok) await new Promise<void>((r) => { const t = setTimeout(r, 5000); s.once('drain', () => { clearTimeout(t); r(); }); });
        if (o.pauseMs) await sleep(o.pauseMs);
      }
      if (o.cutAt !== undefined && o.after === 'destroy' && !settled) {
        await sleep(20);
        finish('client');
      }
    });
  });
}

// ---------------------------------------------------------------- report

export interface SuiteReport {
  suite: string;
  seed?: number;
  counts: Record<string, number>;
  notes: string[];
  lost: number;
  [extra: string]: unknown;
}

/** Writes this suite's report and refreshes the merged report of every suite that has run. */
export function writeReport(r: SuiteReport): void {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, `${r.suite}.json`), JSON.stringify({ ...r, at: new Date().toISOString() }, null, 2));
  const all = fs
    .readdirSync(ARTIFACTS)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(ARTIFACTS, f), 'utf8')) as SuiteReport & { at: string });
  const totals: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s.counts)) totals[k] = (totals[k] ?? 0) + v;
  const requestKeys = Object.keys(totals).filter((k) => /(^r|R)equests$/.test(k) && k !== 'distinctRequests');
  const summary = {
    suites: all.map((s) => s.suite),
    requestsSent: requestKeys.reduce((n, k) => n + totals[k], 0),
    kills: totals.kills ?? 0,
    hostileFilesTried: (totals.hostileRequests ?? 0) + (totals.cutPoints ?? 0),
    acknowledgedJobs: (totals.acknowledgedJobs ?? 0) + (totals.accepted ?? 0),
    lost: all.reduce((n, s) => n + s.lost, 0),
    failures: all.reduce((n, s) => n + s.notes.filter((x) => !/^(no model|analysis ran)/.test(x)).length, 0),
  };
  const merged = { generatedAt: new Date().toISOString(), summary, lost: summary.lost, totals, suites: all };
  fs.writeFileSync(path.join(REPO, 'test', 'artifacts', 'reliability-report.json'), JSON.stringify(merged, null, 2));
  const counts = Object.entries(r.counts)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(`[reliability] ${r.suite}${r.seed !== undefined ? ` seed=${r.seed}` : ''}: ${counts}; lost=${r.lost}${r.notes.length ? `\n  ${r.notes.join('\n  ')}` : ''}`);
}
