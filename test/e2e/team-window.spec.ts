// The window on a team server (issue 15, "point the desktop or any client at it"), over real HTTP in Chromium: a real
// PostgreSQL (test/support/postgres.ts), a real API node (`veracity serve --database-url`, given VERACITY_UI_TOKEN
// and VERACITY_KEY_SECRET in its environment) and a real `veracity worker` with the project's model. `npm start` in
// browser mode, pointed at the node by VERACITY_SERVER_URL, starts no local engine and prints the node's address
// with the token; that address opens the window, a dropped JPEG gets its verdict card, and its case is on the server.
// Without the token, or with a wrong one, the node answers 401 and nothing is created.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { CaseList } from '../../src/api/app-schemas.js';
import { CORE_STDIO, coreChildOf, startCore, stopCore, type CoreChild } from '../../main/core-process.js';
import { postgresBinDir, startPostgres, type TestPostgres } from '../support/postgres.js';
import { ARTIFACTS } from './core-fixture.js';
import { makeImage, writeFiles } from './generate-files.js';

const UI_TOKEN = 'team-e2e-ui-secret-0123456789abcdefghijklmnop';
const KEY_SECRET = Buffer.alloc(48, 7).toString('base64');
const MODEL_PRESENT = fs.existsSync('models/veracity-detector/manifest.json');

function hasPostgres(): boolean {
  try {
    postgresBinDir();
    return true;
  } catch {
    return false;
  }
}

