// The window on a team server (issue 15, "point the desktop at the team server"), on a real PostgreSQL with three API
// nodes: two given the same VERACITY_UI_TOKEN (as behind one load balancer), one given none. /app opens to that secret
// only; a window credential minted by one node is accepted by the other, refused by a node with another UI secret;
// nothing is created by a refused request. Analysis is not needed here: no worker runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationList, CaseInfo, CaseList, ServerInfo } from '../../../src/api/app-schemas.js';
import { JobList } from '../../../src/api/schemas.js';
import { loadConfig } from '../../../src/config/config.js';
import { createTeamApiNode, keySecretFromEnv, newKeySecret, uiTokenFromEnv, windowSecretOf, type TeamApiNode, type TeamOptions } from '../../../src/team-core.js';
import { body } from '../../api/helpers.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

const UI = 'team-ui-secret-0123456789abcdefghijklmnopqrstuv';

describe('the window on team API nodes (VERACITY_UI_TOKEN)', () => {
  let server: TestPostgres;
  let dir: string;
  let team: TeamOptions;
  let apiA: TeamApiNode;
  let apiB: TeamApiNode;
  let closed: TeamApiNode;
  const ui = (token = UI) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    server = await startPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-team-window-'));
    team = { databaseUrl: await server.createDatabase('window'), keySecret: keySecretFromEnv({ VERACITY_KEY_SECRET: newKeySecret() }) };
    const config = (name: string) =>
      loadConfig({ dataDir: path.join(dir, name), modelsDir: path.join(dir, 'no-models'), rendererDir: path.join(dir, 'no-renderer'), logLevel: 'silent', warmWorkers: false }, {});
    apiA = await createTeamApiNode(config('a'), { ...team, uiToken: UI });
    apiB = await createTeamApiNode(config('b'), { ...team, uiToken: UI });
    closed = await createTeamApiNode(config('c'), team);
  });
  afterAll(async () => {
    await apiA?.close();
    await apiB?.close();
    await closed?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cases = async (node: TeamApiNode) => body(await node.app.inject({ method: 'GET', url: '/app/cases?page=1&pageSize=50', headers: ui() }), CaseList).cases;

  it('opens /app to the UI secret and says it is a team server', async () => {
    const info = await apiA.app.inject({ method: 'GET', url: '/app/server', headers: ui() });
    expect(info.statusCode).toBe(200);
    expect(body(info, ServerInfo)).toEqual({ kind: 'team' });
    const made = await apiA.app.inject({ method: 'POST', url: '/app/cases', headers: ui(), payload: { name: 'CLM-15 team' } });
    expect(made.statusCode).toBe(201);
    const created = body(made, CaseInfo);
    // Another node behind the same balancer sees it: the cases are in PostgreSQL.
    expect((await cases(apiB)).map((c) => c.id)).toContain(created.id);
  });

  it('refuses a wrong, missing or API-key token, and a node given no UI secret refuses every /app route', async () => {
    const before = (await cases(apiA)).length;
    const apps = body(await apiA.app.inject({ method: 'GET', url: '/app/applications', headers: ui() }), ApplicationList).applications;
    const apiKey = (await apiA.keys.issueKey(apps[0].id, 'tool')).token;
    for (const headers of [{}, ui(`${UI}x`), ui(UI.slice(0, -1)), ui(apiKey), ui(apps[0].windowKey)]) {
      for (const [method, url, payload] of [
        ['GET', '/app/applications', undefined],
        ['GET', '/app/server', undefined],
        ['POST', '/app/cases', { name: 'must not exist' }],
      ] as const) {
        const res = await apiA.app.inject({ method, url, headers, payload });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
      }
    }
    for (const token of [UI, 'anything-0123456789abcdefghijklmnopqrstuvwxyz']) {
      expect((await closed.app.inject({ method: 'GET', url: '/app/applications', headers: ui(token) })).statusCode).toBe(401);
      expect((await closed.app.inject({ method: 'POST', url: '/app/cases', headers: ui(token), payload: { name: 'must not exist' } })).statusCode).toBe(401);
    }
    expect((await cases(apiA)).length).toBe(before);
    expect((await cases(apiA)).map((c) => c.name)).not.toContain('must not exist');
  });

  it("accepts a window credential minted by one node on the other; a node with another UI secret refuses it", async () => {
    const fromA = body(await apiA.app.inject({ method: 'GET', url: '/app/applications', headers: ui() }), ApplicationList).applications;
    const images = fromA.find((a) => a.kind === 'images')!;
    const onB = await apiB.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${images.id}`, headers: { authorization: `Bearer ${images.windowKey}` } });
    expect(onB.statusCode).toBe(200);
    body(onB, JobList);
    // Minted the same way on B (it is derived, not random per process): either node's credential works everywhere.
    const fromB = body(await apiB.app.inject({ method: 'GET', url: '/app/applications', headers: ui() }), ApplicationList).applications;
    const imagesB = fromB.find((a) => a.kind === 'images')!;
    expect((await apiA.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${images.id}`, headers: { authorization: `Bearer ${imagesB.windowKey}` } })).statusCode).toBe(200);
    // The node without a UI secret signs window credentials with a key of its own: A's is refused there.
    expect((await closed.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${images.id}`, headers: { authorization: `Bearer ${images.windowKey}` } })).statusCode).toBe(401);
  });

  it('derives the window key from the shared secret and the UI secret, apart from the API keys', () => {
    const a = windowSecretOf(team.keySecret, UI);
    expect(Buffer.from(a)).toEqual(Buffer.from(windowSecretOf(team.keySecret, UI)));
    expect(Buffer.from(a)).not.toEqual(Buffer.from(windowSecretOf(team.keySecret, `${UI}2`)));
    expect(Buffer.from(a)).not.toEqual(Buffer.from(windowSecretOf(keySecretFromEnv({ VERACITY_KEY_SECRET: newKeySecret() }), UI)));
    expect(Buffer.from(a)).not.toEqual(Buffer.from(team.keySecret).subarray(0, 32));
    expect(a.length).toBe(32);
  });

  it('reads the UI secret from the environment only in a shape a #token= fragment carries', () => {
    expect(uiTokenFromEnv({})).toBeNull();
    expect(uiTokenFromEnv({ VERACITY_UI_TOKEN: '  ' })).toBeNull();
    expect(uiTokenFromEnv({ VERACITY_UI_TOKEN: ` ${UI}\n` })).toBe(UI);
    expect(uiTokenFromEnv({ VERACITY_UI_TOKEN: 'f'.repeat(64) })).toBe('f'.repeat(64));
    expect(() => uiTokenFromEnv({ VERACITY_UI_TOKEN: 'too-short-0123456789' })).toThrow(/at least 32/);
    expect(() => uiTokenFromEnv({ VERACITY_UI_TOKEN: `${'a'.repeat(40)}+/=` })).toThrow(/at least 32/);
  });
});
