// Cases: the specialist's unit of work (a name, notes, a status, the jobs of both applications in it) and the history
// search over every file. Served to the window under /app (src/server/routes/case-routes.ts, src/api/README.md).
import type { CaseInfo, CaseJobList, CaseList, CaseStatus, HistoryList } from '../api/app-schemas.js';
import { CaseNameTaken, NotFound } from '../api/domain-errors.js';
import type { CaseRecord, CasesRepository, HistoryFilter } from '../db/cases-repository.js';
import type { JobsRepository } from '../db/jobs-repository.js';
import { toJobResult } from './job-result.js';

export interface CaseServiceDeps {
  cases: CasesRepository;
  jobs: JobsRepository;
  now?: () => Date;
}

interface Paging {
  page: number;
  pageSize: number;
}

/** The pagination block of every list, and the offset to read from (never used past the total: no overflow). */
function paginate(total: number, q: Paging) {
  const totalPages = Math.ceil(total / q.pageSize);
  const offset = (q.page - 1) * q.pageSize;
  return { offset, empty: offset >= total, pagination: { page: q.page, pageSize: q.pageSize, total, totalPages, hasNextPage: q.page < totalPages } };
}

const toCaseInfo = (c: CaseRecord): CaseInfo => ({ ...c });

/**
 * The case named `name`, made if there is none (a job whose metadata.case names it joins it). Call inside the
 * transaction that writes the job; returns its id and marks it updated.
 */
export function caseIdForName(cases: CasesRepository, name: string, at: string): string {
  const found = cases.idByName(name);
  if (found !== undefined) {
    cases.touch(found, at);
    return found;
  }
  const id = crypto.randomUUID();
  cases.insert({ id, name, notes: '', at });
  return id;
}

export function createCaseService(d: CaseServiceDeps) {
  const now = d.now ?? (() => new Date());

  function get(caseId: string): CaseInfo {
    const c = d.cases.get(caseId);
    if (!c) throw new NotFound('case');
    return toCaseInfo(c);
  }

  function list(q: Paging & { q?: string; status?: CaseStatus }): CaseList {
    const filter = { nameContains: q.q ?? null, status: q.status ?? null };
    const { offset, empty, pagination } = paginate(d.cases.count(filter), q);
    const cases = empty ? [] : d.cases.list({ ...filter, limit: q.pageSize, offset });
    return { cases: cases.map(toCaseInfo), pagination };
  }

  function create(body: { name: string; notes?: string }): CaseInfo {
    const id = crypto.randomUUID();
    d.jobs.transaction(() => {
      if (d.cases.idByName(body.name) !== undefined) throw new CaseNameTaken('name');
      d.cases.insert({ id, name: body.name, notes: body.notes ?? '', at: now().toISOString() });
    });
    return get(id);
  }

  function update(caseId: string, patch: { name?: string; notes?: string; status?: CaseStatus }): CaseInfo {
    d.jobs.transaction(() => {
      if (patch.name !== undefined) {
        const holder = d.cases.idByName(patch.name);
        if (holder !== undefined && holder !== caseId) throw new CaseNameTaken('name');
      }
      if (!d.cases.update(caseId, patch, now().toISOString())) throw new NotFound('case');
    });
    return get(caseId);
  }

  /** One page of the case's jobs, of both applications, in the order they were submitted. */
  function jobs(caseId: string, q: Paging): CaseJobList {
    get(caseId);
    const { offset, empty, pagination } = paginate(d.cases.countJobs(caseId), q);
    const refs = empty ? [] : d.cases.jobs(caseId, q.pageSize, offset);
    return {
      jobs: refs.flatMap((r) => {
        const job = d.jobs.getJob(r.jobId);
        return job ? [{ applicationId: r.applicationId, kind: r.kind, job: toJobResult(job, d.jobs.getFiles(r.jobId)) }] : [];
      }),
      pagination,
    };
  }

  /** The case and the ids of all its jobs, of both applications, in submission order (for its report). */
  function reportJobs(caseId: string): { case: CaseInfo; jobIds: string[] } {
    const found = get(caseId);
    const total = d.cases.countJobs(caseId);
    return { case: found, jobIds: total === 0 ? [] : d.cases.jobs(caseId, total, 0).map((r) => r.jobId) };
  }

  /** Files of every application matching every filter given, newest first. */
  function history(q: Paging & HistoryFilter): HistoryList {
    const { page: _page, pageSize: _pageSize, ...filter } = q;
    const { offset, empty, pagination } = paginate(d.cases.countHistory(filter), q);
    const rows = empty ? [] : d.cases.history(filter, q.pageSize, offset);
    return {
      files: rows.map(({ mediaType, ...r }) => ({ ...r, type: mediaType })),
      pagination,
    };
  }

  return { get, list, create, update, jobs, reportJobs, history };
}
export type CaseService = ReturnType<typeof createCaseService>;
