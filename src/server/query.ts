// Query parsing and the wait window shared by the routes: booleans accept only true/false (DECISIONS 13), uuids are checked.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { JobService } from '../jobs/job-service.js';
import { invalid } from './api-error.js';

export function parseWait(query: Record<string, unknown>): boolean {
  const v = query.wait;
  if (v === undefined) return true;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalid('wait', 'wait must be "true" or "false".');
}

const Uuid = z.uuid();
export function parseUuid(value: unknown, path: string): string {
  const r = Uuid.safeParse(value);
  if (!r.success) throw invalid(path, `${path} must be a UUID.`);
  return r.data.toLowerCase();
}

export function parsePositiveInt(value: unknown, path: string, def: number): number {
  if (value === undefined) return def;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) throw invalid(path, `${path} must be a positive integer.`);
  const n = Number(value);
  if (n < 1) throw invalid(path, `${path} must be at least 1.`);
  return n;
}

/** wait=true: holds the response until the job is terminal or the wait window ends; stops early if the client leaves. */
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
