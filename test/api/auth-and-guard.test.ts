// Authentication (JWT keys: missing, malformed, forged, alg none, expired, revoked, other application),
// loopback Host/Origin refusal, per-key rate limiting with its headers (absolute-form targets and refused
// credentials included), refusals of the static file server, and keys at rest: digests only (migrated from the
// plain text of schema 1), in a data dir whose files are its user's only.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { JobList, JobResult } from '../../src/api/schemas.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { AUTH_FAILURES_MAX } from '../../src/server/app.js';
import { assess, body, expectError, expectNothingLeft, filePart, footprint, get, onPg, rawHttp, startCore, startListening, tempDir } from './helpers.js';

/** How many times each status was answered. */
const count = (statuses: number[]) => statuses.reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {});

describe('authentication', () => {
  it('refuses a missing, malformed, wrong-scheme or forged key with 401 unauthorized and no hint', async () => {
    const core = await startCore();
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    const [h, p] = core.imagesKey.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: core.pdfsAppId })).toString('base64url');
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      empty: 'Bearer ',
      scheme: `Basic ${core.imagesKey}`,
      noSpace: `Bearer${core.imagesKey}`,
      garbage: 'Bearer not-a-jwt',
      truncatedSignature: `Bearer ${core.imagesKey.slice(0, -5)}`,
      swappedPayload: `Bearer ${h}.${forgedPayload}.${core.imagesKey.split('.')[2]}`,
      otherSecret: `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(core.imagesAppId).setJti('x').setIssuedAt().setIssuer('veracity').setAudience('veracity-api').sign(new Uint8Array(64))}`,
      algNone: `Bearer ${new UnsecuredJWT({}).setSubject(core.imagesAppId).setIssuer('veracity').setAudience('veracity-api').setIssuedAt().setJti(JSON.parse(Buffer.from(p, 'base64url').toString()).jti).encode()}`,
      huge: `Bearer ${'a'.repeat(8000)}`,
    };
    const messages = new Set<string>();
    for (const [label, authorization] of Object.entries(cases)) {
      const res = await core.app.inject({ method: 'GET', url: list, headers: authorization === undefined ? {} : { authorization } });
      const err = expectError(res, 401, 'unauthorized');
      messages.add(err.message);
      expect(label).toBeTruthy();
    }
    expect(messages.size).toBe(1); // the same message whatever check failed
    expect((await get(core, list)).statusCode).toBe(200);
  });

  it('accepts the Bearer scheme in any case and after more than one space (RFC 9110 11.1)', async () => {
    const core = await startCore();
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    for (const scheme of ['bearer', 'BEARER', 'bEaReR', 'Bearer ']) {
      const res = await core.app.inject({ method: 'GET', url: list, headers: { authorization: `${scheme} ${core.imagesKey}` } });
      expect({ scheme, status: res.statusCode }).toEqual({ scheme, status: 200 });
    }
  });

  it('cannot be skipped by spelling a path differently', async () => {
    const core = await startCore();
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64))], { wait: 'false' }), JobResult);
    for (const url of [`/v1/jobs/${job.jobId}`, `/v1//jobs/${job.jobId}`, `/V1/jobs/${job.jobId}`, `/v1/jobs/${job.jobId}/`, `/v1/openapi.json/../jobs/${job.jobId}`, `/v1/jobs/${job.jobId}?x=/v1/openapi.json`, `/v1/jobs/${job.jobId}#`]) {
      const res = await core.app.inject({ method: 'GET', url });
      expect([401, 404]).toContain(res.statusCode);
      expect(res.body).not.toContain(job.results[0].file.id);
    }
  });

  it('refuses an expired key and a revoked key', async () => {
    const core = await startCore();
    const expired = await core.keys.issueKey(core.imagesAppId, 'short', 1);
    expect((await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`, expired.token)).statusCode).toBe(200);
    const later = await startCore({}, { dataDir: core.dataDir });
    // Same data dir, a clock two days ahead: the key has expired.
    const { createKeyService } = await import('../../src/auth/api-keys.js');
    const future = createKeyService({ secret: later.keySecret, store: later.keyStore, now: () => new Date(Date.now() + 2 * 86_400_000) });
    expect(await future.verify(expired.token)).toBeNull();
    expect(await future.verify(later.imagesKey)).not.toBeNull();

    const revoked = await core.keys.issueKey(core.imagesAppId, 'to revoke');
    expect((await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`, revoked.token)).statusCode).toBe(200);
    await core.keyStore.revokeKey(revoked.id, new Date().toISOString());
    expectError(await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`, revoked.token), 401, 'unauthorized');
  });

  it("hides another application's job (404) and forbids listing another application's jobs (403)", async () => {
    const core = await startCore();
    const res = await assess(core, [filePart(await makeJpeg(64, 64))], { wait: 'false' });
    const job = body(res, JobResult);
    expectError(await get(core, `/v1/jobs/${job.jobId}`, core.pdfsKey), 404, 'not_found');
    expectError(await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`, core.pdfsKey), 403, 'forbidden');
    expect(body(await get(core, `/v1/jobs?applicationId=${core.pdfsAppId}`, core.pdfsKey), JobList).jobs).toHaveLength(0);
  });

  it('refuses an unauthenticated upload before reading its body: nothing stored', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64))], { key: 'nope' });
    expectError(res, 401, 'unauthorized');
    await expectNothingLeft(core, before);
  });
});

