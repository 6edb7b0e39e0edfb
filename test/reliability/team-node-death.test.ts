// What a team-server node that dies leaves behind (issue 23, item 6), on a real PostgreSQL with API nodes in child
// processes over real HTTP: an API node killed with SIGKILL in the middle of an upload leaves a partial file in its
// temp folder of the shared blob directory. Its folder must be gone within seconds of the kill (any node reaps a node
// whose heartbeat row stopped, its own restart included), while another live node's upload in flight is untouched
// and still completes. Bounds are generous (a loaded 2-core machine): the product's own figures are about 10 s.
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
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

const NODE_SCRIPT = path.join(import.meta.dirname, '..', 'support', 'team-node-for-test.mjs');

describe('team server: a killed API node leaves nothing in the shared blob directory', () => {
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
    env = { ...process.env, VERACITY_DATABASE_URL: databaseUrl, VERACITY_KEY_SECRET: newKeySecret(), VERACITY_BLOB_DIR: path.join(dir, 'blobs') };
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

    const keyStore = createPgKeyStore(pool);
    const apps = await keyStore.listApplications();
    const keys = createKeyService({ secret: keySecretFromEnv(env), store: keyStore });
    const key = (await keys.issueKey(apps.find((x) => x.kind === 'images')!.id, 'death')).token;
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
    // Its heartbeat row went with it.
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM team_nodes');
    expect(rows[0].n).toBe(2);
    // Node B's upload was never touched, and completes.
    expect(partsIn(bFolder).some((f) => f.endsWith('.part'))).toBe(true);
    expect(await onB.finish()).toBe(202);
    expect(tookMs).toBeLessThan(60_000);
  }, 300_000);
});
