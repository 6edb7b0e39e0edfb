// The HTTP findings of the outside attack run (issue #10), replayed against `veracity serve` (the core in its own
// process, raw sockets, so request lines and headers go out exactly as an attacker writes them) so that they stay
// fixed: absolute-form targets and refused credentials are rate-limited, huge page numbers and over-long ids get
// their documented answers, static-file refusals are 403/404 ApiErrors logged below error, a lower-case Bearer
// scheme is accepted, and two Idempotency-Key headers are refused with nothing left behind.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES_MAX } from '../../src/server/app.js';
import { textPdf } from '../unit/analysis/fixtures.js';
import { diskState, eventually, keysOf, multipartBody, rawRequest, removeTempDirs, serve, tempDir, writeReport, type RawResponse, type Served } from './harness.js';

/** The per-key ceiling of this run: small, so a bucket is spent in a few dozen requests. */
const LIMIT = 60;
const counts: Record<string, number> = { attackRequests: 0 };
const notes: string[] = [];
let srv: Served;
let dataDir: string;
let keys: ReturnType<typeof keysOf>;

beforeAll(async () => {
  dataDir = tempDir();
  const rendererDir = tempDir('veracity-renderer-');
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Veracity</title>');
  fs.writeFileSync(path.join(rendererDir, '.env'), 'SECRET=attack-run');
  srv = await serve({
    dataDir,
    modelsDir: tempDir('veracity-nomodel-'),
    env: { REL_CONFIG: JSON.stringify({ rendererDir, rateLimitMax: LIMIT, rateLimitWindowMs: 600_000 }) },
  });
  keys = keysOf(dataDir);
});

afterAll(async () => {
  await srv?.stop();
  writeReport({ suite: 'attack-run-http', counts, lost: 0, notes });
  removeTempDirs();
});

/** One request over a fresh raw socket; `headers` may repeat a name in another case (two header lines). */
async function send(target: string, headers: Record<string, string> = {}, opts: { method?: string; body?: Buffer } = {}): Promise<RawResponse> {
  counts.attackRequests++;
  return rawRequest({ port: srv.port, method: opts.method ?? 'GET', path: target, headers: { Connection: 'close', ...headers }, body: opts.body, timeoutMs: 15_000 });
}

const header = (res: RawResponse, name: string): string | undefined => new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(res.headers)?.[1];

/** The ApiError of a refusal: its status, code and first issue path. */
function refusal(res: RawResponse): { status: number | null; code?: string; path?: string; retryAfter?: number } {
  const b = JSON.parse(res.body) as { code?: string; details?: { issues?: { path?: string }[] }; retryAfter?: number };
  return { status: res.status, code: b.code, path: b.details?.issues?.[0]?.path, retryAfter: b.retryAfter };
}

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

