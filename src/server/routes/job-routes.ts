// GET /v1/jobs (list, paginated, page size clamped to 100) and GET /v1/jobs/{jobId} (always 200, DECISIONS 9).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError, JobIdParams, JobList, JobListQuery, JobResult, WaitQuery } from '../../api/schemas.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';
import { waitWhileConnected } from '../wait-window.js';

export function registerJobRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/jobs',
    {
      schema: {
        summary: 'List the jobs of an application, newest first',
        querystring: JobListQuery,
        response: { 200: JobList, ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const { applicationId, page, pageSize, case: caseName } = req.query;
      return deps.jobs.listJobs(req.principal!.applicationId, { applicationId, caseName: caseName ?? null, page, pageSize });
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
    async (req, reply) => {
      const applicationId = req.principal!.applicationId;
      const job = await deps.jobs.getOwnedJob(applicationId, req.params.jobId);
      if (!req.query.wait || job.status !== 'processing') return job;
      await waitWhileConnected(deps, reply, job.jobId);
      return deps.jobs.getOwnedJob(applicationId, job.jobId);
    },
  );
}
