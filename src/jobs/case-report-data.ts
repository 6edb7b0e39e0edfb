// The case report's data, assembled from a store's rows: one function for the core's own store (tests, a core without a
// database the report process can open) and for the report process, which reads the rows through a connection of its
// own (report-process.ts), so that a 200-file
// case is read, checked and hashed off the event loop that answers polls and gives the same report wherever it is
// assembled.
import fs from 'node:fs';
import path from 'node:path';
import type { CaseStatus } from '../api/app-schemas.js';
import type { CaseReport, JobResult } from '../api/schemas.js';
import { REPO_ROOT } from '../config/config.js';
import type { JobRows } from '../db/stores.js';

export const APP_VERSION = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** What the report is of: the case as it is named (or one job's case name), and the jobs it spans. */
export interface CaseReportScope {
  of: { caseId: string | null; caseName: string | null; caseStatus?: CaseStatus | null; caseNotes?: string | null };
  jobIds: string[];
  /** Files of those jobs that were removed from the case: not in its report. */
  leaveOut: string[];
}

/** The rows a report is read from (a JobsStore's, or the report process's own connection's). */
export type ReportRows = Pick<JobRows, 'getJob' | 'getFiles' | 'getFileRegions'>;

/**
 * The case report of these jobs as data (the canonical JSON's content: nothing in it depends on when it is asked
 * for); null when none of the jobs exists.
 */
export async function assembleCaseReport(rows: ReportRows, scope: CaseReportScope): Promise<CaseReport | null> {
  const { of } = scope;
  const leaveOut = new Set(scope.leaveOut);
  const jobs = (await Promise.all(scope.jobIds.map((id) => rows.getJob(id)))).filter((j) => j !== undefined);
  if (jobs.length === 0) return null;
  const files: CaseReport['files'] = [];
  for (const job of jobs) {
    for (const f of await rows.getFiles(job.id)) {
      if (leaveOut.has(f.id)) continue;
      files.push({
        fileId: f.id,
        jobId: job.id,
        applicationId: job.applicationId,
        name: f.name,
        mediaType: f.mediaType,
        size: f.size,
        sha256: f.sha256,
        status: f.status,
        submittedAt: job.createdAt,
        completedAt: f.status === 'processing' ? null : f.completedAt,
        verdict: f.status === 'completed' ? f.verdict : null,
        error: f.status === 'error' ? { code: (f.errorCode ?? 'internal_error') as NonNullable<JobResult['error']>['code'], message: f.errorMessage ?? '' } : null,
        expertReview: f.review,
        modelVersion: f.modelVersion,
        aggregation: f.aggregation,
        regions: (await rows.getFileRegions(job.id, f.id)) ?? [],
        pixelSize: f.pixelSize,
      });
    }
  }
  const count = (a: string) => files.filter((f) => f.verdict?.assessment === a).length;
  const effective = (a: string) => files.filter((f) => (f.expertReview?.assessment ?? f.verdict?.assessment) === a).length;
  const unreviewed = (status: string) => files.filter((f) => !f.expertReview && f.status === status).length;
  return {
    format: 'veracity-case-report',
    version: 3,
    caseId: of.caseId,
    caseName: of.caseName,
    caseStatus: of.caseStatus ?? null,
    caseNotes: of.caseNotes ?? null,
    appVersion: APP_VERSION,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    asOf: jobs.map((j) => j.updatedAt).reduce((a, b) => (a > b ? a : b)),
    summary: {
      files: files.length,
      ai_generated: count('ai_generated'),
      authentic: count('authentic'),
      inconclusive: count('inconclusive'),
      processing: files.filter((f) => f.status === 'processing').length,
      error: files.filter((f) => f.status === 'error').length,
      reviewed: files.filter((f) => f.expertReview).length,
      effective: {
        ai_generated: effective('ai_generated'),
        authentic: effective('authentic'),
        inconclusive: effective('inconclusive'),
        processing: unreviewed('processing'),
        error: unreviewed('error'),
      },
    },
    jobs: jobs.map((j) => ({ jobId: j.id, applicationId: j.applicationId, status: j.status, createdAt: j.createdAt, completedAt: j.completedAt })),
    files,
  };
}

/** Where a report process reads a case's rows through a connection of its own: a SQLite file, or a PostgreSQL URL. */
export type ReportRowsAt = { kind: 'sqlite'; file: string } | { kind: 'pg'; url: string };

/** Where the report process gets a report's data: rows it reads itself, or the data (tests). */
export type ReportSource = (ReportRowsAt & { scope: CaseReportScope }) | { kind: 'report'; report: CaseReport };

/** A file's picture for the report: a kept preview named by its local path (read by the process), or its bytes. */
export type ReportPicture = { path: string } | { data: Buffer };
