// The headless entry points: `veracity keys ...` and `veracity serve`, and the app-only /app routes the
// Settings screen uses (per-launch UI token, never an API key).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiKeyInfo, ApplicationInfo, ApplicationList } from '../../src/api/admin-schemas.js';
import { JobList } from '../../src/api/schemas.js';
import { REPO, body, expectError, get, startCore, tempDir } from './helpers.js';

const run = promisify(execFile);
const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');
const veracity = (...args: string[]) => run(process.execPath, [BIN, ...args], { env: { ...process.env, VERACITY_DATA_DIR: '' } });

describe('veracity keys', () => {
  it('creates, lists and revokes keys in a data dir that only its user can read', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const created = JSON.parse((await veracity('keys', 'create', '--kind', 'pdfs', '--name', 'Claims tool', '--data-dir', dataDir)).stdout);
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'applicationId', 'kind', 'name']);
    expect(created).toMatchObject({ kind: 'pdfs', name: 'Claims tool' });
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    const list = JSON.parse((await veracity('keys', 'list', '--data-dir', dataDir)).stdout) as { applicationId: string; kind: string }[];
    expect(list.map((a) => a.kind).sort()).toEqual(['images', 'pdfs', 'pdfs']); // a fresh data dir has one of each kind

    const core = await startCore({}, { dataDir });
    expect((await get(core, `/v1/jobs?applicationId=${created.applicationId}`, created.apiKey)).statusCode).toBe(200);
    await core.close();
    expect(JSON.parse((await veracity('keys', 'revoke', created.applicationId, '--data-dir', dataDir)).stdout)).toEqual({ revoked: 1 });
    const again = await startCore({}, { dataDir });
    expectError(await get(again, `/v1/jobs?applicationId=${created.applicationId}`, created.apiKey), 401, 'unauthorized');
    await expect(veracity('keys', 'create', '--kind', 'videos', '--data-dir', dataDir)).rejects.toMatchObject({ code: 1 });
  });
});

describe('veracity serve', () => {
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

  it('refuses to listen on a non-loopback address', async () => {
    await expect(veracity('serve', '--host', '0.0.0.0', '--data-dir', tempDir())).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('loopback') });
  });
});

describe('/app routes (UI token)', () => {
  it('lists applications with their keys, creates applications and keys, and revokes keys', async () => {
    const core = await startCore();
    const ui = { authorization: `Bearer ${core.uiToken}` };
    expectError(await core.app.inject({ method: 'GET', url: '/app/applications' }), 401, 'unauthorized');
    expectError(await core.app.inject({ method: 'GET', url: '/app/applications', headers: { authorization: `Bearer ${core.imagesKey}` } }), 401, 'unauthorized');
    const list = body(await core.app.inject({ method: 'GET', url: '/app/applications', headers: ui }), ApplicationList);
    expect(list.applications.map((a) => a.kind).sort()).toEqual(['images', 'pdfs']);

    const badCreate = await core.app.inject({ method: 'POST', url: '/app/applications', headers: ui, payload: { name: '', kind: 'images' } });
    expectError(badCreate, 400, 'invalid_request', 'name');
    const created = await core.app.inject({ method: 'POST', url: '/app/applications', headers: ui, payload: { name: 'Batch tool', kind: 'images' } });
    expect(created.statusCode).toBe(201);
    const app = body(created, ApplicationInfo);
    expect(app.keys).toHaveLength(1);

    const keyRes = await core.app.inject({ method: 'POST', url: `/app/applications/${app.id}/keys`, headers: ui, payload: { name: 'second', expiresInDays: 30 } });
    const key = body(keyRes, ApiKeyInfo);
    expect(key.expiresAt).not.toBeNull();
    expect(body(await get(core, `/v1/jobs?applicationId=${app.id}`, key.apiKey), JobList).jobs).toEqual([]);

    const revoked = body(await core.app.inject({ method: 'POST', url: `/app/keys/${key.id}/revoke`, headers: ui }), ApiKeyInfo);
    expect(revoked.revokedAt).not.toBeNull();
    expectError(await get(core, `/v1/jobs?applicationId=${app.id}`, key.apiKey), 401, 'unauthorized');
  });
});
