// Shared parts of the benchmarks: the real `veracity serve` as a child process, generated and cached inputs
// (12-megapixel JPEGs, HEICs made with heif-enc, PDFs), RSS sampling from /proc, percentiles, streamed multipart
// bodies, and the result files under test/bench/results/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { CORE_STDIO } from '../../main/core-process.js';
import { appUrlOf, parseCoreReady } from '../../src/api/core-ready.js';
import { makeJpeg, photoRgb, pdfWithJpeg } from '../unit/analysis/fixtures.js';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const RESULTS = path.join(REPO, 'test', 'bench', 'results');
export const CACHE = path.join(REPO, 'test', 'artifacts', 'bench-cache');
export const MODELS = path.join(REPO, 'models');
export const HAS_MODEL = fs.existsSync(path.join(MODELS, 'veracity-detector', 'manifest.json'));
const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');

export function tempDir(prefix = 'veracity-bench-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface Server {
  child: ChildProcess;
  base: string;
  pid: number;
  startedAt: number; // performance.now() at spawn
  listeningAt: number;
  imagesKey: string;
  pdfsKey: string;
  imagesAppId: string;
  pdfsAppId: string;
  /** The window's address with its UI token, when the core serves the built renderer (dist/renderer), else null. */
  appUrl: string | null;
  /** The per-launch UI token (the window's /app routes), whatever the renderer. */
  uiToken: string | null;
  stop(): Promise<void>;
}

