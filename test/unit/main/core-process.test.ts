// Starting and supervising the core: the ready message, arguments, and startCore against real child processes (small
// Node scripts standing in for the core, and once the real `veracity serve`).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coreReady, CORE_READY, parseCoreReady } from '../../../src/api/core-ready.js';
import { CORE_STDIO, coreArgs, coreChildOf, CoreStartError, startCore, stopCore, type CoreChild } from '../../../main/core-process.js';

function nodeChild(script: string): () => CoreChild {
  return () => {
    const child = spawn(process.execPath, ['-e', script], { stdio: CORE_STDIO });
    return coreChildOf(child);
  };
}

const TOKEN = 'abcdefghijklmnopqrstuvwxyz012345';
const ready = (port: number, token: string | null = TOKEN) => `process.send(${JSON.stringify(coreReady(`http://127.0.0.1:${port}`, token))});`;

describe('parseCoreReady', () => {
  it('reads the ready message, with or without the window token', () => {
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://127.0.0.1:5123', uiToken: TOKEN })).toEqual(coreReady('http://127.0.0.1:5123', TOKEN));
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://[::1]:5123', uiToken: null })).toEqual(coreReady('http://[::1]:5123', null));
  });

  it('refuses anything else: other addresses, other token shapes, and the lines printed for people', () => {
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://0.0.0.0:5123', uiToken: null })).toBeNull();
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://evil.example:80', uiToken: null })).toBeNull();
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://127.0.0.1:1/', uiToken: null })).toBeNull();
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://127.0.0.1:1', uiToken: 'short' })).toBeNull();
    expect(parseCoreReady({ type: CORE_READY, baseUrl: 'http://127.0.0.1:1' })).toBeNull();
    expect(parseCoreReady({ type: 'other', baseUrl: 'http://127.0.0.1:1', uiToken: null })).toBeNull();
    expect(parseCoreReady('Veracity API listening at http://127.0.0.1:5123')).toBeNull();
    expect(parseCoreReady(null)).toBeNull();
  });

  it('builds the serve arguments', () => {
    expect(coreArgs({ dataDir: '/d' })).toEqual(['serve', '--port', '0', '--data-dir', '/d']);
    expect(coreArgs({ dataDir: '/d', port: 9 })).toEqual(['serve', '--port', '9', '--data-dir', '/d']);
    expect(coreArgs({ dataDir: '/d', modelsDir: '/r/models' })).toEqual(['serve', '--port', '0', '--data-dir', '/d', '--models-dir', '/r/models']);
  });
});

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('startCore', () => {
  it('starts the real core (`veracity serve`) and learns its address from the ready message', { timeout: 60_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-ready-'));
    dataDirs.push(dataDir);
    const lines: string[] = [];
    const core = await startCore({
      spawn: () => coreChildOf(spawn(process.execPath, ['src/bin/veracity.mjs', ...coreArgs({ dataDir })], { stdio: CORE_STDIO, env: { ...process.env, VERACITY_LOG_LEVEL: 'warn' } })),
      onLine: (stream, line) => lines.push(`${stream} ${line}`),
    });
    try {
      expect(core.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${core.baseUrl}/v1/jobs`)).status).toBe(401);
      // The person at a terminal still reads the address.
      expect(lines).toContain(`stdout Veracity API listening at ${core.baseUrl}`);
    } finally {
      await stopCore(core.child, 10_000);
    }
  });

  it('resolves with the base URL and token from the message, whatever the core printed', async () => {
    const script = `process.stdout.write('log line\\nVeracity API listening at http://127.0.0.1:1\\n'); ${ready(4567)} setTimeout(() => {}, 10000);`;
    const lines: string[] = [];
    const core = await startCore({ spawn: nodeChild(script), onLine: (_s, l) => lines.push(l) });
    expect(core).toMatchObject({ baseUrl: 'http://127.0.0.1:4567', uiToken: TOKEN, appUrl: `http://127.0.0.1:4567/#token=${TOKEN}` });
    expect(lines[0]).toBe('log line');
    await stopCore(core.child, 2000);
  });

  it('resolves without an app URL when the core does not serve the renderer', async () => {
    const core = await startCore({ spawn: nodeChild(`${ready(4568, null)} setTimeout(() => {}, 10000);`) });
    expect(core).toMatchObject({ baseUrl: 'http://127.0.0.1:4568', appUrl: null, uiToken: null });
    await stopCore(core.child, 2000);
  });

  it('does not take the printed lines for the ready signal', async () => {
    const script = `console.log('Veracity API listening at http://127.0.0.1:4570'); console.log('Veracity app at http://127.0.0.1:4570/#token=${TOKEN}'); setTimeout(() => process.exit(4), 300);`;
    const error = await startCore({ spawn: nodeChild(script) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreStartError);
    expect((error as CoreStartError).message).toContain('exit code 4');
  });

  it('rejects with the last lines when the core exits while starting', async () => {
    const script = `console.error('Error: database is locked'); process.exit(3);`;
    const error = await startCore({ spawn: nodeChild(script) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreStartError);
    expect((error as CoreStartError).message).toContain('exit code 3');
    expect((error as CoreStartError).lastLines).toContain('Error: database is locked');
  });

  it('rejects and kills the core when it does not come up in time', async () => {
    const script = `setTimeout(() => {}, 10000);`;
    const started = Date.now();
    const error = await startCore({ spawn: nodeChild(script), timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreStartError);
    expect((error as Error).message).toMatch(/did not start within/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('stopCore forces the kill after the grace period', async () => {
    // A core that ignores SIGTERM: stopCore must still return and call the hard kill.
    const script = `process.on('SIGTERM', () => {}); ${ready(4569, null)} setInterval(() => {}, 1000);`;
    let raw: ChildProcess | undefined;
    const core = await startCore({
      spawn: () => {
        raw = spawn(process.execPath, ['-e', script], { stdio: CORE_STDIO });
        return coreChildOf(raw);
      },
    });
    let forced = false;
    const exited = new Promise((resolve) => raw!.once('exit', (_code, signal) => resolve(signal)));
    await stopCore(core.child, 300, () => {
      forced = true;
      raw!.kill('SIGKILL'); // the hard kill, as the app's is: the core must not outlive the test
    });
    expect(forced).toBe(true);
    expect(await exited).toBe('SIGKILL');
  });
});
