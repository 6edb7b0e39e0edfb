// Durability: a job answered 202 survives kill -9 of the server and completes after a restart; files whose
// analysis cannot resume end in internal_error; the database passes integrity_check; nothing is left in tmp/.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { REPO, SLOW_WORKER, assess, body, cliKey, countRows, filePart, get, multipart, onPg, startCore, tempDir } from './helpers.js';

const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');

function serve(dataDir: string, modelsDir: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--models-dir', modelsDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, VERACITY_LOG_LEVEL: 'warn' },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /^Veracity API listening at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (m) resolve({ child, base: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

// kill -9 and restart of `veracity serve` on its SQLite data dir: the team server's recovery is pg-boss's (test/unit/pg).
describe.skipIf(onPg)('durability', () => {
  it('a job answered 202 survives kill -9 mid-analysis and completes after restart', async () => {
    const dataDir = tempDir();
    const modelsDir = tempDir('veracity-nomodel-');
    const first = await serve(dataDir, modelsDir);
    const key = cliKey(dataDir, 'images').apiKey;
    const jpeg = await makeJpeg(800, 600);
    const { body: payload, contentType } = await multipart(Array.from({ length: 20 }, (_, i) => filePart(jpeg, `f${i}.jpg`)));
    const res = await fetch(`${first.base}/v1/assess?wait=false`, { method: 'POST', body: new Uint8Array(payload), headers: { 'content-type': contentType, authorization: `Bearer ${key}` } });
    expect(res.status).toBe(202);
    const job = body({ body: await res.text() }, JobResult);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const check = new Database(path.join(dataDir, 'veracity.db'));
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    const processing = (check.prepare("SELECT count(*) AS n FROM job_files WHERE job_id = ? AND status = 'processing'").get(job.jobId) as { n: number }).n;
    check.close();
    expect(processing).toBeGreaterThan(0); // killed while work was left

    const second = await serve(dataDir, modelsDir);
    try {
      const done = await fetch(`${second.base}/v1/jobs/${job.jobId}?wait=true`, { headers: { authorization: `Bearer ${key}` } });
      const after = body({ body: await done.text() }, JobResult);
      expect(after.status).toBe('error');
      expect(after.error?.code).toBe('result_unavailable'); // no model in this test: every file ends result_unavailable
      expect(after.results).toHaveLength(20);
      expect(after.results.every((r) => r.status === 'error')).toBe(true);
      expect(fs.readdirSync(path.join(dataDir, 'tmp'))).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  });

  it('resumes processing files after a restart and ends those whose stored file is gone in internal_error', async () => {
    process.env.VERACITY_TEST_ANALYSE_MS = '4000';
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    const jpeg = await makeJpeg(64, 64);
    const job = body(await assess(core, [filePart(jpeg, 'kept.jpg'), filePart(jpeg, 'lost.jpg')], { wait: 'false' }), JobResult);
    await core.close(); // stops mid-analysis: both files stay processing
    fs.rmSync(path.join(core.dataDir, 'files', job.results[1].file.id));
    process.env.VERACITY_TEST_ANALYSE_MS = '10';
    const again = await startCore({}, { workerEntry: SLOW_WORKER, dataDir: core.dataDir });
    const after = body(await get(again, `/v1/jobs/${job.jobId}?wait=true`, core.imagesKey), JobResult);
    expect(after.results.map((r) => [r.file.name, r.status, r.error?.code ?? null])).toEqual([
      ['kept.jpg', 'completed', null],
      ['lost.jpg', 'error', 'internal_error'],
    ]);
    expect(after.status).toBe('error');
    expect(after.error?.code).toBe('internal_error');
  });

  it('removes temp files and stored files of an upload the client aborts', async () => {
    const core = await startCore();
    const { startListening } = await import('./helpers.js');
    const base = await startListening(core);
    const jpeg = await makeJpeg(64, 64);
    const big = Buffer.concat([jpeg, Buffer.alloc(20 * 2 ** 20, 1)]);
    const { body: payload, contentType } = await multipart([filePart(jpeg, 'a.jpg'), filePart(big, 'b.jpg')]);
    const net = await import('node:net');
    const port = Number(new URL(base).port);
    await new Promise<void>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.write(`POST /v1/assess HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${core.imagesKey}\r\nContent-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`);
        s.write(payload.subarray(0, Math.floor(payload.length * 0.6)), () => setTimeout(() => { s.destroy(); resolve(); }, 300));
      });
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.readdirSync(path.join(core.dataDir, 'tmp'))).toEqual([]);
    expect(fs.readdirSync(path.join(core.dataDir, 'files'))).toEqual([]);
    expect(await countRows(core, 'jobs')).toBe(0);
  });
});
