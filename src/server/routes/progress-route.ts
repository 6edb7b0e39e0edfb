// GET /v1/jobs/{jobId}/progress (extension): each file's stage while work runs, beside the unchanged v1 result.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError, JobIdParams, JobProgress } from '../../api/schemas.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';

export function registerProgressRoute(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/v1/jobs/:jobId/progress',
    {
      schema: {
        summary: 'Extension: the stage of each file (queued, decoding, analysing, done, error)',
        params: JobIdParams,
        response: { 200: JobProgress, 404: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req) => deps.jobs.progress(req.principal!.applicationId, req.params.jobId),
  );
}
