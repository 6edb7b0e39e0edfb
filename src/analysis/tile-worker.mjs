// The tile thread's body (tile-thread.ts), plain JavaScript so that the thread needs no TypeScript loader: its own
// onnxruntime session of the artefact network, from the bytes the analysis process checked against the manifest, with
// its session options (one intra-op thread) and no arena kept between batches. Each message is a batch of tiles
// already normalised (the analysis thread's loop makes them); the reply is the network's raw outputs, or the error in
// words (the messages' shapes: TileRequest and TileReply in tile-thread.ts).
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

const port = parentPort;
const { bytes, inputName, outputName, tileSize, options } = workerData;
const message = (err) => (err instanceof Error ? err.message : String(err));

let session;
try {
  // the analysis process's session options (one intra-op thread), without an arena kept between batches
  session = await ort.InferenceSession.create(bytes, { ...options, enableCpuMemArena: false });
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'error', id: null, message: message(err) });
  throw err;
}
port.on('message', (req) => {
  const fail = (err) => port.postMessage({ type: 'error', id: req.id, message: message(err) });
  // a batch handed over ahead of time that the analysis thread took back meanwhile (tile-thread.ts TileClaim): skipped
  // (0: nobody has begun it; 1: CLAIMED_THERE, this thread's)
  if (req.claim && Atomics.compareExchange(req.claim.claims, req.claim.index, 0, 1) !== 0) {
    port.postMessage({ type: 'taken_back', id: req.id });
    return;
  }
  let running;
  try {
    running = session.run({ [inputName]: new ort.Tensor('float32', req.input, [req.count, 3, tileSize, tileSize]) });
  } catch (err) {
    fail(err); // a batch the network cannot take fails that batch, not the thread
    return;
  }
  running.then((result) => {
    const out = Float32Array.from(result[outputName].data);
    port.postMessage({ type: 'result', id: req.id, out }, [out.buffer]);
  }, fail);
});
