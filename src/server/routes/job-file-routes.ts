// Extensions of v1 about the files of a job (DECISIONS 32-34): the expert review of a file, its stored original, the
// tile scores behind its ai_detection (heatmaps), and the job's report data.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { REGION_TILES_MAX } from '../../api/limits.js';
import { ApiError, FileRegions, JobFileParams, JobIdParams, JobReport, JobResult, RegionRequest, RegionTiles, ReviewRequest } from '../../api/schemas.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';

/** RFC 6266 / 5987 attachment header; the name is display text only and is never used as a path. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The stored bytes, streamed as they are (Fastify never serialises a stream); described as binary. */
const FileBytes = z.custom<Readable>((v) => v instanceof Readable).meta({ type: 'string', format: 'binary' });

const withJob = { 200: JobResult, 404: ApiError, ...COMMON_ERRORS };

export function registerJobFileRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const reviewPath = '/v1/jobs/:jobId/files/:fileId/review';

  app.put(
    reviewPath,
    { schema: { summary: 'Extension: store or replace the expert review of one file', params: JobFileParams, body: ReviewRequest, response: withJob } },
    async (req) => {
      const { jobId, fileId } = req.params;
      const { assessment, note, reviewer } = req.body;
      return deps.jobs.reviewFile(req.principal!.applicationId, jobId, fileId, {
        assessment,
        reviewer,
        ...(note !== undefined && note !== '' ? { note } : {}),
        reviewedAt: new Date().toISOString(),
      });
    },
  );

  app.delete(
    reviewPath,
    { schema: { summary: 'Extension: remove the expert review of one file', params: JobFileParams, response: withJob } },
    async (req) => deps.jobs.reviewFile(req.principal!.applicationId, req.params.jobId, req.params.fileId, null),
  );

  app.get(
    '/v1/jobs/:jobId/files/:fileId/content',
    {
      schema: {
        summary: 'Extension: the stored original, as an attachment with its detected media type',
        produces: ['image/jpeg', 'image/png', 'image/heic', 'image/heif', 'application/pdf'],
        params: JobFileParams,
        response: { 200: FileBytes, 404: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const file = await deps.jobs.storedFile(req.principal!.applicationId, req.params.jobId, req.params.fileId);
      return reply
        .header('content-type', file.mediaType)
        .header('content-disposition', contentDisposition(file.name))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, no-store')
        .header('content-length', String(file.size))
        .send(file.stream);
    },
  );

  app.get(
    '/v1/jobs/:jobId/files/:fileId/regions',
    { schema: { summary: 'Extension: tile scores behind ai_detection, for heatmaps', params: JobFileParams, response: { 200: FileRegions, 404: ApiError, ...COMMON_ERRORS } } },
    async (req) => deps.jobs.fileRegions(req.principal!.applicationId, req.params.jobId, req.params.fileId),
  );

  app.post(
    '/v1/jobs/:jobId/files/:fileId/regions',
    {
      schema: {
        summary: 'Extension: score every tile of a rectangle of an analysed image, for the zoomed heatmap',
        description:
          'The analysis scores an even sample of a large image\'s tiles (the manifest\'s maxTiles for the score, heatmapMaxTiles for GET .../regions). ' +
          `This scores every tile of the grid that overlaps the rectangle (at most ${REGION_TILES_MAX} per request), with the same model and tiling, ` +
          'and keeps them with the file: asking again costs nothing. The file\'s score and verdict do not change. ' +
          'A rectangle outside the picture or over the bound is 400 invalid_request naming the field; a PDF\'s pictures are refused (grid); ' +
          'tiles that cannot be scored now (no model, the picture no longer decodes) are 422 unprocessable. A refusal stores nothing.',
        params: JobFileParams,
        body: RegionRequest,
        response: { 200: RegionTiles, 404: ApiError, 422: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req) => deps.jobs.regionTiles(req.principal!.applicationId, req.params.jobId, req.params.fileId, req.body),
  );

  app.get(
    '/v1/jobs/:jobId/report',
    { schema: { summary: 'Extension: case report data (job, file hashes, model versions)', params: JobIdParams, response: { 200: JobReport, 404: ApiError, ...COMMON_ERRORS } } },
    async (req) => deps.jobs.report(req.principal!.applicationId, req.params.jobId),
  );
}
