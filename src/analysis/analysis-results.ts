// What the analysis pipeline answers the core (src/jobs, through src/analysis/index.ts): the probe's verdict on a file
// at submission, a file's analysis, and the error of an analysis that failed. The spec's own rules (kinds, sizes)
// are in src/api; these are the pipeline's, which the v1 API never shows as such.
import type { Dimension, MediaType, PipelineKind, PixelSize, RegionGrid, Verdict } from '../api/schemas.js';
import type { Finding } from './finding.js';

/** Answer of the submission-time probe (fast; runs before any job exists). */
export type ProbeResult =
  | { ok: true; mediaType: MediaType; width?: number; height?: number; pages?: number }
  | { ok: false; code: 'unprocessable' | 'unsupported_format'; message: string };

/** What the analysis of one accepted file produces. */
export interface FileAnalysis {
  verdict: Verdict; // verdict.dimensions holds the dimensions (DECISIONS 2: the core also copies them beside verdict)
  regions: RegionGrid[]; // tile scores behind ai_detection (may be empty)
  modelVersion: string | null; // e.g. "veracity-npr@1.0.0"
  aggregation: string | null; // how tile scores became the file score, in words
  pixelSize: PixelSize | null; // the decoded image's size, orientation applied; null for PDFs
  /**
   * Every detector's findings, as data (codes, facts, weights). The core serves them only as each dimension's
   * `findings` (code and sentence, in `verdict.dimensions`); facts and weights stay internal.
   */
  findings: Finding[];
}

/** `unprocessable`: a preview of a file that gives no picture (an analysis never ends with it). */
export type AnalysisErrorCode = 'result_unavailable' | 'internal_error' | 'unprocessable';

/** Thrown (or returned across the worker boundary) when analysis of an accepted file fails. */
export class AnalysisError extends Error {
  constructor(
    public readonly code: AnalysisErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AnalysisError';
  }
}

export type { Dimension, MediaType, PipelineKind };
