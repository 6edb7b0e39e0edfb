// The team server's jobs store (src/db/stores.ts JobsStore) on PostgreSQL: jobs, their files, idempotency records and
// cases. Outside a transaction each call takes a pooled connection; withTransaction runs on one client throughout.
// What SQLite gets from its single write lock, this store gets from advisory locks taken inside the transaction: two
// API nodes checking the same idempotency key, or making the same case, take turns.
import type pg from 'pg';
import type { PipelineKind, RegionGrid } from '../../api/schemas.js';
import { containsPattern, type HistoryFilter } from '../cases-repository.js';
import type { FileRecord } from '../jobs-repository.js';
import type { CaseRows, JobRows, JobsStore, JobsTx } from '../stores.js';
import type { PgPool, Queryable } from './connection.js';
import { jsonValue, toCase, toFile as toFileRow, toHistory, toJob, type CaseRow, type FileRow, type HistoryRow, type JobRow } from '../rows.js';

const toFile = (r: FileRow): FileRecord => toFileRow(r, jsonValue);

/** The client of a transaction made by this store: pg-boss sends its jobs on it (src/db/pg/work-queue.ts). */
const txClients = new WeakMap<JobsTx, pg.PoolClient>();

export function clientOfTransaction(tx: JobsTx): pg.PoolClient {
  const client = txClients.get(tx);
  if (!client) throw new Error('Not a transaction of the PostgreSQL jobs store');
  return client;
}

/** Runs `fn` in a transaction on one client of `pool`; commits when it resolves, rolls back (and rethrows) when it throws. */
export async function inTransaction<T>(pool: PgPool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        // The connection is gone or unusable: the pool must not hand it out again (the server rolled back anyway).
        broken = rollbackErr as Error;
      }
      throw err;
    }
  } finally {
    client.release(broken);
  }
}

/** Every column of job_files but the tile scores (see src/db/jobs-repository.ts FILE_COLUMNS). */
const FILE_COLUMNS = `id, job_id, position, name, size, media_type, sha256, status, attempts, started_at, completed_at, verdict,
  model_version, aggregation, error_code, error_message, review, pixel_width, pixel_height`;

const JOB_COLUMNS = 'id, application_id, metadata, case_name, status, error_code, error_message, created_at, updated_at, completed_at';

