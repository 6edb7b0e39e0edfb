// Where uploaded files live: streamed into tmp/ (paths handed out by the intake, src/jobs/intake.ts, which deletes
// them), flushed, then renamed into files/<fileId> just before the job is committed (DECISIONS 30). A start-up sweep
// removes whatever a crash left between those steps. The desktop's BlobStore (src/db/stores.ts): one node, one data dir.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../db/stores.js';

/** Suffix of a stored file's preview (a file id is a UUID: no stored file ends with it). */
const PREVIEW_SUFFIX = '.preview';

export function createFileStore(dataDir: string) {
  const filesDir = path.join(dataDir, 'files');
  const tmpDir = path.join(dataDir, 'tmp');
  fs.mkdirSync(filesDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });

  async function fsyncDir(dir: string): Promise<void> {
    if (process.platform === 'win32') return; // directories cannot be opened for fsync on Windows
    const fh = await fsp.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  }

  /** Start-up sweep: empty tmp/ and delete stored files no job row references. Returns what it removed. */
  function sweep(knownFileIds: Set<string>): { tmp: number; orphans: number } {
    let tmp = 0;
    let orphans = 0;
    for (const name of fs.readdirSync(tmpDir)) {
      fs.rmSync(path.join(tmpDir, name), { force: true, recursive: true });
      tmp++;
    }
    for (const name of fs.readdirSync(filesDir)) {
      // A preview goes with its file: kept while the file is, removed with it.
      const owner = name.endsWith(PREVIEW_SUFFIX) ? name.slice(0, -PREVIEW_SUFFIX.length) : name;
      if (!knownFileIds.has(owner)) {
        fs.rmSync(path.join(filesDir, name), { force: true, recursive: true });
        orphans++;
      }
    }
    return { tmp, orphans };
  }

  return {
    filesDir,
    tmpDir,
    /** A fresh temporary path (server-generated name: the client's file name never touches the disk). */
    tempPath(): string {
      return path.join(tmpDir, `${crypto.randomUUID()}.part`);
    },
    pathOf(fileId: string): string {
      return path.join(filesDir, fileId);
    },
    /** The picture the core made of a stored file (src/jobs/job-service.ts filePreview), kept beside it. */
    previewPathOf(fileId: string): string {
      return path.join(filesDir, `${fileId}${PREVIEW_SUFFIX}`);
    },
    /**
     * Moves fully written and flushed temp files into place and makes the renames durable, all or none: when one
     * step fails, the files already moved go back to their temp paths (for the intake to delete) and it throws.
     */
    async put(moves: { tmpPath: string; fileId: string }[]): Promise<void> {
      const moved: { tmpPath: string; fileId: string }[] = [];
      try {
        for (const m of moves) {
          await fsp.rename(m.tmpPath, path.join(filesDir, m.fileId));
          moved.push(m);
        }
        if (moves.length) await fsyncDir(filesDir);
      } catch (err) {
        // A file that cannot be moved back either is removed by the start-up sweep (no job row names it).
        for (const m of moved.reverse()) await fsp.rename(path.join(filesDir, m.fileId), m.tmpPath).catch(() => {});
        throw err;
      }
    },
    async removeTemp(paths: string[]): Promise<void> {
      await Promise.all(paths.map((p) => fsp.rm(p, { force: true })));
    },
    async removeFiles(fileIds: string[]): Promise<void> {
      await Promise.all(fileIds.flatMap((id) => [id, `${id}${PREVIEW_SUFFIX}`].map((name) => fsp.rm(path.join(filesDir, name), { force: true }))));
    },
    async exists(fileId: string): Promise<boolean> {
      return fsp.access(path.join(filesDir, fileId)).then(
        () => true,
        () => false,
      );
    },
    /** A stored file is a local file here: its own path. */
    async withLocalFile<T>(fileId: string, fn: (p: string) => Promise<T>): Promise<T> {
      return fn(path.join(filesDir, fileId));
    },
    async openRead(fileId: string): Promise<Readable> {
      const fh = await fsp.open(path.join(filesDir, fileId), 'r');
      return fh.createReadStream();
    },
    async readPreview(fileId: string): Promise<Buffer | null> {
      try {
        return await fsp.readFile(path.join(filesDir, `${fileId}${PREVIEW_SUFFIX}`));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    previewFile(fileId: string): string {
      return path.join(filesDir, `${fileId}${PREVIEW_SUFFIX}`);
    },
    /** Written whole under a temporary name, then renamed beside its file: a reader never sees half a picture. */
    async putPreview(fileId: string, data: Buffer): Promise<void> {
      const tmp = path.join(tmpDir, `${crypto.randomUUID()}.part`);
      try {
        await fsp.writeFile(tmp, data, { mode: 0o600, flag: 'wx' });
        if (fs.existsSync(path.join(filesDir, fileId))) await fsp.rename(tmp, path.join(filesDir, `${fileId}${PREVIEW_SUFFIX}`));
      } finally {
        await fsp.rm(tmp, { force: true });
      }
    },
    /** The desktop owns its data dir alone: its start-up sweep removes every temp file and every orphan. */
    async sweepLeftovers(knownFileIds: () => Promise<Set<string>>): Promise<{ tmp: number; orphans: number }> {
      return sweep(await knownFileIds());
    },
    sweep,
  };
}
export type FileStore = ReturnType<typeof createFileStore>;
// The desktop's file store is a BlobStore (checked here, where a drift would be noticed first).
export const asBlobStore = (store: FileStore): BlobStore => store;
