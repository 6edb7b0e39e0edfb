// The one owner of every temporary upload file, from its first byte to its commit into the store or its deletion.
// The server streams each file into a path the intake hands out; the job service commits (moves) the files of a job
// it records; whatever is still a temporary file when the request ends (refused, replayed, failed, cut off) is
// deleted here, on this one path. A crash between those steps is the start-up sweep's (BlobStore.sweepLeftovers).
import type { ProbeResult } from '../analysis/index.js';
import type { Sniffed } from '../api/media-kinds.js';
import type { BlobStore } from '../db/stores.js';

export type { BlobStore };
import { WorkerTaskError, type WorkerPool } from './worker-pool.js';

export interface Intake {
  /** A fresh temporary path (a server-made name) that this intake deletes unless it is committed first. */
  tempPath(): string;
}

/** Runs one upload (receive, then submit) and deletes every temporary file it made that was not committed. */
export async function withIntake<T>(store: BlobStore, use: (intake: Intake) => Promise<T>): Promise<T> {
  const made: string[] = [];
  try {
    return await use({
      tempPath: () => {
        const tmpPath = store.tempPath();
        made.push(tmpPath);
        return tmpPath;
      },
    });
  } finally {
    // A committed file was moved away from its temporary path: removing that path is then a no-op.
    await store.removeTemp(made);
  }
}

/**
 * The submission probe of one received file (DECISIONS 21), in a probe worker process: a file that makes the probe
 * time out, crash or exceed its memory cap cannot be analysed safely, so it is unprocessable like any other refusal.
 */
export async function probeUpload(pool: WorkerPool, tmpPath: string, sniffed: Sniffed, timeoutMs: number, name: string): Promise<ProbeResult> {
  try {
    return await pool.run<ProbeResult>({ op: 'probe', path: tmpPath, sniffed }, timeoutMs);
  } catch (err) {
    if (err instanceof WorkerTaskError && (err.reason === 'timeout' || err.reason === 'crashed' || err.reason === 'memory')) {
      return { ok: false, code: 'unprocessable', message: `File "${name}" cannot be analysed: ${err.message}` };
    }
    throw err;
  }
}
