// Schemas of the app-only routes under /app: applications and API keys for the Settings screen. /app routes take the
// per-launch UI token, never an API key; /v1 routes take API keys (their schemas are in schemas.ts).
import { z } from 'zod';
import { CASE_NAME_MAX, CASE_NOTES_MAX, KEY_EXPIRES_IN_DAYS_MAX, KEY_NAME_MAX, PAGE_SIZE_MAX, SEARCH_TEXT_MAX } from './limits.js';
import { CaseStatus, JobResult, MediaType, PaginationMeta, PipelineKind, VerdictAssessment, VerdictCounts, positiveInteger, uuidParameter } from './schemas.js';

const DateTime = z.iso.datetime({ offset: true });

/** A key as listed: its identity only. The key itself is stored as a digest and shown once, when it is created. */
export const ApiKeyInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  createdAt: DateTime,
  expiresAt: DateTime.nullable(),
  revokedAt: DateTime.nullable(),
  /** The key's last four characters, to tell keys apart (not usable as a key). */
  hint: z.string().max(8),
}).meta({ id: 'ApiKeyInfo' });
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

/** The answer to creating a key: the only time the key is sent. */
export const CreatedApiKey = ApiKeyInfo.extend({ apiKey: z.string() }).meta({ id: 'CreatedApiKey' });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const ApplicationInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: PipelineKind,
  createdAt: DateTime,
  keys: z.array(ApiKeyInfo),
  /**
   * The window's own credential for this application's /v1 calls during this launch of the core: never stored,
   * refused once the core restarts, and not an API key (it is not listed, cannot be revoked, and serves no tool).
   */
  windowKey: z.string(),
}).meta({ id: 'ApplicationInfo' });
export type ApplicationInfo = z.infer<typeof ApplicationInfo>;

/** The answer to creating an application: it, plus its first key, shown this once. */
export const CreatedApplication = ApplicationInfo.extend({ createdKey: CreatedApiKey }).meta({ id: 'CreatedApplication' });
export type CreatedApplication = z.infer<typeof CreatedApplication>;

export const ApplicationList = z.object({ applications: z.array(ApplicationInfo) }).meta({ id: 'ApplicationList' });
export type ApplicationList = z.infer<typeof ApplicationList>;

/**
 * The name of an application or a key, as the Settings screen and `veracity keys create --name` take it: trimmed, 1 to
 * KEY_NAME_MAX characters, no control characters (C0, DEL, C1). Names are shown in lists and printed by `keys list`,
 * where an escape sequence would act on the reader's terminal.
 */
export const KeyName = z
  .string()
  .trim()
  .min(1, 'name must not be empty.')
  .max(KEY_NAME_MAX, `name must be at most ${KEY_NAME_MAX} characters.`)
  .refine((name) => !/\p{Cc}/u.test(name), 'name must not contain control characters.')
  .meta({ description: `1 to ${KEY_NAME_MAX} characters once trimmed, without control characters.` });

export const CreateApplicationRequest = z.object({ name: KeyName, kind: PipelineKind }).strict().meta({ id: 'CreateApplicationRequest' });
export const CreateKeyRequest = z
  .object({ name: KeyName.optional(), expiresInDays: z.number().int().min(1).max(KEY_EXPIRES_IN_DAYS_MAX).optional() })
  .strict().meta({ id: 'CreateKeyRequest' });

const uuidParam = (name: string) => z.uuid({ error: `${name} must be a UUID.` }).transform((s) => s.toLowerCase());
export const ApplicationIdParams = z.object({ applicationId: uuidParam('applicationId') });
export const KeyIdParams = z.object({ keyId: uuidParam('keyId') });

// ---- Content Credentials trust anchors (issue 24): Settings lists, adds and removes them ----

