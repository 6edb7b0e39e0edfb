// The headless entry points: `veracity keys ...` and `veracity serve`, and the app-only /app routes the
// Settings screen uses (the UI token, never an API key: per launch on the desktop, VERACITY_UI_TOKEN on a team API
// node): keys shown once, and the window's own credential.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { ApiKeyInfo, ApplicationList, CreatedApiKey, CreatedApplication } from '../../src/api/app-schemas.js';
import { JobList } from '../../src/api/schemas.js';
import { createKeyService, loadOrCreateSecret } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config/config.js';
import { runKeysCommand, type KeysValues } from '../../src/keys-command.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { REPO, body, expectError, get, onPg, startCore, startListening, tempDir, type TestCore } from './helpers.js';

const run = promisify(execFile);
const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');
const veracity = (...args: string[]) => run(process.execPath, [BIN, ...args], { env: { ...process.env, VERACITY_DATA_DIR: '' } });

/** Every JWT-shaped string in a text: what a reader of the output could try as a key. */
const jwtsIn = (text: string) => text.match(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g) ?? [];

// The CLI's `keys --data-dir` works on a desktop data dir.
describe.skipIf(onPg)('veracity keys', () => {
  it('prints a new key once; keys list shows ids, names, dates and last four characters, never a usable key', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const made = await veracity('keys', 'create', '--kind', 'pdfs', '--name', 'Claims tool', '--data-dir', dataDir);
    const created = JSON.parse(made.stdout);
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'applicationId', 'expiresAt', 'keyId', 'kind', 'name']);
    expect(created).toMatchObject({ kind: 'pdfs', name: 'Claims tool', expiresAt: null });
    expect(made.stderr).toContain('only time this key is shown');
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    // A key for an existing application (the default Images one), expiring.
    const listed = await veracity('keys', 'list', '--data-dir', dataDir);
    const before = JSON.parse(listed.stdout) as { applicationId: string; kind: string; keys: unknown[] }[];
    expect(before.map((a) => a.kind).sort()).toEqual(['images', 'pdfs', 'pdfs']); // a fresh data dir has one of each kind
    const imagesApp = before.find((a) => a.kind === 'images')!;
    expect(imagesApp.keys).toEqual([]); // no key nobody was shown
    const second = JSON.parse((await veracity('keys', 'create', '--application', imagesApp.applicationId, '--expires-in-days', '30', '--data-dir', dataDir)).stdout);
    expect(second).toMatchObject({ applicationId: imagesApp.applicationId, kind: 'images', expiresAt: expect.any(String) });

    const list = await veracity('keys', 'list', '--data-dir', dataDir);
    expect(jwtsIn(list.stdout)).toEqual([]);
    for (const key of [created.apiKey, second.apiKey]) expect(list.stdout).not.toContain(key.split('.')[2]);
    const apps = JSON.parse(list.stdout) as { applicationId: string; keys: { keyId: string; name: string; hint: string; createdAt: string; expiresAt: string | null; revokedAt: string | null }[] }[];
    const claims = apps.find((a) => a.applicationId === created.applicationId)!;
    expect(claims.keys).toEqual([{ keyId: created.keyId, name: 'Claims tool key', createdAt: expect.any(String), expiresAt: null, revokedAt: null, hint: created.apiKey.slice(-4) }]);

    // Unknown ids are refused by name, and change nothing.
    await expect(veracity('keys', 'create', '--application', 'no-such-app', '--data-dir', dataDir)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No application with id no-such-app') });
    await expect(veracity('keys', 'revoke', 'no-such-id', '--data-dir', dataDir)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No application or key with id no-such-id') });
    expect(JSON.parse((await veracity('keys', 'list', '--data-dir', dataDir)).stdout)).toEqual(apps);

    // --expires-in-days 30: listed as expiring 30 days after it was made, and refused from then on.
    const secondListed = apps.find((a) => a.applicationId === imagesApp.applicationId)!.keys.find((k) => k.keyId === second.keyId)!;
    expect(secondListed.expiresAt).toBe(second.expiresAt);
    expect(Date.parse(second.expiresAt) - Date.parse(secondListed.createdAt)).toBe(30 * 86_400_000);

    const core = await startCore({}, { dataDir });
    expect((await get(core, `/v1/jobs?applicationId=${created.applicationId}`, created.apiKey)).statusCode).toBe(200);
    expect((await get(core, `/v1/jobs?applicationId=${imagesApp.applicationId}`, second.apiKey)).statusCode).toBe(200);
    const at = (days: number) => createKeyService({ secret: loadOrCreateSecret(dataDir), apps: core.desktop!.apps, now: () => new Date(Date.parse(secondListed.createdAt) + days * 86_400_000) });
    expect(await at(29).verify(second.apiKey)).toMatchObject({ keyId: second.keyId });
    expect(await at(31).verify(second.apiKey)).toBeNull();
    expect(await at(31).verify(created.apiKey)).toMatchObject({ keyId: created.keyId }); // no --expires-in-days: no expiry
    await core.close();
    expect(JSON.parse((await veracity('keys', 'revoke', created.applicationId, '--data-dir', dataDir)).stdout)).toEqual({ revoked: 1 });
    const again = await startCore({}, { dataDir });
    expectError(await get(again, `/v1/jobs?applicationId=${created.applicationId}`, created.apiKey), 401, 'unauthorized');
    await expect(veracity('keys', 'create', '--kind', 'videos', '--data-dir', dataDir)).rejects.toMatchObject({ code: 1 });
    await expect(veracity('keys', 'create', '--application', imagesApp.applicationId, '--expires-in-days', '0', '--data-dir', dataDir)).rejects.toMatchObject({ code: 1 });
  }, 300_000); // eleven CLI processes, each compiling the core with tsx: minutes on a loaded machine
});