test.describe('the window on a team server (PostgreSQL, API node, worker)', () => {
  // Skipped only where the server binaries are absent; CI installs them (apt-get install postgresql).
  test.skip(!hasPostgres(), 'no PostgreSQL server binaries on this machine');
  test.describe.configure({ mode: 'serial' });

  let server: TestPostgres;
  let databaseUrl: string;
  let baseUrl: string;
  let api: CoreChild | undefined;
  let worker: ChildProcess;
  let dir: string;
  let log: fs.WriteStream;
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    VERACITY_DATABASE_URL: databaseUrl,
    VERACITY_KEY_SECRET: KEY_SECRET,
    VERACITY_BLOB_DIR: path.join(dir, 'blobs'),
    VERACITY_ANALYSIS_WORKERS: '1',
  });

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    if (!fs.existsSync('dist/renderer/index.html')) throw new Error('Build the renderer first: npm run build:renderer');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-e2e-team-'));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    log = fs.createWriteStream(path.join(ARTIFACTS, 'team-server.log'));
    server = await startPostgres();
    databaseUrl = await server.createDatabase('team_e2e');
    // The UI secret and the key secret reach the node through its environment only, never its command line.
    const started = await startCore({
      timeoutMs: 180_000,
      spawn: () =>
        coreChildOf(
          spawn(process.execPath, ['src/bin/veracity.mjs', 'serve', '--database-url', databaseUrl, '--port', '0'], {
            stdio: CORE_STDIO,
            env: { ...env(), VERACITY_UI_TOKEN: UI_TOKEN },
          }),
        ),
      onLine: (stream, line) => log.write(`api ${stream} ${line}\n`),
    });
    api = started.child;
    baseUrl = started.baseUrl;
    // The worker gets no UI secret: it serves nothing.
    worker = spawn(process.execPath, ['src/bin/veracity.mjs', 'worker', '--database-url', databaseUrl], { stdio: ['ignore', 'pipe', 'pipe'], env: env() });
    let workerOut = '';
    worker.stdout!.setEncoding('utf8').on('data', (chunk: string) => log.write(`worker stdout ${chunk}`));
    worker.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      workerOut += chunk;
      log.write(`worker stderr ${chunk}`);
    });
    await expect.poll(() => workerOut, { timeout: 120_000 }).toContain('taking files from PostgreSQL');
  });

  test.afterAll(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          worker.kill('SIGKILL');
          resolve(null);
        }, 15_000);
        worker.once('exit', () => resolve(clearTimeout(timer)));
      });
    }
    if (api) await stopCore(api, 15_000);
    await server?.stop();
    log?.end();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function counts(): Promise<Record<string, number>> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const out: Record<string, number> = {};
      for (const table of ['jobs', 'job_files', 'cases', 'idempotency_keys']) {
        out[table] = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
      }
      return out;
    } finally {
      await client.end();
    }
  }

  function watchProblems(page: Page): string[] {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    return problems;
  }

  test('npm start, pointed at the team server, opens the window there: a dropped JPEG gets its verdict and its case is on the server', async ({ page }) => {
    // `npm start` in browser mode with VERACITY_SERVER_URL: no local engine, the team address with its token.
    const localData = path.join(dir, 'desktop-data');
    const start = spawn(process.execPath, ['main/start.mjs', '--browser'], {
      env: { ...process.env, VERACITY_DATA_DIR: localData, VERACITY_SERVER_URL: `${baseUrl}/`, VERACITY_UI_TOKEN: UI_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    start.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    start.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => start.once('exit', resolve));
    expect(code, output).toBe(0);
    expect(output).toContain(`team server at ${baseUrl}`);
    const appUrl = new RegExp(`(${baseUrl.replace(/[.]/g, '\\.')}/#token=\\S+)`).exec(output)?.[1];
    expect(appUrl).toBe(`${baseUrl}/#token=${UI_TOKEN}`);
    expect(fs.existsSync(path.join(localData, 'veracity.db')), 'no local engine was started').toBe(false);

    const problems = watchProblems(page);
    await page.goto(appUrl!);
    await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
    expect(page.url()).toBe(`${baseUrl}/`); // the token left the address bar
    const label = page.getByTestId('server-label');
    await expect(label).toHaveAttribute('data-kind', 'team');
    await expect(label).toContainText(`Team server · ${new URL(baseUrl).host}`);

    const folder = path.join(dir, 'drop', 'CLM-9015 Team server');
    await writeFiles(folder, [{ name: 'porch.jpg', data: makeImage(9015, 'jpeg') }]);
    await page.getByTestId('folder-input').setInputFiles(folder);
    const card = page.getByTestId('verdict-card');
    await expect(card).toHaveCount(1);
    await expect(card).toContainText('case “CLM-9015 Team server”');
    await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 180_000 });
    if (MODEL_PRESENT) {
      await expect(card).toHaveAttribute('data-status', 'completed');
      await expect(card.locator('.badge')).toHaveText(/AI-generated|Authentic|Inconclusive/);
    } else {
      await expect(card).toHaveAttribute('data-status', 'error');
      await expect(card).toContainText('the detector model is not installed');
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'team-window.png'), fullPage: true });

    // The case is the team server's: listed by its /app/cases, and in History, with the verdict.
    const listed = CaseList.parse(await (await fetch(`${baseUrl}/app/cases?q=CLM-9015`, { headers: { Authorization: `Bearer ${UI_TOKEN}` } })).json());
    expect(listed.cases.map((c) => [c.name, c.fileCount])).toEqual([['CLM-9015 Team server', 1]]);
    await page.getByRole('button', { name: 'History' }).click();
    await expect(page.getByTestId('case-row').filter({ hasText: 'CLM-9015 Team server' })).toContainText('1 file');
    await page.getByRole('button', { name: 'All files' }).click();
    const row = page.getByTestId('history-row');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('CLM-9015 Team server');
    await expect(row).toContainText('porch.jpg');
    if (MODEL_PRESENT) await expect(row.getByTestId('history-verdict')).toHaveText(/^(AI-generated|Authentic|Inconclusive)/);
    expect((await counts()).jobs).toBe(1);
    expect(problems).toEqual([]);
  });

  test('without the UI token, or with a wrong one, the node answers 401 and nothing is created', async ({ page }) => {
    const before = await counts();
    const wrong = `${UI_TOKEN.slice(0, -1)}X`;
    const refused: Record<string, string>[] = [{}, { Authorization: `Bearer ${wrong}` }, { Authorization: `Bearer ${UI_TOKEN}x` }, { Authorization: 'Bearer ' }];
    for (const headers of refused) {
      expect((await fetch(`${baseUrl}/app/applications`, { headers })).status).toBe(401);
      expect((await fetch(`${baseUrl}/app/server`, { headers })).status).toBe(401);
      const created = await fetch(`${baseUrl}/app/cases`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'CLM-9016 Refused' }) });
      expect(created.status).toBe(401);
      // The UI secret is no API key: /v1 refuses it, and refuses any upload without a key, before reading the file.
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await makeImage(9016, 'jpeg'))], { type: 'image/jpeg' }), 'refused.jpg');
      const assessed = await fetch(`${baseUrl}/v1/assess?wait=false`, { method: 'POST', headers, body: form });
      expect(assessed.status).toBe(401);
    }
    const asKey = new FormData();
    asKey.append('file', new Blob([new Uint8Array(await makeImage(9017, 'jpeg'))], { type: 'image/jpeg' }), 'refused.jpg');
    expect((await fetch(`${baseUrl}/v1/assess?wait=false`, { method: 'POST', headers: { Authorization: `Bearer ${UI_TOKEN}` }, body: asKey })).status).toBe(401);

    // The window opened with a wrong token, or none, says so and can do nothing.
    for (const address of [`${baseUrl}/#token=${wrong}`, `${baseUrl}/`]) {
      const fresh = await page.context().newPage();
      await fresh.goto(address);
      await expect(fresh.getByRole('alert')).toContainText('This window has no access token');
      await expect(fresh.getByRole('button', { name: 'Choose files…' })).toHaveCount(0);
      await fresh.close();
    }
    expect(await counts()).toEqual(before);
  });
});
