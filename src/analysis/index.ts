// The analysis pipeline's public surface: the only module the core imports (sniff at upload, probe at submission,
// analyse in the queue's worker, close on worker shutdown).
import { closeModel } from './model-session.js';

export { sniff } from './sniff.js';
export { probeFile } from './probe.js';
export { analyseFile } from './analyse.js';
export { AnalysisError, SNIFF_BYTES, SIZE_LIMITS } from './contract.js';
export type { FileAnalysis, ProbeResult, Sniffed } from './contract.js';

/** Releases the ONNX session (the next analyseFile loads it again). */
export async function closeAnalysis(): Promise<void> {
  await closeModel();
}
