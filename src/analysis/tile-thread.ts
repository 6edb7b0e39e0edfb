// A second runner of the artefact network, in a worker thread of its own (tile-worker.mjs). onnxruntime-node runs a
// network synchronously on the thread that calls it; an analysis process with one ONNX thread (each of the desktop's
// two) therefore ran a lone file's tiles on one core while the other waited. With this thread the tiles are shared
// between the two: the analysis thread takes batches when it is free (it runs the content models first), the thread
// from the start (ai-detection.ts scoreTiles). Same network file, same inputs, one batch at a time: the same scores
// (onnxruntime gives each tile the same output in any batch; tested). A thread that cannot start, or dies, leaves the
// tiles to the analysis thread: slower, the same scores. One that dies is started afresh for the files after it
// (lastingTileThread), a few times at most in the life of the analysis process.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { InferenceSession } from 'onnxruntime-node';

/** A batch for the thread: `count` normalised tiles, NCHW; with a claim slot where the batch may be taken back (TileClaim). */
export interface TileRequest {
  id: number;
  input: Float32Array;
  count: number;
  claim?: TileClaim;
}

/**
 * Who runs a batch handed to the thread ahead of time: `claims[index]` is 0 while nobody has begun it, and is set (by
 * compare-and-swap, Atomics) to CLAIMED_THERE by the thread as it begins it or to CLAIMED_HERE by the analysis thread
 * taking it back. The thread skips a batch taken back (TileBatchTakenBack), so each batch runs exactly once.
 */
export interface TileClaim {
  claims: Int32Array;
  index: number;
}
export const CLAIMED_THERE = 1;
export const CLAIMED_HERE = 2;
/** The thread's answer: ready (its network loaded), a batch's raw outputs, or an error in words (id null: at loading). */
export type TileReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; out: Float32Array }
  | { type: 'taken_back'; id: number }
  | { type: 'error'; id: number | null; message: string };

const BOOT = fileURLToPath(new URL('./tile-worker.mjs', import.meta.url));
/** A thread that has not loaded the network by then is given up: the analysis thread does the tiles. */
const READY_TIMEOUT_MS = 60_000;

export interface TileThread {
  /**
   * The network's raw outputs for `count` normalised tiles (NCHW); the input is handed over (detached). With a claim, the
   * batch is skipped (rejected with TileBatchTakenBack) if the analysis thread took it back before the thread began it.
   */
  run(input: Float32Array, count: number, claim?: TileClaim): Promise<Float32Array>;
  close(): void;
  /** Why the thread takes no more batches (it died, or was closed); null while it does. */
  gone?(): string | null;
}

/** How many times a tile thread that died is started afresh in the life of an analysis process. */
export const TILE_THREAD_RESTARTS = 3;

/** A tile thread that is started afresh after it dies (lastingTileThread). */
export interface LastingTileThread extends TileThread {
  /** Resolves once no fresh thread is being started (tests). */
  settled(): Promise<void>;
  /** How many fresh threads have been asked for so far. */
  restarts(): number;
}

/**
 * `first`, and after it dies (a crash, memory, a network that stopped loading), a fresh thread from `start`: asked for
 * as soon as a batch finds the thread gone (the batch in flight when it died, or the next one), and used once it is
 * ready; meanwhile, as for a thread that died, the analysis thread scores the tiles (the batch is refused with
 * TileThreadGone). At most `restarts` fresh threads, so that a thread that dies at every batch costs a few loads of
 * the network, not one per file. close() ends it for good.
 */
