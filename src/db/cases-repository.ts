// Cases (a specialist's unit of work, spanning both applications) and the history search over every file. Rows are
// mapped to domain types here; the searches are built from fixed SQL fragments with bound parameters only.
import type { CaseStatus, HistoryFilter } from '../api/app-schemas.js';
import type { MediaType, PipelineKind, VerdictAssessment } from '../api/schemas.js';
import type { Db } from './connection.js';
import { toCase, toHistory, type CaseRow, type HistoryRow } from './rows.js';

export type { HistoryFilter };

export interface CaseRecord {
  id: string;
  name: string;
  notes: string;
  status: CaseStatus;
  createdAt: string;
  updatedAt: string;
  jobCount: number;
  fileCount: number;
  /** Files by machine verdict, and those still processing or ended in error. */
  counts: Record<VerdictAssessment | 'processing' | 'error', number>;
  /** Files by effective verdict (the expert review where there is one, the machine verdict otherwise). */
  effectiveCounts: Record<VerdictAssessment | 'processing' | 'error', number>;
  /** Files with an expert review. */
  reviewed: number;
}

export interface CaseJobRef {
  jobId: string;
  applicationId: string;
  kind: PipelineKind;
}

export interface HistoryRecord {
  jobId: string;
  fileId: string;
  applicationId: string;
  kind: PipelineKind;
  caseId: string | null;
  caseName: string | null;
  name: string;
  size: number;
  mediaType: MediaType;
  sha256: string;
  status: 'processing' | 'completed' | 'error';
  assessment: VerdictAssessment | null;
  reviewAssessment: VerdictAssessment | null;
  createdAt: string;
}

/** A LIKE pattern matching `text` anywhere, its own % _ and \ taken literally (ESCAPE '\'). */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A file's effective verdict: the expert review where there is one, the machine verdict of a completed file
 * otherwise (null while it is processing, or when it ended in error without a review).
 */
export const EFFECTIVE_VERDICT = `coalesce(json_extract(f.review, '$.assessment'),
  CASE WHEN f.status = 'completed' THEN json_extract(f.verdict, '$.assessment') END)`;

/** Files of a case: those of its jobs not removed from it (job_files.case_removed_at). */
const IN_CASE = 'f.case_removed_at IS NULL';

/**
 * A case with its counts: bounded by the size of one case (its jobs by index, their files by job). A job counts
 * while one of its files is still in the case.
 */
const CASE_SELECT = `SELECT c.*,
  (SELECT count(*) FROM jobs j WHERE j.case_id = c.id AND EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = j.id AND ${IN_CASE})) AS job_count,
  count(f.id) AS file_count,
  count(CASE WHEN f.status = 'completed' AND json_extract(f.verdict, '$.assessment') = 'ai_generated' THEN 1 END) AS ai_generated,
  count(CASE WHEN f.status = 'completed' AND json_extract(f.verdict, '$.assessment') = 'authentic' THEN 1 END) AS authentic,
  count(CASE WHEN f.status = 'completed' AND json_extract(f.verdict, '$.assessment') = 'inconclusive' THEN 1 END) AS inconclusive,
  count(CASE WHEN f.status = 'processing' THEN 1 END) AS processing,
  count(CASE WHEN f.status = 'error' THEN 1 END) AS error,
  count(CASE WHEN ${EFFECTIVE_VERDICT} = 'ai_generated' THEN 1 END) AS eff_ai_generated,
  count(CASE WHEN ${EFFECTIVE_VERDICT} = 'authentic' THEN 1 END) AS eff_authentic,
  count(CASE WHEN ${EFFECTIVE_VERDICT} = 'inconclusive' THEN 1 END) AS eff_inconclusive,
  count(CASE WHEN f.review IS NULL AND f.status = 'processing' THEN 1 END) AS eff_processing,
  count(CASE WHEN f.review IS NULL AND f.status = 'error' THEN 1 END) AS eff_error,
  count(f.review) AS reviewed
  FROM cases c LEFT JOIN jobs j ON j.case_id = c.id LEFT JOIN job_files f ON f.job_id = j.id AND ${IN_CASE}`;

/** The bounds of a SHA-256 prefix as a range of lower-case hex text (an index range; 'g' follows every hex digit). */
export const sha256Range = (prefix: string): { from: string; to: string } => ({ from: prefix, to: `${prefix}g` });

