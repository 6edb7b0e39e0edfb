// GET /v1/jobs (list, paginated, page size clamped to 100) and GET /v1/jobs/{jobId} (always 200, DECISIONS 9).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobList, JobResult } from '../../api/schemas.js';
import { toJobListEntry } from '../../jobs/job-result.js';
import { ApiHttpError, invalid } from '../api-error.js';
import type { AppDeps } from '../app.js';
import { parsePositiveInt, parseUuid, parseWait, waitWhileConnected } from '../query.js';

export const MAX_PAGE_SIZE = 100;

/** Loads a job of the caller's application; another application's job is indistinguishable from none (DECISIONS 12). */
export function ownedJob(deps: AppDeps, req: FastifyRequest, rawJobId: unknown): JobResult {
  const jobId = parseUuid(rawJobId, 'jobId');
  const record = deps.jobsRepo.getJob(jobId);
  if (!record || record.applicationId !== req.principal!.applicationId) throw new ApiHttpError('not_found', 'No such job.');
  return deps.jobs.getJob(jobId)!;
}

export function registerJobRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/jobs', async (req) => {
    const q = req.query as Record<string, unknown>;
    for (const [k, v] of Object.entries(q)) if (Array.isArray(v)) throw invalid(k, `${k} must be given once.`);
    if (q.applicationId === undefined) throw invalid('applicationId', 'applicationId is required.');
    const applicationId = parseUuid(q.applicationId, 'applicationId');
    // A page beyond the last is an empty page; one beyond 2^53 is answered as page 2^53 - 1 (JSON numbers are exact
    // only that far), still empty. The offset is only used when it is below the total, so SQLite never sees it overflow.
    const page = parsePositiveInt(q.page, 'page', 1, Number.MAX_SAFE_INTEGER);
    const pageSize = parsePositiveInt(q.pageSize, 'pageSize', MAX_PAGE_SIZE, MAX_PAGE_SIZE);
    if (q.case !== undefined && (typeof q.case !== 'string' || q.case.length > 500)) throw invalid('case', 'case must be a string of at most 500 characters.');
    if (applicationId !== req.principal!.applicationId) throw new ApiHttpError('forbidden', 'This API key does not belong to that application.');
    const caseName = (q.case as string | undefined) ?? null;
    const total = deps.jobsRepo.countJobs(applicationId, caseName);
    const totalPages = Math.ceil(total / pageSize);
    const offset = (page - 1) * pageSize;
    const jobs = offset >= total ? [] : deps.jobsRepo.listJobs(applicationId, caseName, pageSize, offset);
    const body: JobList = {
      jobs: jobs.map(toJobListEntry),
      pagination: { page, pageSize, total, totalPages, hasNextPage: page < totalPages },
    };
    return body;
  });

  app.get('/v1/jobs/:jobId', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const wait = parseWait(q);
    const job = ownedJob(deps, req, (req.params as { jobId: string }).jobId);
    if (wait && job.status === 'processing') {
      await waitWhileConnected(deps, reply, job.jobId);
      return deps.jobs.getJob(job.jobId);
    }
    return job;
  });
}
