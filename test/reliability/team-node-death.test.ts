// What a team-server node that dies leaves behind (issue 23, items 6 and 7), on a real PostgreSQL with nodes in child
// processes over real HTTP. An API node killed with SIGKILL in the middle of an upload leaves a partial file in its
// temp folder of the shared blob directory: its folder must be gone within seconds of the kill (any node reaps a node
// whose heartbeat row stopped, its own restart included), while another live node's upload in flight is untouched
// and still completes. A worker killed with SIGKILL in the middle of an analysis holds its file in the queue: another
// worker must take it within 15 s (pg-boss's expiry, the product's 152 s, is not what hands it on), and it is
// analysed to completion once. The upload bound is generous (a loaded 2-core machine): the product's own figure is
// about 10 s; 15 s is the worker's requirement itself, against the product's 6 s heartbeat timeout.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCoreReady } from '../../src/api/core-ready.js';
import { createKeyService } from '../../src/auth/api-keys.js';
import { createPgKeyStore } from '../../src/db/pg/key-store.js';
import { keySecretFromEnv, newKeySecret } from '../../src/team-core.js';
import { JobResult } from '../../src/api/schemas.js';
import { filePart, multipart } from '../api/helpers.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

const NODE_SCRIPT = path.join(import.meta.dirname, '..', 'support', 'team-node-for-test.mjs');
const LOGGING_WORKER = path.join(import.meta.dirname, '..', 'fixtures', 'workers', 'logging-analysis-worker.mjs');

