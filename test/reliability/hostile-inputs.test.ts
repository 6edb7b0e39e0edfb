// Hostile and broken inputs through the real core (real probe and analysis worker processes, the real model when
// it is present): every real-world PDF of ../shared/datasets/pdfs, decompression bombs, a progressive-scan bomb,
// truncations at seeded offsets, polyglots, empty files, hostile file names, a PDF with JavaScript. Each one gets
// its documented status and code, or a job whose results end in an error code of the vocabulary; the core keeps
// answering; a refusal leaves nothing behind; nothing is written outside the data dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { footprint, startCore, type TestCore } from '../api/helpers.js';
import { HAS_DATASETS, DATASETS, makeJpeg, makePng, pngBomb, jpegWithDeclaredSize, textPdf } from '../unit/analysis/fixtures.js';
import { HAS_MODEL, MODEL_DIR, multipartBody, prng, suiteSeed, writeReport, type Part } from './harness.js';
import { HEIC_FIXTURE, cutOffsets, heicDeclaring, pdfWithJavaScript, photoPdf, progressiveScanBomb, tinyZip } from './hostile-files.js';

type Outcome = 'refused' | 'completed' | 'result_error';
const tally: Record<string, number> = {};
const outcomes: Record<string, string> = {};
const failures: string[] = [];
const seed = suiteSeed();
let requests = 0;

afterAll(() => {
  writeReport({
    suite: 'hostile-inputs',
    seed,
    counts: { hostileRequests: requests, ...Object.fromEntries(Object.entries(tally).map(([k, v]) => [`outcome_${k}`, v])) },
    lost: 0,
    notes: [...failures, HAS_MODEL ? 'analysis ran with the real model' : 'no model in models/veracity-detector: accepted files end in result_unavailable before decoding (probe still ran)'],
    outcomes,
  });
});

async function core(): Promise<TestCore> {
  const modelsDir = HAS_MODEL ? MODEL_DIR : undefined;
  return startCore({ fileTimeoutMs: 30_000, ...(modelsDir ? { modelsDir } : {}) });
}

const REFUSALS: Record<number, string[]> = { 400: ['unsupported_format', 'invalid_request'], 413: ['file_too_large'], 422: ['unprocessable'] };

/**
 * Posts the parts and checks the answer against the contract: a documented refusal with nothing left behind, or a
 * job (waited for) whose every result is completed or errored with a vocabulary code. Returns the outcome.
 */
