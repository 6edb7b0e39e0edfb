// Messages between the core and its analysis worker processes.
import type { AnalysisErrorCode, FileAnalysis, PreviewImage, ProbeResult } from '../analysis/index.js';
import type { Sniffed } from '../api/media-kinds.js';
import type { MediaType } from '../api/schemas.js';

export type WorkerRequest =
  | { id: number; op: 'probe'; path: string; sniffed: Sniffed }
  | { id: number; op: 'analyse'; path: string; mediaType: MediaType; modelsDir: string; threads: number; trustAnchorsFile?: string | null }
  /** A PNG/JPEG picture of a stored file, made here so that no hostile original is decoded by the HTTP process. */
  | { id: number; op: 'preview'; path: string; mediaType: MediaType; maxSide: number }
  /** The viewer's regions: P(AI) of these tiles of a stored image, with the analysis' model (src/analysis/region-tiles.ts). */
  | { id: number; op: 'tiles'; path: string; mediaType: MediaType; modelsDir: string; threads: number; origins: Array<[number, number]> }
  | { id: number; op: 'shutdown' };

export type WorkerResponse =
  /** Sent by the worker when it begins work on task `id` (analysis really starts: the attempt counts from here). */
  | { id: number; started: true }
  /** Sent by an analysis worker when the file is decoded and the detectors begin (per-file stage, issue #13). */
  | { id: number; stage: 'analysing' }
  | { id: number; ok: true; result: ProbeResult | FileAnalysis | PreviewImage | number[] | 'ready' }
  | { id: number; ok: false; error: { code: AnalysisErrorCode; message: string } }
  /**
   * Sent once by a worker started with a warm-up (WorkerPoolOptions.warm), when it is done: the model it loaded (null
   * for a probe process), or why it could not (the model missing or refused: each file then says so, as without it).
   */
  | { id: 0; warm: { model: string | null } | { error: string } };

/** What a worker is told to get ready before its first task (the VERACITY_WARM variable of its environment, as JSON). */
export interface WarmUp {
  /** The analysis' model: loaded, with a made-up picture analysed end to end. Absent: the probe's modules and pdf.js only. */
  modelsDir?: string;
  threads?: number;
}
