// The body of an analysis worker process. Decoding, PDF parsing and inference run here, never on the event
// loop that answers HTTP; a crash or a hostile file takes down this process only, and the pool replaces it.
import { AnalysisError } from '../analysis/index.js';
import { analyseFile, closeAnalysis, previewFile, probeFile, scoreRegionTiles, warmUp } from '../analysis/index.js';
import type { WarmUp, WorkerRequest, WorkerResponse } from './worker-protocol.js';

let current: AbortController | null = null;

/**
 * Answers the pool. The pool's process can be gone (killed with SIGKILL while this one was busy): a send without a
 * callback then emits 'error' (write EPIPE, or the channel closed) on `process`, and with no listener that killed
 * this process with an uncaught exception and its stack on the shared stderr. With the callback the error is ours:
 * nobody is left to answer, so this process leaves the way it does when it sees the channel close ('disconnect').
 */
function send(msg: WorkerResponse): void {
  if (!process.send) return;
  if (!process.connected) return parentGone();
  process.send(msg, undefined, undefined, (err: Error | null) => {
    if (err) parentGone();
  });
}

function parentGone(): void {
  process.exit(0);
}

process.on('message', (msg: WorkerRequest) => {
  void handle(msg);
});

async function handle(msg: WorkerRequest): Promise<void> {
  if (msg.op === 'shutdown') {
    await closeAnalysis().catch(() => undefined);
    process.exit(0);
  }
  current = new AbortController();
  try {
    if (msg.op === 'probe') {
      const result = await probeFile(msg.path, msg.sniffed, { signal: current.signal });
      send({ id: msg.id, ok: true, result });
    } else if (msg.op === 'preview') {
      const result = await previewFile(msg.path, msg.mediaType, { maxSide: msg.maxSide, signal: current.signal });
      send({ id: msg.id, ok: true, result });
    } else if (msg.op === 'tiles') {
      const result = await scoreRegionTiles(msg.path, msg.mediaType, { modelsDir: msg.modelsDir, threads: msg.threads, origins: msg.origins, signal: current.signal });
      send({ id: msg.id, ok: true, result });
    } else {
      send({ id: msg.id, started: true });
      const result = await analyseFile(msg.path, msg.mediaType, {
        modelsDir: msg.modelsDir,
        threads: msg.threads,
        trustAnchorsFile: msg.trustAnchorsFile,
        signal: current.signal,
        onStage: (stage) => send({ id: msg.id, stage }),
      });
      send({ id: msg.id, ok: true, result });
    }
  } catch (err) {
    const code = err instanceof AnalysisError ? err.code : 'internal_error';
    const message = err instanceof Error ? err.message : String(err);
    send({ id: msg.id, ok: false, error: { code, message } });
  } finally {
    current = null;
  }
}

process.on('disconnect', parentGone);
send({ id: 0, ok: true, result: 'ready' });

// Started ahead of its first task (WorkerPool.start): it loads what that task would load first, and says when it is
// done. A task that arrives meanwhile is taken at once and waits only for what it needs (the same model load).
const warm = process.env.VERACITY_WARM;
if (warm) {
  void (async () => {
    try {
      const opts = JSON.parse(warm) as WarmUp;
      send({ id: 0, warm: { model: await warmUp(opts, () => current === null) } });
    } catch (err) {
      send({ id: 0, warm: { error: err instanceof Error ? err.message : String(err) } });
    }
  })();
}
