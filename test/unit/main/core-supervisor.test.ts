// The crash-and-restart path of the shell, with real child processes in place of the core: a crash is reported
// with the engine's last lines (the crash screen shows them), Restart brings up a fresh core, and a stop on quit is
// not reported as a crash.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { coreReady } from '../../../src/api/core-ready.js';
import { CORE_STDIO, coreChildOf, type CoreChild } from '../../../main/core-process.js';
import { CoreSupervisor, type CoreState } from '../../../main/core-supervisor.js';

let port = 47000;
/** A stand-in core: sends the ready message with a fresh port each launch; crashes after `crashAfterMs` if given. */
function fakeCore(crashAfterMs: number | null): () => CoreChild {
  return () => {
    port++;
    const script = [
      `process.send(${JSON.stringify(coreReady(`http://127.0.0.1:${port}`, 'abcdefghijklmnopqrstuvwx'))});`,
      crashAfterMs === null ? 'setInterval(() => {}, 1000);' : `setTimeout(() => { console.error('FATAL: out of memory in decoder'); process.exit(7); }, ${crashAfterMs});`,
    ].join('');
    const child = spawn(process.execPath, ['-e', script], { stdio: CORE_STDIO });
    return coreChildOf(child);
  };
}

function waitFor(states: CoreState[], predicate: (s: CoreState) => boolean, timeoutMs = 5000): Promise<CoreState> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const hit = states.find(predicate);
      if (hit) {
        clearInterval(timer);
        resolve(hit);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`state not reached; saw ${states.map((s) => s.state).join(',')}`));
      }
    }, 20);
  });
}

describe('CoreSupervisor', () => {
  it('reports a crash with the last lines, and Restart starts a fresh core', async () => {
    const states: CoreState[] = [];
    let crash = true;
    const supervisor = new CoreSupervisor({ spawn: () => fakeCore(crash ? 300 : null)(), onState: (s) => states.push(s) });
    const first = await supervisor.start();
    expect(first.state).toBe('running');
    const firstUrl = supervisor.running?.baseUrl;
    const crashed = await waitFor(states, (s) => s.state === 'crashed');
    expect(crashed).toMatchObject({ state: 'crashed', reason: expect.stringContaining('exit code 7') });
    expect(crashed.state === 'crashed' && crashed.lastLines).toContain('FATAL: out of memory in decoder');
    expect(supervisor.running).toBeNull();

    crash = false;
    const again = await supervisor.restart();
    expect(again.state).toBe('running');
    expect(supervisor.running?.baseUrl).not.toBe(firstUrl);
    expect(supervisor.running?.uiToken).toBe('abcdefghijklmnopqrstuvwx');

    const before = states.length;
    await supervisor.stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(states.slice(before).map((s) => s.state)).toEqual(['stopped']);
  });

  it('reports a core that dies while starting as a crash, not a hang', async () => {
    const states: CoreState[] = [];
    const supervisor = new CoreSupervisor({
      spawn: () => {
        const child = spawn(process.execPath, ['-e', "console.error('Error: SQLITE_CANTOPEN'); process.exit(2)"], { stdio: ['ignore', 'pipe', 'pipe'] });
        return coreChildOf(child);
      },
      onState: (s) => states.push(s),
    });
    const result = await supervisor.start();
    expect(result.state).toBe('crashed');
    expect(result.state === 'crashed' && result.lastLines).toContain('Error: SQLITE_CANTOPEN');
    expect(states.map((s) => s.state)).toEqual(['starting', 'crashed']);
  });

  it('a second start while starting waits for the same core', async () => {
    let spawned = 0;
    const supervisor = new CoreSupervisor({
      spawn: () => {
        spawned++;
        return fakeCore(null)();
      },
      onState: () => {},
    });
    const [a, b] = await Promise.all([supervisor.start(), supervisor.start()]);
    expect(a).toBe(b);
    expect(spawned).toBe(1);
    await supervisor.stop();
  });
});
