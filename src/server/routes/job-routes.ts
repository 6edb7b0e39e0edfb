// GET /v1/jobs (list, paginated, page size clamped to 100) and GET /v1/jobs/{jobId} (always 200, DECISIONS 9).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError, JobIdParams, JobList, JobListQuery, JobResult, WaitQuery } from '../../api/schemas.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';
import { waitWhileConnected } from '../wait-window.js';

export function registerJobRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  async function poll(applicationId: string, jobId: string, wait: boolean, reply: FastifyReply) {
    const job = await deps.jobs.getOwnedJob(applicationId, jobId);
    if (!wait || job.status !== 'processing') return job;
    await waitWhileConnected(deps, reply, job.jobId);
    return deps.jobs.getOwnedJob(applicationId, job.jobId);
  }

  app.get(
    '/v1/jobs',
    {
      schema: {
        summary: 'List the jobs of an application, newest first',
        querystring: JobListQuery,
        response: { 200: JobList, ...COMMON_ERRORS },
      },
    },
    // Not async: a kept page is answered in the turn the request arrived, without a promise (issue #14).
    (req) => {
      const { applicationId, page, pageSize, case: caseName } = req.query;
      const q = { applicationId, caseName: caseName ?? null, page, pageSize };
      return deps.jobs.keptJobList(req.principal!.applicationId, q) ?? deps.jobs.listJobs(req.principal!.applicationId, q);
    },
  );

  app.get(
    '/v1/jobs/:jobId',
    {
      schema: {
        summary: 'Get (poll) a job',
        params: JobIdParams,
        querystring: WaitQuery,
        response: { 200: JobResult, 404: ApiError, ...COMMON_ERRORS },
      },
    },
    // Not async: a finished job's kept answer is sent in the turn the request arrived (issue #14); `wait` only ever
    // holds a processing job, which is never kept.
    (req, reply) => deps.jobs.keptJob(req.principal!.applicationId, req.params.jobId) ?? poll(req.principal!.applicationId, req.params.jobId, req.query.wait, reply),
  );
}
