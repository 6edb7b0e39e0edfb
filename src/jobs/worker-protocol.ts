// Messages between the core and its analysis worker processes.
import type { AnalysisErrorCode, FileAnalysis, ProbeResult } from '../analysis/index.js';
import type { Sniffed } from '../api/media-kinds.js';
import type { MediaType } from '../api/schemas.js';

export type WorkerRequest =
  | { id: number; op: 'probe'; path: string; sniffed: Sniffed }
  | { id: number; op: 'analyse'; path: string; mediaType: MediaType; modelsDir: string; threads: number }
  | { id: number; op: 'shutdown' };

export type WorkerResponse =
  /** Sent by the worker when it begins work on task `id` (analysis really starts: the attempt counts from here). */
  | { id: number; started: true }
  /** Sent by an analysis worker when the file is decoded and the detectors begin (per-file stage, issue #13). */
  | { id: number; stage: 'analysing' }
  | { id: number; ok: true; result: ProbeResult | FileAnalysis | 'ready' }
  | { id: number; ok: false; error: { code: AnalysisErrorCode; message: string } };
