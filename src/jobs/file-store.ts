// Where uploaded files live: streamed into tmp/ (paths handed out by the intake, src/jobs/intake.ts, which deletes
// them), flushed, then renamed into files/<fileId> just before the job is committed (DECISIONS 30). A start-up sweep
// removes whatever a crash left between those steps.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

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
    async commit(moves: { tmpPath: string; fileId: string }[]): Promise<void> {
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
    async remove(paths: string[]): Promise<void> {
      await Promise.all(paths.map((p) => fsp.rm(p, { force: true })));
    },
    async removeFiles(fileIds: string[]): Promise<void> {
      await Promise.all(fileIds.flatMap((id) => [id, `${id}${PREVIEW_SUFFIX}`].map((name) => fsp.rm(path.join(filesDir, name), { force: true }))));
    },
    exists(fileId: string): boolean {
      return fs.existsSync(path.join(filesDir, fileId));
    },
    /** Start-up sweep: empty tmp/ and delete stored files no job row references. Returns what it removed. */
    sweep(knownFileIds: Set<string>): { tmp: number; orphans: number } {
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
    },
  };
}
export type FileStore = ReturnType<typeof createFileStore>;
