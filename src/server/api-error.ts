// The one error body the API sends (the spec's ApiError), and the one place that maps every error to it: the
// server's own refusals, the services' domain errors, schema validation and Fastify's framework errors.
import type { FastifyError } from 'fastify';
import { ERROR_STATUS, type ApiError, type ErrorCode } from '../api/schemas.js';
import { CaseClosed, CaseNameTaken, ForeignApplication, IdempotencyConflict, InvalidRegion, NotFound, PreviewUnavailable, QueueFull, TilesUnavailable } from '../api/domain-errors.js';

export interface Issue {
  path: string;
  message?: string;
}

export class ApiHttpError extends Error {
  readonly status: number;
  readonly issues?: Issue[];
  readonly retryAfter?: number;

  constructor(
    public readonly code: ErrorCode,
    message: string,
    opts: { status?: number; issues?: Issue[]; retryAfter?: number } = {},
  ) {
    super(message);
    this.status = opts.status ?? ERROR_STATUS[code];
    this.issues = opts.issues;
    this.retryAfter = opts.retryAfter;
  }

  toBody(): ApiError {
    const body: ApiError = { code: this.code, message: this.message };
    if (this.issues?.length) body.details = { issues: this.issues };
    if (this.retryAfter !== undefined) body.retryAfter = this.retryAfter;
    return body;
  }
}

export const invalid = (path: string, message: string, status?: number) =>
  new ApiHttpError('invalid_request', message, { issues: [{ path, message }], status });

/** A header as people write it (`idempotency-key` -> `Idempotency-Key`): the name the spec and the refusal use. */
const headerName = (h: string) => h.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/**
 * A request that failed its route's schema: one issue per zod issue, its path dotted ("body" for the body itself).
 * Path, query and header refusals say what was wrong in the message; a body refusal says which body.
 */
function validationError(err: FastifyError): ApiHttpError {
  const part = err.validationContext ?? 'body';
  const issues: Issue[] = (err.validation ?? []).map((v) => {
    const path = v.instancePath.split('/').filter(Boolean).join('.');
    return { path: part === 'headers' ? headerName(path) : path || part, message: v.message ?? 'Invalid.' };
  });
  return new ApiHttpError('invalid_request', part === 'body' ? 'Invalid request body.' : (issues[0]?.message ?? 'Invalid request.'), { issues });
}

export function toApiError(err: unknown): ApiHttpError {
  if (err instanceof ApiHttpError) return err;
  // Domain errors of the services.
  if (err instanceof NotFound) return new ApiHttpError('not_found', err.message);
  if (err instanceof QueueFull) return new ApiHttpError('service_unavailable', err.message, { retryAfter: err.retryAfterSeconds });
  if (err instanceof ForeignApplication) return new ApiHttpError('forbidden', err.message);
  // A stored file the core cannot draw: valid, kept and analysed, but no picture of it can be made (src/api/README.md).
  if (err instanceof PreviewUnavailable || err instanceof TilesUnavailable) return new ApiHttpError('unprocessable', err.message);
  if (err instanceof InvalidRegion) return new ApiHttpError('invalid_request', err.message, { issues: [{ path: err.field, message: err.message }] });
  if (err instanceof IdempotencyConflict) {
    // DECISIONS 16: 422 with code invalid_request.
    return new ApiHttpError('invalid_request', err.message, { status: 422, issues: [{ path: 'Idempotency-Key', message: 'Key reused with a different payload.' }] });
  }
  // A request that conflicts with what is stored, like a reused Idempotency-Key: 422 invalid_request.
  if (err instanceof CaseNameTaken || err instanceof CaseClosed) {
    return new ApiHttpError('invalid_request', err.message, { status: 422, issues: [{ path: err.field, message: err.message }] });
  }
  const fe = err as FastifyError;
  if (fe.validation) return validationError(fe);
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiHttpError('invalid_request', 'Unsupported Content-Type for this endpoint.', { issues: [{ path: 'Content-Type' }] });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new ApiHttpError('invalid_request', fe.message);
    case 'FST_ERR_BAD_URL':
      return new ApiHttpError('invalid_request', 'The request path is not a valid URL (bad percent-encoding).');
    // Multipart errors are mapped where the body is read (multipart-upload.ts).
    default:
      break;
  }
  if (fe.name === 'SyntaxError') return new ApiHttpError('invalid_request', 'Malformed request.');
  // A plugin's own refusal (@fastify/static answers 403 for a traversal or a dotfile) is a refusal, not a fault:
  // it keeps its status in the ApiError vocabulary and is logged at info; only real faults (a response that does
  // not match its schema included) become 500.
  const status = fe.statusCode ?? 500;
  if (status === 403) return new ApiHttpError('forbidden', 'Access to this path is not allowed.');
  if (status === 404) return new ApiHttpError('not_found', 'No such resource.');
  if (status >= 400 && status < 500) return new ApiHttpError('invalid_request', 'Malformed request.', { status });
  return new ApiHttpError('internal_error', 'Internal server error.');
}