/** An advisory lock held to the end of the transaction, keyed by text (a 64-bit hash of it). Outside one: a no-op. */
async function lockKey(q: Queryable, key: string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

function jobRows(q: Queryable, inTx: boolean): JobRows {
  return {
    async insertJob(job, files) {
      // seq comes from the identity column's sequence: concurrent nodes never share a value.
      await q.query(
        `INSERT INTO jobs (id, application_id, metadata, case_name, case_id, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'processing', $6, $6)`,
        [job.id, job.applicationId, job.metadataJson, job.caseName, job.caseId, job.createdAt],
      );
      if (files.length === 0) return;
      await q.query(
        `INSERT INTO job_files (id, job_id, position, name, size, media_type, sha256, status, started_at)
         SELECT f.id, $1, f.position, f.name, f.size, f.media_type, f.sha256, 'processing', $2
         FROM unnest($3::text[], $4::int[], $5::text[], $6::bigint[], $7::text[], $8::text[]) AS f(id, position, name, size, media_type, sha256)`,
        [
          job.id,
          job.createdAt,
          files.map((f) => f.id),
          files.map((f) => f.position),
          files.map((f) => f.name),
          files.map((f) => f.size),
          files.map((f) => f.mediaType),
          files.map((f) => f.sha256),
        ],
      );
    },
    async getJob(id) {
      const { rows } = await q.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
      return rows[0] && toJob(rows[0]);
    },
    async getJobWithFiles(id) {
      // One statement, so one snapshot: a poll never sees the job from before a write and its files from after it.
      const { rows } = await q.query<{ job: JobRow; files: FileRow[] }>(
        `SELECT row_to_json(j) AS job,
           (SELECT coalesce(json_agg(f ORDER BY f.position), '[]'::json)
              FROM (SELECT ${FILE_COLUMNS} FROM job_files WHERE job_id = j.id) f) AS files
         FROM (SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1) j`,
        [id],
      );
      return rows[0] && { job: toJob(rows[0].job), files: rows[0].files.map(toFile) };
    },
    async getFiles(jobId) {
      const { rows } = await q.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM job_files WHERE job_id = $1 ORDER BY position`, [jobId]);
      return rows.map(toFile);
    },
    async getFile(jobId, fileId) {
      const { rows } = await q.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM job_files WHERE id = $1 AND job_id = $2`, [fileId, jobId]);
      return rows[0] && toFile(rows[0]);
    },
    async getFileRegions(jobId, fileId) {
      const { rows } = await q.query<{ regions: RegionGrid[] | null }>('SELECT regions FROM job_files WHERE id = $1 AND job_id = $2', [
        fileId,
        jobId,
      ]);
      return rows[0] && rows[0].regions;
    },
    async listJobs(applicationId, caseName, limit, offset) {
      const { rows } =
        caseName === null
          ? await q.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE application_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`, [
              applicationId,
              limit,
              offset,
            ])
          : await q.query<JobRow>(
              `SELECT ${JOB_COLUMNS} FROM jobs WHERE application_id = $1 AND case_name = $2 ORDER BY seq DESC LIMIT $3 OFFSET $4`,
              [applicationId, caseName, limit, offset],
            );
      return rows.map(toJob);
    },
    async countJobs(applicationId, caseName) {
      const { rows } =
        caseName === null
          ? await q.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE application_id = $1', [applicationId])
          : await q.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE application_id = $1 AND case_name = $2', [
              applicationId,
              caseName,
            ]);
      return rows[0].n;
    },
    async finishFile(fileId, o) {
      const r = await q.query(
        `UPDATE job_files SET status = $2, completed_at = $3, verdict = $4::json, regions = $5::json, model_version = $6,
           aggregation = $7, error_code = $8, error_message = $9, pixel_width = $10, pixel_height = $11
         WHERE id = $1 AND status = 'processing'`,
        [
          fileId,
          o.status,
          o.completedAt,
          o.verdict ? JSON.stringify(o.verdict) : null,
          o.regions ? JSON.stringify(o.regions) : null,
          o.modelVersion ?? null,
          o.aggregation ?? null,
          o.errorCode ?? null,
          o.errorMessage ?? null,
          o.pixelSize?.width ?? null,
          o.pixelSize?.height ?? null,
        ],
      );
      return r.rowCount === 1;
    },
    async lockJob(jobId) {
      await q.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
    },
    async updateJobStatus(jobId, v) {
      await q.query('UPDATE jobs SET status = $2, error_code = $3, error_message = $4, updated_at = $5, completed_at = $6 WHERE id = $1', [
        jobId,
        v.status,
        v.errorCode,
        v.errorMessage,
        v.updatedAt,
        v.completedAt,
      ]);
    },
    async touchJob(jobId, at) {
      await q.query('UPDATE jobs SET updated_at = $2 WHERE id = $1', [jobId, at]);
    },
    async setReview(jobId, fileId, review) {
      const r = await q.query('UPDATE job_files SET review = $3::json WHERE id = $1 AND job_id = $2', [
        fileId,
        jobId,
        review ? JSON.stringify(review) : null,
      ]);
      return r.rowCount === 1;
    },
    async pendingFiles() {
      const { rows } = await q.query<FileRow>(
        `SELECT ${FILE_COLUMNS.replace(/(\w+)/g, 'f.$1')} FROM job_files f JOIN jobs j ON j.id = f.job_id
         WHERE f.status = 'processing' ORDER BY j.seq, f.position`,
      );
      return rows.map(toFile);
    },
    async allFileIds() {
      const { rows } = await q.query<{ id: string }>('SELECT id FROM job_files');
      return new Set(rows.map((r) => r.id));
    },
    async countProcessingFiles() {
      const { rows } = await q.query<{ n: number }>("SELECT count(*)::int AS n FROM job_files WHERE status = 'processing'");
      return rows[0].n;
    },
    async findIdempotency(applicationId, key, notBeforeMs) {
      // In a transaction, a second node submitting with the same key waits here until the first commits, then
      // finds its record (READ COMMITTED: the SELECT below takes its snapshot after the lock is granted).
      if (inTx) await lockKey(q, `idempotency:${applicationId}:${key}`);
      const { rows } = await q.query<{ application_id: string; key: string; fingerprint: string; job_id: string; created_at_ms: string }>(
        'SELECT * FROM idempotency_keys WHERE application_id = $1 AND key = $2 AND created_at_ms > $3',
        [applicationId, key, notBeforeMs],
      );
      const r = rows[0];
      return r && { applicationId: r.application_id, key: r.key, fingerprint: r.fingerprint, jobId: r.job_id, createdAtMs: Number(r.created_at_ms) };
    },
    async insertIdempotency(rec) {
      await q.query(
        `INSERT INTO idempotency_keys (application_id, key, fingerprint, job_id, created_at_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (application_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, job_id = EXCLUDED.job_id,
           created_at_ms = EXCLUDED.created_at_ms`,
        [rec.applicationId, rec.key, rec.fingerprint, rec.jobId, rec.createdAtMs],
      );
    },
    async pruneIdempotency(beforeMs) {
      const r = await q.query('DELETE FROM idempotency_keys WHERE created_at_ms <= $1', [beforeMs]);
      return r.rowCount ?? 0;
    },
  };
}

/**
 * The assessment of a file's review. Read from the review's text, not with ->>: a json (not jsonb) value is parsed
 * whole by ->>, and a reviewer's note may hold \u0000, which PostgreSQL refuses to unescape ("unsupported Unicode
 * escape sequence"). The key is the review's own (a note's quotes are escaped, so a note cannot fake it).
 */
const REVIEW_ASSESSMENT = `(regexp_match(f.review::text, '"assessment"\\s*:\\s*"(ai_generated|authentic|inconclusive)"'))[1]`;

/** A file's effective verdict (src/db/cases-repository.ts EFFECTIVE_VERDICT, in PostgreSQL's words). */
const EFFECTIVE_VERDICT = `coalesce(${REVIEW_ASSESSMENT}, CASE WHEN f.status = 'completed' THEN f.verdict->>'assessment' END)`;
const IN_CASE = 'f.case_removed_at IS NULL';
const JOB_IN_CASE = `EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = j.id AND ${IN_CASE})`;

/** A case with its counts (src/db/cases-repository.ts CASE_SELECT, in PostgreSQL's words). */
const CASE_SELECT = `SELECT c.*,
  (SELECT count(*)::int FROM jobs j WHERE j.case_id = c.id AND ${JOB_IN_CASE}) AS job_count,
  count(f.id)::int AS file_count,
  count(*) FILTER (WHERE f.status = 'completed' AND f.verdict->>'assessment' = 'ai_generated')::int AS ai_generated,
  count(*) FILTER (WHERE f.status = 'completed' AND f.verdict->>'assessment' = 'authentic')::int AS authentic,
  count(*) FILTER (WHERE f.status = 'completed' AND f.verdict->>'assessment' = 'inconclusive')::int AS inconclusive,
  count(*) FILTER (WHERE f.status = 'processing')::int AS processing,
  count(*) FILTER (WHERE f.status = 'error')::int AS error,
  count(*) FILTER (WHERE ${EFFECTIVE_VERDICT} = 'ai_generated')::int AS eff_ai_generated,
  count(*) FILTER (WHERE ${EFFECTIVE_VERDICT} = 'authentic')::int AS eff_authentic,
  count(*) FILTER (WHERE ${EFFECTIVE_VERDICT} = 'inconclusive')::int AS eff_inconclusive,
  count(*) FILTER (WHERE f.review IS NULL AND f.status = 'processing')::int AS eff_processing,
  count(*) FILTER (WHERE f.review IS NULL AND f.status = 'error')::int AS eff_error,
  count(f.review)::int AS reviewed
  FROM cases c LEFT JOIN jobs j ON j.case_id = c.id LEFT JOIN job_files f ON f.job_id = j.id AND ${IN_CASE}`;

/** A file's case in History: none once it was removed from it. */
const HISTORY_CASE = `CASE WHEN ${IN_CASE} THEN j.case_id END AS case_id, CASE WHEN ${IN_CASE} THEN c.name END AS case_name`;

const HISTORY_FROM = `FROM job_files f JOIN jobs j ON j.id = f.job_id JOIN applications a ON a.id = j.application_id
  LEFT JOIN cases c ON c.id = j.case_id`;

/** The WHERE clause of a history search, from fixed fragments; its values are bound as $1… in order. */
function historyWhere(f: HistoryFilter): { sql: string; params: string[] } {
  const conditions: string[] = [];
  const params: string[] = [];
  const bind = (v: string) => {
    params.push(v);
    return `$${params.length}`;
  };
  // ILIKE: "any case", as SQLite's LIKE is for ASCII.
  if (f.caseName !== undefined) conditions.push(`c.name ILIKE ${bind(containsPattern(f.caseName))} ESCAPE '\\' AND ${IN_CASE}`);
  if (f.caseId !== undefined) conditions.push(`j.case_id = ${bind(f.caseId)} AND ${IN_CASE}`);
  if (f.fileName !== undefined) conditions.push(`f.name ILIKE ${bind(containsPattern(f.fileName))} ESCAPE '\\'`);
  // All 64 digits: the index; a prefix: starts_with (the column's collation need not order hex as SQLite's does).
  if (f.sha256 !== undefined) conditions.push(f.sha256.length === 64 ? `f.sha256 = ${bind(f.sha256)}` : `starts_with(f.sha256, ${bind(f.sha256)})`);
  if (f.reviewed !== undefined) conditions.push(f.reviewed ? 'f.review IS NOT NULL' : 'f.review IS NULL');
  if (f.from !== undefined) conditions.push(`j.created_at >= ${bind(f.from)}`);
  if (f.to !== undefined) conditions.push(`j.created_at <= ${bind(f.to)}`);
  if (f.verdict !== undefined) conditions.push(`${EFFECTIVE_VERDICT} = ${bind(f.verdict)}`);
  return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

function caseRows(q: Queryable, inTx: boolean): CaseRows {
  const nameFilter = `($1::text IS NULL OR name ILIKE $1 ESCAPE '\\') AND ($2::text IS NULL OR status = $2)`;
  return {
    async insert(c) {
      await q.query(`INSERT INTO cases (id, name, notes, status, created_at, updated_at) VALUES ($1, $2, $3, 'open', $4, $4)`, [
        c.id,
        c.name,
        c.notes,
        c.at,
      ]);
    },
    async get(id) {
      const { rows } = await q.query<CaseRow>(`${CASE_SELECT} WHERE c.id = $1 GROUP BY c.id`, [id]);
      return rows[0] && toCase(rows[0]);
    },
    async idByName(name) {
      // In a transaction, nodes making or renaming to the same name take turns (the caller checks, then writes).
      if (inTx) await lockKey(q, `case-name:${name}`);
      const { rows } = await q.query<{ id: string }>('SELECT id FROM cases WHERE name = $1', [name]);
      return rows[0]?.id;
    },
    async list(f) {
      const pattern = f.nameContains === null ? null : containsPattern(f.nameContains);
      const { rows } = await q.query<CaseRow>(
        `${CASE_SELECT} WHERE c.id IN (SELECT id FROM cases WHERE ${nameFilter} ORDER BY updated_at DESC, id LIMIT $3 OFFSET $4)
         GROUP BY c.id ORDER BY c.updated_at DESC, c.id`,
        [pattern, f.status, f.limit, f.offset],
      );
      return rows.map(toCase);
    },
    async count(f) {
      const pattern = f.nameContains === null ? null : containsPattern(f.nameContains);
      const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM cases WHERE ${nameFilter}`, [pattern, f.status]);
      return rows[0].n;
    },
    async update(id, patch, at) {
      const r = await q.query(
        `UPDATE cases SET name = coalesce($2, name), notes = coalesce($3, notes), status = coalesce($4, status), updated_at = $5 WHERE id = $1`,
        [id, patch.name ?? null, patch.notes ?? null, patch.status ?? null, at],
      );
      return r.rowCount === 1;
    },
    async touch(id, at) {
      await q.query('UPDATE cases SET updated_at = $2 WHERE id = $1', [id, at]);
    },
    async jobs(caseId, limit, offset) {
      const { rows } = await q.query<{ job_id: string; application_id: string; kind: string }>(
        `SELECT j.id AS job_id, j.application_id, a.kind FROM jobs j JOIN applications a ON a.id = j.application_id
         WHERE j.case_id = $1 AND ${JOB_IN_CASE} ORDER BY j.seq LIMIT $2 OFFSET $3`,
        [caseId, limit, offset],
      );
      return rows.map((r) => ({ jobId: r.job_id, applicationId: r.application_id, kind: r.kind as PipelineKind }));
    },
    async countJobs(caseId) {
      const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs j WHERE j.case_id = $1 AND ${JOB_IN_CASE}`, [caseId]);
      return rows[0].n;
    },
    async removeFile(caseId, fileId, at) {
      const r = await q.query(
        `UPDATE job_files SET case_removed_at = $3
         WHERE id = $2 AND case_removed_at IS NULL AND job_id IN (SELECT id FROM jobs WHERE case_id = $1)`,
        [caseId, fileId, at],
      );
      return r.rowCount === 1;
    },
    async removedFiles(caseId) {
      const { rows } = await q.query<{ id: string }>(
        'SELECT f.id FROM job_files f JOIN jobs j ON j.id = f.job_id WHERE j.case_id = $1 AND f.case_removed_at IS NOT NULL',
        [caseId],
      );
      return new Set(rows.map((r) => r.id));
    },
    async history(f, limit, offset) {
      const { sql, params } = historyWhere(f);
      const n = params.length;
      const { rows } = await q.query<HistoryRow>(
        `SELECT f.job_id, f.id AS file_id, j.application_id, a.kind, ${HISTORY_CASE}, f.name, f.size, f.media_type,
           f.sha256, f.status, f.verdict->>'assessment' AS assessment, ${REVIEW_ASSESSMENT} AS review_assessment, j.created_at
         ${HISTORY_FROM} ${sql} ORDER BY j.seq DESC, f.position LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit, offset],
      );
      return rows.map(toHistory);
    },
    async countHistory(f) {
      const { sql, params } = historyWhere(f);
      const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n ${HISTORY_FROM} ${sql}`, params);
      return rows[0].n;
    },
  };
}

export function createPgJobsStore(pool: PgPool): JobsStore {
  return {
    jobs: jobRows(pool, false),
    cases: caseRows(pool, false),
    async withTransaction(fn) {
      const commits: (() => void)[] = [];
      const result = await inTransaction(pool, async (client) => {
        const tx: JobsTx = { jobs: jobRows(client, true), cases: caseRows(client, true), onCommit: (cb) => commits.push(cb) };
        txClients.set(tx, client);
        return fn(tx);
      });
      for (const cb of commits) cb();
      return result;
    },
  };
}
