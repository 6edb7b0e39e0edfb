// Plain words for the values of the API (assessments, confidence, result errors) and for API failures, naming the
// file they concern, so a specialist reads sentences rather than codes. Verdict, confidence and check names come
// from the one vocabulary the core's copy and the case report use too (src/api/vocabulary.ts), re-exported here.
import type { JobResultError, Verdict } from '../../src/api/schemas.js';
import { VERDICT_REASONS, VERDICT_WORDS } from '../../src/api/vocabulary.js';
import { ApiFailure } from './api-client.js';

export { c2paChainOf, c2paManifestRows, c2paManifestTitle, CASE_STATUS_WORDS, CHECK_WORDS, CONFIDENCE_WORDS, DIMENSION_WORDS, GLOSSARY, MEDIA_WORDS, checkName, dimensionFinding, isEvidence, lessCertainWords } from '../../src/api/vocabulary.js';

/** The verdict of a file, one name each. */
export const ASSESSMENT_WORDS = VERDICT_WORDS;

/** Why the verdict is what it is (the badge and confidence are shown beside it); the core's title says the same. */
export function verdictTitleWords(verdict: Pick<Verdict, 'assessment'> | undefined): string | null {
  return verdict ? VERDICT_REASONS[verdict.assessment] : null;
}

/** Where a file of the case stands, for the triage summary and filter. */
export const STATE_WORDS = {
  ...ASSESSMENT_WORDS,
  processing: 'Being analysed',
  not_assessed: 'Not assessed',
} as const;

/** The filters beside the verdicts: whether a specialist has reviewed the file. */
export const REVIEW_FILTER_WORDS = { reviewed: 'Reviewed', not_reviewed: 'Not reviewed' } as const;

/** Says which verdict the counts and filters use (issue 22). */
export const EFFECTIVE_VERDICT_WORDS = 'Counted by the expert review where there is one, the machine verdict otherwise';

export function resultErrorWords(error: JobResultError | undefined): string {
  if (!error) return 'The analysis of this file failed for an unknown reason.';
  if (error.code === 'result_unavailable') {
    return 'Not assessed: the detector model is not installed on this computer or could not run. The file is kept: use “Assess again” once the model is installed.';
  }
  if (error.code === 'internal_error') return 'The analysis of this file failed inside Veracity. The details are in the engine log.';
  return `The analysis of this file failed (${error.message}).`;
}

function quoted(names: string[]): string {
  if (names.length === 0) return 'the files';
  if (names.length === 1) return `“${names[0]}”`;
  if (names.length <= 3) return names.map((n) => `“${n}”`).join(', ');
  return `${names.length} files (“${names[0]}” and others)`;
}

export interface FailureContext {
  /** The file the failure names (from details.issues[].path = file.N), when known. */
  fileName?: string | null;
  /** All files of the request that failed, when no single file is named. */
  fileNames?: string[];
  /** What was being done, e.g. "Sending", "Saving the review". */
  action?: string;
}

/** One sentence for a failed call, naming the file when the API says which one it was. */
export function failureWords(failure: ApiFailure, context: FailureContext = {}): string {
  const subject = context.fileName ? `“${context.fileName}”` : quoted(context.fileNames ?? []);
  const action = context.action ?? 'The request';
  if (failure.kind === 'network') return `${action} did not reach the Veracity engine: it may have stopped. Restart Veracity and try again.`;
  if (failure.kind === 'invalid-response') return `${action} got an answer this window does not understand. ${failure.message}`;
  const error = failure.apiError;
  const retry = error?.retryAfter ? ` Try again in ${error.retryAfter} s.` : '';
  switch (error?.code) {
    case 'unsupported_format':
      return `${subject} was refused: it is not a kind of file this application takes (JPEG, PNG or HEIC images, or PDF documents, judged from the content).`;
    case 'file_too_large':
      return `${subject} is too large: images may be at most 25 MB and PDFs at most 2 MB.`;
    case 'unprocessable':
      return `${subject} cannot be analysed: it may be damaged, smaller than 32 pixels, larger than 100 megapixels, encrypted, or a PDF without pages. (${error.message})`;
    case 'invalid_request':
      return `${action} was refused as malformed: ${error.message}`;
    case 'unauthorized':
      return `${action} was refused: the access key was not accepted. It may have been revoked or have expired; see Settings, or restart Veracity.`;
    case 'forbidden':
      return `${action} was refused: this key belongs to another application.`;
    case 'not_found':
      return `${action} failed: the job or file no longer exists.`;
    case 'rate_limited':
      return `Too many requests in a short time.${retry || ' Wait a moment and try again.'}`;
    case 'service_unavailable':
      return `Veracity is busy with other files and did not accept ${subject}.${retry || ' Try again shortly.'}`;
    case 'internal_error':
      return `${action} failed inside Veracity (${subject}). The details are in the engine log.`;
    default:
      return `${action} failed (HTTP ${failure.status}).`;
  }
}

