// The job status is derived from its results' statuses, exactly as the spec's state table says.
import type { JobStatus } from '../api/schemas.js';

export interface ResultState {
  status: 'processing' | 'completed' | 'error';
  errorCode: string | null;
}

export interface DerivedStatus {
  status: JobStatus;
  error: { code: 'result_unavailable' | 'internal_error'; message: string } | null;
}

export function deriveJobStatus(results: readonly ResultState[]): DerivedStatus {
  if (results.length === 0 || results.some((r) => r.status === 'processing')) return { status: 'processing', error: null };
  const errored = results.filter((r) => r.status === 'error');
  if (errored.length === 0) return { status: 'completed', error: null };
  const allUnavailable = errored.every((r) => r.errorCode === 'result_unavailable');
  const n = errored.length;
  const files = `${n} of ${results.length} file${results.length === 1 ? '' : 's'}`;
  return {
    status: 'error',
    error: allUnavailable
      ? { code: 'result_unavailable', message: `No result is available for ${files}: the detector could not run.` }
      : { code: 'internal_error', message: `The analysis of ${files} failed.` },
  };
}
