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

/**
 * A positive integer of any length, clamped to `max`: a well-formed value is never refused for its size (the spec
 * clamps pageSize; a page past the end is an empty page). Compared as a BigInt, so digits beyond 2^53 are not rounded.
 */
export function parsePositiveInt(value: unknown, path: string, def: number, max: number): number {
  if (value === undefined) return def;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw invalid(path, `${path} must be a positive integer.`);
  const n = BigInt(value);
  if (n < 1n) throw invalid(path, `${path} must be at least 1.`);
  return n > BigInt(max) ? max : Number(n);
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
