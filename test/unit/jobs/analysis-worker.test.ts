// The analysis worker process whose pool is gone: a worker node killed with SIGKILL (team-kill reliability test)
// leaves its analysis process running; when that process next answers, the channel's other end is closed. It must
// leave quietly, as it does on 'disconnect', not die of an uncaught `write EPIPE` printed on the shared stderr.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';

const PARENT = path.join(import.meta.dirname, '..', '..', 'fixtures', 'workers', 'dying-pool-parent.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Running (an orphan's zombie, left to whichever process reaps orphans here, counts as gone). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

it('answers a pool that was killed while it held a task without an uncaught EPIPE, and exits', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-orphan-'));
  dirs.push(dir);
  const stderrFile = path.join(dir, 'worker.stderr');
  fs.writeFileSync(path.join(dir, 'photo.jpg'), 'not a picture');
  const parent = spawn(process.execPath, [PARENT, stderrFile, path.join(dir, 'photo.jpg'), dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before its worker was ready`)));
  });
  try {
    // Stopped, the worker reads nothing: the task and then the end of the channel wait for it together, so its
    // "started" answer is written to a channel whose other end is already closed (EPIPE), before it sees the close.
    process.kill(pid, 'SIGSTOP');
    const parentGone = new Promise((r) => parent.once('exit', r));
    parent.stdin.write('go\n');
    await parentGone;
    process.kill(pid, 'SIGCONT');
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  } finally {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  expect(fs.readFileSync(stderrFile, 'utf8')).toBe('');
}, 30_000);
