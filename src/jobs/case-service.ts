// Cases: the specialist's unit of work (a name, notes, a status, the jobs of both applications in it) and the history
// search over every file. Served to the window under /app (src/server/routes/case-routes.ts, src/api/README.md).
import type { CaseInfo, CaseJobList, CaseList, CaseStatus, HistoryList } from '../api/app-schemas.js';
import { CaseClosed, CaseNameTaken, NotFound } from '../api/domain-errors.js';
import type { CaseRecord, CaseRows, HistoryFilter, JobsStore } from '../db/stores.js';
import { toJobResult } from './job-result.js';

export interface CaseServiceDeps {
  store: JobsStore;
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
export async function caseIdForName(cases: CaseRows, name: string, at: string): Promise<string> {
  const found = await cases.idByName(name);
  if (found !== undefined) {
    await cases.touch(found, at);
    return found;
  }
  const id = crypto.randomUUID();
  await cases.insert({ id, name, notes: '', at });
  return id;
}

export function createCaseService(d: CaseServiceDeps) {
  const now = d.now ?? (() => new Date());
  const cases = d.store.cases;

  async function get(caseId: string): Promise<CaseInfo> {
    const c = await cases.get(caseId);
    if (!c) throw new NotFound('case');
    return toCaseInfo(c);
  }

  async function list(q: Paging & { q?: string; status?: CaseStatus }): Promise<CaseList> {
    const filter = { nameContains: q.q ?? null, status: q.status ?? null };
    const { offset, empty, pagination } = paginate(await cases.count(filter), q);
    const page = empty ? [] : await cases.list({ ...filter, limit: q.pageSize, offset });
    return { cases: page.map(toCaseInfo), pagination };
  }

  async function create(body: { name: string; notes?: string }): Promise<CaseInfo> {
    const id = crypto.randomUUID();
    await d.store.withTransaction(async (tx) => {
      if ((await tx.cases.idByName(body.name)) !== undefined) throw new CaseNameTaken('name');
      await tx.cases.insert({ id, name: body.name, notes: body.notes ?? '', at: now().toISOString() });
    });
    return get(id);
  }

  async function update(caseId: string, patch: { name?: string; notes?: string; status?: CaseStatus }): Promise<CaseInfo> {
    await d.store.withTransaction(async (tx) => {
      if (patch.name !== undefined) {
        const holder = await tx.cases.idByName(patch.name);
        if (holder !== undefined && holder !== caseId) throw new CaseNameTaken('name');
      }
      if (!(await tx.cases.update(caseId, patch, now().toISOString()))) throw new NotFound('case');
    });
    return get(caseId);
  }

  /**
   * One page of the case's jobs, of both applications, in the order they were submitted: each with the files still
   * in the case (a file removed from it stays in its job, in History) and their SHA-256.
   */
  async function jobs(caseId: string, q: Paging): Promise<CaseJobList> {
    await get(caseId);
    const { offset, empty, pagination } = paginate(await cases.countJobs(caseId), q);
    const refs = empty ? [] : await cases.jobs(caseId, q.pageSize, offset);
    const removed = empty ? new Set<string>() : await cases.removedFiles(caseId);
    const found = await Promise.all(refs.map(async (r) => ({ r, found: await d.store.jobs.getJobWithFiles(r.jobId) })));
    return {
      jobs: found.flatMap(({ r, found: f }) => {
        const kept = f ? f.files.filter((file) => !removed.has(file.id)) : [];
        if (!f || kept.length === 0) return [];
        const files = kept.map((file) => ({ fileId: file.id, sha256: file.sha256 }));
        return [{ applicationId: r.applicationId, kind: r.kind, job: toJobResult(f.job, kept), files }];
      }),
      pagination,
    };
  }

  /**
   * Takes one file out of the case: its job and the file stay (History lists it, with no case), the case's counts,
   * jobs and report leave it out. A closed case is refused, like a file sent into it.
   */
  async function removeFile(caseId: string, fileId: string): Promise<CaseInfo> {
    await d.store.withTransaction(async (tx) => {
      const found = await tx.cases.get(caseId);
      if (!found) throw new NotFound('case');
      if (found.status === 'closed') throw new CaseClosed('caseId');
      const at = now().toISOString();
      if (!(await tx.cases.removeFile(caseId, fileId, at))) throw new NotFound('file of the case');
      await tx.cases.touch(caseId, at);
    });
    return get(caseId);
  }

  /**
   * The case, the ids of all its jobs, of both applications, in submission order, and the files removed from it
   * (for its report, which leaves them out).
   */
  async function reportJobs(caseId: string): Promise<{ case: CaseInfo; jobIds: string[]; removedFileIds: Set<string> }> {
    const found = await get(caseId);
    const total = await cases.countJobs(caseId);
    const jobIds = total === 0 ? [] : (await cases.jobs(caseId, total, 0)).map((r) => r.jobId);
    return { case: found, jobIds, removedFileIds: await cases.removedFiles(caseId) };
  }

  /** Files of every application matching every filter given, newest first. */
  async function history(q: Paging & HistoryFilter): Promise<HistoryList> {
    const { page: _page, pageSize: _pageSize, ...filter } = q;
    const { offset, empty, pagination } = paginate(await cases.countHistory(filter), q);
    const rows = empty ? [] : await cases.history(filter, q.pageSize, offset);
    return {
      files: rows.map(({ mediaType, ...r }) => ({ ...r, type: mediaType })),
      pagination,
    };
  }

  return { get, list, create, update, jobs, removeFile, reportJobs, history };
}
export type CaseService = ReturnType<typeof createCaseService>;
