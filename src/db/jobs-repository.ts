// Jobs, their files (one result each) and idempotency records. Rows are mapped to domain types here, at the edge.
import type { ExpertReview, JobStatus, MediaType, PixelSize, RegionGrid, Verdict } from '../api/schemas.js';
import type { Db } from './connection.js';
import { jsonText, toFile as toFileRow, toJob, type FileRow, type JobRow } from './rows.js';

const toFile = (r: FileRow): FileRecord => toFileRow(r, jsonText);

export type FileStatus = 'processing' | 'completed' | 'error';

export interface JobRecord {
  id: string;
  applicationId: string;
  metadata: Record<string, unknown> | null;
  /** The caller's compact metadata text as stored, echoed verbatim (src/jobs/job-result.ts). */
  metadataJson: string | null;
  caseName: string | null;
  status: JobStatus;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface FileRecord {
  id: string;
  jobId: string;
  position: number;
  name: string;
  size: number;
  mediaType: MediaType;
  sha256: string;
  status: FileStatus;
  attempts: number;
  startedAt: string;
  completedAt: string | null;
  verdict: Verdict | null;
  modelVersion: string | null;
  aggregation: string | null;
  /** The analysed image's size, orientation applied; null for PDFs and files not (yet) decoded. */
  pixelSize: PixelSize | null;
  errorCode: string | null;
  errorMessage: string | null;
  review: ExpertReview | null;
}

export interface IdempotencyRecord {
  applicationId: string;
  key: string;
  fingerprint: string;
  jobId: string;
  createdAtMs: number;
}

export interface NewJob {
  id: string;
  applicationId: string;
  metadataJson: string | null; // compact JSON, echoed back verbatim
  caseName: string | null;
  /** The case the job belongs to (src/db/cases-repository.ts), found or made from caseName. */
  caseId: string | null;
  createdAt: string;
}
export interface NewFile {
  id: string;
  position: number;
  name: string;
  size: number;
  mediaType: MediaType;
  sha256: string;
}
export interface FileOutcome {
  status: 'completed' | 'error';
  completedAt: string;
  verdict?: Verdict;
  regions?: RegionGrid[];
  modelVersion?: string | null;
  aggregation?: string | null;
  pixelSize?: PixelSize | null;
  errorCode?: string;
  errorMessage?: string;
}

/**
 * Every column of job_files but the tile scores: a result never carries them, and parsing them (up to 256 tiles per
 * image) on every poll was about a tenth of the server's CPU under load (test/bench/README.md). getFileRegions() reads them for the one route that does.
 */
const FILE_COLUMNS = `id, job_id, position, name, size, media_type, sha256, status, attempts, started_at, completed_at, verdict,
  model_version, aggregation, error_code, error_message, review, pixel_width, pixel_height`;

export function createJobsRepository(db: Db) {
  const s = {
    // seq is max + 1 within this one statement: SQLite runs a statement under the database's single write lock, and
    // the jobs store runs it inside an IMMEDIATE transaction (src/db/sqlite-stores.ts), so two writers (the core
    // and any other process) can never read the same max. PostgreSQL's store uses a sequence instead.
    insertJob: db.prepare(`INSERT INTO jobs (id, application_id, metadata, case_name, case_id, status, created_at, updated_at, seq)
      VALUES (@id, @applicationId, @metadataJson, @caseName, @caseId, 'processing', @createdAt, @createdAt, (SELECT coalesce(max(seq), 0) + 1 FROM jobs))`),
    insertFile: db.prepare(`INSERT INTO job_files (id, job_id, position, name, size, media_type, sha256, status, started_at)
      VALUES (@id, @jobId, @position, @name, @size, @mediaType, @sha256, 'processing', @startedAt)`),
    getJob: db.prepare('SELECT * FROM jobs WHERE id = ?'),
    getFiles: db.prepare(`SELECT ${FILE_COLUMNS} FROM job_files WHERE job_id = ? ORDER BY position`),
    getFile: db.prepare(`SELECT ${FILE_COLUMNS} FROM job_files WHERE id = ? AND job_id = ?`),
    getFileRegions: db.prepare('SELECT regions FROM job_files WHERE id = ? AND job_id = ?'),
    listJobs: db.prepare('SELECT * FROM jobs WHERE application_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?'),
    countJobs: db.prepare('SELECT count(*) AS n FROM jobs WHERE application_id = ?'),
    listJobsByCase: db.prepare('SELECT * FROM jobs WHERE application_id = ? AND case_name = ? ORDER BY seq DESC LIMIT ? OFFSET ?'),
    countJobsByCase: db.prepare('SELECT count(*) AS n FROM jobs WHERE application_id = ? AND case_name = ?'),
    startFile: db.prepare("UPDATE job_files SET attempts = attempts + 1, started_at = ? WHERE id = ? AND status = 'processing'"),
    handBackFile: db.prepare("UPDATE job_files SET attempts = attempts - 1 WHERE id = ? AND status = 'processing' AND attempts > 0"),
    finishFile: db.prepare(`UPDATE job_files SET status = @status, completed_at = @completedAt, verdict = @verdict, regions = @regions,
      model_version = @modelVersion, aggregation = @aggregation, error_code = @errorCode, error_message = @errorMessage,
      pixel_width = @pixelWidth, pixel_height = @pixelHeight
      WHERE id = @id AND status = 'processing'`),
    updateJobStatus: db.prepare(`UPDATE jobs SET status = @status, error_code = @errorCode, error_message = @errorMessage,
      updated_at = @updatedAt, completed_at = @completedAt WHERE id = @id`),
    touchJob: db.prepare('UPDATE jobs SET updated_at = ? WHERE id = ?'),
    pendingFiles: db.prepare(`SELECT f.* FROM job_files f JOIN jobs j ON j.id = f.job_id
      WHERE f.status = 'processing' ORDER BY j.seq, f.position`),
    setReview: db.prepare('UPDATE job_files SET review = ? WHERE id = ? AND job_id = ?'),
    allFileIds: db.prepare('SELECT id FROM job_files'),
    countAllJobs: db.prepare('SELECT count(*) AS n FROM jobs'),
    countProcessing: db.prepare("SELECT count(*) AS n FROM job_files WHERE status = 'processing'"),
    findIdem: db.prepare('SELECT * FROM idempotency_keys WHERE application_id = ? AND key = ? AND created_at_ms > ?'),
    deleteIdem: db.prepare('DELETE FROM idempotency_keys WHERE application_id = ? AND key = ?'),
    insertIdem: db.prepare(`INSERT INTO idempotency_keys (application_id, key, fingerprint, job_id, created_at_ms)
      VALUES (@applicationId, @key, @fingerprint, @jobId, @createdAtMs)`),
    pruneIdem: db.prepare('DELETE FROM idempotency_keys WHERE created_at_ms <= ?'),
    countIdem: db.prepare('SELECT count(*) AS n FROM idempotency_keys'),
  };

  return {
    insertJob(job: NewJob, files: NewFile[]): void {
      s.insertJob.run(job);
      for (const f of files) s.insertFile.run({ ...f, jobId: job.id, startedAt: job.createdAt });
    },
    getJob(id: string): JobRecord | undefined {
      const r = s.getJob.get(id) as JobRow | undefined;
      return r && toJob(r);
    },
    /** Both reads at once: nothing runs on this connection between them. */
    getJobWithFiles(id: string): { job: JobRecord; files: FileRecord[] } | undefined {
      const r = s.getJob.get(id) as JobRow | undefined;
      return r && { job: toJob(r), files: (s.getFiles.all(id) as FileRow[]).map(toFile) };
    },
    getFiles(jobId: string): FileRecord[] {
      return (s.getFiles.all(jobId) as FileRow[]).map(toFile);
    },
    getFile(jobId: string, fileId: string): FileRecord | undefined {
      const r = s.getFile.get(fileId, jobId) as FileRow | undefined;
      return r && toFile(r);
    },
    /** The tile scores of one file: undefined when there is no such file, null when it has none. */
    getFileRegions(jobId: string, fileId: string): RegionGrid[] | null | undefined {
      const r = s.getFileRegions.get(fileId, jobId) as { regions: string | null } | undefined;
      return r && jsonText<RegionGrid[]>(r.regions);
    },
    listJobs(applicationId: string, caseName: string | null, limit: number, offset: number): JobRecord[] {
      const rows = caseName === null ? s.listJobs.all(applicationId, limit, offset) : s.listJobsByCase.all(applicationId, caseName, limit, offset);
      return (rows as JobRow[]).map(toJob);
    },
    countJobs(applicationId: string, caseName: string | null): number {
      const r = caseName === null ? s.countJobs.get(applicationId) : s.countJobsByCase.get(applicationId, caseName);
      return (r as { n: number }).n;
    },
    countAllJobs(): number {
      return (s.countAllJobs.get() as { n: number }).n;
    },
    /** Files queued or under analysis (by index: job_files_status). */
    countProcessingFiles(): number {
      return (s.countProcessing.get() as { n: number }).n;
    },
    /** Counts an analysis attempt that has really started (a worker began the file); returns false if the file is no longer processing. */
    startFile(fileId: string, at: string): boolean {
      return s.startFile.run(at, fileId).changes === 1;
    },
    /** Takes back the attempt of an analysis stopped by a clean shutdown: it said nothing about the file. */
    handBackFile(fileId: string): boolean {
      return s.handBackFile.run(fileId).changes === 1;
    },
    finishFile(fileId: string, o: FileOutcome): boolean {
      return (
        s.finishFile.run({
          id: fileId,
          status: o.status,
          completedAt: o.completedAt,
          verdict: o.verdict ? JSON.stringify(o.verdict) : null,
          regions: o.regions ? JSON.stringify(o.regions) : null,
          modelVersion: o.modelVersion ?? null,
          aggregation: o.aggregation ?? null,
          pixelWidth: o.pixelSize?.width ?? null,
          pixelHeight: o.pixelSize?.height ?? null,
          errorCode: o.errorCode ?? null,
          errorMessage: o.errorMessage ?? null,
        }).changes === 1
      );
    },
    /** Nothing to do on SQLite: the enclosing IMMEDIATE transaction already holds the database's one write lock. */
    lockJob(jobId: string): void {
      void jobId;
    },
    updateJobStatus(
      jobId: string,
      v: { status: JobStatus; errorCode: string | null; errorMessage: string | null; updatedAt: string; completedAt: string | null },
    ): void {
      s.updateJobStatus.run({ id: jobId, ...v });
    },
    touchJob(jobId: string, at: string): void {
      s.touchJob.run(at, jobId);
    },
    pendingFiles(): FileRecord[] {
      return (s.pendingFiles.all() as FileRow[]).map(toFile);
    },
    setReview(jobId: string, fileId: string, review: ExpertReview | null): boolean {
      return s.setReview.run(review ? JSON.stringify(review) : null, fileId, jobId).changes === 1;
    },
    allFileIds(): Set<string> {
      return new Set((s.allFileIds.all() as { id: string }[]).map((r) => r.id));
    },
    findIdempotency(applicationId: string, key: string, notBeforeMs: number): IdempotencyRecord | undefined {
      const r = s.findIdem.get(applicationId, key, notBeforeMs) as
        | { application_id: string; key: string; fingerprint: string; job_id: string; created_at_ms: number }
        | undefined;
      return r && { applicationId: r.application_id, key: r.key, fingerprint: r.fingerprint, jobId: r.job_id, createdAtMs: r.created_at_ms };
    },
    /** Replaces an expired record for the same key, if any. */
    insertIdempotency(rec: IdempotencyRecord): void {
      s.deleteIdem.run(rec.applicationId, rec.key);
      s.insertIdem.run(rec);
    },
    pruneIdempotency(beforeMs: number): number {
      return s.pruneIdem.run(beforeMs).changes;
    },
    countIdempotency(): number {
      return (s.countIdem.get() as { n: number }).n;
    },
  };
}
export type JobsRepository = ReturnType<typeof createJobsRepository>;