/**
 * One sentence for anything a call threw: `failureWords` for an API failure, `otherwise(e)` (by default `String(e)`)
 * for anything else.
 */
export function errorWords(e: unknown, context: FailureContext = {}, otherwise: (e: unknown) => string = String): string {
  return e instanceof ApiFailure ? failureWords(e, context) : otherwise(e);
}

/** The core's message without its leading `File "name": ` (the list already names the file). */
export function detailWithoutFileName(message: string): string {
  return message.replace(/^File\s+"[^"]*"\s*:\s*/, '').replace(/^\w/, (c) => c.toUpperCase());
}

/** Why the core refused one file, for the "Not sent" list where the file's name is already shown. */
export function refusalWords(failure: ApiFailure): string {
  const error = failure.apiError;
  switch (error?.code) {
    case 'unsupported_format':
      return 'Refused: not a kind of file this application takes (JPEG, PNG or HEIC images, or PDF documents).';
    case 'file_too_large':
      return 'Too large: images may be at most 25 MB and PDFs at most 2 MB.';
    case 'unprocessable':
      return `Cannot be analysed. ${detailWithoutFileName(error.message).replace(/\.?$/, '.')}`;
    default:
      return failureWords(failure);
  }
}

/** Where one file stands while the core works on it (GET /v1/jobs/{jobId}/progress), shown on its card. */
export const STAGE_WORDS: Record<import('../../src/api/schemas.js').FileStage, string> = {
  queued: 'Queued',
  decoding: 'Decoding',
  analysing: 'Analysing',
  done: 'Done',
  error: 'Failed',
};


/**
 * Why the core refused a change to the case (a name another case has is said as such, not as a malformed request).
 * Told by status and path, never by the message's words: the core answers a taken name with 422 on `name`
 * (src/server/api-error.ts, CaseNameTaken); a malformed name is 400.
 */
export function caseChangeWords(failure: ApiFailure, patch: { name?: string }): string {
  const issue = failure.apiError?.details?.issues?.[0];
  if (failure.status === 422 && failure.apiError?.code === 'invalid_request' && issue?.path === 'name' && patch.name !== undefined) {
    return `Another case is already called “${patch.name}”: choose another name, or open that case from History.`;
  }
  return failureWords(failure, { action: 'Changing the case' });
}

/** Why files were not added to the active case: it is closed (the specialist reopens it from the case header). */
export function closedCaseWords(caseName: string, files: number): string {
  const what = files === 1 ? '1 file was' : `${files} files were`;
  return `The case “${caseName}” is closed: ${what} not added. Set its status to Open or In review to add files to it.`;
}

/**
 * Where a dropped file stands before the core has accepted its job, as the window itself knows it (shown on the
 * file's card until the API's stages, STAGE_WORDS, take over on the same card).
 */
export const WINDOW_STAGE_WORDS: Record<import('./case-session.js').WindowStage, string> = {
  waiting: 'Waiting to send',
  sending: 'Sending',
  checking: 'Checking',
  not_sent: 'Not sent',
};

/** What each window stage means, in one line under the stage word. */
export const WINDOW_STAGE_HINTS: Record<import('./case-session.js').WindowStage, string> = {
  waiting: 'Another part of this drop is being sent first.',
  sending: 'The file is on its way to the Veracity engine.',
  checking: 'The engine is receiving the files of this request and checking that each can be analysed.',
  not_sent: 'This file was not analysed.',
};

/** A card's stage between the core accepting its job and the first stage read from the API (a few tens of ms). */
export const ACCEPTED_STAGE_WORD = 'Accepted';
