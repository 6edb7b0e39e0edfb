// Plain words for the values of the API (assessments, confidence, result errors) and for API failures, naming the
// file they concern, so a specialist reads sentences rather than codes. The one vocabulary of the window: every
// screen (cards, viewer, history, report) takes its verdict, confidence and check names from here.
import type { ConfidenceLevel, Dimension, DimensionAssessment, JobResultError, VerdictAssessment } from '../../src/api/schemas.js';
import type { ApiFailure } from './api-client.js';

/** The verdict of a file, one name each (the core's `display.label` is not shown: it used other words). */
export const ASSESSMENT_WORDS: Record<VerdictAssessment, string> = {
  ai_generated: 'AI-generated',
  authentic: 'Authentic',
  inconclusive: 'Inconclusive',
};

/** What one check found: the verdict's own names, said as a direction, since no check decides alone. */
export const DIMENSION_WORDS: Record<DimensionAssessment, string> = {
  likely_ai: 'Points to AI-generated',
  likely_authentic: 'Points to authentic',
  inconclusive: 'No evidence either way',
};

export const CONFIDENCE_WORDS: Record<ConfidenceLevel, string> = {
  high: 'High confidence',
  medium: 'Medium confidence',
  low: 'Low confidence',
};

const CONFIDENCE_RANK: Record<ConfidenceLevel, number> = { low: 0, medium: 1, high: 2 };

/** The name of each check (dimension key), as the glossary explains it; an unknown key keeps the core's label. */
export const CHECK_WORDS: Record<string, string> = {
  ai_detection: 'AI-generation detector',
  provenance: 'Provenance metadata',
  capture: 'Capture consistency',
  pdf_structure: 'PDF structure',
};

export function checkName(d: Pick<Dimension, 'key' | 'label'>): string {
  return CHECK_WORDS[d.key] ?? d.label;
}

/**
 * Whether a check's score is evidence worth a bar: only a check that leans one way with medium or high confidence.
 * A score of about 50 % from a check that found nothing is not a measurement and is said in words instead.
 */
export function isEvidence(d: Pick<Dimension, 'assessment' | 'confidence'>): boolean {
  return (d.assessment === 'likely_ai' || d.assessment === 'likely_authentic') && (d.confidence === 'medium' || d.confidence === 'high');
}

/** What a check found, in the window's words: a direction and its confidence, or "no evidence either way". */
export function dimensionFinding(d: Pick<Dimension, 'assessment' | 'confidence'>): string {
  if (!d.assessment || d.assessment === 'inconclusive') return DIMENSION_WORDS.inconclusive;
  const direction = DIMENSION_WORDS[d.assessment];
  if (!isEvidence(d)) return `Weak hint only: ${direction.toLowerCase()} (low confidence)`;
  return `${direction} · ${CONFIDENCE_WORDS[d.confidence ?? 'low'].toLowerCase()}`;
}

/**
 * Why the verdict can be less certain than one of its checks, when that is what the card shows; null otherwise.
 * The verdict weighs every check, and the pixel detector never decides alone (README, Model).
 */
export function lessCertainWords(
  verdictConfidence: ConfidenceLevel,
  dimensions: Pick<Dimension, 'key' | 'label' | 'confidence' | 'assessment'>[],
): { summary: string; detail: string } | null {
  const surer = dimensions.filter((d) => d.confidence && CONFIDENCE_RANK[d.confidence] > CONFIDENCE_RANK[verdictConfidence]);
  if (surer.length === 0) return null;
  const names = `the ${surer.map((d) => `“${checkName(d)}”`).join(' and ')} check${surer.length > 1 ? 's' : ''}`;
  const parts = ["A check's confidence is about that check alone; the verdict weighs all the checks together."];
  const directions = new Set(dimensions.filter(isEvidence).map((d) => d.assessment));
  if (directions.size > 1) parts.push('Here the checks point different ways.');
  if (surer.some((d) => d.key === 'ai_detection')) {
    parts.push('The AI-generation detector never decides alone: it can be wrong on generators it never saw, so on its own it can only make a file inconclusive.');
  }
  return { summary: `Why is the verdict less certain than ${names}?`, detail: parts.join(' ') };
}

/** The core's verdict title without its leading name ("Likely authentic: …") and trailing "(… confidence)". */
export function verdictTitleWords(title: string | undefined): string | null {
  if (!title) return null;
  const rest = title.replace(/^[^:]{1,40}:\s*/, '').replace(/\s*\((high|medium|low) confidence\)\s*$/, '').trim();
  return rest ? rest.charAt(0).toUpperCase() + rest.slice(1) : null;
}

/** Where a file of the case stands, for the triage summary and filter. */
export const STATE_WORDS = {
  ...ASSESSMENT_WORDS,
  processing: 'Being analysed',
  not_assessed: 'Not assessed',
} as const;

/** The glossary shown in the window (top bar): the words above, each in one or two sentences. */
export const GLOSSARY: { term: string; meaning: string }[] = [
  { term: 'AI-generated', meaning: 'The file itself declares it was made by an AI generator (provenance metadata such as C2PA or IPTC). Veracity gives this verdict from such evidence only, never from pixels alone.' },
  { term: 'Authentic', meaning: 'Capture evidence (a camera file built as that camera builds files) and no sign of AI generation. It does not prove the content is true or unedited by hand.' },
  { term: 'Inconclusive', meaning: 'The evidence is not strong enough either way; a specialist should look. The card says which way the detector leans.' },
  { term: 'High, medium, low confidence', meaning: 'How strongly the evidence supports the verdict (or, beside a check, that check’s own reading). A verdict can be less certain than one of its checks: it weighs all of them.' },
  { term: 'AI-generation detector', meaning: 'A local model that scores tiles of the picture for traces of AI generation. Weak on generators it never saw, so it never decides alone.' },
  { term: 'Provenance metadata', meaning: 'What the file says about its origin: C2PA manifests, IPTC digital source type, editing-tool and generator tags.' },
  { term: 'Capture consistency', meaning: 'Whether the camera data in the file matches how that camera really builds files (its compression, thumbnail, layout). Copied camera tags do not pass.' },
  { term: 'PDF structure', meaning: 'How the PDF was produced and changed: producer, incremental updates, pages added after signing.' },
  { term: 'No evidence either way', meaning: 'The check ran but found nothing that points one way or the other: its 50 % is not a measurement.' },
  { term: 'Heatmap', meaning: 'The detector’s score of each tile of the picture: red tiles look generated, blue look authentic, clear tiles are undecided. Hatched areas were not scored.' },
];

export const MEDIA_WORDS: Record<string, string> = {
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/heic': 'HEIC image',
  'image/heif': 'HEIF image',
  'application/pdf': 'PDF document',
};

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

/** The status of a case, as the specialist sets it in the case header. */
export const CASE_STATUS_WORDS: Record<import('../../src/api/app-schemas.js').CaseStatus, string> = {
  open: 'Open',
  in_review: 'In review',
  closed: 'Closed',
};

/** Why the core refused a change to the case (a name another case has is said as such, not as a malformed request). */
export function caseChangeWords(failure: ApiFailure, patch: { name?: string }): string {
  const issue = failure.apiError?.details?.issues?.[0];
  if (failure.apiError?.code === 'invalid_request' && issue?.path === 'name' && patch.name !== undefined && /already exists/i.test(failure.apiError.message)) {
    return `Another case is already called “${patch.name}”: choose another name, or open that case from History.`;
  }
  return failureWords(failure, { action: 'Changing the case' });
}
