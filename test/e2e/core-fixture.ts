// Spawns the real core (`veracity serve`) on a temporary data dir for the e2e suite, and hands the tests its address,
// the UI token it made (from its ready message: serve takes no token on the command line) and an API key (made
// through /app, shown once) for each default application.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { ApplicationList, CreatedApiKey } from '../../src/api/app-schemas.js';
import { CORE_STDIO, coreChildOf, startCore, stopCore, type CoreChild } from '../../main/core-process.js';

export interface CoreHandle {
  baseUrl: string;
  uiToken: string;
  dataDir: string;
  keys: { images: string; pdfs: string };
  applicationIds: { images: string; pdfs: string };
  modelPresent: boolean;
  logFile: string;
}

export const ARTIFACTS = path.resolve('test/artifacts');

export const test = base.extend<{ appPage: Page }, { core: CoreHandle }>({
  core: [
    async ({}, use) => {
      if (!fs.existsSync('dist/renderer/index.html')) throw new Error('Build the renderer first: npm run build:renderer');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-e2e-'));
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      const logFile = path.join(ARTIFACTS, 'core.log');
      const log = fs.createWriteStream(logFile);
      const started = await startCore({
        timeoutMs: 120_000,
        spawn: (): CoreChild => {
          const child = spawn(process.execPath, ['src/bin/veracity.mjs', 'serve', '--port', '0', '--data-dir', dataDir], {
            stdio: CORE_STDIO,
            // A cold probe worker loading pdf.js on a busy machine can take more than the 15 s default: a PDF the
            // test means to be analysed must not be refused for the machine's load.
            env: { ...process.env, VERACITY_PROBE_TIMEOUT_MS: process.env.VERACITY_PROBE_TIMEOUT_MS ?? '60000' },
          });
          return coreChildOf(child);
        },
        onLine: (stream, line) => log.write(`${stream} ${line}\n`),
      });
      const uiToken = started.uiToken;
      if (!uiToken) throw new Error('The core sent no UI token: it serves the window only with a built renderer.');
      const ui = { Authorization: `Bearer ${uiToken}` };
      const response = await fetch(`${started.baseUrl}/app/applications`, { headers: ui });
      const { applications } = ApplicationList.parse(await response.json());
      const images = applications.find((a) => a.kind === 'images');
      const pdfs = applications.find((a) => a.kind === 'pdfs');
      if (!images || !pdfs) throw new Error('The fresh data dir should hold one application of each kind.');
      // A key is shown once, when it is made (as Settings does): the tests' "local tool" keys.
      const makeKey = async (applicationId: string): Promise<string> => {
        const made = await fetch(`${started.baseUrl}/app/applications/${applicationId}/keys`, {
          method: 'POST',
          headers: { ...ui, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Test tool' }),
        });
        return CreatedApiKey.parse(await made.json()).apiKey;
      };
      await use({
        baseUrl: started.baseUrl,
        uiToken,
        dataDir,
        keys: { images: await makeKey(images.id), pdfs: await makeKey(pdfs.id) },
        applicationIds: { images: images.id, pdfs: pdfs.id },
        modelPresent: fs.existsSync('models/veracity-detector/manifest.json'),
        logFile,
      });
      await stopCore(started.child, 10_000);
      log.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'worker', timeout: 180_000 },
  ],

  /** The app opened the way `npm start` prints it, failing the test on any CSP violation or page error. */
  appPage: async ({ page, core }, use) => {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`unexpected dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(`${core.baseUrl}/#token=${core.uiToken}`);
    await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
    await use(page);
    expect(problems, 'no CSP violations, page errors or dialogs').toEqual([]);
  },
});

export { expect };
