// The one error type routes throw and the one error body the API sends (the spec's ApiError).
import { ERROR_STATUS, type ApiError, type ErrorCode } from '../api/schemas.js';

export class ApiHttpError extends Error {
  readonly status: number;
  readonly issues?: { path: string; message?: string }[];
  readonly retryAfter?: number;

  constructor(
    public readonly code: ErrorCode,
    message: string,
    opts: { status?: number; issues?: { path: string; message?: string }[]; retryAfter?: number } = {},
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