async function submit(c: TestCore, label: string, parts: Part[], opts: { kind?: 'images' | 'pdfs'; allowed?: Outcome[]; status?: number; code?: string } = {}): Promise<{ outcome: Outcome; job?: JobResult }> {
  const before = await footprint(c);
  const { body, contentType } = multipartBody(parts);
  requests++;
  const res = await c.app.inject({
    method: 'POST',
    url: '/v1/assess?wait=true',
    payload: body,
    headers: { 'content-type': contentType, authorization: `Bearer ${opts.kind === 'pdfs' ? c.pdfsKey : c.imagesKey}` },
  });
  let outcome: Outcome;
  let job: JobResult | undefined;
  if (REFUSALS[res.statusCode]) {
    const err = JSON.parse(res.body) as { code: string };
    if (!REFUSALS[res.statusCode].includes(err.code)) failures.push(`${label}: ${res.statusCode} with code ${err.code}`);
    if (opts.status !== undefined && res.statusCode !== opts.status) failures.push(`${label}: expected ${opts.status}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
    if (opts.code !== undefined && err.code !== opts.code) failures.push(`${label}: expected code ${opts.code}, got ${err.code}`);
    await new Promise((r) => setTimeout(r, 30));
    const after = await footprint(c);
    if (JSON.stringify(after) !== JSON.stringify({ ...before, tmp: [] })) failures.push(`${label}: refusal left something behind ${JSON.stringify({ before, after })}`);
    outcome = 'refused';
  } else if (res.statusCode === 200 || res.statusCode === 202) {
    job = JobResult.parse(JSON.parse(res.body));
    if (job.status === 'processing') {
      const again = await c.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}?wait=true`, headers: { authorization: `Bearer ${opts.kind === 'pdfs' ? c.pdfsKey : c.imagesKey}` } });
      job = JobResult.parse(JSON.parse(again.body));
    }
    if (job.status === 'processing') failures.push(`${label}: still processing after the wait window`);
    for (const r of job.results) {
      if (r.status === 'error' && !['internal_error', 'result_unavailable'].includes(r.error?.code ?? '')) failures.push(`${label}: result error code ${r.error?.code}`);
    }
    if (opts.status !== undefined && res.statusCode !== opts.status) failures.push(`${label}: expected ${opts.status}, got ${res.statusCode}`);
    outcome = job.results.every((r) => r.status === 'completed') ? 'completed' : 'result_error';
  } else {
    failures.push(`${label}: undocumented answer ${res.statusCode} ${res.body.slice(0, 300)}`);
    outcome = 'refused';
  }
  if (opts.allowed && !opts.allowed.includes(outcome)) failures.push(`${label}: outcome ${outcome} not in ${opts.allowed.join('/')}`);
  // The core still answers, and its analysis workers are still there for the next file.
  const alive = await c.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${c.imagesAppId}&pageSize=1`, headers: { authorization: `Bearer ${c.imagesKey}` } });
  if (alive.statusCode !== 200) failures.push(`${label}: core stopped answering (${alive.statusCode})`);
  tally[outcome] = (tally[outcome] ?? 0) + 1;
  outcomes[label] = job ? `${res.statusCode} ${job.status}${job.results.map((r) => ` ${r.status}${r.error ? `:${r.error.code}` : ''}`).join('')}` : `${res.statusCode} ${(JSON.parse(res.body) as { code?: string }).code}`;
  return { outcome, job };
}

const file = (data: Buffer, filename: string, contentType = 'application/octet-stream'): Part => ({ name: 'file', data, filename, contentType });

describe('hostile inputs', () => {
  it('refuses decompression bombs from their declared size (PNG, JPEG, HEIC), before any decode', { timeout: 120_000 }, async () => {
    const c = await core();
    await submit(c, 'png 30000x30000', [file(pngBomb(30000, 30000), 'bomb.png')], { status: 422, code: 'unprocessable' });
    await submit(c, 'png 1x100000000', [file(pngBomb(1, 100_000_000), 'thin.png')], { status: 422, code: 'unprocessable' });
    await submit(c, 'jpeg 65500x65500', [file(jpegWithDeclaredSize(await makeJpeg(64, 64), 65500, 65500), 'bomb.jpg')], { status: 422, code: 'unprocessable' });
    await submit(c, 'heic 65535x65535', [file(heicDeclaring(65535, 65535), 'bomb.heic')], { status: 422, code: 'unprocessable' });
    await submit(c, 'heic 16x17000', [file(heicDeclaring(16, 17000), 'thin.heic')], { status: 422, code: 'unprocessable' });
    // One bomb among good files refuses the whole request (rule 1) and stores none of them.
    const good = await makeJpeg(64, 64);
    await submit(c, 'bomb after 3 good files', [file(good, 'a.jpg'), file(good, 'b.jpg'), file(good, 'c.jpg'), file(pngBomb(20000, 20000), 'd.png')], { status: 422 });
    expect(failures).toEqual([]);
  });

  it('analyses under-limit giants (100 MP in a 300 KB PNG, six at once) and extreme aspect ratios within bounds', { timeout: 180_000 }, async () => {
    const c = await core();
    const giant = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#4080c0' } }).png({ compressionLevel: 9 }).toBuffer();
    const t0 = Date.now();
    await submit(c, 'six 10000x10000 PNGs in one request', Array.from({ length: 6 }, (_, i) => file(giant, `giant-${i}.png`)), { allowed: HAS_MODEL ? ['completed', 'result_error'] : ['result_error'] });
    outcomes['six 100 MP PNGs ms'] = String(Date.now() - t0);
    const strip = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).png().toBuffer();
    await submit(c, 'png 32x100000', [file(await strip(32, 100_000), 'tall.png')], { allowed: HAS_MODEL ? ['completed', 'result_error'] : ['result_error'] });
    await submit(c, 'png 100000x32', [file(await strip(100_000, 32), 'wide.png')], { allowed: HAS_MODEL ? ['completed', 'result_error'] : ['result_error'] });
    await submit(c, 'png 31x4000 (under the 32-pixel side)', [file(await strip(31, 4000), 'thin.png')], { status: 422, code: 'unprocessable' });
    expect(failures).toEqual([]);
  });

  it('bounds a progressive JPEG with thousands of scans', { timeout: 120_000 }, async () => {
    const c = await core();
    const bomb = await progressiveScanBomb(4000);
    const t0 = Date.now();
    // Its repeated DC scans are an inconsistent progression: libjpeg cannot decode it, so it is refused at submission
    // (DECISIONS 21), by the probe's decode, never a job.
    const { outcome } = await submit(c, 'progressive jpeg, 4000 extra scans', [file(bomb, 'scans.jpg')], { allowed: ['refused'], status: 422, code: 'unprocessable' });
    outcomes['progressive scan bomb ms'] = `${Date.now() - t0} (${outcome}, ${bomb.length} bytes)`;
    // The next file is still analysed: the worker that met the bomb was bounded or replaced.
    await submit(c, 'good jpeg after the scan bomb', [file(await makeJpeg(128, 96), 'after.jpg')], { allowed: HAS_MODEL ? ['completed'] : ['result_error'] });
    expect(failures).toEqual([]);
  });

  // DECISIONS 21: a file of an accepted kind that cannot be decoded is 422 at submission, never a job; so a cut file is
  // refused (400 when its magic bytes are cut, 422 otherwise) or, when what is left still decodes, analysed. A job
  // whose result ends in a decode error is a failure (without the model every accepted file ends result_unavailable).
  it('answers truncations of JPEG, PNG, HEIC and PDF at seeded offsets with a refusal, or a job that completes', { timeout: 200_000 }, async () => {
    const c = await core();
    const rnd = prng(seed);
    const sources: [string, Buffer, 'images' | 'pdfs'][] = [
      ['jpeg', await makeJpeg(256, 192), 'images'],
      ['progressive-jpeg', await makeJpeg(256, 192, (s) => s.jpeg({ progressive: true })), 'images'],
      ['png', await makePng(128, 96), 'images'],
      ['heic', fs.readFileSync(HEIC_FIXTURE), 'images'],
      ['pdf', await photoPdf(), 'pdfs'],
    ];
    const perFile = Number(process.env.RELIABILITY_CUTS ?? 10);
    for (const [name, data, kind] of sources) {
      for (const at of cutOffsets(data.length, perFile, rnd)) {
        await submit(c, `${name} cut at ${at}/${data.length}`, [file(data.subarray(0, at), `${name}-cut.bin`)], { kind, allowed: HAS_MODEL ? ['refused', 'completed'] : ['refused', 'result_error'] });
      }
    }
    // A file whose first bytes are right but which is too short to be anything is refused, never a job.
    await submit(c, 'jpeg magic only', [file(Buffer.from([0xff, 0xd8, 0xff]), 'magic.jpg')], { allowed: ['refused'] });
    expect(failures).toEqual([]);
  });

  it('decides the kind from the bytes for polyglots, empty and tiny files', { timeout: 120_000 }, async () => {
    const c = await core();
    const jpeg = await makeJpeg(96, 64);
    const pdf = textPdf();
    await submit(c, 'zero-byte file', [file(Buffer.alloc(0), 'empty.jpg', 'image/jpeg')], { status: 400, code: 'unsupported_format' });
    await submit(c, 'one-byte file', [file(Buffer.from([0xff]), 'one.jpg', 'image/jpeg')], { status: 400, code: 'unsupported_format' });
    await submit(c, 'zero-byte PDF', [file(Buffer.alloc(0), 'empty.pdf', 'application/pdf')], { kind: 'pdfs', status: 400, code: 'unsupported_format' });
    await submit(c, 'jpeg+zip polyglot', [file(Buffer.concat([jpeg, tinyZip()]), 'poly.jpg')], { status: 200 });
    await submit(c, 'html named .png', [file(Buffer.from('<html><script>alert(1)</script></html>'), 'x.png', 'image/png')], { status: 400, code: 'unsupported_format' });
    await submit(c, 'svg named .png', [file(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), 'x.png', 'image/png')], { status: 400, code: 'unsupported_format' });
    await submit(c, 'gif', [file(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'x.jpg', 'image/jpeg')], { status: 400, code: 'unsupported_format' });
    await submit(c, 'pdf to the images application', [file(pdf, 'doc.jpg', 'image/jpeg')], { status: 400, code: 'unsupported_format' });
    await submit(c, 'jpeg to the pdfs application', [file(jpeg, 'photo.pdf', 'application/pdf')], { kind: 'pdfs', status: 400, code: 'unsupported_format' });
    await submit(c, 'junk before %PDF-', [file(Buffer.concat([Buffer.alloc(500, 0x41), pdf]), 'junk.pdf')], { kind: 'pdfs', status: 400, code: 'unsupported_format' });
    await submit(c, 'pdf with a jpeg inside (pdf application)', [file(await photoPdf(), 'photo.pdf')], { kind: 'pdfs', status: 200 });
    await submit(c, 'zip named .pdf', [file(tinyZip(), 'x.pdf')], { kind: 'pdfs', status: 400, code: 'unsupported_format' });
    expect(failures).toEqual([]);
  });

  it('stores hostile file names as display text only: nothing written outside the data dir, safe download headers', { timeout: 120_000 }, async () => {
    const c = await core();
    const jpeg = await makeJpeg(64, 64);
    const canary = path.join(os.tmpdir(), `veracity-traversal-canary-${process.pid}.jpg`);
    const names = [
      `../../../../../../..${canary}`,
      '..\\..\\..\\windows\\system32\\x.jpg',
      '/etc/passwd',
      'C:\\Windows\\win.ini',
      '\\\\server\\share\\x.jpg',
      '%2e%2e%2f%2e%2e%2fx.jpg',
      'CON',
      'NUL.jpg',
      'trailing dot. ',
      `${'a'.repeat(2000)}.jpg`,
      '\u202Egpj.exe',
      'e\u0301-nfd.jpg',
      'zero\u200Bwidth.jpg',
      'emoji-😀-ファイル.jpg',
      'nul\u0000byte.jpg',
      '<img src=x onerror=alert(1)>.jpg',
      "'; DROP TABLE jobs; --.jpg",
    ];
    const parts = names.map((n) => file(jpeg, n, 'image/jpeg'));
    const watched = [os.tmpdir(), path.dirname(c.dataDir), process.cwd(), '/etc', '/'];
    const before = new Map(watched.map((dir) => [dir, new Set(fs.readdirSync(dir))]));
    // 200 or 202: the wait window counts from the request's arrival, and on a loaded machine the probes of this many
    // files can spend it (submit then polls the job to its end)
    const { job } = await submit(c, 'hostile file names', parts);
    expect(job).toBeDefined();
    expect(fs.existsSync(canary)).toBe(false);
    const stored = fs.readdirSync(path.join(c.dataDir, 'files'));
    expect(stored.every((n) => /^[0-9a-f-]{36}$/.test(n))).toBe(true);
    expect(stored).toHaveLength(names.length);
    // No file named after any of them appeared where a traversal could have put it (other suites and programs share
    // /tmp, so this looks for those names among the entries that were not there before the upload).
    const basenames = names.map((n) => n.split(/[\\/]/).pop()!).filter((b) => b.length > 3 && b.length < 255);
    for (const dir of watched) {
      const appeared = new Set(fs.readdirSync(dir).filter((e) => !before.get(dir)!.has(e)));
      for (const b of basenames) if (appeared.has(b)) failures.push(`a file named ${b} appeared in ${dir}`);
    }
    for (const r of job!.results) {
      expect(r.file.name.length).toBeLessThanOrEqual(1024);
      const res = await c.app.inject({ method: 'GET', url: `/v1/jobs/${job!.jobId}/files/${r.file.id}/content`, headers: { authorization: `Bearer ${c.imagesKey}` } });
      expect(res.statusCode).toBe(200);
      const cd = String(res.headers['content-disposition']);
      expect(cd).toMatch(/^attachment; filename="[\x20-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9%!'()*._~-]*$/);
    }
    // Names survive as display text (directory parts included), capped at 1024 characters.
    const shown = job!.results.map((r) => r.file.name);
    expect(shown).toContain('/etc/passwd');
    expect(shown).toContain('emoji-😀-ファイル.jpg');
    expect(shown.find((n) => n.startsWith('aaaa'))).toHaveLength(1024);
    expect(failures).toEqual([]);
  });

  it('never executes script in a PDF (CVE-2024-4367 FontMatrix shape, /OpenAction JavaScript)', { timeout: 120_000 }, async () => {
    const pdfjs = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/pdfjs-dist/package.json'), 'utf8')) as { version: string };
    const [maj, min] = pdfjs.version.split('.').map(Number);
    expect(maj > 4 || (maj === 4 && min >= 2)).toBe(true); // fixed in 4.2.67
    const c = await core();
    const canary = path.join(os.tmpdir(), `veracity-pdfjs-canary-${process.pid}`);
    fs.rmSync(canary, { force: true });
    await submit(c, 'pdf with javascript', [file(pdfWithJavaScript(canary), 'js.pdf', 'application/pdf')], { kind: 'pdfs', allowed: ['refused', 'completed', 'result_error'] });
    expect(fs.existsSync(canary)).toBe(false);
    expect(failures).toEqual([]);
  });

  describe.skipIf(!HAS_DATASETS)('real-world PDF corpus (../shared/datasets/pdfs)', () => {
    it('answers every PDF of the corpus with its documented status or a result error', { timeout: 240_000 }, async () => {
      const dir = path.join(DATASETS, 'pdfs');
      const pdfs = fs.readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.pdf')).sort();
      const c = await core();
      for (const name of pdfs) {
        const data = fs.readFileSync(path.join(dir, name));
        await submit(c, `corpus ${name}`, [file(data, name, 'application/pdf')], { kind: 'pdfs' });
      }
      tally.corpusPdfs = pdfs.length;
      expect(pdfs.length).toBeGreaterThan(30);
      expect(failures).toEqual([]);
    });
  });
  if (!HAS_DATASETS) console.log('[reliability] ../shared/datasets/pdfs is absent: the real-world PDF corpus case is skipped');
});
