// How Fastify uses the zod schemas each route declares: requests are validated with them before the handler runs,
// and every response is checked against the schema of its status before it is sent (a wrong shape is a 500).
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ApiError } from '../api/schemas.js';
import { serializeReply } from '../jobs/job-result.js';

/**
 * Bodies that are documented by a schema but streamed and checked in their handler (multipart uploads, STYLE.md
 * convention 2): Fastify never buffers them for validation.
 */
const streamed = new WeakSet<z.ZodType>();
export function streamedBody<T extends z.ZodType>(schema: T): T {
  streamed.add(schema);
  return schema;
}

/** Distinct accepted path parameters or query strings kept per route (a poll repeats its own); emptied when full. */
const ACCEPTED_MAX = 1024;

/** The identity of flat input (what the router and the query parser give: string values), or null for anything else. */
function flatKey(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  let key = '';
  for (const k in data) {
    const v = (data as Record<string, unknown>)[k];
    if (typeof v !== 'string') return null;
    key += `${k}\u0000${v}\u0000`;
  }
  return key;
}

/**
 * Requests are validated by the route's zod schema. Path parameters and query strings are flat strings, and their
 * schemas pure functions of them: the value accepted for the same input is kept (frozen, shared by the requests
 * that send that input) instead of being parsed again at every poll (issue #14). A refusal is never kept: it is
 * worked out again, with its issues, each time.
 */
export const validateRequest: FastifySchemaCompiler<z.ZodType> = (route) => {
  if (route.httpPart === 'body' && streamed.has(route.schema)) return () => ({ value: undefined });
  const validate = validatorCompiler(route);
  if (route.httpPart !== 'params' && route.httpPart !== 'querystring') return validate;
  const accepted = new Map<string, { value: unknown }>();
  return (data) => {
    const key = flatKey(data);
    if (key === null) return validate(data);
    const kept = accepted.get(key);
    if (kept) return kept;
    const result = validate(data) as { value?: unknown; error?: Error };
    if (result.error) return result;
    if (accepted.size >= ACCEPTED_MAX) accepted.clear();
    const ok = { value: typeof result.value === 'object' && result.value !== null ? Object.freeze(result.value) : result.value };
    accepted.set(key, ok);
    return ok;
  };
};

/** A response that does not match its route's schema: a fault of the server, answered as internal_error. */
export class ResponseMismatch extends Error {
  readonly statusCode = 500;
  constructor(route: string, readonly issues: z.core.$ZodIssue[]) {
    super(`The response of ${route} does not match its schema.`);
    this.name = 'ResponseMismatch';
  }
}

/**
 * Checks the payload against the schema, then writes the payload itself, not zod's copy of it: the metadata echo
 * is the caller's exact text, carried on the object (src/jobs/job-result.ts), which a copy would lose. A frozen
 * payload (an answer the job service keeps: a finished job, a list page) cannot change, so its checked JSON is kept
 * with it and reused.
 */
export const serializeResponse: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url }) => {
  const route = `${method} ${url}`;
  const checkedJson = new WeakMap<object, string>();
  return (data) => {
    const kept = typeof data === 'object' && data !== null ? checkedJson.get(data) : undefined;
    if (kept !== undefined) return kept;
    const checked = schema.safeParse(data);
    if (!checked.success) throw new ResponseMismatch(route, checked.error.issues);
    const json = serializeReply(data);
    if (typeof data === 'object' && data !== null && Object.isFrozen(data)) checkedJson.set(data, json);
    return json;
  };
};

/**
 * The error statuses every route can send besides its own: a parameter refused by its schema, authentication, the
 * loopback guard (DECISIONS 28), the rate limit, a fault.
 */
export const COMMON_ERRORS = { 400: ApiError, 401: ApiError, 403: ApiError, 429: ApiError, 500: ApiError } as const;