export function lastingTileThread(first: TileThread, start: () => Promise<TileThread | null>, restarts = TILE_THREAD_RESTARTS): LastingTileThread {
  let current: TileThread | null = first;
  let starting: Promise<void> | null = null;
  let asked = 0;
  let closed = false;
  const restartOnce = () => {
    if (closed || starting || asked >= restarts) return;
    asked++;
    starting = start()
      .catch(() => null)
      .then((fresh) => {
        starting = null;
        if (closed) fresh?.close();
        else current = fresh;
      });
  };
  return {
    run(input, count, claim) {
      if (closed) return Promise.reject(new TileThreadGone('the tile thread is closed'));
      const why = current ? (current.gone?.() ?? null) : 'could not be started again';
      if (why === null) {
        // a thread that dies with this batch in flight: a fresh one is asked for at once
        return current!.run(input, count, claim).catch((err: unknown) => {
          if (err instanceof TileThreadGone) restartOnce();
          throw err;
        });
      }
      restartOnce();
      return Promise.reject(new TileThreadGone(`the tile thread ${why}${starting ? ' (a fresh one is starting)' : ''}`));
    },
    close() {
      closed = true;
      current?.close();
    },
    gone: () => (closed ? 'is closed' : null),
    settled: async () => {
      while (starting) await starting;
    },
    restarts: () => asked,
  };
}

/** The thread is gone (it died, or was closed): its batch is to be run by the analysis thread. */
export class TileThreadGone extends Error {}

/** The analysis thread took the batch back before the tile thread began it (TileClaim): it is run there. */
export class TileBatchTakenBack extends Error {}

/** The network failed in the thread, in onnxruntime's words. */
export class TileRunFailure extends Error {}

/**
 * Starts the thread with the network's bytes (already checked against the manifest by the caller); null when no
 * thread can start here or the network does not load in it.
 */
export async function startTileThread(
  bytes: Uint8Array,
  /** The network's names and tile size, and the session options (model-session.ts sessionOptions; no arena is added). */
  spec: { inputName: string; outputName: string; tileSize: number; options: InferenceSession.SessionOptions },
  /** The thread's entry (tests name one that cannot start, or one that never gets ready). */
  boot = BOOT,
  /** How long (ms) the thread may take to load the network before it is given up. */
  readyWithinMs = READY_TIMEOUT_MS,
): Promise<TileThread | null> {
  const pending = new Map<number, { resolve: (out: Float32Array) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let gone: string | null = null;
  let closing = false;
  let worker: Worker;
  try {
    worker = new Worker(boot, { workerData: { bytes, ...spec } });
  } catch {
    return null;
  }
  worker.unref(); // an idle thread keeps no process alive (a batch in flight refs it)
  const ready = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => fail('did not load the network in time'), readyWithinMs);
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      resolve(ok);
    };
    const fail = (why: string) => {
      gone ??= why;
      settle(false);
      for (const p of pending.values()) p.reject(new TileThreadGone(`the tile thread ${why}`));
      pending.clear();
    };
    worker.on('message', (m: TileReply) => {
      if (m.type === 'ready') return settle(true);
      if (m.id === null) return fail(`could not load the network: ${m.type === 'error' ? m.message : ''}`);
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (pending.size === 0) {
        worker.unref();
        if (closing) void worker.terminate(); // closed while this batch ran: its thread goes now
      }
      if (m.type === 'result') p.resolve(m.out);
      else if (m.type === 'taken_back') p.reject(new TileBatchTakenBack('the batch was taken back'));
      else p.reject(new TileRunFailure(m.message));
    });
    worker.on('error', (err) => fail(`failed: ${err.message}`));
    worker.on('exit', (code) => fail(`stopped (exit code ${code})`));
  });
  if (!(await ready)) {
    void worker.terminate();
    return null;
  }
  return {
    run(input, count, claim) {
      if (gone) return Promise.reject(new TileThreadGone(`the tile thread ${gone}`));
      const id = ++nextId;
      return new Promise<Float32Array>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, input, count, claim } satisfies TileRequest, [input.buffer as ArrayBuffer]);
      });
    },
    close() {
      gone ??= 'is closed';
      // Not while a batch runs in it: a thread terminated inside onnxruntime's run can take the whole process down
      // (measured: the test process exited, 1 time in 5). A running batch finishes, then the thread goes.
      if (pending.size === 0) void worker.terminate();
      else closing = true;
    },
    gone: () => gone,
  };
}