const Fingerprint = z.string().regex(/^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$/, 'fingerprint must be a SHA-256 fingerprint: 32 hex pairs joined by colons.');
export const TrustAnchorInfo = z.object({
  fingerprintSha256: Fingerprint,
  subject: z.string(),
  notAfter: z.iso.datetime({ offset: true }),
  /** `authority`: a CA, every signer it issues is trusted; `signer`: one signer's own certificate (an allowed signer). */
  role: z.enum(['authority', 'signer']),
}).meta({ id: 'TrustAnchorInfo' });
export type TrustAnchorInfo = z.infer<typeof TrustAnchorInfo>;
export const TrustAnchorList = z.object({
  anchors: z.array(TrustAnchorInfo),
  /** False where the bundle is configured outside the window (VERACITY_TRUST_ANCHORS, a team server): listed, not edited here. */
  editable: z.boolean(),
}).meta({ id: 'TrustAnchorList' });
export type TrustAnchorList = z.infer<typeof TrustAnchorList>;
/** PEM text of one certificate or more (CA certificates or signers' own). */
export const AddTrustAnchorsRequest = z.object({ pem: z.string().min(1, 'pem is required.').max(512 * 1024, 'pem is longer than 512 KiB.') }).strict().meta({ id: 'AddTrustAnchorsRequest' });
export const FingerprintParams = z.object({ fingerprint: Fingerprint });

/**
 * What the window is connected to, so that a specialist sees whether files go to this computer (`desktop`) or to a
 * team server shared with colleagues (`team`).
 */
export const ServerInfo = z.object({ kind: z.enum(['desktop', 'team']) }).meta({ id: 'ServerInfo' });
export type ServerInfo = z.infer<typeof ServerInfo>;

// ---- Cases and the history search (issue #13): the window's workspace, spanning both applications ----

export { CaseStatus } from './schemas.js';

export const CaseInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  notes: z.string(),
  status: CaseStatus,
  createdAt: DateTime,
  updatedAt: DateTime,
  jobCount: z.number().int().nonnegative(),
  /** Files in the case: a file removed from it (DELETE /app/cases/{caseId}/files/{fileId}) no longer counts. */
  fileCount: z.number().int().nonnegative(),
  /** Files by machine verdict, and those still processing or ended in error. */
  counts: VerdictCounts,
  /**
   * Files by effective verdict: the expert review where there is one, the machine verdict otherwise (processing and
   * error count the files without a review that are still processing or ended in error).
   */
  effectiveCounts: VerdictCounts,
  /** Files with an expert review. */
  reviewed: z.number().int().nonnegative(),
}).meta({ id: 'CaseInfo' });
export type CaseInfo = z.infer<typeof CaseInfo>;

export const CaseList = z.object({ cases: z.array(CaseInfo), pagination: PaginationMeta }).meta({ id: 'CaseList' });
export type CaseList = z.infer<typeof CaseList>;

const caseName = z
  .string()
  .trim()
  .min(1, 'name must not be empty.')
  .max(CASE_NAME_MAX, `name must be at most ${CASE_NAME_MAX} characters.`);
const caseNotes = z.string().max(CASE_NOTES_MAX, `notes must be at most ${CASE_NOTES_MAX} characters.`);