/** The WHERE clause of a history search and its parameters; every condition is a fixed fragment. */
function historyWhere(f: HistoryFilter): { sql: string; params: Record<string, string> } {
  const conditions: string[] = [];
  const params: Record<string, string> = {};
  if (f.caseName !== undefined) {
    conditions.push(`c.name LIKE @casePattern ESCAPE '\\' AND ${IN_CASE}`);
    params.casePattern = containsPattern(f.caseName);
  }
  if (f.caseId !== undefined) {
    conditions.push(`j.case_id = @caseId AND ${IN_CASE}`);
    params.caseId = f.caseId;
  }
  if (f.fileName !== undefined) {
    conditions.push(`f.name LIKE @namePattern ESCAPE '\\'`);
    params.namePattern = containsPattern(f.fileName);
  }
  if (f.sha256 !== undefined && f.sha256.length === 64) {
    conditions.push('f.sha256 = @sha256');
    params.sha256 = f.sha256;
  } else if (f.sha256 !== undefined) {
    conditions.push('f.sha256 >= @shaFrom AND f.sha256 < @shaTo');
    const range = sha256Range(f.sha256);
    params.shaFrom = range.from;
    params.shaTo = range.to;
  }
  if (f.reviewed !== undefined) conditions.push(f.reviewed ? 'f.review IS NOT NULL' : 'f.review IS NULL');
  if (f.from !== undefined) {
    conditions.push('j.created_at >= @from');
    params.from = f.from;
  }
  if (f.to !== undefined) {
    conditions.push('j.created_at <= @to');
    params.to = f.to;
  }
  if (f.verdict !== undefined) {
    conditions.push(`${EFFECTIVE_VERDICT} = @verdict`);
    params.verdict = f.verdict;
  }
  return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** A job of a case keeps a place in it while one of its files is in the case. */
const JOB_IN_CASE = `EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = j.id AND ${IN_CASE})`;

/** A file's case in History: none once it was removed from it. */
export const HISTORY_CASE = `CASE WHEN ${IN_CASE} THEN j.case_id END AS case_id, CASE WHEN ${IN_CASE} THEN c.name END AS case_name`;

const HISTORY_FROM = `FROM job_files f JOIN jobs j ON j.id = f.job_id JOIN applications a ON a.id = j.application_id
  LEFT JOIN cases c ON c.id = j.case_id`;

export function createCasesRepository(db: Db) {
  const s = {
    insert: db.prepare(`INSERT INTO cases (id, name, notes, status, created_at, updated_at) VALUES (@id, @name, @notes, 'open', @at, @at)`),
    get: db.prepare(`${CASE_SELECT} WHERE c.id = ? GROUP BY c.id`),
    idByName: db.prepare('SELECT id FROM cases WHERE name = ?'),
    list: db.prepare(`${CASE_SELECT} WHERE c.id IN (SELECT id FROM cases
        WHERE (@pattern IS NULL OR name LIKE @pattern ESCAPE '\\') AND (@status IS NULL OR status = @status)
        ORDER BY updated_at DESC, id LIMIT @limit OFFSET @offset)
      GROUP BY c.id ORDER BY c.updated_at DESC, c.id`),
    count: db.prepare(`SELECT count(*) AS n FROM cases WHERE (@pattern IS NULL OR name LIKE @pattern ESCAPE '\\') AND (@status IS NULL OR status = @status)`),
    update: db.prepare(`UPDATE cases SET name = coalesce(@name, name), notes = coalesce(@notes, notes), status = coalesce(@status, status),
      updated_at = @at WHERE id = @id`),
    touch: db.prepare('UPDATE cases SET updated_at = ? WHERE id = ?'),
    jobs: db.prepare(`SELECT j.id AS job_id, j.application_id, a.kind FROM jobs j JOIN applications a ON a.id = j.application_id
      WHERE j.case_id = ? AND ${JOB_IN_CASE} ORDER BY j.seq LIMIT ? OFFSET ?`),
    countJobs: db.prepare(`SELECT count(*) AS n FROM jobs j WHERE j.case_id = ? AND ${JOB_IN_CASE}`),
    removeFile: db.prepare(`UPDATE job_files SET case_removed_at = @at
      WHERE id = @fileId AND case_removed_at IS NULL AND job_id IN (SELECT id FROM jobs WHERE case_id = @caseId)`),
    removedFiles: db.prepare(`SELECT f.id FROM job_files f JOIN jobs j ON j.id = f.job_id WHERE j.case_id = ? AND f.case_removed_at IS NOT NULL`),
    linkJob: db.prepare('UPDATE jobs SET case_id = ? WHERE id = ?'),
    countAll: db.prepare('SELECT count(*) AS n FROM cases'),
  };
  const historySelect = new Map<string, { page: ReturnType<Db['prepare']>; count: ReturnType<Db['prepare']> }>();

  return {
    insert(c: { id: string; name: string; notes: string; at: string }): void {
      s.insert.run(c);
    },
    get(id: string): CaseRecord | undefined {
      const r = s.get.get(id) as CaseRow | undefined;
      return r && toCase(r);
    },
    idByName(name: string): string | undefined {
      return (s.idByName.get(name) as { id: string } | undefined)?.id;
    },
    list(q: { nameContains: string | null; status: CaseStatus | null; limit: number; offset: number }): CaseRecord[] {
      const pattern = q.nameContains === null ? null : containsPattern(q.nameContains);
      return (s.list.all({ pattern, status: q.status, limit: q.limit, offset: q.offset }) as CaseRow[]).map(toCase);
    },
    count(q: { nameContains: string | null; status: CaseStatus | null }): number {
      const pattern = q.nameContains === null ? null : containsPattern(q.nameContains);
      return (s.count.get({ pattern, status: q.status }) as { n: number }).n;
    },
    countAll(): number {
      return (s.countAll.get() as { n: number }).n;
    },
    /** Changes what is given; returns false when there is no such case. */
    update(id: string, patch: { name?: string; notes?: string; status?: CaseStatus }, at: string): boolean {
      return s.update.run({ id, name: patch.name ?? null, notes: patch.notes ?? null, status: patch.status ?? null, at }).changes === 1;
    },
    touch(id: string, at: string): void {
      s.touch.run(at, id);
    },
    linkJob(caseId: string, jobId: string): void {
      s.linkJob.run(caseId, jobId);
    },
    /** The case's jobs in the order they were submitted (drop order). */
    jobs(caseId: string, limit: number, offset: number): CaseJobRef[] {
      return (s.jobs.all(caseId, limit, offset) as { job_id: string; application_id: string; kind: string }[]).map((r) => ({
        jobId: r.job_id,
        applicationId: r.application_id,
        kind: r.kind as PipelineKind,
      }));
    },
    countJobs(caseId: string): number {
      return (s.countJobs.get(caseId) as { n: number }).n;
    },
    /** Takes a file out of the case (its job and the file stay, in History); false when it is not in the case. */
    removeFile(caseId: string, fileId: string, at: string): boolean {
      return s.removeFile.run({ caseId, fileId, at }).changes === 1;
    },
    /** Ids of the files of the case's jobs that were removed from it. */
    removedFiles(caseId: string): Set<string> {
      return new Set((s.removedFiles.all(caseId) as { id: string }[]).map((r) => r.id));
    },
    /**
     * One page of files of every application matching the filter, newest job first, in submission order within a
     * job. SHA-256 and dates use indexes; a name part is a LIKE over the files joined (a desktop history's size).
     */
    history(f: HistoryFilter, limit: number, offset: number): HistoryRecord[] {
      return (this.prepared(f).page.all({ ...historyWhere(f).params, limit, offset }) as HistoryRow[]).map(toHistory);
    },
    countHistory(f: HistoryFilter): number {
      return (this.prepared(f).count.get(historyWhere(f).params) as { n: number }).n;
    },
    /** Statements per combination of filters (a few hundred at most), prepared once. */
    prepared(f: HistoryFilter) {
      const { sql } = historyWhere(f);
      let st = historySelect.get(sql);
      if (!st) {
        st = {
          page: db.prepare(`SELECT f.job_id, f.id AS file_id, j.application_id, a.kind, ${HISTORY_CASE}, f.name, f.size,
              f.media_type, f.sha256, f.status, json_extract(f.verdict, '$.assessment') AS assessment,
              json_extract(f.review, '$.assessment') AS review_assessment, j.created_at
            ${HISTORY_FROM} ${sql} ORDER BY j.seq DESC, f.position LIMIT @limit OFFSET @offset`),
          count: db.prepare(`SELECT count(*) AS n ${HISTORY_FROM} ${sql}`),
        };
        historySelect.set(sql, st);
      }
      return st;
    },
  };
}
export type CasesRepository = ReturnType<typeof createCasesRepository>;
