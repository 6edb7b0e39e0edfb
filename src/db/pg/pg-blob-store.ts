// The uploaded files of a team server (src/db/stores.ts BlobStore) kept in PostgreSQL itself, for small deployments
// with no directory every node mounts: table blobs (PostgreSQL migration 4), one row per stored file with its preview.
// Uploads still stream into a node-local temp folder of this process, tmp/<pid>-<random>/ under a node-local root;
// put() reads the flushed temp files and inserts every row of a job in one transaction (all or none). A worker gets
// a node-local copy of the bytes (mode 0600) for the duration of the analysis. The start-up sweep removes only this
// node's leftover temp files (its own folder, and folders of processes of this machine that are gone), never a row.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { BlobStore } from '../stores.js';
import type { PgPool } from './connection.js';
import { inTransaction } from './jobs-store.js';

export interface PgBlobStoreOptions {
  /** The node-local folder holding this machine's temp folders (default: <os tmpdir>/veracity-pg-blobs-<uid>). */
  tmpRoot?: string;
}

export interface PgBlobStore extends BlobStore {
  /** This process's temp folder. */
  readonly tmpDir: string;
  /** Removes this process's temp folder (the pool is its owner's to end). */
  close(): Promise<void>;
}

/** Whether a process of this machine with that id still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createPgBlobStore(pool: PgPool, opts: PgBlobStoreOptions = {}): PgBlobStore {
  const tmpRoot = opts.tmpRoot ?? path.join(os.tmpdir(), `veracity-pg-blobs-${process.getuid?.() ?? 'user'}`);
  const folder = `${process.pid}-${crypto.randomUUID()}`;
  const tmpDir = path.join(tmpRoot, folder);
  fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });

  const exists = async (fileId: string) => (await pool.query('SELECT 1 FROM blobs WHERE file_id = $1', [fileId])).rowCount === 1;
  const readData = async (fileId: string): Promise<Buffer> => {
    const { rows } = await pool.query<{ data: Buffer }>('SELECT data FROM blobs WHERE file_id = $1', [fileId]);
    if (!rows.length) throw Object.assign(new Error(`ENOENT: no stored file ${fileId}`), { code: 'ENOENT' });
    return rows[0].data;
  };
  const tempPath = () => path.join(tmpDir, `${crypto.randomUUID()}.part`);

  return {
    tmpDir,
    tempPath,
    async removeTemp(paths) {
      await Promise.all(paths.map((p) => fsp.rm(p, { force: true })));
    },
    async put(moves) {
      if (!moves.length) return;
      // Read before the transaction: a missing temp file fails the put before any row is written.
      const datas: Buffer[] = [];
      for (const m of moves) datas.push(await fsp.readFile(m.tmpPath));
      await inTransaction(pool, async (client) => {
        for (let i = 0; i < moves.length; i++) {
          await client.query('INSERT INTO blobs (file_id, data) VALUES ($1, $2)', [moves[i].fileId, datas[i]]);
        }
      });
      // Committed: the temp files are no longer needed (as after the shared store's rename); their owner's
      // removeTemp, or the next start-up sweep, deletes any this misses.
      await Promise.all(moves.map((m) => fsp.rm(m.tmpPath, { force: true }).catch(() => {})));
    },
    exists,
    async withLocalFile(fileId, fn) {
      const data = await readData(fileId);
      const local = tempPath();
      try {
        await fsp.writeFile(local, data, { mode: 0o600, flag: 'wx' });
        return await fn(local);
      } finally {
        await fsp.rm(local, { force: true });
      }
    },
    async openRead(fileId) {
      return Readable.from([await readData(fileId)]);
    },
    async removeFiles(fileIds) {
      if (!fileIds.length) return;
      await pool.query('DELETE FROM blobs WHERE file_id = ANY($1::text[])', [fileIds]);
    },
    async readPreview(fileId) {
      const { rows } = await pool.query<{ preview: Buffer | null }>('SELECT preview FROM blobs WHERE file_id = $1', [fileId]);
      return rows[0]?.preview ?? null;
    },
    async putPreview(fileId, data) {
      // One statement: a file removed meanwhile (its job deleted on another node) gets no preview.
      await pool.query('UPDATE blobs SET preview = $2 WHERE file_id = $1', [fileId, data]);
    },
    async sweepLeftovers() {
      let tmp = 0;
      for (const name of await fsp.readdir(tmpRoot)) {
        const dir = path.join(tmpRoot, name);
        if (name === folder) {
          for (const f of await fsp.readdir(dir)) {
            await fsp.rm(path.join(dir, f), { force: true, recursive: true });
            tmp++;
          }
          continue;
        }
        const pid = Number(/^(\d+)-/.exec(name)?.[1]);
        // Another live process of this machine (an API node beside a worker): its uploads are in flight.
        if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
        tmp += (await fsp.readdir(dir).catch(() => [] as string[])).length;
        await fsp.rm(dir, { force: true, recursive: true });
      }
      // Rows are never swept here: no one node knows every job.
      return { tmp, orphans: 0 };
    },
    async close() {
      await fsp.rm(tmpDir, { force: true, recursive: true });
    },
  };
}