export const CreateCaseRequest = z.object({ name: caseName, notes: caseNotes.optional() }).strict().meta({ id: 'CreateCaseRequest' });
export type CreateCaseRequest = z.infer<typeof CreateCaseRequest>;
export const UpdateCaseRequest = z
  .object({ name: caseName.optional(), notes: caseNotes.optional(), status: CaseStatus.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.notes !== undefined || b.status !== undefined, 'Give name, notes or status.')
  .meta({ id: 'UpdateCaseRequest' });
export type UpdateCaseRequest = z.infer<typeof UpdateCaseRequest>;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One job of a case, with the application it was sent to (its windowKey polls and reviews it). `job.results` holds
 * the files still in the case (a file removed from the case stays in its job, and in History); `files` gives their
 * SHA-256 in the same order, so the window can tell a duplicate in the case.
 */
export const CaseJob = z
  .object({ applicationId: z.uuid(), kind: PipelineKind, job: JobResult, files: z.array(z.object({ fileId: z.uuid(), sha256: Sha256 })) })
  .meta({ id: 'CaseJob' });
export type CaseJob = z.infer<typeof CaseJob>;
export const CaseJobList = z.object({ jobs: z.array(CaseJob), pagination: PaginationMeta }).meta({ id: 'CaseJobList' });
export type CaseJobList = z.infer<typeof CaseJobList>;

export const CaseIdParams = z.object({ caseId: uuidParameter('caseId') });
export const CaseFileParams = z.object({ caseId: uuidParameter('caseId'), fileId: uuidParameter('fileId') });

const searchText = (name: string) =>
  z
    .string({ error: `${name} must be given once.` })
    .trim()
    .min(1, `${name} must not be empty.`)
    .max(SEARCH_TEXT_MAX, `${name} must be at most ${SEARCH_TEXT_MAX} characters.`)
    .optional();
const paging = {
  page: positiveInteger('page', 1, Number.MAX_SAFE_INTEGER),
  pageSize: positiveInteger('pageSize', PAGE_SIZE_MAX, PAGE_SIZE_MAX).meta({ description: `Values above ${PAGE_SIZE_MAX} are clamped to ${PAGE_SIZE_MAX}.` }),
};
/** Any other parameter is ignored, but never given twice. */
const once = z.string({ error: 'A query parameter must be given once.' });

export const CaseListQuery = z
  .object({
    q: searchText('q').meta({ description: 'Part of the case name, any case.' }),
    status: CaseStatus.optional(),
    ...paging,
  })
  .catchall(once);
export const CaseJobsQuery = z.object(paging).catchall(once);

/** An ISO 8601 instant with its zone, compared as UTC. */
const instant = (name: string) =>
  z.iso
    .datetime({ offset: true, error: `${name} must be an ISO 8601 date and time with a zone (2025-01-31T00:00:00Z).` })
    .transform((s) => new Date(s).toISOString())
    .optional();

/**
 * What a history search filters on, under the names the window, the case service and the stores share (the query of
 * GET /app/history below names them `case` and `name`).
 */
export interface HistoryFilter {
  /** Part of the case name, any case. */
  caseName?: string;
  /** Part of the file name, any case. */
  fileName?: string;
  /** The SHA-256, lower-case hex: all 64 digits, or a prefix of at least 8. */
  sha256?: string;
  /** The case's id: the files in that case (not those removed from it). */
  caseId?: string;
  /** Files with (true) or without (false) an expert review. */
  reviewed?: boolean;
  /** Jobs created at or after / at or before these instants (ISO 8601; the query turns them into UTC). */
  from?: string;
  to?: string;
  /** The effective verdict: the expert review where there is one, the machine verdict otherwise. */
  verdict?: VerdictAssessment;
}

/** The shortest SHA-256 prefix a history search takes (8 hex digits: 4 billion values, no accidental crowd). */
export const SHA256_PREFIX_MIN = 8;

export const HistoryQuery = z
  .object({
    case: searchText('case').meta({ description: 'Part of the case name, any case.' }),
    name: searchText('name').meta({ description: 'Part of the file name, any case.' }),
    sha256: z
      .string({ error: 'sha256 must be given once.' })
      .trim()
      .regex(/^[0-9a-fA-F]{8,64}$/, 'sha256 must be 8 to 64 hexadecimal digits (the SHA-256 or its beginning).')
      .transform((s) => s.toLowerCase())
      .optional()
      .meta({ description: 'The SHA-256 (64 hexadecimal digits, any case) or its first 8 or more digits.' }),
    caseId: uuidParameter('caseId').optional().meta({ description: 'The files in this case (not those removed from it).' }),
    reviewed: z
      .enum(['true', 'false'], { error: 'reviewed must be "true" or "false".' })
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true'))
      .meta({ description: 'Files with (true) or without (false) an expert review.' }),
    from: instant('from').meta({ description: 'Jobs created at or after this instant.' }),
    to: instant('to').meta({ description: 'Jobs created at or before this instant.' }),
    verdict: VerdictAssessment.optional().meta({ description: 'The effective verdict: the expert review where there is one, the machine verdict otherwise.' }),
    ...paging,
  })
  .catchall(once)
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, { message: 'from must not be after to.', path: ['to'] });

export const HistoryEntry = z.object({
  jobId: z.uuid(),
  fileId: z.uuid(),
  applicationId: z.uuid(),
  kind: PipelineKind,
  caseId: z.uuid().nullable(),
  caseName: z.string().nullable(),
  name: z.string(),
  size: z.number().int().nonnegative(),
  type: MediaType,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  status: z.enum(['processing', 'completed', 'error']),
  /** The machine verdict; null until the file is done, or when it ended in error. */
  assessment: VerdictAssessment.nullable(),
  /** The specialist's review, when there is one. */
  reviewAssessment: VerdictAssessment.nullable(),
  createdAt: DateTime,
}).meta({ id: 'HistoryEntry' });
export type HistoryEntry = z.infer<typeof HistoryEntry>;
export const HistoryList = z.object({ files: z.array(HistoryEntry), pagination: PaginationMeta }).meta({ id: 'HistoryList' });
export type HistoryList = z.infer<typeof HistoryList>;
