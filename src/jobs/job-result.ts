// Maps stored jobs and files to the v1 wire shapes (DECISIONS 1-8), the single place that shapes a job result.
import type { FileResult, JobListEntry, JobResult } from '../api/schemas.js';
import crypto from 'node:crypto';
import type { FileRecord, JobRecord } from '../db/jobs-repository.js';

/**
 * The caller's metadata is echoed as the exact compact text they sent (integers beyond 2^53, duplicate keys, escapes
 * and key order included), which no JavaScript object can hold. The parsed object carries that text, and
 * serializeReply() writes the text in its place.
 */
const SOURCE_TEXT = Symbol('veracity.sourceText');

/** A job record as the repository gives it, with the stored metadata text when it provides that too. */
type JobWithText = JobRecord & { metadataJson?: string | null };

/** The texts met by the serializeReply() call under way (JSON.stringify is synchronous: one call at a time). */
let pending: { nonce: string; texts: string[] } | null = null;

/**
 * JSON.stringify calls this (natively: no replacer walks the rest of the reply). Inside serializeReply() the object
 * becomes a placeholder for its text; anywhere else it is written as the parsed object it also is.
 */
function sourceTextToJSON(this: { [SOURCE_TEXT]: string }): unknown {
  if (pending === null) return { ...this };
  if (pending.nonce === '') pending.nonce = crypto.randomBytes(12).toString('hex'); // only replies that carry a text pay for it
  pending.texts.push(this[SOURCE_TEXT]);
  return `${pending.nonce}:${pending.texts.length - 1}`;
}

function withSourceText(value: Record<string, unknown>, text: string | null | undefined): Record<string, unknown> {
  if (typeof text !== 'string') return value;
  const out = { ...value };
  Object.defineProperty(out, SOURCE_TEXT, { value: text, enumerable: false });
  Object.defineProperty(out, 'toJSON', { value: sourceTextToJSON, enumerable: false });
  return out;
}

/** JSON of a reply body in which every object carrying its source text is written as that text, verbatim. */
export function serializeReply(payload: unknown): string {
  // A placeholder no caller-supplied string can forge: the nonce is made for this call and never sent.
  const call = { nonce: '', texts: [] as string[] };
  let json: string;
  try {
    pending = call;
    json = JSON.stringify(payload);
  } finally {
    pending = null;
  }
  if (call.texts.length === 0) return json;
  return json.replace(new RegExp(`"${call.nonce}:(\\d+)"`, 'g'), (_m, i: string) => call.texts[Number(i)]);
}

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
    if (f.pixelSize) out.pixelSize = f.pixelSize;
  }
  if (f.status === 'error') out.error = { code: (f.errorCode ?? 'internal_error') as 'internal_error', message: f.errorMessage ?? 'Analysis failed.' };
  if (f.review) out.expertReview = f.review;
  return out;
}

export function toJobResult(job: JobWithText, files: FileRecord[]): JobResult {
  const out: JobResult = {
    jobId: job.id,
    status: job.status,
    results: files.map(toFileResult),
    createdAt: job.createdAt,
  };
  if ((job.status === 'error' || job.status === 'rejected') && job.errorCode) {
    out.error = { code: job.errorCode as 'internal_error', message: job.errorMessage ?? '' };
  }
  if (job.metadata !== null) out.metadata = withSourceText(job.metadata, job.metadataJson);
  if (job.status !== 'processing' && job.completedAt) out.completedAt = job.completedAt;
  return out;
}

export function toJobListEntry(job: JobWithText): JobListEntry {
  const metadata = job.metadata === null ? {} : withSourceText(job.metadata, job.metadataJson);
  return { id: job.id, applicationId: job.applicationId, metadata, createdAt: job.createdAt, updatedAt: job.updatedAt };
}