describe('team server: what a killed node leaves', () => {
  let server: TestPostgres;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let pool: pg.Pool;
  const children: ChildProcess[] = [];
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-team-death-'));
    const databaseUrl = await server.createDatabase('death');
    env = {
      ...process.env,
      VERACITY_DATABASE_URL: databaseUrl,
      VERACITY_KEY_SECRET: newKeySecret(),
      VERACITY_BLOB_DIR: path.join(dir, 'blobs'),
      TEAM_CONFIG: JSON.stringify({ analysisWorkers: 1 }),
    };
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        await new Promise((r) => c.once('exit', r));
      }
    }
    await pool?.end();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function startApiNode(name: string): Promise<{ child: ChildProcess; port: number }> {
    const child = fork(NODE_SCRIPT, [], {
      env: { ...env, TEAM_ROLE: 'api', TEAM_DATA_DIR: path.join(dir, name) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.on('message', (m) => {
        const ready = parseCoreReady(m);
        if (ready) resolve({ child, port: Number(new URL(ready.baseUrl).port) });
      });
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
    });
  }

  function startWorker(name: string): Promise<ChildProcess> {
    const child = fork(NODE_SCRIPT, [], {
      env: {
        ...env,
        TEAM_ROLE: 'worker',
        TEAM_DATA_DIR: path.join(dir, name),
        TEAM_WORKER_ENTRY: LOGGING_WORKER,
        VERACITY_TEST_ANALYSIS_LOG: path.join(dir, `${name}.analysis.log`),
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.on('message', (m) => {
        if ((m as { type?: string }).type === 'worker-ready') resolve(child);
      });
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
    });
  }

  /** A worker node's analysis lines: "start|done PID PATH", in order. */
  const analysisLines = (name: string) => {
    const file = path.join(dir, `${name}.analysis.log`);
    return (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []).map((l) => l.split(' ')[0]);
  };

  async function apiKey(): Promise<string> {
    const keyStore = createPgKeyStore(pool);
    const apps = await keyStore.listApplications();
    const keys = createKeyService({ secret: keySecretFromEnv(env), store: keyStore });
    return (await keys.issueKey(apps.find((x) => x.kind === 'images')!.id, 'death')).token;
  }

  async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const tmpRoot = () => path.join(dir, 'blobs', 'tmp');
  const folders = () => (fs.existsSync(tmpRoot()) ? fs.readdirSync(tmpRoot()) : []);
  const partsIn = (folder: string) => (fs.existsSync(path.join(tmpRoot(), folder)) ? fs.readdirSync(path.join(tmpRoot(), folder)) : []);

  /** An upload of one JPEG over a raw socket, sent up to `sentBytes` of its body; `finish` sends the rest and reads the status. */
  function startUpload(port: number, key: string, jpeg: Buffer, sentBytes: number) {
    const boundary = 'veracity-death-test';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`);
    const body = Buffer.concat([head, jpeg, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    let answer = '';
    socket.on('data', (c) => (answer += c.toString('latin1')));
    socket.on('error', () => {});
    socket.write(
      `POST /v1/assess?wait=false HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, sentBytes));
    return {
      async finish(): Promise<number> {
        socket.write(body.subarray(sentBytes));
        const line = await until('an answer to the upload', 60_000, () => (/^HTTP\/1\.1 (\d{3})/.exec(answer) ? answer : undefined));
        return Number(/^HTTP\/1\.1 (\d{3})/.exec(line)![1]);
      },
    };
  }

  it("removes a killed node's partial uploads within seconds, never a live node's", async () => {
    const a = await startApiNode('api-a');
    const [aFolder] = folders();
    const b = await startApiNode('api-b');
    const [bFolder] = folders().filter((f) => f !== aFolder);
    expect(aFolder).toBeDefined();
    expect(bFolder).toBeDefined();

    const key = await apiKey();
    const jpeg = await makeJpeg(1024, 1024);

    // Both nodes receive an upload that stops half-way; each has its partial file in its own temp folder.
    startUpload(a.port, key, jpeg, jpeg.length / 2);
    const onB = startUpload(b.port, key, jpeg, jpeg.length / 2);
    await until('a partial upload on node A', 30_000, () => (partsIn(aFolder).some((f) => f.endsWith('.part')) ? true : undefined));
    await until('a partial upload on node B', 30_000, () => (partsIn(bFolder).some((f) => f.endsWith('.part')) ? true : undefined));

    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    const killedAt = Date.now();
    // The operator restarts it: a new process, with a new id.
    await startApiNode('api-a');
    await until("node A's temp folder removed", 60_000, () => (folders().includes(aFolder) ? undefined : true));
    const tookMs = Date.now() - killedAt;
    console.info(`killed API node's temp folder removed ${tookMs} ms after the kill`);
    // Its heartbeat row went with it.
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM team_nodes WHERE role = 'api'");
    expect(rows[0].n).toBe(2);
    // Node B's upload was never touched, and completes.
    expect(partsIn(bFolder).some((f) => f.endsWith('.part'))).toBe(true);
    expect(await onB.finish()).toBe(202);
    expect(tookMs).toBeLessThan(60_000);
  }, 300_000);

  it("hands a killed worker's file to another worker within 15 s, analysed to completion once", async () => {
    // A database and blob directory of its own: the first test's job must not give the workers a second file.
    const databaseUrl = await server.createDatabase('workers');
    env = { ...env, VERACITY_DATABASE_URL: databaseUrl, VERACITY_BLOB_DIR: path.join(dir, 'blobs-workers') };
    await pool.end();
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const api = await startApiNode('api-w');
    const names = ['worker-0', 'worker-1'];
    const workers = [await startWorker(names[0]), await startWorker(names[1])];
    const key = await apiKey();
    // One large file: one worker takes it, the other stays idle, ready to take it over.
    const jpeg = await makeJpeg(2048, 2048);
    const { body, contentType } = await multipart([filePart(jpeg, 'held.jpg')]);
    const res = await fetch(`http://127.0.0.1:${api.port}/v1/assess?wait=false`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { 'content-type': contentType, authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(202);
    const { jobId } = JobResult.parse(await res.json());

    const victim = await until('a worker analysing the file', 120_000, () => {
      const i = names.findIndex((n) => analysisLines(n).at(-1) === 'start');
      return i >= 0 ? i : undefined;
    });
    const survivor = 1 - victim;
    // Its start is recorded (the attempt counted) before the kill.
    const holder = await until('the start recorded', 60_000, async () => {
      const { rows } = await pool.query<{ attempts: number; held_by: string | null }>('SELECT attempts, held_by FROM job_files');
      return rows[0]?.attempts === 1 && rows[0].held_by ? rows[0].held_by : undefined;
    });
    workers[victim].kill('SIGKILL');
    await new Promise((r) => workers[victim].once('exit', r));
    const killedAt = Date.now();
    const { rows: held } = await pool.query<{ status: string; attempts: number }>('SELECT status, attempts FROM job_files');
    expect(held).toEqual([{ status: 'processing', attempts: 1 }]);

    // Handed on: taken by another worker node (its analysis process may still be starting).
    await until('another worker takes the file', 60_000, async () => {
      const { rows } = await pool.query<{ held_by: string | null }>('SELECT held_by FROM job_files');
      return rows[0].held_by && rows[0].held_by !== holder ? true : undefined;
    });
    const handedOnMs = Date.now() - killedAt;
    await until('the other worker begins the file', 60_000, () => (analysisLines(names[survivor]).includes('start') ? true : undefined));
    console.info(`killed worker's file taken by another worker ${handedOnMs} ms after the kill, begun ${Date.now() - killedAt} ms after it`);
    const done = await until('the job finished', 120_000, async () => {
      const r = await fetch(`http://127.0.0.1:${api.port}/v1/jobs/${jobId}?wait=true`, { headers: { authorization: `Bearer ${key}` } });
      const job = JobResult.parse(await r.json());
      return job.status === 'processing' ? undefined : job;
    });
    expect(done.status).toBe('completed');
    expect(done.results.map((f) => f.status)).toEqual(['completed']);
    // Analysed to completion once: by the survivor (the victim died inside it, its attempt counted).
    expect(analysisLines(names[survivor]).filter((l) => l === 'done')).toHaveLength(1);
    expect(analysisLines(names[victim]).filter((l) => l === 'done')).toHaveLength(0);
    const { rows } = await pool.query<{ attempts: number }>('SELECT attempts FROM job_files');
    expect(rows).toEqual([{ attempts: 2 }]);
    expect(handedOnMs).toBeLessThan(15_000);
  }, 300_000);
});