describe('loopback guard (DNS rebinding, cross-origin)', () => {
  it.each(['attacker.example', 'attacker.example:80', '127.0.0.1.nip.io:80', 'localhost.attacker.com', '192.168.1.5:80', 'localhost:81', '[::2]:80'])(
    'refuses Host %j with 403 forbidden before auth',
    async (host) => {
      const core = await startCore();
      const res = await core.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${core.imagesAppId}`, headers: { host, authorization: `Bearer ${core.imagesKey}` } });
      expectError(res, 403, 'forbidden');
    },
  );

  it.each(['https://evil.example', 'null', 'http://localhost:5173', 'file://', 'chrome-extension://abc'])('refuses Origin %s with 403', async (origin) => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64))], { headers: { origin } });
    expectError(res, 403, 'forbidden');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    await expectNothingLeft(core, before);
  });

  it('accepts its own origin and requests without Origin, over real HTTP on 127.0.0.1', async () => {
    const core = await startCore();
    const base = await startListening(core);
    const port = new URL(base).port;
    const ok = await fetch(`${base}/v1/jobs?applicationId=${core.imagesAppId}`, { headers: { authorization: `Bearer ${core.imagesKey}`, origin: `http://127.0.0.1:${port}` } });
    expect(ok.status).toBe(200);
    const viaLocalhost = await fetch(`http://localhost:${port}/v1/jobs?applicationId=${core.imagesAppId}`, { headers: { authorization: `Bearer ${core.imagesKey}` } }).catch(() => null);
    if (viaLocalhost) expect(viaLocalhost.status).toBe(200); // localhost may resolve to ::1 where we do not listen
    const rebound = await fetch(`${base}/v1/jobs?applicationId=${core.imagesAppId}`, { headers: { authorization: `Bearer ${core.imagesKey}`, origin: 'http://127.0.0.1:1' } });
    expect(rebound.status).toBe(403);
    // Raw sockets: HTTP/1.0 and HTTP/1.1 without Host, and an absolute-form target naming a foreign host.
    const net = await import('node:net');
    const raw = (req: string) =>
      new Promise<string>((resolve) => {
        const s = net.connect(Number(port), '127.0.0.1', () => s.write(req));
        let d = '';
        s.on('data', (c) => (d += c));
        s.on('close', () => resolve(d));
      });
    expect(await raw('GET /v1/jobs HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 403[\s\S]*"code":"forbidden"/);
    // HTTP/1.1 without Host: the same 403 in the API's error shape (Node's parser would answer an empty 400 itself).
    expect(await raw('GET /v1/jobs HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 403[\s\S]*"code":"forbidden"/);
    expect(await raw(`GET http://evil.example/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    const addr = core.app.server.address();
    expect(typeof addr === 'object' && addr?.address).toBe('127.0.0.1');
  });

  it('refuses a second Host, Origin or Authorization line with 400 (RFC 9112 3.2), on the desktop and in network mode (real HTTP)', async () => {
    for (const allowedHosts of [[], ['team.example']]) {
      const core = await startCore({ allowedHosts });
      const base = await startListening(core);
      // The authority a client names: the loopback address on the desktop, the allowed name in network mode.
      const host = allowedHosts[0] ?? new URL(base).host;
      const auth = `Authorization: Bearer ${core.imagesKey}`;
      const send = (lines: string[]) => rawHttp(base, `GET /v1/jobs?applicationId=${core.imagesAppId} HTTP/1.1\r\n${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`);
      // Controls: one line of each is answered.
      expect((await send([`Host: ${host}`, `Origin: http://${host}`, auth])).status).toBe(200);
      const twice: [string, string[]][] = [
        ['Host', [`Host: ${host}`, 'Host: evil.example', auth]],
        ['Host', ['Host: evil.example', `Host: ${host}`, auth]],
        ['Host', [`Host: ${host}`, `host: ${host}`, auth]],
        ['Origin', [`Host: ${host}`, `Origin: http://${host}`, 'Origin: https://evil.example', auth]],
        ['Origin', [`Host: ${host}`, `Origin: http://${host}`, `ORIGIN: http://${host}`, auth]],
        ['Authorization', [`Host: ${host}`, auth, 'Authorization: Bearer not-a-key']],
        ['Authorization', [`Host: ${host}`, 'Authorization: Bearer not-a-key', auth]],
        ['Authorization', [`Host: ${host}`, auth, auth]],
      ];
      for (const [name, lines] of twice) {
        const res = await send(lines);
        expect({ allowedHosts, lines, status: res.status }).toEqual({ allowedHosts, lines, status: 400 });
        expectError({ statusCode: res.status, body: res.body }, 400, 'invalid_request', name);
      }
      // The window's routes too: a second Authorization line is refused before the UI token is compared.
      const app = await rawHttp(base, `GET /app/server HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${core.uiToken}\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n`);
      expectError({ statusCode: app.status, body: app.body }, 400, 'invalid_request', 'Authorization');
    }
  });
});

describe('rate limiting', () => {
  it('counts a request once whatever its files, per key, and answers 429 with the rate-limit headers', async () => {
    const core = await startCore({ rateLimitMax: 3, rateLimitWindowMs: 60_000 });
    const jpeg = await makeJpeg(64, 64);
    const first = await assess(core, Array.from({ length: 5 }, () => filePart(jpeg)), { wait: 'false' });
    expect(first.statusCode).toBe(202);
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`);
    await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`);
    const before = await footprint(core);
    const limited = await assess(core, [filePart(jpeg)]);
    const err = expectError(limited, 429, 'rate_limited');
    expect(err.retryAfter).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBe(String(err.retryAfter));
    await expectNothingLeft(core, before);
    // Another key (another local tool) is not throttled by the first one.
    expect((await get(core, `/v1/jobs?applicationId=${core.pdfsAppId}`, core.pdfsKey)).statusCode).toBe(200);
  });

  it('counts an absolute-form request line like any other request, with its headers (real HTTP)', async () => {
    const core = await startCore({ rateLimitMax: 3, rateLimitWindowMs: 60_000 });
    const base = await startListening(core);
    const { host } = new URL(base);
    const absolute = (target: string) => rawHttp(base, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${core.imagesKey}\r\nConnection: close\r\n\r\n`);
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    const answers = [await absolute(`http://${host}${list}`), await absolute(`HTTP://${host}${list}`), await absolute(list)];
    expect(answers.map((a) => [a.status, a.headers['ratelimit-limit'], a.headers['ratelimit-remaining']])).toEqual([
      [200, '3', '2'],
      [200, '3', '1'],
      [200, '3', '0'],
    ]);
    const limited = await absolute(`http://${host}${list}`);
    const err = expectError({ statusCode: limited.status, body: limited.body }, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toBe(String(err.retryAfter));
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    // The authority of an absolute-form target is checked like Host, spelled any way.
    for (const target of [`http://evil.example${list}`, `http://${host}@evil.example${list}`, `ftp://${host}${list}`, `http://${list}`, 'http://']) {
      expect({ target, status: (await absolute(target)).status }).toEqual({ target, status: 403 });
    }
  });

  it('rate-limits refused credentials per client, in a bucket of their own that cannot lock out a key in use', async () => {
    const core = await startCore();
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    expect((await get(core, list)).statusCode).toBe(200); // a key in use before the bad one arrives
    const tampered = `${core.imagesKey.slice(0, -2)}${core.imagesKey.endsWith('AA') ? 'BB' : 'AA'}`;
    for (let i = 1; i <= AUTH_FAILURES_MAX; i++) {
      const res = await get(core, list, tampered);
      expectError(res, 401, 'unauthorized');
      expect(res.headers['ratelimit-remaining']).toBe(String(AUTH_FAILURES_MAX - i));
    }
    const limited = await get(core, list, tampered);
    const err = expectError(limited, 429, 'rate_limited');
    expect(err.retryAfter).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBe(String(err.retryAfter));
    expect(limited.headers['ratelimit-limit']).toBe(String(AUTH_FAILURES_MAX));
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
    // An upload with that credential is refused before its body is read: nothing stored.
    const before = await footprint(core);
    expectError(await assess(core, [filePart(await makeJpeg(64, 64))], { key: tampered }), 429, 'rate_limited');
    await expectNothingLeft(core, before);
    // The key in use was never spent: its own budget is whole but for its first request.
    const real = await get(core, list);
    expect([real.statusCode, real.headers['ratelimit-remaining']]).toEqual([200, String(core.config.rateLimitMax - 2)]);
    // The bucket is the client's, not the credential's: another bad credential, or none, from it is refused at once.
    expectError(await get(core, list, 'not-a-jwt'), 429, 'rate_limited');
    expectError(await core.app.inject({ method: 'GET', url: list }), 429, 'rate_limited');
  });

  it('answers 200 different bad keys, and 100 different wrong UI tokens, 429 past the limit of their client, verifying none of them past it (real HTTP)', async () => {
    const core = await startCore();
    const base = await startListening(core);
    const { port } = new URL(base);
    /** GET from a given local address (each 127.0.0.0/8 address is a client of its own), answering the status. */
    const from = (address: string, target: string, token?: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
        http.get({ host: '127.0.0.1', port, path: target, localAddress: address, headers, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        }).on('error', reject);
      });
    /** The same, answering the status and the RateLimit-Remaining header. */
    const fetchFrom = (address: string, target: string, token: string) =>
      new Promise<{ status: number; remaining: string | undefined }>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: target, localAddress: address, headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, remaining: res.headers['ratelimit-remaining'] as string | undefined }));
        }).on('error', reject);
      });
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    expect(await from('127.0.0.2', list, core.imagesKey)).toBe(200); // a key in use
    expect(await from('127.0.0.2', '/app/server', core.uiToken!)).toBe(200); // the window at work
    const verify = vi.spyOn(core.keys, 'verify');
    const otherSecret = crypto.randomBytes(32);
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      // Keys of the right shape signed with another secret, and strings that are not keys at all.
      const guess = i % 2 ? `guess-${crypto.randomBytes(12).toString('base64url')}` : await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(core.imagesAppId).setJti(crypto.randomUUID()).setIssuedAt().setIssuer('veracity').setAudience('veracity-api').sign(otherSecret);
      statuses.push(await from('127.0.0.2', list, guess));
    }
    expect(count(statuses)).toEqual({ 401: AUTH_FAILURES_MAX, 429: 200 - AUTH_FAILURES_MAX });
    // Verification work is bounded by the limit: a spent client's guesses are answered without being verified.
    const guessesVerified = verify.mock.calls.filter(([token]) => token !== core.imagesKey).length;
    expect(guessesVerified).toBe(AUTH_FAILURES_MAX);
    // The key and the UI token in use from that client keep working; another client is not affected.
    expect(await from('127.0.0.2', list, core.imagesKey)).toBe(200);
    expect(await from('127.0.0.2', '/app/server', core.uiToken!)).toBe(200);
    expect(await from('127.0.0.3', list, 'another-guess')).toBe(401);
    // The window's routes: wrong UI tokens count against their client the same way.
    const app: number[] = [];
    for (let i = 0; i < 100; i++) app.push(await from('127.0.0.4', '/app/server', crypto.randomBytes(32).toString('base64url')));
    expect(count(app)).toEqual({ 401: AUTH_FAILURES_MAX, 429: 100 - AUTH_FAILURES_MAX });
    expect(await from('127.0.0.4', '/app/server', core.uiToken!)).toBe(200);
    // A key issued here that this core has never verified (a new tool, or any key after a restart) is not locked
    // out by what others sent from its address (DECISIONS 29: rate limits are counted per API key): it carries this
    // installation's signature, so it is verified and counted in a bucket of its own. A revoked one still is not let in.
    const fresh = await core.keys.issueKey(core.imagesAppId, 'new tool');
    const freshRes = await fetchFrom('127.0.0.2', list, fresh.token);
    expect([freshRes.status, freshRes.remaining]).toEqual([200, String(core.config.rateLimitMax - 1)]);
    const revoked = await core.keys.issueKey(core.imagesAppId, 'revoked tool');
    await core.keys.revokeKey(revoked.id);
    expect(await from('127.0.0.2', list, revoked.token)).toBe(429);
  });

  it('never lets refused credentials through when the per-key ceiling is lower', async () => {
    const core = await startCore({ rateLimitMax: 2, rateLimitWindowMs: 60_000 });
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    expect([(await get(core, list, 'x')).statusCode, (await get(core, list, 'x')).statusCode, (await get(core, list, 'x')).statusCode]).toEqual([401, 401, 429]);
  });
});

