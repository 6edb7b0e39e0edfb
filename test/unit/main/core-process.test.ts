// Starting and supervising the core: line parsing, arguments, and the supervisor run against real child processes
// (small Node scripts standing in for the core's output; the real core is exercised by the e2e suite).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { coreArgs, coreChildOf, CoreStartError, parseCoreLine, startCore, stopCore, type CoreChild } from '../../../main/core-process.js';

function nodeChild(script: string): () => CoreChild {
  return () => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    return coreChildOf(child);
  };
}

const TOKEN = 'abcdefghijklmnopqrstuvwxyz012345';

describe('parseCoreLine', () => {
  it('reads the listening and app lines', () => {
    expect(parseCoreLine('Veracity API listening at http://127.0.0.1:5123')).toEqual({ kind: 'listening', baseUrl: 'http://127.0.0.1:5123' });
    expect(parseCoreLine(`Veracity app at http://127.0.0.1:5123/#token=${TOKEN}`)).toEqual({
      kind: 'app',
      appUrl: `http://127.0.0.1:5123/#token=${TOKEN}`,
      uiToken: TOKEN,
    });
  });

  it('ignores anything else, including addresses that are not loopback', () => {
    expect(parseCoreLine('Veracity API listening at http://0.0.0.0:5123')).toBeNull();
    expect(parseCoreLine('Veracity API listening at http://evil.example:80')).toBeNull();
    expect(parseCoreLine('Veracity app at http://127.0.0.1:1/#token=short')).toBeNull();
    expect(parseCoreLine('{"level":30,"msg":"hello"}')).toBeNull();
  });

  it('builds the serve arguments', () => {
    expect(coreArgs({ dataDir: '/d' })).toEqual(['serve', '--port', '0', '--data-dir', '/d']);
    expect(coreArgs({ dataDir: '/d', uiToken: 't', port: 9 })).toEqual(['serve', '--port', '9', '--data-dir', '/d', '--ui-token', 't']);
    expect(coreArgs({ dataDir: '/d', modelsDir: '/r/models' })).toEqual(['serve', '--port', '0', '--data-dir', '/d', '--models-dir', '/r/models']);
  });
});

describe('startCore', () => {
  it('resolves with the base URL and token once both lines are printed, across chunk boundaries', async () => {
    const script = `process.stdout.write('log line\\nVeracity API listen'); setTimeout(() => { process.stdout.write('ing at http://127.0.0.1:4567\\nVeracity app at http://127.0.0.1:4567/#token=${TOKEN}\\n'); setTimeout(() => {}, 10000); }, 50);`;
    const lines: string[] = [];
    const core = await startCore({ spawn: nodeChild(script), onLine: (_s, l) => lines.push(l) });
    expect(core.baseUrl).toBe('http://127.0.0.1:4567');
    expect(core.uiToken).toBe(TOKEN);
    expect(lines[0]).toBe('log line');
    await stopCore(core.child, 2000);
  });

  it('resolves without an app URL when the core does not serve the renderer', async () => {
    const script = `console.log('Veracity API listening at http://127.0.0.1:4568'); setTimeout(() => {}, 10000);`;
    const core = await startCore({ spawn: nodeChild(script), appLineGraceMs: 100 });
    expect(core).toMatchObject({ baseUrl: 'http://127.0.0.1:4568', appUrl: null, uiToken: null });
    await stopCore(core.child, 2000);
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
    const script = `process.on('SIGTERM', () => {}); console.log('Veracity API listening at http://127.0.0.1:4569'); setInterval(() => {}, 1000);`;
    const core = await startCore({ spawn: nodeChild(script), appLineGraceMs: 50 });
    let forced = false;
    await stopCore(core.child, 300, () => {
      forced = true;
    });
    expect(forced).toBe(true);
  });
});