describe('attack run over HTTP (issue #10)', () => {
  it('counts absolute-form request lines against the key: RateLimit headers on each, 429 past the ceiling', async () => {
    const list = `/v1/jobs?applicationId=${keys.imagesAppId}`;
    const absolute = `http://127.0.0.1:${srv.port}${list}`;
    const remaining: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await send(absolute, auth(keys.images));
      expect(res.status).toBe(200);
      remaining.push(header(res, 'ratelimit-remaining') ?? 'absent');
    }
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)));
    for (const target of [absolute, list]) {
      const res = await send(target, auth(keys.images));
      const err = refusal(res);
      expect(err).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(header(res, 'retry-after')).toBe(String(err.retryAfter));
      expect([header(res, 'ratelimit-limit'), header(res, 'ratelimit-remaining')]).toEqual([String(LIMIT), '0']);
      expect(Number(header(res, 'ratelimit-reset'))).toBeGreaterThan(0);
    }
    // An absolute-form target naming another authority is refused like a foreign Host.
    expect((await send(`http://evil.example${list}`, auth(keys.pdfs))).status).toBe(403);
  });

  it('answers 200 requests in a row with a bad key 401 up to its client\'s ceiling, then 429, and the key in use keeps its budget', async () => {
    const list = `/v1/jobs?applicationId=${keys.pdfsAppId}`;
    expect((await send(list, auth(keys.pdfs))).status).toBe(200); // the real key, in use before the bad one arrives
    const tampered = `${keys.pdfs.slice(0, -2)}${keys.pdfs.endsWith('AA') ? 'BB' : 'AA'}`;
    const statuses: Record<number, number> = {};
    for (let i = 0; i < 200; i++) {
      const res = await send(list, auth(tampered));
      statuses[res.status ?? 0] = (statuses[res.status ?? 0] ?? 0) + 1;
      expect(header(res, 'ratelimit-limit')).toBe(String(AUTH_FAILURES_MAX));
      if (res.status === 429) expect(header(res, 'retry-after')).toBe(String(refusal(res).retryAfter));
    }
    expect(statuses).toEqual({ 401: AUTH_FAILURES_MAX, 429: 200 - AUTH_FAILURES_MAX });
    counts.badKey401 = statuses[401];
    counts.badKey429 = statuses[429];
    // An upload with the spent credential is refused before its body is read: nothing stored.
    const before = diskState(dataDir);
    const { body, contentType } = multipartBody([{ name: 'file', data: textPdf(), filename: 'a.pdf' }]);
    const upload = await send('/v1/assess', { ...auth(tampered), 'Content-Type': contentType, 'Content-Length': String(body.length) }, { method: 'POST', body });
    expect(refusal(upload)).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(await eventually(() => JSON.stringify(diskState(dataDir)) === JSON.stringify({ ...before, tmp: [] }))).toBe(true);
    // The real key, whose near-copy was hammered, has its whole budget but for its first request; any other bad
    // credential from the same client is refused at once (the bucket is the client's, issue 23).
    const real = await send(list, auth(keys.pdfs));
    expect([real.status, header(real, 'ratelimit-remaining')]).toEqual([200, String(LIMIT - 2)]);
    expect(refusal(await send(list, auth('another-guess')))).toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('clamps a ten-digit pageSize to 100 and answers a huge page with an empty page, never 400', async () => {
    const list = `/v1/jobs?applicationId=${keys.pdfsAppId}`;
    for (const q of ['&pageSize=1000000000', '&page=1000000000', '&page=99999999999999999999', `&page=${'9'.repeat(300)}&pageSize=${'9'.repeat(300)}`]) {
      const res = await send(`${list}${q}`, auth(keys.pdfs));
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
      const page = JSON.parse(res.body) as { jobs: unknown[]; pagination: { page: number; pageSize: number; hasNextPage: boolean } };
      expect(page.pagination.pageSize).toBe(100);
      expect(page.pagination.hasNextPage).toBe(false);
      if (q.includes('page=')) expect(page.jobs).toEqual([]);
    }
  });

  it('answers a non-uuid id longer than 200 characters 400 invalid_request at its path, not 404', async () => {
    const long = 'x'.repeat(201);
    const uuid = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    expect(refusal(await send(`/v1/jobs/${long}`, auth(keys.pdfs)))).toMatchObject({ status: 400, code: 'invalid_request', path: 'jobId' });
    expect(refusal(await send(`/v1/jobs/${'y'.repeat(4000)}/report`, auth(keys.pdfs)))).toMatchObject({ status: 400, code: 'invalid_request', path: 'jobId' });
    expect(refusal(await send(`/v1/jobs/${uuid}/files/${long}/content`, auth(keys.pdfs)))).toMatchObject({ status: 400, code: 'invalid_request', path: 'fileId' });
  });

  it('answers static-file refusals (/../x, /.env, //v1/jobs) with a 403/404 ApiError, logged below error', async () => {
    const logged = srv.stderr().length;
    for (const target of ['/../x', '/.env', '//v1/jobs', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f.env']) {
      const res = await send(target);
      const err = refusal(res);
      expect({ target, status: err.status, secret: res.body.includes('SECRET') }).toEqual({ target, status: expect.toBeOneOf([403, 404]), secret: false });
      expect(err.code).toBe(err.status === 403 ? 'forbidden' : 'not_found');
    }
    // The core logs at warn here: an error-level line (50) would be a refusal logged as a fault.
    expect(srv.stderr().slice(logged)).not.toMatch(/"level":(50|60)/);
  });

  it('accepts the Bearer scheme in lower case (RFC 9110: case-insensitive)', async () => {
    const res = await send(`/v1/jobs?applicationId=${keys.pdfsAppId}`, { Authorization: `bearer ${keys.pdfs}` });
    expect(res.status).toBe(200);
  });

  it('refuses two Idempotency-Key headers with 400 at path Idempotency-Key, before storing anything', async () => {
    const before = diskState(dataDir);
    const { body, contentType } = multipartBody([{ name: 'file', data: textPdf(), filename: 'a.pdf' }]);
    const res = await send(
      '/v1/assess?wait=false',
      { ...auth(keys.pdfs), 'Content-Type': contentType, 'Content-Length': String(body.length), 'Idempotency-Key': 'x1', 'idempotency-key': 'x2' },
      { method: 'POST', body },
    );
    expect(refusal(res)).toMatchObject({ status: 400, code: 'invalid_request', path: 'Idempotency-Key' });
    expect(await eventually(() => JSON.stringify(diskState(dataDir)) === JSON.stringify({ ...before, tmp: [] }))).toBe(true);
    expect(diskState(dataDir).idempotency).toBe(0);
  });
});
