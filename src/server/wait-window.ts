// wait=true on POST /v1/assess and GET /v1/jobs/{jobId}: hold the answer until the job is terminal or the window ends.
import type { FastifyReply } from 'fastify';
import type { JobService } from '../jobs/job-service.js';

/** Holds the response until the job is terminal or the wait window ends; stops early if the client leaves. */
export async function waitWhileConnected(deps: { jobs: JobService; config: { waitWindowMs: number } }, reply: FastifyReply, jobId: string): Promise<void> {
  const ac = new AbortController();
  const onClose = () => ac.abort();
  reply.raw.on('close', onClose);
  try {
    await deps.jobs.waitForTerminal(jobId, deps.config.waitWindowMs, ac.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}
