// The face finder's worker thread (face-finder-thread.ts): OpenCV's WebAssembly runtime and the cascade live here, off
// the analysis process's main thread, where onnxruntime runs the networks synchronously. Each message is one grey
// picture (greyForFaces, made on the main thread) and which looks to make; the reply is the reading, or the error in
// words and code.
import { parentPort, workerData } from 'node:worker_threads';
import { AnalysisError } from './analysis-results.js';
import { type FaceFinder, type FaceFinderLimits, type FaceFinderParams, type Grey, type LookPart, loadFaceFinder } from './face-finder.js';

export interface FinderRequest {
  id: number;
  grey: { width: number; height: number; data: Uint8Array };
  part: LookPart;
}
export type FinderReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; reading: Awaited<ReturnType<FaceFinder['findGrey']>> }
  | { type: 'error'; id: number | null; code: AnalysisError['code']; message: string };

const port = parentPort!;
const { xml, params, limits } = workerData as { xml: Uint8Array; params: FaceFinderParams; limits?: Partial<FaceFinderLimits> };
const failure = (id: number | null, err: unknown): FinderReply => ({
  type: 'error',
  id,
  code: err instanceof AnalysisError ? err.code : 'internal_error',
  message: err instanceof Error ? err.message : String(err),
});

let finder: FaceFinder;
try {
  finder = await loadFaceFinder(Buffer.from(xml), params, limits);
  port.postMessage({ type: 'ready' } satisfies FinderReply);
} catch (err) {
  port.postMessage(failure(null, err));
  throw err;
}
port.on('message', (req: FinderRequest) => {
  const grey: Grey = { width: req.grey.width, height: req.grey.height, data: Buffer.from(req.grey.data.buffer, req.grey.data.byteOffset, req.grey.data.length) };
  finder.findGrey(grey, undefined, req.part).then(
    (reading) => port.postMessage({ type: 'result', id: req.id, reading } satisfies FinderReply),
    (err: unknown) => port.postMessage(failure(req.id, err)),
  );
});
