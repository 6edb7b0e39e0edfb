// Table rows as both databases return them, and their mapping to the domain records, written once for the desktop's
// SQLite repositories and the team server's PostgreSQL stores (the same columns under the same names). The one
// difference is how a JSON column arrives: SQLite gives its text, PostgreSQL's json type an already parsed value,
// so a reader passes its `JsonColumn`.
import type { CaseStatus } from '../api/app-schemas.js';
import type { ExpertReview, JobStatus, MediaType, PipelineKind, Verdict, VerdictAssessment } from '../api/schemas.js';
import type { ApiKeyRecord, Application } from './applications-repository.js';
import type { CaseRecord, HistoryRecord } from './cases-repository.js';
import type { FileRecord, FileStatus, JobRecord } from './jobs-repository.js';

export interface JobRow {
  id: string;
  application_id: string;
  /** The caller's compact metadata text, kept as text on both databases (echoed verbatim). */
  metadata: string | null;
  case_name: string | null;
  status: string;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface FileRow {
  id: string;
  job_id: string;
  position: number;
  name: string;
  /** PostgreSQL's bigint arrives as text. */
  size: number | string;
  media_type: string;
  sha256: string;
  status: string;
  attempts: number;
  started_at: string;
  completed_at: string | null;
  verdict: unknown;
  model_version: string | null;
  aggregation: string | null;
  error_code: string | null;
  error_message: string | null;
  review: unknown;
  pixel_width: number | null;
  pixel_height: number | null;
}

export interface CaseRow {
  id: string;
  name: string;
  notes: string;
  status: string;
  created_at: string;
  updated_at: string;
  job_count: number;
  file_count: number;
  ai_generated: number;
  authentic: number;
  inconclusive: number;
  processing: number;
  error: number;
  eff_ai_generated: number;
  eff_authentic: number;
  eff_inconclusive: number;
  eff_processing: number;
  eff_error: number;
  reviewed: number;
}

/** One file of a History search: the file, its job, its application's kind and its case. */
export interface HistoryRow {
  job_id: string;
  file_id: string;
  application_id: string;
  kind: string;
  case_id: string | null;
  case_name: string | null;
  name: string;
  /** PostgreSQL's bigint arrives as text. */
  size: number | string;
  media_type: string;
  sha256: string;
  status: string;
  assessment: string | null;
  review_assessment: string | null;
  created_at: string;
}

export interface AppRow {
  id: string;
  name: string;
  kind: string;
  created_at: string;
}

export interface KeyRow {
  id: string;
  application_id: string;
  name: string;
  token_sha256: string;
  token_hint: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** How a JSON column's value arrives from the database. */
export type JsonColumn = <T>(value: unknown) => T | null;
/** SQLite: JSON kept as text. */
export const jsonText: JsonColumn = <T>(value: unknown) => (value === null || value === undefined ? null : (JSON.parse(value as string) as T));
/** PostgreSQL's json type: parsed by the driver. */
export const jsonValue: JsonColumn = <T>(value: unknown) => (value ?? null) as T | null;

export const toJob = (r: JobRow): JobRecord => ({
  id: r.id,
  applicationId: r.application_id,
  metadata: jsonText<Record<string, unknown>>(r.metadata),
  metadataJson: r.metadata,
  caseName: r.case_name,
  status: r.status as JobStatus,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  completedAt: r.completed_at,
});

export const toFile = (r: FileRow, json: JsonColumn): FileRecord => ({
  id: r.id,
  jobId: r.job_id,
  position: r.position,
  name: r.name,
  size: Number(r.size),
  mediaType: r.media_type as MediaType,
  sha256: r.sha256,
  status: r.status as FileStatus,
  attempts: r.attempts,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  verdict: json<Verdict>(r.verdict),
  modelVersion: r.model_version,
  aggregation: r.aggregation,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  review: json<ExpertReview>(r.review),
  pixelSize: r.pixel_width !== null && r.pixel_height !== null ? { width: r.pixel_width, height: r.pixel_height } : null,
});

export const toCase = (r: CaseRow): CaseRecord => ({
  id: r.id,
  name: r.name,
  notes: r.notes,
  status: r.status as CaseStatus,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  jobCount: r.job_count,
  fileCount: r.file_count,
  counts: { ai_generated: r.ai_generated, authentic: r.authentic, inconclusive: r.inconclusive, processing: r.processing, error: r.error },
  effectiveCounts: {
    ai_generated: r.eff_ai_generated,
    authentic: r.eff_authentic,
    inconclusive: r.eff_inconclusive,
    processing: r.eff_processing,
    error: r.eff_error,
  },
  reviewed: r.reviewed,
});

export const toHistory = (r: HistoryRow): HistoryRecord => ({
  jobId: r.job_id,
  fileId: r.file_id,
  applicationId: r.application_id,
  kind: r.kind as PipelineKind,
  caseId: r.case_id,
  caseName: r.case_name,
  name: r.name,
  size: Number(r.size),
  mediaType: r.media_type as MediaType,
  sha256: r.sha256,
  status: r.status as HistoryRecord['status'],
  assessment: r.assessment as VerdictAssessment | null,
  reviewAssessment: r.review_assessment as VerdictAssessment | null,
  createdAt: r.created_at,
});

export const toApp = (r: AppRow): Application => ({ id: r.id, name: r.name, kind: r.kind as PipelineKind, createdAt: r.created_at });

export const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  applicationId: r.application_id,
  name: r.name,
  tokenSha256: r.token_sha256,
  hint: r.token_hint,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});