describe('the built renderer (static files)', () => {
  it('answers traversal, dotfile and doubled-slash paths with an ApiError 403/404, never a 500 (real HTTP)', async () => {
    const rendererDir = tempDir('veracity-renderer-');
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Veracity</title>');
    fs.writeFileSync(path.join(rendererDir, '.env'), 'SECRET=1');
    const core = await startCore({ rendererDir });
    const base = await startListening(core);
    const { host } = new URL(base);
    const fetchRaw = (target: string) => rawHttp(base, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect((await fetchRaw('/')).status).toBe(200);
    for (const target of ['/../x', '/..%2fx', '/%2e%2e/%2e%2e/etc/passwd', '/.env', '//v1/jobs', '/nope.js']) {
      const res = await fetchRaw(target);
      expect({ target, status: res.status, secret: res.body.includes('SECRET') }).toEqual({ target, status: expect.toBeOneOf([403, 404]), secret: false });
      expectError({ statusCode: res.status, body: res.body }, res.status, res.status === 403 ? 'forbidden' : 'not_found');
    }
  });
});

/** Every regular file and folder under `dir`, with its permission bits. */
function modesUnder(dir: string): { path: string; dir: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; mode: number }[] = [{ path: '.', dir: true, mode: fs.statSync(dir).mode & 0o777 }];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out.push({ path: path.relative(dir, full), dir: entry.isDirectory(), mode: fs.statSync(full).mode & 0o777 });
  }
  return out;
}

