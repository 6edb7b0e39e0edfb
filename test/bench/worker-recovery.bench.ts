// Recovery after kill -9 of a team worker mid-analysis (issue 23, item 7): one API node and two `veracity worker`
// nodes (child processes, one analysis process each, the real model) on a real PostgreSQL (test/support/postgres.ts)
// and a shared blob directory, with the product's timings (heartbeat 1 s, a node dead after 6 s without one, reaped
// every second; pg-boss's own expiry 152 s). Each round submits one 2048 x 2048 JPEG, kills with SIGKILL the worker that
// began it (once its start is recorded), and times from the kill: the file's unit back in the queue, the file begun
// by the other worker, and the file done. A fresh worker replaces the dead one for the next round. Writes
// test/bench/results/worker-recovery.json. Run: node --import tsx test/bench/worker-recovery.bench.ts
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parseCoreReady } from '../../src/api/core-ready.js';
import { createKeyService } from '../../src/auth/api-keys.js';
import { createPgKeyStore } from '../../src/db/pg/key-store.js';
import { keySecretFromEnv, newKeySecret } from '../../src/team-core.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { startPostgres } from '../support/postgres.js';
import { REPO, multipartStream, percentile, round, writeResult } from './bench-support.js';

const ROUNDS = 3;
const NODE_SCRIPT = path.join(REPO, 'test', 'support', 'team-node-for-test.mjs');

const server = await startPostgres();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-bench-recovery-'));
const children: ChildProcess[] = [];
try {
  const databaseUrl = await server.createDatabase('recovery');
  const env = {
    ...process.env,
    VERACITY_DATABASE_URL: databaseUrl,
    VERACITY_KEY_SECRET: newKeySecret(),
    VERACITY_BLOB_DIR: path.join(dir, 'blobs'),
    TEAM_CONFIG: JSON.stringify({ analysisWorkers: 1 }),
  };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const start = (role: 'api' | 'worker', name: string) => {
    const child = fork(NODE_SCRIPT, [], { env: { ...env, TEAM_ROLE: role, TEAM_DATA_DIR: path.join(dir, name) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    children.push(child);
    return new Promise<{ child: ChildProcess; baseUrl: string }>((resolve, reject) => {
      child.on('message', (m) => {
        const ready = parseCoreReady(m);
        if (ready) resolve({ child, baseUrl: ready.baseUrl });
        else if ((m as { type?: string }).type === 'worker-ready') resolve({ child, baseUrl: '' });
      });
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal})`)));
    });
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 6000; i++) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`never: ${what}`);
  };
  const fileRow = async (jobId: string) =>
    (await pool.query<{ status: string; attempts: number; held_by: string | null }>('SELECT status, attempts, held_by FROM job_files WHERE job_id = $1', [jobId])).rows[0];

  const api = await start('api', 'api');
  let workers = [await start('worker', 'w0'), await start('worker', 'w1')];
  const keyStore = createPgKeyStore(pool);
  const app = (await keyStore.listApplications()).find((a) => a.kind === 'images')!;
  const key = (await createKeyService({ secret: keySecretFromEnv(env), store: keyStore }).issueKey(app.id, 'bench')).token;
  const jpegPath = path.join(dir, 'photo.jpg');
  fs.writeFileSync(jpegPath, await makeJpeg(2048, 2048));
  const rounds: { handedBackMs: number; begunAgainMs: number; doneMs: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { stream, contentType } = multipartStream([{ path: jpegPath, name: `round-${r}.jpg` }]);
    const body = Buffer.concat(await stream.toArray());
    const res = await fetch(`${api.baseUrl}/v1/assess?wait=false`, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': contentType, authorization: `Bearer ${key}` } });
    const { jobId } = (await res.json()) as { jobId: string };
    const holder = await until('the file begun', async () => {
      const f = await fileRow(jobId);
      return f?.attempts === 1 && f.held_by ? f.held_by : undefined;
    });
    // The worker node holding it: the registry row's pid.
    const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM team_nodes WHERE id = $1', [holder]);
    const victim = workers.find((w) => w.child.pid === rows[0].pid)!;
    victim.child.kill('SIGKILL');
    await new Promise((resolve) => victim.child.once('exit', resolve));
    const killedAt = performance.now();
    const handedBackMs = await until('unit handed back', async () => ((await fileRow(jobId)).held_by !== holder ? performance.now() - killedAt : undefined));
    const begunAgainMs = await until('begun again', async () => ((await fileRow(jobId)).attempts >= 2 ? performance.now() - killedAt : undefined));
    const doneMs = await until('done', async () => ((await fileRow(jobId)).status !== 'processing' ? performance.now() - killedAt : undefined));
    rounds.push({ handedBackMs: round(handedBackMs, 0), begunAgainMs: round(begunAgainMs, 0), doneMs: round(doneMs, 0) });
    console.log(`[bench] round ${r}: ${JSON.stringify(rounds.at(-1))}`);
    workers = [...workers.filter((w) => w !== victim), await start('worker', `w${r + 2}`)];
  }
  const begun = rounds.map((x) => x.begunAgainMs).sort((a, b) => a - b);
  writeResult(
    'worker-recovery',
    { rounds, worstBegunAgainMs: begun.at(-1), medianBegunAgainMs: percentile(begun, 50), queueExpirySeconds: 152, loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim() },
    ['From the SIGKILL of the worker analysing the file: its unit back in the queue (reaped), begun by the other worker, done.'],
    { begunAgainMs: '< 15000' },
  );
  await pool.end();
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