// The rules of `keys create` (src/keys-command.ts, the same for the desktop and a team server), over each backend's key
// service; then once through the real CLI.
describe('keys create: --expires-in-days and --name', () => {
  it('takes a plain decimal whole number of days from 1 to 3650 only, and names by the Settings screen\'s rule', async () => {
    const core = await startCore();
    const state = async () => (await core.keys.applicationsWithKeys()).map(({ application, keys }) => ({ id: application.id, name: application.name, keys: keys.map((k) => k.id) }));
    const before = await state();
    const create = (values: KeysValues) =>
      runKeysCommand('create', { application: core.imagesAppId, ...values }, [], core.keys, (kind, name, days) => core.keys.createApplication(name ?? 'Tool', kind, days));
    for (const days of ['0x10', '1e1', ' 7', '7 ', '+7', '7.0', '0', '3651', '-1', '', 'Infinity', '0b1', '\u0661']) {
      await expect(create({ 'expires-in-days': days }), JSON.stringify(days)).rejects.toThrow('--expires-in-days must be a whole number of days from 1 to 3650.');
    }
    const refusedNames = ['', '   ', 'x'.repeat(100_000), 'x'.repeat(101), 'red \u001b[31mtext', 'erase\u001b[2J', 'two\nlines', 'tab\there', 'nul\u0000', 'del\u007f', 'csi\u009b31m'];
    for (const name of refusedNames) {
      await expect(create({ name }), JSON.stringify(name.slice(0, 20))).rejects.toThrow(/^--name must be 1 to 100 characters, without control characters\.$/);
      await expect(create({ kind: 'pdfs', application: undefined, name }), JSON.stringify(name.slice(0, 20))).rejects.toThrow(/^--name/);
    }
    expect(await state()).toEqual(before); // nothing made
    // The edges that are accepted, printed as JSON on stdout.
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
    const quiet = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (const days of ['1', '3650', '007']) expect(await create({ 'expires-in-days': days })).toBe(0);
      for (const name of ['x'.repeat(100), '  Claims tool  ', 'Café — 請求 📷']) expect(await create({ name })).toBe(0);
    } finally {
      write.mockRestore();
      quiet.mockRestore();
    }
    const made = out.map((line) => JSON.parse(line) as { keyId: string; expiresAt: string | null });
    expect(made.slice(0, 3).map((k) => Math.round((Date.parse(k.expiresAt!) - Date.now()) / 86_400_000))).toEqual([1, 3650, 7]);
    const names = (await core.keys.applicationsWithKeys()).find((a) => a.application.id === core.imagesAppId)!.keys.filter((k) => made.slice(3).some((m) => m.keyId === k.id)).map((k) => k.name);
    expect(names.sort()).toEqual(['Café — 請求 📷', 'Claims tool', 'x'.repeat(100)].sort());

    // The Settings screen's routes take the same rule (one schema): no control characters in a name.
    const ui = { authorization: `Bearer ${core.uiToken}` };
    for (const name of ['red \u001b[31mtext', 'two\nlines', 'x'.repeat(101), ' ']) {
      expectError(await core.app.inject({ method: 'POST', url: '/app/applications', headers: ui, payload: { name, kind: 'images' } }), 400, 'invalid_request', 'name');
      expectError(await core.app.inject({ method: 'POST', url: `/app/applications/${core.imagesAppId}/keys`, headers: ui, payload: { name } }), 400, 'invalid_request', 'name');
    }
  });

  it.skipIf(onPg)('refuses them through the real CLI with exit code 1 and the rule, making nothing', async () => {
    const dataDir = path.join(tempDir(), 'data');
    await expect(veracity('keys', 'create', '--kind', 'images', '--expires-in-days', '0x10', '--data-dir', dataDir)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--expires-in-days must be a whole number of days from 1 to 3650.'),
    });
    await expect(veracity('keys', 'create', '--kind', 'images', '--name', 'erase\u001b[2J', '--data-dir', dataDir)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--name must be 1 to 100 characters, without control characters.'),
    });
    const apps = JSON.parse((await veracity('keys', 'list', '--data-dir', dataDir)).stdout) as { keys: unknown[] }[];
    expect(apps.map((a) => a.keys.length)).toEqual([0, 0]); // the two default applications, no key
  }, 120_000);
});

