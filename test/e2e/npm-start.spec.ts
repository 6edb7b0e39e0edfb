// `npm start` where Electron's binary is absent (as here): it serves the renderer from the core, prints the address
// with a per-launch token, the address opens the app in a browser, the core's logs land in the data dir, and Ctrl+C
// (SIGTERM here) stops the core with it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ARTIFACTS } from './core-fixture.js';

test('npm start in browser mode prints a tokened address that opens the app, and stops cleanly', async ({ page }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-start-'));
  const child = spawn(process.execPath, ['main/start.mjs', '--port', '0'], { env: { ...process.env, VERACITY_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await expect.poll(() => /Open this address[\s\S]*?(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(output)?.[1] ?? null, { timeout: 120_000 }).not.toBeNull();
    const appUrl = /Open this address[\s\S]*?(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(output)![1];
    expect(output).toContain("Electron's binary is not installed");
    expect(output).not.toMatch(/^\{"level"/m);
    await page.goto(appUrl);
    await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
    expect(page.url()).not.toContain('token');
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByTestId('application-panel')).toHaveCount(2);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'npm-start-output.txt'), output);
    expect(fs.existsSync(path.join(dataDir, 'logs', 'core.log'))).toBe(true);

    child.kill('SIGTERM');
    expect(await exited).not.toBeNull();
    const base = new URL(appUrl).origin;
    await expect(fetch(`${base}/v1/jobs`)).rejects.toThrow();
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
