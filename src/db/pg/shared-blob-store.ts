// The uploaded files of a team server (src/db/stores.ts BlobStore) on a directory every node mounts (NFS, a shared
// volume): files/<fileId> and files/<fileId>.preview, written by rename from tmp/ on the same file system. Each
// process streams uploads into a temp folder of its own, tmp/<random node id>/, and touches a heartbeat file there;
// the start-up sweep removes only its own leftovers and folders whose heartbeat stopped long ago (a node that died),
// never a live node's uploads and never a stored file: with many nodes, no one node knows every job.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore } from '../stores.js';

const PREVIEW_SUFFIX = '.preview';
const HEARTBEAT = '.alive';

export interface SharedBlobStoreOptions {
  /** How often this node touches its heartbeat. */
  heartbeatMs?: number;
  /** A temp folder whose heartbeat is older than this belongs to a dead node. Keep it well above heartbeatMs. */
  staleAfterMs?: number;
}

export interface SharedBlobStore extends BlobStore {
  /** This process's temp folder. */
  readonly tmpDir: string;
  /** Stops the heartbeat and removes this process's temp folder. */
  close(): Promise<void>;
}

async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const fh = await fsp.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const gone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

export function createSharedBlobStore(root: string, opts: SharedBlobStoreOptions = {}): SharedBlobStore {
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const staleAfterMs = opts.staleAfterMs ?? 30 * 60_000;
  const filesDir = path.join(root, 'files');
  const tmpRoot = path.join(root, 'tmp');
  const nodeId = crypto.randomUUID();
  const tmpDir = path.join(tmpRoot, nodeId);
  fs.mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  const heartbeatFile = path.join(tmpDir, HEARTBEAT);
  fs.writeFileSync(heartbeatFile, '', { mode: 0o600 });
  const beat = setInterval(() => {
    const now = new Date();
    fsp.utimes(heartbeatFile, now, now).catch(() => {});
  }, heartbeatMs);
  beat.unref();

  const fileOf = (id: string) => path.join(filesDir, id);
  const previewOf = (id: string) => path.join(filesDir, `${id}${PREVIEW_SUFFIX}`);

  return {
    tmpDir,
    tempPath() {
      return path.join(tmpDir, `${crypto.randomUUID()}.part`);
    },
    async removeTemp(paths) {
      await Promise.all(paths.map((p) => fsp.rm(p, { force: true })));
    },
    async put(moves) {
      const moved: typeof moves = [];
      try {
        for (const m of moves) {
          await fsp.rename(m.tmpPath, fileOf(m.fileId));
          moved.push(m);
        }
        if (moves.length) await fsyncDir(filesDir);
      } catch (err) {
        for (const m of moved.reverse()) await fsp.rename(fileOf(m.fileId), m.tmpPath).catch(() => {});
        throw err;
      }
    },
    async exists(fileId) {
      try {
        await fsp.access(fileOf(fileId));
        return true;
      } catch {
        return false;
      }
    },
    async withLocalFile(fileId, fn) {
      return fn(fileOf(fileId));
    },
    async openRead(fileId) {
      const fh = await fsp.open(fileOf(fileId), 'r');
      return fh.createReadStream();
    },
    async removeFiles(fileIds) {
      await Promise.all(fileIds.flatMap((id) => [fileOf(id), previewOf(id)].map((p) => fsp.rm(p, { force: true }))));
    },
    async readPreview(fileId) {
      try {
        return await fsp.readFile(previewOf(fileId));
      } catch (err) {
        if (gone(err)) return null;
        throw err;
      }
    },
    async putPreview(fileId, data) {
      if (!(await this.exists(fileId))) return;
      const tmp = this.tempPath();
      try {
        // The uploader's own, like the stored originals beside it: 0600 whatever the umask.
        await fsp.writeFile(tmp, data, { mode: 0o600, flag: 'wx', flush: true });
        await fsp.rename(tmp, previewOf(fileId));
      } finally {
        await fsp.rm(tmp, { force: true });
      }
      // Removed meanwhile (its job was deleted on another node): the preview goes with it.
      if (!(await this.exists(fileId))) await fsp.rm(previewOf(fileId), { force: true });
    },
    async sweepLeftovers() {
      let tmp = 0;
      for (const name of await fsp.readdir(tmpDir)) {
        if (name === HEARTBEAT) continue;
        await fsp.rm(path.join(tmpDir, name), { force: true, recursive: true });
        tmp++;
      }
      const now = Date.now();
      for (const name of await fsp.readdir(tmpRoot)) {
        if (name === nodeId) continue;
        const dir = path.join(tmpRoot, name);
        let last: number;
        try {
          last = (await fsp.stat(path.join(dir, HEARTBEAT))).mtimeMs;
        } catch (err) {
          if (!gone(err)) continue;
          // No heartbeat: a folder being made right now, or one of a node that died making it; judge it by its own age.
          try {
            last = (await fsp.stat(dir)).mtimeMs;
          } catch {
            continue;
          }
        }
        if (now - last < staleAfterMs) continue;
        for (const f of await fsp.readdir(dir).catch(() => [] as string[])) if (f !== HEARTBEAT) tmp++;
        await fsp.rm(dir, { force: true, recursive: true });
      }
      // Stored files are never swept here: the desktop's orphan sweep assumes one node knows every job.
      return { tmp, orphans: 0 };
    },
    async close() {
      clearInterval(beat);
      await fsp.rm(tmpDir, { force: true, recursive: true });
    },
  };
}
