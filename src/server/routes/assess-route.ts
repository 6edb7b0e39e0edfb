// POST /v1/assess: validates what it can from headers, streams the upload, creates (or replays) the job, then
// answers 200 when the job is terminal within the wait window, else 202.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CASE_NAME_MAX } from '../../api/limits.js';
import { ApiError, AssessBody, AssessHeaders, JobResult, WaitQuery } from '../../api/schemas.js';
import { QueueFull } from '../../api/domain-errors.js';
import { withIntake } from '../../jobs/intake.js';
import { invalid } from '../api-error.js';
import type { AppDeps } from '../app.js';
import { notMultipart, receiveUpload } from '../multipart-upload.js';
import { COMMON_ERRORS, streamedBody } from '../route-schemas.js';
import { waitWhileConnected } from '../wait-window.js';

/** Header lines named `name` as sent: Node joins repeated unknown headers into one value ("a, b"), so count them raw. */
function headerLines(rawHeaders: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) n++;
  return n;
}

export function registerAssessRoute(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/v1/assess',
    {
      schema: {
        summary: 'Submit 1 to 20 files of one case',
        consumes: ['multipart/form-data'],
        querystring: WaitQuery,
        headers: AssessHeaders,
        body: streamedBody(AssessBody),
        response: { 200: JobResult, 202: JobResult, 413: ApiError, 422: ApiError, 503: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const principal = req.principal!;
      const key = req.headers['idempotency-key'] ?? null;
      // Two keys would otherwise become one key "k1, k2": neither retry would replay the job it meant.
      if (key !== null && headerLines(req.raw.rawHeaders, 'idempotency-key') > 1) throw invalid('Idempotency-Key', 'Send one Idempotency-Key header.');
      if (!req.isMultipart()) throw notMultipart(); // a POST without a body: any other type was refused by its parser
      const replayCandidate = key !== null && (await deps.jobs.hasIdempotencyRecord(principal.applicationId, key));
      if (!replayCandidate && !(await deps.jobs.queueHasRoom(1))) throw new QueueFull();

      // The intake deletes every temp file that submit() did not commit (refusal, replay, failure).
      const outcome = await withIntake(deps.store, async (intake) => {
        const upload = await receiveUpload(req, {
          intake,
          probePool: deps.probePool,
          probeTimeoutMs: deps.config.probeTimeoutMs,
          kind: principal.kind,
          probe: !replayCandidate,
        });
        const caseName = typeof upload.metadata?.case === 'string' ? upload.metadata.case.slice(0, CASE_NAME_MAX) : null;
        return deps.jobs.submit({
          applicationId: principal.applicationId,
          files: upload.files,
          metadataJson: upload.metadataJson,
          caseName,
          idempotency: key ? { key, fingerprint: upload.fingerprint } : null,
        });
      });

      if (req.query.wait) await waitWhileConnected(deps, reply, outcome.jobId);
      const job = await deps.jobs.readBack(outcome.jobId);
      if (outcome.kind === 'replayed') reply.header('idempotent-replayed', 'true');
      return reply.status(job.status === 'processing' ? 202 : 200).send(job);
    },
  );
}
