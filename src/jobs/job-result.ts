// Maps stored jobs and files to the v1 wire shapes (DECISIONS 1-8), the single place that shapes a job result.
import type { FileResult, JobListEntry, JobResult } from '../api/schemas.js';
import type { FileRecord, JobRecord } from '../db/jobs-repository.js';

export function toFileResult(f: FileRecord): FileResult {
  const out: FileResult = {
    file: { id: f.id, name: f.name, size: f.size, type: f.mediaType },
    status: f.status,
    startedAt: f.startedAt,
    completedAt: f.status === 'processing' ? null : f.completedAt,
  };
  if (f.status === 'completed' && f.verdict) {
    out.verdict = f.verdict;
    out.dimensions = f.verdict.dimensions;
  }
  if (f.status === 'error') out.error = { code: (f.errorCode ?? 'internal_error') as 'internal_error', message: f.errorMessage ?? 'Analysis failed.' };
  if (f.review) out.expertReview = f.review;
  return out;
}

export function toJobResult(job: JobRecord, files: FileRecord[]): JobResult {
  const out: JobResult = {
    jobId: job.id,
    status: job.status,
    results: files.map(toFileResult),
    createdAt: job.createdAt,
  };
  if ((job.status === 'error' || job.status === 'rejected') && job.errorCode) {
    out.error = { code: job.errorCode as 'internal_error', message: job.errorMessage ?? '' };
  }
  if (job.metadata !== null) out.metadata = job.metadata;
  if (job.status !== 'processing' && job.completedAt) out.completedAt = job.completedAt;
  return out;
}

export function toJobListEntry(job: JobRecord): JobListEntry {
  return { id: job.id, applicationId: job.applicationId, metadata: job.metadata ?? {}, createdAt: job.createdAt, updatedAt: job.updatedAt };
}
