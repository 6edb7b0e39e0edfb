// Additive extensions of v1 (DECISIONS 32-34, plus the case report): expert review, stored original, tile scores.
import fs from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobReport } from '../../api/admin-schemas.js';
import { ReviewRequest, type FileRegions } from '../../api/schemas.js';
import type { FileRecord } from '../../db/jobs-repository.js';
import { ApiHttpError } from '../api-error.js';
import type { AppDeps } from '../app.js';
import { parseUuid } from '../query.js';
import { ownedJob } from './job-routes.js';

function ownedFile(deps: AppDeps, req: FastifyRequest): FileRecord {
  const p = req.params as { jobId: string; fileId: string };
  // Both ids are checked before either is looked up: a malformed fileId is 400 whether or not the job exists.
  const jobId = parseUuid(p.jobId, 'jobId');
  const fileId = parseUuid(p.fileId, 'fileId');
  const job = ownedJob(deps, req, jobId);
  const file = deps.jobsRepo.getFile(job.jobId, fileId);
  if (!file) throw new ApiHttpError('not_found', 'No such file in this job.');
  return file;
}

/** RFC 6266 / 5987 attachment header; the name is display text only and is never used as a path. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function registerExtensionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const reviewPath = '/v1/jobs/:jobId/files/:fileId/review';

  app.put(reviewPath, async (req) => {
    const file = ownedFile(deps, req);
    const parsed = ReviewRequest.safeParse(req.body);
    if (!parsed.success) {
      throw new ApiHttpError('invalid_request', 'Invalid review.', {
        issues: parsed.error.issues.map((i) => ({ path: i.path.join('.') || 'body', message: i.message })),
      });
    }
    const { assessment, note, reviewer } = parsed.data;
    deps.jobs.setReview(file.jobId, file.id, {
      assessment,
      reviewer,
      ...(note !== undefined && note !== '' ? { note } : {}),
      reviewedAt: new Date().toISOString(),
    });
    return deps.jobs.getJob(file.jobId);
  });

  app.delete(reviewPath, async (req) => {
    const file = ownedFile(deps, req);
    deps.jobs.setReview(file.jobId, file.id, null);
    return deps.jobs.getJob(file.jobId);
  });

  app.get('/v1/jobs/:jobId/files/:fileId/content', async (req, reply) => {
    const file = ownedFile(deps, req);
    const path = deps.store.pathOf(file.id);
    if (!fs.existsSync(path)) throw new ApiHttpError('not_found', 'The stored file is no longer available.');
    return reply
      .header('content-type', file.mediaType)
      .header('content-disposition', contentDisposition(file.name))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, no-store')
      .header('content-length', String(file.size))
      .send(fs.createReadStream(path));
  });

  app.get('/v1/jobs/:jobId/files/:fileId/regions', async (req) => {
    const file = ownedFile(deps, req);
    const body: FileRegions = {
      fileId: file.id,
      modelVersion: file.modelVersion,
      aggregation: file.aggregation,
      grids: file.regions ?? [],
    };
    return body;
  });

  app.get('/v1/jobs/:jobId/report', async (req) => {
    const job = ownedJob(deps, req, (req.params as { jobId: string }).jobId);
    const files = deps.jobsRepo.getFiles(job.jobId);
    const body: JobReport = {
      generatedAt: new Date().toISOString(),
      applicationId: req.principal!.applicationId,
      job,
      files: files.map((f) => ({ fileId: f.id, name: f.name, sha256: f.sha256, modelVersion: f.modelVersion })),
    };
    return body;
  });
}
