// The team server's commands as real processes on a real PostgreSQL: `veracity keys create`, `veracity serve` (an API
// node) and `veracity worker`, given the database by VERACITY_DATABASE_URL, then a job over real HTTP.
// The key-signing secret and the database URL reach the processes through the environment only.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobResult } from '../../../src/api/schemas.js';
import { parseCoreReady } from '../../../src/api/core-ready.js';
import { teamMode } from '../../../src/team-cli.js';
import { newKeySecret } from '../../../src/team-core.js';
import { makeJpeg } from '../analysis/fixtures.js';
import { REPO, multipart, filePart } from '../../api/helpers.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

const BIN = path.join(REPO, 'src', 'bin', 'veracity.mjs');
const run = promisify(execFile);

describe('veracity serve/worker/keys --database-url', () => {
  let server: TestPostgres;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-team-cli-'));
    env = {
      ...process.env,
      VERACITY_DATABASE_URL: await server.createDatabase('cli'),
      VERACITY_KEY_SECRET: newKeySecret(),
      VERACITY_BLOB_DIR: path.join(dir, 'blobs'),
      VERACITY_LOG_LEVEL: 'silent',
    };
  });
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode === null) {
        c.kill('SIGTERM');
        await new Promise((r) => c.once('exit', r));
      }
    }
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('chooses the team commands only for a database URL the desktop did not override', () => {
    expect(teamMode(['--database-url', 'postgres://x'], {})).toBe(true);
    expect(teamMode([], { VERACITY_DATABASE_URL: 'postgres://x' })).toBe(true);
    expect(teamMode(['--port', '0', '--data-dir', '/d'], { VERACITY_DATABASE_URL: 'postgres://x' })).toBe(false);
    expect(teamMode(['--port', '0'], {})).toBe(false);
  });

  it('runs an API node and a worker from the command line and analyses a job over HTTP', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'keys', 'create', '--kind', 'images', '--name', 'desk'], { env });
    const { apiKey } = JSON.parse(stdout) as { apiKey: string };

    const api = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--models-dir', path.join(dir, 'no-models')], {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.push(api);
    const baseUrl = await new Promise<string>((resolve, reject) => {
      api.on('message', (m) => {
        const ready = parseCoreReady(m);
        if (ready) resolve(ready.baseUrl);
      });
      api.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    // No model in the models dir: every file ends in result_unavailable, deterministically (as in the API suite).
    const worker = spawn(process.execPath, [BIN, 'worker', '--models-dir', path.join(dir, 'no-models')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(worker);
    let workerErr = '';
    worker.stderr!.on('data', (d) => (workerErr += d));

    const { body, contentType } = await multipart([filePart(await makeJpeg(64, 64), 'desk.jpg')]);
    const res = await fetch(`${baseUrl}/v1/assess?wait=false`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { 'content-type': contentType, authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(202);
    const job = JobResult.parse(await res.json());
    let done = job;
    for (let i = 0; i < 10 && done.status === 'processing'; i++) {
      done = JobResult.parse(await (await fetch(`${baseUrl}/v1/jobs/${job.jobId}?wait=true`, { headers: { authorization: `Bearer ${apiKey}` } })).json());
    }
    expect(done.status).toBe('error');
    expect(done.results.map((r) => [r.file.name, r.status, r.error?.code])).toEqual([['desk.jpg', 'error', 'result_unavailable']]);
    expect(workerErr).toContain('taking files from PostgreSQL');

    // Both stop cleanly on SIGTERM.
    for (const p of [worker, api]) {
      p.kill('SIGTERM');
      expect(await new Promise((r) => p.once('exit', r))).toBe(0);
    }
  });
});
