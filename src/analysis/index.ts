// The analysis pipeline's public surface: the only module the core imports (sniff at upload, probe at submission,
// analyse in the queue's worker, close on worker shutdown). Decoders and the ONNX runtime are loaded on first use,
// so a process that only sniffs (the HTTP server) never loads libvips, pdf.js or onnxruntime.
import type { MediaType, ProbeResult, Sniffed, FileAnalysis } from './contract.js';

export { sniff } from './sniff.js';
export { AnalysisError, SNIFF_BYTES, SIZE_LIMITS } from './contract.js';
export type { FileAnalysis, ProbeResult, Sniffed } from './contract.js';

/** The submission-time check (see probe.ts): { ok: false, code: 'unprocessable' } for files that cannot be analysed. */
export async function probeFile(path: string, sniffed: Sniffed, opts?: { signal?: AbortSignal }): Promise<ProbeResult> {
  const m = await import('./probe.js');
  return m.probeFile(path, sniffed, opts);
}

/** Full analysis of an accepted file (see analyse.ts); throws AnalysisError('result_unavailable' | 'internal_error'). */
export async function analyseFile(
  path: string,
  mediaType: MediaType,
  opts: { modelsDir: string; signal?: AbortSignal; threads?: number },
): Promise<FileAnalysis> {
  const m = await import('./analyse.js');
  return m.analyseFile(path, mediaType, opts);
}

/** Releases the ONNX session (the next analyseFile loads it again). */
export async function closeAnalysis(): Promise<void> {
  const m = await import('./model-session.js');
  await m.closeModel();
}
