// The uploaded files of a team server (src/db/stores.ts BlobStore) on a directory every node mounts (NFS, a shared
// volume): files/<fileId> and files/<fileId>.preview, written by rename from tmp/ on the same file system. Each
// process streams uploads into a temp folder of its own, tmp/<node id>/, named by its row in the node registry
// (src/db/pg/node-registry.ts, written before the folder is made). A folder whose node is no longer registered (it
// died and was reaped, by any node, within seconds of its last heartbeat) is removed by the sweep every node runs at
// start and then every few seconds; never a live node's uploads and never a stored file: with many nodes, no one node
// knows every job. A folder with a `.alive` file is an older version's, judged by that file's age as before.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore } from '../stores.js';

const PREVIEW_SUFFIX = '.preview';
const HEARTBEAT = '.alive';

export interface SharedBlobStoreOptions {
  /** This node's id in the node registry: its temp folder's name (default: a fresh uuid, for a store on its own). */
  nodeId?: string;
  /**
   * The ids of the nodes registered now (src/db/pg/node-registry.ts): a temp folder of no registered node belongs to
   * a dead one. None: only folders with an old heartbeat file are judged (a store used on its own).
   */
  registeredNodes?: () => Promise<Set<string>>;
  /** A folder of an older version (with a `.alive` heartbeat file, touched every 30 s) is dead past this age. */
  staleAfterMs?: number;
}

export interface SharedBlobStore extends BlobStore {
  /** This process's temp folder. */
  readonly tmpDir: string;
  /**
   * Removes the temp folders of nodes that are gone (not registered, or an older version's whose heartbeat file is
   * stale), never this node's own; returns how many leftover files went with them.
   */
  sweepDeadNodes(): Promise<number>;
  /** Makes this node's temp folder again if it is gone (this node was judged dead and its folder swept). */
  reclaim(): Promise<void>;
  /** Removes this process's temp folder. */
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
  const staleAfterMs = opts.staleAfterMs ?? 5 * 60_000;
  const filesDir = path.join(root, 'files');
  const tmpRoot = path.join(root, 'tmp');
  const nodeId = opts.nodeId ?? crypto.randomUUID();
  const tmpDir = path.join(tmpRoot, nodeId);
  fs.mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });

  /** Removes the folders of other nodes that are gone; counts the files in them. */
  async function sweepDeadNodes(): Promise<number> {
    // Listed before the registry is read: a node registers before it makes its folder, so every folder listed here
    // of a live node has its row by the time the registry is read.
    const names = (await fsp.readdir(tmpRoot)).filter((n) => n !== nodeId);
    if (!names.length) return 0;
    const registered = opts.registeredNodes ? await opts.registeredNodes() : null;
    const now = Date.now();
    let tmp = 0;
    for (const name of names) {
      if (registered?.has(name)) continue;
      const dir = path.join(tmpRoot, name);
      let last: number | null = null;
      try {
        last = (await fsp.stat(path.join(dir, HEARTBEAT))).mtimeMs;
      } catch (err) {
        if (!gone(err)) continue;
      }
      if (last === null && !registered) {
        // No registry to ask and no heartbeat file: a folder being made right now, or one of a node that died making
        // it; judge it by its own age.
        try {
          last = (await fsp.stat(dir)).mtimeMs;
        } catch {
          continue;
        }
      }
      // An older version's node beats its `.alive` file: dead only once that stopped long ago.
      if (last !== null && now - last < staleAfterMs) continue;
      for (const f of await fsp.readdir(dir).catch(() => [] as string[])) if (f !== HEARTBEAT) tmp++;
      await fsp.rm(dir, { force: true, recursive: true });
    }
    return tmp;
  }

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
    /** Previews are local files here too (the shared directory is mounted on this node): the report process reads them. */
    previewFile: previewOf,
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
      // This node's own folder is new (a fresh id per start), so its leftovers are those of the nodes that died.
      let tmp = 0;
      for (const name of await fsp.readdir(tmpDir)) {
        await fsp.rm(path.join(tmpDir, name), { force: true, recursive: true });
        tmp++;
      }
      tmp += await sweepDeadNodes();
      // Stored files are never swept here: the desktop's orphan sweep assumes one node knows every job.
      return { tmp, orphans: 0 };
    },
    sweepDeadNodes,
    async reclaim() {
      await fsp.mkdir(tmpDir, { recursive: true, mode: 0o700 });
    },
    async close() {
      await fsp.rm(tmpDir, { force: true, recursive: true });
    },
  };
}