// `veracity serve` on a desktop data dir (the team node's serve is covered in test/unit/pg).
describe.skipIf(onPg)('veracity serve', () => {
  it('prints the listening line first, answers, and shuts down cleanly on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const first = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
    });
    expect(first).toMatch(/^Veracity API listening at http:\/\/127\.0\.0\.1:\d+$/);
    const base = first.replace('Veracity API listening at ', '');
    const res = await fetch(`${base}/v1/jobs`);
    expect(res.status).toBe(401);
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
  });

  it('takes no UI token on the command line (ps shows it to every local user): it points at VERACITY_UI_TOKEN', async () => {
    const token = 'a'.repeat(16);
    for (const args of [['--ui-token', token], [`--ui-token=${token}`], ['--ui-token', 'A'.repeat(40)], ['--database-url', 'postgres://veracity@127.0.0.1:1/none', '--ui-token', 'A'.repeat(40)]]) {
      // Bounded: a serve that took the token would run until stopped.
      const serve = run(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', tempDir(), ...args], { env: { ...process.env, VERACITY_DATA_DIR: '' }, timeout: 20_000, killSignal: 'SIGKILL' });
      await expect(serve, args.join(' ')).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('VERACITY_UI_TOKEN'),
      });
    }
    // A token given to the core in its configuration (tests, an embedding program) has the team server's shape.
    expect(() => loadConfig({ dataDir: tempDir(), uiToken: token }, {})).toThrow(/uiToken/);
    expect(() => loadConfig({ dataDir: tempDir(), uiToken: `${'a'.repeat(31)}!` }, {})).toThrow(/uiToken/);
    expect(loadConfig({ dataDir: tempDir(), uiToken: 'A-z_9'.repeat(7) }, {}).uiToken).toBe('A-z_9'.repeat(7));
  }, 120_000);

  it('refuses to listen on a non-loopback address', async () => {
    await expect(veracity('serve', '--host', '0.0.0.0', '--data-dir', tempDir())).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('loopback') });
  });
});

