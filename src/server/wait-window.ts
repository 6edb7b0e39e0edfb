// wait=true on POST /v1/assess and GET /v1/jobs/{jobId}: hold the answer until the job is terminal or the window ends.
// The window is counted from when the request arrived (its headers were read), not from when the wait starts: the
// upload, the submission probes and the commit of POST /v1/assess come out of the 30 s, so that the call as a whole
// blocks no longer than the spec's window (src/api/README.md).
import type { FastifyReply } from 'fastify';
import type { JobService } from '../jobs/job-service.js';

/** What is left of a `windowMs` wait window after `elapsedMs` of the request: 0 when it is spent. */
export const remainingWindowMs = (windowMs: number, elapsedMs: number): number => Math.max(0, Math.floor(windowMs - elapsedMs));

/**
 * Holds the response until the job is terminal or what is left of the wait window (counted from the request's
 * arrival, reply.elapsedTime) ends; stops early if the client leaves.
 */
export async function waitWhileConnected(deps: { jobs: JobService; config: { waitWindowMs: number } }, reply: FastifyReply, jobId: string): Promise<void> {
  const ms = remainingWindowMs(deps.config.waitWindowMs, reply.elapsedTime);
  if (ms === 0) return;
  const ac = new AbortController();
  const onClose = () => ac.abort();
  reply.raw.on('close', onClose);
  try {
    await deps.jobs.waitForTerminal(jobId, ms, ac.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}
