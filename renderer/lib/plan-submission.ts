// Turns the files a specialist dropped into the requests to send: routed by kind to the images or PDFs application,
// at most MAX_FILES_PER_REQUEST files per request (several requests of the same case), and the files that cannot be
// sent, with why. The limits and kinds are the core's own (src/api), so the window refuses exactly what it would.
import { formatLimit, MAX_FILE_BYTES, MAX_FILES_PER_REQUEST } from '../../src/api/limits.js';
import type { Sniffed } from '../../src/api/media-kinds.js';
import type { PipelineKind } from '../../src/api/schemas.js';

export interface CandidateFile<F> {
  file: F;
  name: string;
  size: number;
  /** The case this file belongs to: the dropped folder's name, or the case typed by the specialist. */
  caseName: string | null;
  sniffed: Sniffed | null;
}

export interface PlannedRequest<F> {
  kind: PipelineKind;
  caseName: string | null;
  files: CandidateFile<F>[];
  /** 1-based position among the requests of the same case and kind, and their count (for "part 2 of 3"). */
  part: number;
  parts: number;
}

export interface RefusedFile {
  name: string;
  reason: string;
}

export interface SubmissionPlan<F> {
  requests: PlannedRequest<F>[];
  refused: RefusedFile[];
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Why a file cannot be sent, or null when it can. */
export function refusalReason(candidate: Pick<CandidateFile<unknown>, 'size' | 'sniffed'>): string | null {
  if (candidate.size === 0) return 'The file is empty.';
  if (!candidate.sniffed) return 'Not a JPEG, PNG, HEIC/HEIF image or PDF document (judged from its content, not its name).';
  const limit = MAX_FILE_BYTES[candidate.sniffed.kind];
  if (candidate.size > limit) {
    const [one, many] = candidate.sniffed.kind === 'images' ? ['image', 'images'] : ['PDF', 'PDFs'];
    return `The ${one} is ${formatBytes(candidate.size)}; ${many} may be at most ${formatLimit(limit)}.`;
  }
  return null;
}

export function planSubmission<F>(candidates: CandidateFile<F>[]): SubmissionPlan<F> {
  const refused: RefusedFile[] = [];
  // Group by case then kind, keeping the order in which the files were dropped.
  const groups = new Map<string, { kind: PipelineKind; caseName: string | null; files: CandidateFile<F>[] }>();
  for (const candidate of candidates) {
    const reason = refusalReason(candidate);
    if (reason !== null || !candidate.sniffed) {
      refused.push({ name: candidate.name, reason: reason ?? 'Unknown kind.' });
      continue;
    }
    const key = JSON.stringify([candidate.caseName, candidate.sniffed.kind]);
    let group = groups.get(key);
    if (!group) {
      group = { kind: candidate.sniffed.kind, caseName: candidate.caseName, files: [] };
      groups.set(key, group);
    }
    group.files.push(candidate);
  }
  const requests: PlannedRequest<F>[] = [];
  for (const group of groups.values()) {
    const parts = Math.ceil(group.files.length / MAX_FILES_PER_REQUEST);
    for (let i = 0; i < parts; i++) {
      requests.push({
        kind: group.kind,
        caseName: group.caseName,
        files: group.files.slice(i * MAX_FILES_PER_REQUEST, (i + 1) * MAX_FILES_PER_REQUEST),
        part: i + 1,
        parts,
      });
    }
  }
  return { requests, refused };
}

/** The `metadata` part of a request: the case name (filterable in History) and which part of the case this is. */
export function requestMetadata(request: Pick<PlannedRequest<unknown>, 'caseName' | 'part' | 'parts'>): Record<string, unknown> | null {
  if (request.caseName === null) return request.parts > 1 ? { part: request.part, parts: request.parts } : null;
  const metadata: Record<string, unknown> = { case: request.caseName };
  if (request.parts > 1) Object.assign(metadata, { part: request.part, parts: request.parts });
  return metadata;
}

/** The file index named by an ApiError issue path such as `file.3`, or null. */
export function fileIndexFromPath(path: string | undefined): number | null {
  const match = /^file\.(\d+)$/.exec(path ?? '');
  return match ? Number(match[1]) : null;
}