// The window's /app routes need the UI token (on a team API node, its VERACITY_UI_TOKEN).
describe('/app routes (UI token)', () => {
  it('lists applications with their keys by identity only, sends a new key once, and revokes keys', async () => {
    const core = await startCore();
    const ui = { authorization: `Bearer ${core.uiToken}` };
    expectError(await core.app.inject({ method: 'GET', url: '/app/applications' }), 401, 'unauthorized');
    expectError(await core.app.inject({ method: 'GET', url: '/app/applications', headers: { authorization: `Bearer ${core.imagesKey}` } }), 401, 'unauthorized');
    const listing = await core.app.inject({ method: 'GET', url: '/app/applications', headers: ui });
    const list = body(listing, ApplicationList);
    expect(list.applications.map((a) => a.kind).sort()).toEqual(['images', 'pdfs']);
    expect(listing.body).not.toContain(core.imagesKey.split('.')[2]);
    expect(list.applications.find((a) => a.id === core.imagesAppId)!.keys.map((k) => k.hint)).toEqual([core.imagesKey.slice(-4)]);

    const badCreate = await core.app.inject({ method: 'POST', url: '/app/applications', headers: ui, payload: { name: '', kind: 'images' } });
    expectError(badCreate, 400, 'invalid_request', 'name');
    const created = await core.app.inject({ method: 'POST', url: '/app/applications', headers: ui, payload: { name: 'Batch tool', kind: 'images' } });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const app = body(created, CreatedApplication);
    expect(app.keys).toHaveLength(1);
    expect(body(await get(core, `/v1/jobs?applicationId=${app.id}`, app.createdKey.apiKey), JobList).jobs).toEqual([]);

    const keyRes = await core.app.inject({ method: 'POST', url: `/app/applications/${app.id}/keys`, headers: ui, payload: { name: 'second', expiresInDays: 30 } });
    const key = body(keyRes, CreatedApiKey);
    expect(key.expiresAt).not.toBeNull();
    expect(key.hint).toBe(key.apiKey.slice(-4));
    expect(body(await get(core, `/v1/jobs?applicationId=${app.id}`, key.apiKey), JobList).jobs).toEqual([]);
    // Listed afterwards: both keys by identity, neither usable.
    const after = await core.app.inject({ method: 'GET', url: '/app/applications', headers: ui });
    expect(body(after, ApplicationList).applications.find((a) => a.id === app.id)!.keys.map((k) => k.name)).toEqual(['Batch tool key', 'second']);
    for (const k of [app.createdKey.apiKey, key.apiKey]) expect(after.body).not.toContain(k.split('.')[2]);

    const revoked = body(await core.app.inject({ method: 'POST', url: `/app/keys/${key.id}/revoke`, headers: ui }), ApiKeyInfo);
    expect(revoked.revokedAt).not.toBeNull();
    expectError(await get(core, `/v1/jobs?applicationId=${app.id}`, key.apiKey), 401, 'unauthorized');
  });
});

/** Never stored: no row of any table of the team server's database holds `secret` (its rows as text, LIKE). */
async function pgRowsHolding(core: TestCore, secret: string): Promise<string[]> {
  const { rows: tables } = await core.pgPool!.query<{ schema: string; name: string }>(
    "SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')",
  );
  expect(tables.map((t) => t.name)).toContain('api_keys');
  const found: string[] = [];
  for (const { schema, name } of tables) {
    const q = `SELECT count(*) AS n FROM "${schema}"."${name}" t WHERE strpos(t::text, $1) > 0`;
    if (Number((await core.pgPool!.query<{ n: string }>(q, [secret])).rows[0].n) > 0) found.push(`${schema}.${name}`);
  }
  return found;
}

