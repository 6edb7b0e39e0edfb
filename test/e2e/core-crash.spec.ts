// The shell's crash path with the real core (Electron itself cannot run here): the supervisor that main.ts uses
// starts `veracity serve`, the core is killed with SIGKILL mid-session, the crash is reported with what the crash
// screen shows, Restart brings up a new core on the same data dir, and the earlier job is still there.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CORE_STDIO, coreChildOf } from '../../main/core-process.js';
import { CoreSupervisor, type CoreState } from '../../main/core-supervisor.js';
import { crashPageHtml } from '../../main/crash-page.js';
import { ARTIFACTS } from './core-fixture.js';
import { makeImage } from './generate-files.js';

test('a killed core is reported as a crash and a restart brings the same data back', async ({ page }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-crash-'));
  const pids: number[] = [];
  const states: CoreState[] = [];
  const supervisor = new CoreSupervisor({
    timeoutMs: 120_000,
    spawn: () => {
      const child = spawn(process.execPath, ['src/bin/veracity.mjs', 'serve', '--port', '0', '--data-dir', dataDir], { stdio: CORE_STDIO });
      pids.push(child.pid!);
      return coreChildOf(child);
    },
    onState: (state) => states.push(state),
  });
  try {
    expect((await supervisor.start()).state).toBe('running');
    const first = supervisor.running!;
    expect(first.uiToken).toBeTruthy();

    // Submit one file with the window's per-launch credential so there is something to find after the restart.
    const apps = (await (await fetch(`${first.baseUrl}/app/applications`, { headers: { Authorization: `Bearer ${first.uiToken}` } })).json()) as {
      applications: { id: string; kind: string; windowKey: string }[];
    };
    const images = apps.applications.find((a) => a.kind === 'images')!;
    const form = new FormData();
    form.append('metadata', JSON.stringify({ case: 'Before the crash' }));
    form.append('file', new Blob([new Uint8Array(await makeImage(7, 'jpeg', 96, 96))]), 'before.jpg');
    const accepted = await fetch(`${first.baseUrl}/v1/assess?wait=false`, { method: 'POST', headers: { Authorization: `Bearer ${images.windowKey}` }, body: form });
    expect([200, 202]).toContain(accepted.status);

    process.kill(pids[0], 'SIGKILL');
    await expect.poll(() => states.at(-1)?.state, { timeout: 10_000 }).toBe('crashed');
    const crashed = states.at(-1) as Extract<CoreState, { state: 'crashed' }>;
    expect(crashed.reason).toMatch(/stopped by the operating system/);

    // What the window shows: the crash screen, with its Restart button working under its own CSP.
    await page.setContent(crashPageHtml({ reason: crashed.reason, logFile: path.join(dataDir, 'logs', 'core.log'), lastLines: crashed.lastLines }));
    await expect(page.getByRole('heading', { name: 'The Veracity engine stopped' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Restart Veracity' })).toBeFocused();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, '10-crash-screen.png') });

    expect((await supervisor.restart()).state).toBe('running');
    const second = supervisor.running!;
    await page.goto(`${second.baseUrl}/#token=${second.uiToken}`);
    await page.getByRole('button', { name: 'History' }).click();
    await page.getByRole('button', { name: 'All files' }).click();
    await expect(page.getByTestId('history-row').filter({ hasText: 'Before the crash' })).toHaveCount(1);
  } finally {
    await supervisor.stop();
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
