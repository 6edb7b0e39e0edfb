// The blob store of a small team server kept in PostgreSQL itself, on a real PostgreSQL (two store instances on two
// pools as two nodes): files stored by one are read by another, a failed put leaves no row, previews are kept only
// beside a stored file, and the start-up sweep of one node removes only its own leftover temp files, never a row.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgPool } from '../../../src/db/pg/connection.js';
import { createPgBlobStore, type PgBlobStore } from '../../../src/db/pg/pg-blob-store.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('PostgreSQL blob store', () => {
  let server: TestPostgres;
  let url: string;
  let tmpRoot: string;
  const pools: pg.Pool[] = [];
  const stores: PgBlobStore[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    url = await server.createDatabase('blobs');
    tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-pgblobs-'));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const p of pools.splice(0)) await p.end();
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  });

  /** A node: its own pool on the database (migrated by openPgPool) and its own node-local temp root. */
  const node = async (root = fs.mkdtempSync(path.join(tmpRoot, 'node-'))) => {
    const pool = await openPgPool(url);
    pools.push(pool);
    const s = createPgBlobStore(pool, { tmpRoot: root });
    stores.push(s);
    return s;
  };
  const upload = (s: PgBlobStore, content: string | Buffer) => {
    const tmp = s.tempPath();
    fs.writeFileSync(tmp, content);
    return tmp;
  };
  const rows = async () => (await pools[0].query<{ file_id: string }>('SELECT file_id FROM blobs ORDER BY file_id')).rows.map((r) => r.file_id);

  it('stores a file on one node and serves it, with its preview, on another', async () => {
    const api = await node();
    const worker = await node();
    const id = crypto.randomUUID();
    const tmp = upload(api, 'jpeg bytes');
    await api.put([{ tmpPath: tmp, fileId: id }]);
    expect(fs.existsSync(tmp)).toBe(false);
    expect(await worker.exists(id)).toBe(true);
    let local = '';
    const read = await worker.withLocalFile(id, async (p) => {
      local = p;
      expect(fs.statSync(p).mode & 0o777).toBe(0o600);
      expect(path.dirname(p)).toBe(worker.tmpDir);
      return fs.readFileSync(p, 'utf8');
    });
    expect(read).toBe('jpeg bytes');
    expect(fs.existsSync(local)).toBe(false);
    const chunks: Buffer[] = [];
    for await (const c of (await api.openRead(id)) as AsyncIterable<Buffer>) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe('jpeg bytes');

    expect(await api.readPreview(id)).toBeNull();
    await worker.putPreview(id, Buffer.from('png'));
    expect((await api.readPreview(id))?.toString()).toBe('png');
    await api.removeFiles([id]);
    expect(await worker.exists(id)).toBe(false);
    expect(await worker.readPreview(id)).toBeNull();
    await expect(worker.openRead(id)).rejects.toThrow(/ENOENT/);
    // No preview is kept for a file that is gone.
    await worker.putPreview(id, Buffer.from('png'));
    expect(await api.readPreview(id)).toBeNull();
    expect(await rows()).toEqual([]);
  });

  it('keeps binary files byte for byte, and removes the local copy when the analysis throws', async () => {
    const api = await node();
    const worker = await node();
    const bytes = crypto.randomBytes(3 * 2 ** 20);
    const id = crypto.randomUUID();
    await api.put([{ tmpPath: upload(api, bytes), fileId: id }]);
    let local = '';
    await expect(
      worker.withLocalFile(id, async (p) => {
        local = p;
        expect(fs.readFileSync(p).equals(bytes)).toBe(true);
        throw new Error('analysis failed');
      }),
    ).rejects.toThrow('analysis failed');
    expect(fs.existsSync(local)).toBe(false);
    expect(fs.readdirSync(worker.tmpDir)).toEqual([]);
  });

  it('puts all files of a job or none', async () => {
    const api = await node();
    const good = upload(api, 'one');
    const missing = api.tempPath();
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    await expect(api.put([{ tmpPath: good, fileId: ids[0] }, { tmpPath: missing, fileId: ids[1] }])).rejects.toThrow(/ENOENT/);
    expect(await api.exists(ids[0])).toBe(false);
    expect(fs.readFileSync(good, 'utf8')).toBe('one');

    // A failure inside the transaction (a file id already stored) rolls back the rows written before it.
    const stored = crypto.randomUUID();
    await api.put([{ tmpPath: upload(api, 'stored'), fileId: stored }]);
    const again = upload(api, 'two');
    await expect(api.put([{ tmpPath: good, fileId: ids[0] }, { tmpPath: again, fileId: stored }])).rejects.toThrow(/duplicate key/);
    expect(await api.exists(ids[0])).toBe(false);
    expect(fs.readFileSync(good, 'utf8')).toBe('one');
    expect(fs.readFileSync(again, 'utf8')).toBe('two');
    expect(await rows()).toEqual([stored]);

    // The temp files are their owner's to delete.
    await api.removeTemp([good, missing, again]);
    expect(fs.existsSync(good)).toBe(false);
    expect(fs.existsSync(again)).toBe(false);
  });

  it("sweeps its own and dead processes' leftover uploads, never a live process's or another node's rows", async () => {
    const shared = fs.mkdtempSync(path.join(tmpRoot, 'machine-'));
    const live = await node(shared);
    const inFlight = upload(live, 'uploading');
    const other = await node();
    const stored = crypto.randomUUID();
    await other.put([{ tmpPath: upload(other, 'kept'), fileId: stored }]);
    await other.putPreview(stored, Buffer.from('png'));

    // A process of this machine that died: no process has its pid (beyond the kernel's pid range).
    const deadDir = path.join(shared, `${2 ** 22 + 1}-${crypto.randomUUID()}`);
    fs.mkdirSync(deadDir);
    fs.writeFileSync(path.join(deadDir, 'x.part'), 'left by a crash');

    const restarted = await node(shared);
    upload(restarted, 'own leftover');
    const swept = await restarted.sweepLeftovers(async () => new Set());
    expect(swept).toEqual({ tmp: 2, orphans: 0 });
    expect(fs.existsSync(deadDir)).toBe(false);
    expect(fs.readdirSync(restarted.tmpDir)).toEqual([]);
    expect(fs.readFileSync(inFlight, 'utf8')).toBe('uploading');
    expect(await restarted.exists(stored)).toBe(true);
    expect((await restarted.readPreview(stored))?.toString()).toBe('png');
  });
});
