// POST /v1/assess: validates what it can from headers, streams the upload, creates (or replays) the job, then
// answers 200 when the job is terminal within the wait window, else 202.
import type { FastifyInstance } from 'fastify';
import { ApiHttpError, invalid } from '../api-error.js';
import type { AppDeps } from '../app.js';
import { receiveUpload } from '../multipart-upload.js';
import { parseWait, waitWhileConnected } from '../query.js';
import { withIntake } from '../../jobs/intake.js';
import { serviceUnavailable } from '../../jobs/job-service.js';
import { CASE_NAME_MAX, IDEMPOTENCY_KEY_MAX } from '../../api/limits.js';

/** Header lines named `name` as sent: Node joins repeated unknown headers into one value ("a, b"), so count them raw. */
function headerLines(rawHeaders: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) n++;
  return n;
}

function parseIdempotencyKey(raw: string | string[] | undefined, lines: number): string | null {
  if (raw === undefined) return null;
  // Two keys would otherwise become one key "k1, k2": neither retry would replay the job it meant.
  if (Array.isArray(raw) || lines > 1) throw invalid('Idempotency-Key', 'Send one Idempotency-Key header.');
  if (raw.length < 1 || raw.length > IDEMPOTENCY_KEY_MAX) {
    throw invalid('Idempotency-Key', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters.`);
  }
  if (!/^[\x20-\x7e]+$/.test(raw)) throw invalid('Idempotency-Key', 'Idempotency-Key must be printable ASCII.');
  return raw;
}

export function registerAssessRoute(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/assess', async (req, reply) => {
    const principal = req.principal!;
    const wait = parseWait(req.query as Record<string, unknown>);
    const key = parseIdempotencyKey(req.headers['idempotency-key'], headerLines(req.raw.rawHeaders, 'idempotency-key'));
    if (!req.isMultipart()) throw invalid('Content-Type', 'The body must be multipart/form-data with a boundary.');
    const replayCandidate = key !== null && deps.jobs.hasIdempotencyRecord(principal.applicationId, key);
    if (!replayCandidate && !deps.jobs.queueHasRoom(1)) throw serviceUnavailable();

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

    if (wait) {
      await waitWhileConnected(deps, reply, outcome.jobId);
    }
    const job = deps.jobs.getJob(outcome.jobId);
    if (!job) throw new ApiHttpError('internal_error', 'The job could not be read back.');
    if (outcome.kind === 'replayed') reply.header('idempotent-replayed', 'true');
    return reply.status(job.status === 'processing' ? 202 : 200).send(job);
  });
}