/** `veracity serve` exactly as a user runs it, with the rate limit lifted so the load generator measures the API. */
export async function startServer(o: { dataDir?: string; modelsDir?: string; env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<Server> {
  const dataDir = o.dataDir ?? tempDir();
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--models-dir', o.modelsDir ?? MODELS], {
    stdio: CORE_STDIO,
    env: { ...process.env, VERACITY_LOG_LEVEL: 'warn', VERACITY_RATE_LIMIT_MAX: '1000000', ...o.env },
  });
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + d).slice(-20_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.stdout!.resume(); // the lines printed for people; the ready message comes over IPC
  let appUrl: string | null = null;
  let uiToken: string | null = null;
  const base = await new Promise<string>((resolve, reject) => {
    child.on('message', (message) => {
      const ready = parseCoreReady(message);
      if (ready) {
        appUrl = appUrlOf(ready);
        uiToken = ready.uiToken;
        resolve(ready.baseUrl);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const listeningAt = performance.now();
  // The database keeps key digests only: make a key per kind with the CLI, as a tool would.
  const cli = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args, '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const apps = JSON.parse(cli('keys', 'list')) as { applicationId: string; kind: string }[];
  const row = (kind: string) => {
    const id = apps.find((a) => a.kind === kind)!.applicationId;
    return { id, token: (JSON.parse(cli('keys', 'create', '--application', id, '--name', 'bench key')) as { apiKey: string }).apiKey };
  };
  const images = row('images');
  const pdfs = row('pdfs');
  return {
    child,
    base,
    pid: child.pid!,
    startedAt,
    listeningAt,
    imagesKey: images.token,
    pdfsKey: pdfs.token,
    imagesAppId: images.id,
    pdfsAppId: pdfs.id,
    appUrl,
    uiToken,
    async stop() {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

// ---------------------------------------------------------------- inputs (cached between runs)

function cached(name: string, make: () => Promise<Buffer> | Buffer): Promise<string> {
  fs.mkdirSync(CACHE, { recursive: true });
  const p = path.join(CACHE, name);
  if (fs.existsSync(p)) return Promise.resolve(p);
  return Promise.resolve(make()).then((b) => {
    fs.writeFileSync(`${p}.tmp`, b);
    fs.renameSync(`${p}.tmp`, p);
    return p;
  });
}

let base12mp: Buffer | null = null;
async function photo12mp(): Promise<Buffer> {
  base12mp ??= await photoRgb(4000, 3000);
  return base12mp;
}

/** `count` distinct 12-megapixel (4000x3000) photo-like JPEGs. */
export async function jpegs12mp(count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      await cached(`photo-12mp-${i}.jpg`, async () => {
        let s = sharp(await photo12mp(), { raw: { width: 4000, height: 3000, channels: 3 } }).modulate({ brightness: 0.9 + (i % 10) * 0.02, hue: i * 7 });
        if (i % 2) s = s.flop();
        return s.jpeg({ quality: 85 + (i % 10) }).toBuffer();
      }),
    );
  }
  return out;
}

/**
 * A 4000x3000 JPEG (q92) of twelve generated pictures (Stable Diffusion 1.x, the first twelve of the shared training
 * set's gen_sd1, each 1000x1000, cover-cropped) that the shipped model scores high and in which the face finder finds
 * no face: the case where every turned look of the face check runs. null without ../shared/datasets.
 */
export async function aiMosaic12mp(): Promise<string | null> {
  const dir = path.join(REPO, '..', 'shared', 'datasets', 'train', 'ai', 'gen_sd1');
  if (!fs.existsSync(dir)) return null;
  const files = fs.readdirSync(dir).filter((f) => /\.(png|jpe?g|webp)$/i.test(f)).sort().slice(0, 12);
  if (files.length < 12) return null;
  return cached('ai-mosaic-12mp.jpg', async () => {
    const side = 1000;
    const tiles = await Promise.all(files.map((f) => sharp(path.join(dir, f)).resize(side, side, { fit: 'cover' }).removeAlpha().toBuffer()));
    return sharp({ create: { width: 4 * side, height: 3 * side, channels: 3, background: { r: 0, g: 0, b: 0 } } })
      .composite(tiles.map((input, i) => ({ input, left: (i % 4) * side, top: Math.floor(i / 4) * side })))
      .jpeg({ quality: 92 })
      .toBuffer();
  });
}

export function hasHeifEnc(): boolean {
  try {
    execFileSync('heif-enc', ['--list-encoders'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `count` 12-megapixel HEICs, encoded from the JPEGs with heif-enc (x265). */
export async function heics12mp(count: number): Promise<string[]> {
  const jpegs = await jpegs12mp(count);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await cached(`photo-12mp-${i}.heic`, () => {
      const tmp = path.join(CACHE, `enc-${i}.heic`);
      execFileSync('heif-enc', ['-q', '80', jpegs[i], '-o', tmp], { stdio: 'ignore' });
      const b = fs.readFileSync(tmp);
      fs.rmSync(tmp);
      return b;
    }));
  }
  return out;
}

/** `count` one-page PDFs, each a 2400x1800 photo (about 1 MB, under the 2 MiB limit). */
export async function photoPdfs(count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      await cached(`photo-pdf-${i}.pdf`, async () => {
        const jpeg = await sharp(await photo12mp(), { raw: { width: 4000, height: 3000, channels: 3 } })
          .resize(2400, 1800)
          .modulate({ brightness: 0.9 + i * 0.02 })
          .jpeg({ quality: 80 })
          .toBuffer();
        return pdfWithJpeg(jpeg, 2400, 1800);
      }),
    );
  }
  return out;
}

// ---------------------------------------------------------------- HTTP

const CRLF = '\r\n';

/** A multipart body streamed from files on disk (the client never holds the whole body). */
export function multipartStream(files: { path: string; name: string; repeat?: number }[]): { stream: Readable; length: number; contentType: string } {
  const boundary = `----bench${Math.random().toString(16).slice(2)}`;
  const items: (Buffer | string)[] = [];
  let length = 0;
  for (const f of files) {
    const head = Buffer.from(`--${boundary}${CRLF}Content-Disposition: form-data; name="file"; filename="${f.name}"${CRLF}Content-Type: application/octet-stream${CRLF}${CRLF}`);
    items.push(head, f.path, Buffer.from(CRLF));
    length += head.length + fs.statSync(f.path).size + 2;
  }
  const tail = Buffer.from(`--${boundary}--${CRLF}`);
  items.push(tail);
  length += tail.length;
  async function* gen() {
    for (const it of items) {
      if (Buffer.isBuffer(it)) yield it;
      else for await (const chunk of fs.createReadStream(it, { highWaterMark: 256 * 1024 })) yield chunk as Buffer;
    }
  }
  return { stream: Readable.from(gen()), length, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /v1/assess with files streamed from disk; returns status and parsed body. */
export async function assess(server: Server, key: string, files: { path: string; name: string }[], wait: boolean): Promise<{ status: number; body: { jobId: string; status: string; results: { status: string; error?: { code: string } }[] } }> {
  const { stream, length, contentType } = multipartStream(files);
  const res = await fetch(`${server.base}/v1/assess?wait=${wait}`, {
    method: 'POST',
    body: Readable.toWeb(stream) as ReadableStream,
    duplex: 'half',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, 'content-length': String(length) },
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as never };
}

/** Polls GET /v1/jobs/{id}?wait=true until the job leaves processing. */
export async function waitJob(server: Server, key: string, jobId: string): Promise<{ status: string; results: { status: string; error?: { code: string } }[] }> {
  for (;;) {
    const res = await fetch(`${server.base}/v1/jobs/${jobId}?wait=true`, { headers: { authorization: `Bearer ${key}` } });
    const job = (await res.json()) as { status: string; results: { status: string; error?: { code: string } }[] };
    if (job.status !== 'processing') return job;
  }
}

/** Some history for the API benchmarks: 20 finished jobs of 5 small images each; returns the last one's id. */
export async function makeHistory(server: Server, dir: string): Promise<string> {
  const jpeg = path.join(dir, 'small.jpg');
  fs.writeFileSync(jpeg, await makeJpeg(256, 192));
  let jobId = '';
  for (let i = 0; i < 20; i++) {
    const r = await assess(server, server.imagesKey, Array.from({ length: 5 }, (_, k) => ({ path: jpeg, name: `j${i}-${k}.jpg` })), true);
    jobId = r.body.jobId;
    if (r.status === 202) await waitJob(server, server.imagesKey, jobId);
  }
  return jobId;
}

// ---------------------------------------------------------------- measurement

export function rssBytes(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** Child pids of a process (the analysis/probe workers of the server). */
export function childPids(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The command line of a process, its arguments joined by spaces ('' once it is gone). */
export function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Samples the RSS of a process (and, separately, of its children) every `ms` until stopped. */
export function sampleRss(pid: number, ms = 50): { stop(): { peak: number; peakWithWorkers: number; samples: number } } {
  let peak = 0;
  let peakAll = 0;
  let samples = 0;
  const t = setInterval(() => {
    const own = rssBytes(pid)?.rss ?? 0;
    const kids = childPids(pid).reduce((n, c) => n + (rssBytes(c)?.rss ?? 0), 0);
    peak = Math.max(peak, own);
    peakAll = Math.max(peakAll, own + kids);
    samples++;
  }, ms);
  return {
    stop() {
      clearInterval(t);
      return { peak, peakWithWorkers: peakAll, samples };
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
export const MiB = 2 ** 20;

export interface BenchResult {
  name: string;
  at: string;
  machine: { cpus: number; model: string; load1: number; node: string };
  modelPresent: boolean;
  figures: Record<string, unknown>;
  targets?: Record<string, string>;
  notes: string[];
}

export function writeResult(name: string, figures: Record<string, unknown>, notes: string[] = [], targets?: Record<string, string>): BenchResult {
  const r: BenchResult = {
    name,
    at: new Date().toISOString(),
    machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model ?? 'unknown', load1: round(os.loadavg()[0]), node: process.version },
    modelPresent: HAS_MODEL,
    figures,
    targets,
    notes,
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(r, null, 2)}\n`);
  console.log(`[bench] ${name}: ${JSON.stringify(figures)}${notes.length ? `\n  ${notes.join('\n  ')}` : ''}`);
  return r;
}