// Window credentials come from the UI token: the desktop's per-launch token, or a team API node's VERACITY_UI_TOKEN.
describe("the window's credential", () => {
  it('authorises the window for each application while its UI token holds, is no API key, and is never stored', async () => {
    const core = await startCore();
    const base = await startListening(core);
    const list = async (c: TestCore) => body(await c.app.inject({ method: 'GET', url: '/app/applications', headers: { authorization: `Bearer ${c.uiToken}` } }), ApplicationList).applications;
    const listed = await fetch(`${base}/app/applications`, { headers: { authorization: `Bearer ${core.uiToken}` } });
    const apps = body({ body: await listed.text() }, ApplicationList).applications;
    const images = apps.find((a) => a.kind === 'images')!;
    const pdfs = apps.find((a) => a.kind === 'pdfs')!;

    // Over real HTTP, as the window calls: its application's jobs, a submission, and nothing of the other application.
    const call = (url: string, token: string, init: RequestInit = {}) => fetch(`${base}${url}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    expect((await call(`/v1/jobs?applicationId=${images.id}`, images.windowKey)).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await makeJpeg(64, 64))]), 'window.jpg');
    expect([200, 202]).toContain((await call('/v1/assess?wait=false', images.windowKey, { method: 'POST', body: form })).status);
    expect((await call(`/v1/jobs?applicationId=${images.id}`, pdfs.windowKey)).status).toBe(403);
    expect((await call(`/v1/jobs?applicationId=${pdfs.id}`, pdfs.windowKey)).status).toBe(200);
    // Neither the UI token on /v1 nor the window credential on /app.
    expect((await call(`/v1/jobs?applicationId=${images.id}`, core.uiToken!)).status).toBe(401);
    expect((await call('/app/applications', images.windowKey)).status).toBe(401);

    // Not an API key: revoking every key of the application leaves the window working, and it is not listed.
    await core.keyStore.revokeApplicationKeys(images.id, new Date().toISOString());
    expect((await call(`/v1/jobs?applicationId=${images.id}`, images.windowKey)).status).toBe(200);
    expect(images.keys.map((k) => k.name)).toEqual(['test key']); // the one API key startCore made, not the window's

    // Never stored: not in the database or its WAL (on a team server, in no row of any table).
    if (core.pgPool) {
      expect(await pgRowsHolding(core, images.windowKey.split('.')[2])).toEqual([]);
      expect(await pgRowsHolding(core, 'test key')).toContain('public.api_keys'); // the scan sees what is stored
    } else {
      core.desktop!.db.pragma('wal_checkpoint(PASSIVE)');
      for (const f of ['veracity.db', 'veracity.db-wal']) {
        const file = path.join(core.dataDir, f);
        if (fs.existsSync(file)) expect(fs.readFileSync(file).includes(images.windowKey.split('.')[2])).toBe(false);
      }
    }

    if (onPg) {
      // A team server: every API node given the same VERACITY_UI_TOKEN accepts what any of them minted (the window
      // may be served by any node behind the proxy), and a node of its own mints a fresh credential.
      const sibling = await startCore({ uiToken: core.uiToken }, { dataDir: core.dataDir });
      expect((await get(sibling, `/v1/jobs?applicationId=${images.id}`, images.windowKey)).statusCode).toBe(200);
      expect((await list(sibling)).find((a) => a.id === images.id)!.windowKey).not.toBe(images.windowKey);
      await sibling.close();
    }

    // A new launch (desktop) or a node given a new VERACITY_UI_TOKEN (team server) on the same data: new
    // credentials, and the old ones are refused.
    await core.close();
    const next = await startCore({}, { dataDir: core.dataDir });
    expect(next.uiToken).not.toBe(core.uiToken);
    expectError(await get(next, `/v1/jobs?applicationId=${images.id}`, images.windowKey), 401, 'unauthorized');
    const fresh = (await list(next)).find((a) => a.id === images.id)!;
    expect(fresh.windowKey).not.toBe(images.windowKey);
    expect((await get(next, `/v1/jobs?applicationId=${images.id}`, fresh.windowKey)).statusCode).toBe(200);
  });
});