/** The bytes of the database and its WAL as they are on disk now. */
function dbBytes(dataDir: string): Buffer {
  return Buffer.concat(['veracity.db', 'veracity.db-wal'].map((f) => path.join(dataDir, f)).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
}

/** The secret part of a key: its signature (header and payload can be rebuilt from the key's id and dates). */
const signatureOf = (key: string) => key.split('.')[2];

// The SQLite file and the data dir's modes are the desktop's: a team server keeps keys in PostgreSQL.
describe.skipIf(onPg)('keys at rest', () => {
  it('keeps no usable key in the database file: only a digest of each key', async () => {
    const core = await startCore();
    const ui = { authorization: `Bearer ${core.uiToken}` };
    const made = await core.app.inject({ method: 'POST', url: `/app/applications/${core.imagesAppId}/keys`, headers: ui, payload: { name: 'tool' } });
    const viaApp = (JSON.parse(made.body) as { apiKey: string }).apiKey;
    const keys = [core.imagesKey, core.pdfsKey, viaApp];
    for (const key of keys) expect((await get(core, `/v1/jobs?applicationId=${JSON.parse(Buffer.from(key.split('.')[1], 'base64url').toString()).sub}`, key)).statusCode).toBe(200);
    for (const key of keys) expect(dbBytes(core.dataDir).includes(signatureOf(key))).toBe(false); // running: the WAL holds the new rows
    await core.close();
    for (const key of keys) expect(dbBytes(core.dataDir).includes(signatureOf(key))).toBe(false);
  });

  it('migrates keys stored in plain text by the previous version: they still authenticate over HTTP, and no copy of them is left in the file', async () => {
    const previousUmask = process.umask(0o022); // as the previous version ran: files 0644
    const dataDir = path.join(tempDir(), 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const staging = tempDir('veracity-v1-');
    const { migrate } = await import('../../src/db/connection.js');
    const { MIGRATIONS } = await import('../../src/db/migrations/index.js');
    const { loadOrCreateSecret } = await import('../../src/auth/api-keys.js');
    const secret = loadOrCreateSecret(dataDir);
    fs.chmodSync(path.join(dataDir, 'secret.key'), 0o644); // restored from a copy with a looser mode
    const appIds = { images: crypto.randomUUID(), pdfs: crypto.randomUUID() };
    const sign = (jti: string, sub: string, iat: number, exp?: number) => {
      let jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer('veracity').setAudience('veracity-api').setSubject(sub).setJti(jti).setIssuedAt(iat);
      if (exp !== undefined) jwt = jwt.setExpirationTime(exp);
      return jwt.sign(secret);
    };
    // The previous version's database, schema version 1, written the way it wrote it (WAL, plain-text token column),
    // copied while open (as if the process was killed): keys both in the main file and in WAL frames.
    const old = new Database(path.join(staging, 'veracity.db'));
    old.pragma('journal_mode = WAL');
    migrate(old, MIGRATIONS.filter((m) => m.id === 1));
    const nowS = Math.floor(Date.now() / 1000);
    const insertApp = old.prepare('INSERT INTO applications (id, name, kind, created_at) VALUES (?, ?, ?, ?)');
    insertApp.run(appIds.images, 'Images', 'images', new Date().toISOString());
    insertApp.run(appIds.pdfs, 'PDFs', 'pdfs', new Date().toISOString());
    const insertKey = old.prepare('INSERT INTO api_keys (id, application_id, name, token, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)');
    const keys: { id: string; app: string; token: string; state: 'active' | 'revoked' | 'expired' }[] = [];
    for (let i = 0; i < 60; i++) {
      const id = crypto.randomUUID();
      const app = i % 2 ? appIds.pdfs : appIds.images;
      const state = i % 10 === 3 ? 'revoked' : i % 10 === 7 ? 'expired' : 'active';
      const exp = state === 'expired' ? nowS - 3600 : undefined;
      const token = await sign(id, app, nowS - 86_400, exp);
      insertKey.run(id, app, `key ${i}`, token, new Date((nowS - 86_400) * 1000).toISOString(), exp ? new Date(exp * 1000).toISOString() : null);
      keys.push({ id, app, token, state });
      if (i === 29) old.pragma('wal_checkpoint(PASSIVE)'); // the first half reaches the main file too
    }
    for (const k of keys) if (k.state === 'revoked') old.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), k.id);
    fs.copyFileSync(path.join(staging, 'veracity.db'), path.join(dataDir, 'veracity.db'));
    fs.copyFileSync(path.join(staging, 'veracity.db-wal'), path.join(dataDir, 'veracity.db-wal'));
    old.close();
    const before = dbBytes(dataDir);
    expect(keys.every((k) => before.includes(signatureOf(k.token)))).toBe(true); // the fixture really holds them
    expect(fs.statSync(path.join(dataDir, 'veracity.db')).mode & 0o777).toBe(0o644);

    try {
      const core = await startCore({}, { dataDir });
      // Every migration applied (2 converted the keys; later ones, cases since issue #13, follow it).
      expect(core.desktop!.db.prepare('SELECT max(id) AS v FROM schema_migrations').get()).toEqual({ v: Math.max(...MIGRATIONS.map((m) => m.id)) });
      const afterStart = dbBytes(dataDir);
      for (const k of keys) expect(afterStart.includes(signatureOf(k.token)), `key ${k.id} left in the file`).toBe(false);
      for (const f of ['veracity.db', 'veracity.db-wal', 'secret.key']) expect(fs.statSync(path.join(dataDir, f)).mode & 0o777).toBe(0o600);

      const base = await startListening(core);
      for (const k of keys) {
        const res = await fetch(`${base}/v1/jobs?applicationId=${k.app}&pageSize=1`, { headers: { authorization: `Bearer ${k.token}` } });
        expect({ key: k.id, state: k.state, status: res.status }).toEqual({ key: k.id, state: k.state, status: k.state === 'active' ? 200 : 401 });
      }
      // Listed by identity: the migrated hint is the key's last four characters.
      expect(core.desktop!.apps.listKeys(appIds.images).filter((r) => r.name !== 'test key').map((r) => r.hint).sort()).toEqual(keys.filter((k) => k.app === appIds.images).map((k) => k.token.slice(-4)).sort());
      await core.close();
      const atRest = dbBytes(dataDir);
      for (const k of keys) expect(atRest.includes(signatureOf(k.token))).toBe(false);
      for (const f of ['veracity.db', 'veracity.db-wal', 'veracity.db-shm']) {
        if (fs.existsSync(path.join(dataDir, f))) expect(fs.statSync(path.join(dataDir, f)).mode & 0o777).toBe(0o600);
      }
    } finally {
      process.umask(previousUmask);
    }
  });

  it('creates every file of the data dir 0600 and every folder 0700 under umask 022', async () => {
    const previousUmask = process.umask(0o022);
    try {
      const dataDir = path.join(tempDir(), 'data');
      const core = await startCore({}, { dataDir });
      // A stored upload, the logs the shell writes into the data dir, and the database with its WAL and shm.
      const job = body(await assess(core, [filePart(await makeJpeg(64, 64))], { wait: 'true' }), JobResult);
      expect(job.status).not.toBe('processing');
      const { createFileLogger } = await import('../../main/logger.js');
      const { logDir } = await import('../../main/paths.js');
      createFileLogger(logDir(dataDir), 'core.log').info('a line');
      createFileLogger(logDir(dataDir)).info('another');
      const entries = modesUnder(dataDir);
      expect(entries.map((e) => e.path)).toEqual(expect.arrayContaining(['veracity.db', 'veracity.db-wal', 'veracity.db-shm', 'secret.key', 'files', 'tmp', path.join('logs', 'core.log'), path.join('logs', 'main.log')]));
      expect(entries.filter((e) => e.path.startsWith('files' + path.sep))).toHaveLength(1);
      expect(entries.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))).toEqual([]);
    } finally {
      process.umask(previousUmask);
    }
  });
});
