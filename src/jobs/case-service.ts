// Cases: the specialist's unit of work (a name, notes, a status, the jobs of both applications in it) and the history
// search over every file. Served to the window under /app (src/server/routes/case-routes.ts, src/api/README.md).
import type { CaseInfo, CaseJobList, CaseList, CaseStatus, HistoryList } from '../api/app-schemas.js';
import { CaseNameTaken, NotFound } from '../api/domain-errors.js';
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

  /** One page of the case's jobs, of both applications, in the order they were submitted. */
  async function jobs(caseId: string, q: Paging): Promise<CaseJobList> {
    await get(caseId);
    const { offset, empty, pagination } = paginate(await cases.countJobs(caseId), q);
    const refs = empty ? [] : await cases.jobs(caseId, q.pageSize, offset);
    const found = await Promise.all(refs.map(async (r) => ({ r, found: await d.store.jobs.getJobWithFiles(r.jobId) })));
    return {
      jobs: found.flatMap(({ r, found: f }) => (f ? [{ applicationId: r.applicationId, kind: r.kind, job: toJobResult(f.job, f.files) }] : [])),
      pagination,
    };
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

  return { get, list, create, update, jobs, history };
}
export type CaseService = ReturnType<typeof createCaseService>;
