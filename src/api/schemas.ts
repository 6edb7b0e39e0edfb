// The v1 contract as zod schemas: every body the API sends or accepts, and the path, query and header parameters
// of its routes (the server validates requests and responses with them and describes itself from them). The one
// part of src/ the renderer may import.
import { z } from 'zod';
import { DetectorThresholds } from './detector-bands.js';
import { CASE_NAME_MAX, IDEMPOTENCY_KEY_MAX, MAX_FILES_PER_REQUEST, PAGE_SIZE_MAX } from './limits.js';

export const ERROR_CODES = [
  'invalid_request',
  'unsupported_format',
  'unauthorized',
  'forbidden',
  'not_found',
  'file_too_large',
  'unprocessable',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** HTTP status of each error code (spec error table; DECISIONS 11 for forbidden). */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unsupported_format: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  file_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export const ApiIssue = z.object({ path: z.string(), message: z.string().optional() });
export const ApiError = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.object({ issues: z.array(ApiIssue).optional() }).catchall(z.unknown()).optional(),
  retryAfter: z.number().int().positive().optional(),
}).meta({ id: 'ApiError' });
export type ApiError = z.infer<typeof ApiError>;

export const ConfidenceLevel = z.enum(['high', 'medium', 'low']);
export type ConfidenceLevel = z.infer<typeof ConfidenceLevel>;
export const VerdictAssessment = z.enum(['ai_generated', 'authentic', 'inconclusive']);
export type VerdictAssessment = z.infer<typeof VerdictAssessment>;
export const DimensionAssessment = z.enum(['likely_ai', 'likely_authentic', 'inconclusive']);
export type DimensionAssessment = z.infer<typeof DimensionAssessment>;

/**
 * One check a detector made, as data and as a sentence (an extension: additive, absent on results analysed before
 * it). `code` is stable and never reworded; Content Credentials (C2PA) checks use the C2PA specification's validation
 * status codes verbatim (`claimSignature.validated`, `assertion.dataHash.mismatch`, `signingCredential.untrusted`).
 */
export const Finding = z
  .object({
    code: z.string().min(1).meta({ description: 'Stable identifier of the check and its outcome, e.g. `provenance.camera`, `claimSignature.mismatch`.' }),
    message: z.string().min(1).meta({ description: 'What the check found, in plain language.' }),
  })
  .meta({ id: 'Finding' });
export type Finding = z.infer<typeof Finding>;

/**
 * What the product makes of a C2PA signer: `trusted` (chains to a configured trust anchor), `untrusted` (anchors are
 * configured and it chains to none), `not_established` (no anchors configured), `expired` (outside its validity at
 * signing time), `invalid` (breaks the C2PA certificate profile), `missing` (no usable signature).
 */
export const SignerTrust = z.enum(['trusted', 'untrusted', 'not_established', 'expired', 'invalid', 'missing']);
export type SignerTrust = z.infer<typeof SignerTrust>;

/** One manifest of a file's Content Credentials (C2PA), as a specialist reads it. */
export const C2paManifest = z
  .object({
    label: z.string().meta({ description: 'The manifest\'s label in the store (urn:uuid:...).' }),
    signer: z.object({
      subject: z.string().nullable().meta({ description: 'The signing certificate\'s subject (O / CN).' }),
      issuer: z.string().nullable().meta({ description: 'The signing certificate\'s issuer (O / CN).' }),
      trust: SignerTrust,
    }),
    signedAt: z.iso.datetime({ offset: true }).nullable().meta({ description: 'When it was signed, from its RFC 3161 time-stamp; null without one.' }),
    claimGenerator: z.string().nullable().meta({ description: 'The tool that made the claim (claim generator, with its version).' }),
    actions: z.array(
      z.object({
        action: z.string().meta({ description: 'e.g. `c2pa.created`, `c2pa.opened`, `c2pa.edited`.' }),
        digitalSourceType: z.string().optional().meta({ description: 'The IPTC digital source type\'s code, e.g. `digitalCapture`, `trainedAlgorithmicMedia`.' }),
        softwareAgent: z.string().optional(),
      }),
    ),
    ingredients: z.array(
      z.object({
        title: z.string().nullable(),
        relationship: z.string().nullable().meta({ description: '`parentOf`, `componentOf` or `inputTo`.' }),
        manifest: z.string().nullable().meta({ description: 'The label of the ingredient\'s own manifest (later in the chain); null when it carries none.' }),
        validated: z.boolean().nullable().meta({ description: 'Whether the ingredient\'s own manifest validated (signature and hashed URIs); null when it carries none.' }),
      }),
    ),
    valid: z.boolean().meta({ description: 'Its signature and hashes hold (hard bindings are checked for the active manifest only: an ingredient\'s bytes are not here).' }),
    failures: z.array(z.string()).meta({ description: 'The C2PA status codes that failed, verbatim (signer trust included); [] when none did.' }),
  })
  .meta({ id: 'C2paManifest' });
export type C2paManifest = z.infer<typeof C2paManifest>;

export const Dimension = z.object({
  key: z.string().min(1),
  label: z.string().min(1),
  score: z.number().min(0).max(1),
  assessment: DimensionAssessment.optional(),
  confidence: ConfidenceLevel.optional(),
  findings: z.array(Finding).optional().meta({ description: "Every check behind this dimension, in its detector's order of importance." }),
  manifests: z
    .array(C2paManifest)
    .optional()
    .meta({ description: 'Content Credentials (C2PA) of the file, on the dimension that validated them: the active manifest first, then back through its ingredients\' manifests.' }),
});
export type Dimension = z.infer<typeof Dimension>;

export const VerdictDisplay = z.object({
  label: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
});
export type VerdictDisplay = z.infer<typeof VerdictDisplay>;

export const Verdict = z.object({
  assessment: VerdictAssessment,
  confidence: ConfidenceLevel,
  display: VerdictDisplay,
  dimensions: z.array(Dimension),
});
export type Verdict = z.infer<typeof Verdict>;

export const JobResultError = z.object({ code: ErrorCode.or(z.literal('result_unavailable')), message: z.string() });
export type JobResultError = z.infer<typeof JobResultError>;

export const ExpertReview = z.object({
  assessment: VerdictAssessment,
  note: z.string().optional(),
  reviewer: z.string(),
  reviewedAt: z.iso.datetime({ offset: true }),
});
export type ExpertReview = z.infer<typeof ExpertReview>;

export const MediaType = z.enum(['image/jpeg', 'image/png', 'image/heic', 'image/heif', 'application/pdf']);
export type MediaType = z.infer<typeof MediaType>;
export const PipelineKind = z.enum(['images', 'pdfs']);
export type PipelineKind = z.infer<typeof PipelineKind>;

export const FileInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  size: z.number().int().nonnegative(),
  type: MediaType,
});

const DateTime = z.iso.datetime({ offset: true });

export const PixelSize = z
  .object({ width: z.number().int().positive(), height: z.number().int().positive() })
  .meta({ id: 'PixelSize', description: 'Pixel size of the analysed image, after its EXIF orientation is applied (a portrait phone photo is taller than wide).' });
export type PixelSize = z.infer<typeof PixelSize>;

export const FileResult = z.object({
  file: FileInfo,
  status: z.enum(['processing', 'completed', 'error']),
  startedAt: DateTime,
  completedAt: DateTime.nullable(),
  verdict: Verdict.optional(),
  dimensions: z.array(Dimension).optional(),
  error: JobResultError.optional(),
  expertReview: ExpertReview.optional(),
  pixelSize: PixelSize.optional().meta({ description: 'Extension: present once an image was decoded; absent for PDFs and for files that could not be decoded.' }),
});
export type FileResult = z.infer<typeof FileResult>;

export const JobStatus = z.enum(['processing', 'completed', 'error', 'rejected']);
export type JobStatus = z.infer<typeof JobStatus>;

export const Metadata = z.record(z.string(), z.unknown());

export const JobResult = z.object({
  jobId: z.uuid(),
  status: JobStatus,
  results: z.array(FileResult),
  error: JobResultError.optional(),
  metadata: Metadata.optional(),
  createdAt: DateTime,
  completedAt: DateTime.optional(),
}).meta({ id: 'JobResult' });
export type JobResult = z.infer<typeof JobResult>;

export const JobListEntry = z.object({
  id: z.uuid(),
  applicationId: z.string(),
  metadata: Metadata,
  createdAt: DateTime.nullable(),
  updatedAt: DateTime.nullable(),
});
export type JobListEntry = z.infer<typeof JobListEntry>;

export const PaginationMeta = z.object({
  page: z.number().int().min(1),
  pageSize: z.number().int().min(1),
  total: z.number().int().min(0),
  totalPages: z.number().int().min(0),
  hasNextPage: z.boolean(),
});
export const JobList = z.object({ jobs: z.array(JobListEntry), pagination: PaginationMeta }).meta({ id: 'JobList' });
export type JobList = z.infer<typeof JobList>;

// ---- Extensions (DECISIONS 32-34) ----

export const ReviewRequest = z
  .object({
    assessment: VerdictAssessment,
    note: z.string().max(4000).optional(),
    reviewer: z.string().trim().min(1).max(200),
  })
  .strict().meta({ id: 'ReviewRequest' });
export type ReviewRequest = z.infer<typeof ReviewRequest>;

/** Tile scores behind ai_detection, for heatmaps. One grid per analysed image (an image file has one; a PDF one per image/page analysed). */
export const RegionGrid = z.object({
  /** Where the grid lives: the image itself, or a PDF page (1-based) and image index within it. */
  source: z.object({
    kind: z.enum(['image', 'pdf_image', 'pdf_page']),
    page: z.number().int().min(1).optional(),
    imageIndex: z.number().int().min(0).optional(),
  }),
  /** Pixel size of the analysed image (after EXIF orientation). */
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  tiles: z.array(
    z.object({
      x: z.number().int().nonnegative(),
      y: z.number().int().nonnegative(),
      w: z.number().int().positive(),
      h: z.number().int().positive(),
      score: z.number().min(0).max(1),
    }),
  ),
  /**
   * The calibrated thresholds of the model that scored the tiles: they set the bands a tile's score falls in, and so
   * its colour on a heatmap (src/api/detector-bands.ts). Absent on grids stored before they were kept.
   */
  thresholds: DetectorThresholds.optional(),
});
export type RegionGrid = z.infer<typeof RegionGrid>;
export const FileRegions = z.object({
  fileId: z.uuid(),
  modelVersion: z.string().nullable(),
  aggregation: z.string().nullable(),
  grids: z.array(RegionGrid),
}).meta({ id: 'FileRegions' });
export type FileRegions = z.infer<typeof FileRegions>;

const RegionTile = RegionGrid.shape.tiles.element;
const PixelInt = z.number().int().nonnegative().max(1_000_000);

/** POST .../regions: a rectangle of one analysed picture (`grid`, an index into FileRegions.grids), in its pixels. */
export const RegionRequest = z
  .object({
    grid: z.number().int().nonnegative().max(1000).default(0),
    x: PixelInt,
    y: PixelInt,
    width: PixelInt.min(1),
    height: PixelInt.min(1),
  })
  .strict()
  .meta({ id: 'RegionRequest' });
export type RegionRequest = z.infer<typeof RegionRequest>;

/**
 * Every model tile of the grid that overlaps the rectangle, scored: the analysis' own tiles, the ones scored for an
 * earlier request (kept per file), and the rest scored now, with the analysis' model and tiling. They do not change
 * the file's score or verdict (those rest on the analysis' even sample, `aggregation`).
 */
export const RegionTiles = z
  .object({
    fileId: z.uuid(),
    grid: z.number().int().nonnegative(),
    /** Pixel size of the analysed picture, as in its RegionGrid. */
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    tileSize: z.number().int().positive(),
    stride: z.number().int().positive(),
    modelVersion: z.string().nullable(),
    tiles: z.array(RegionTile),
    /** How many of `tiles` were scored for this request (0 when every one was known already). */
    scoredNow: z.number().int().nonnegative(),
  })
  .meta({ id: 'RegionTiles' });
export type RegionTiles = z.infer<typeof RegionTiles>;

/** GET /v1/jobs/{jobId}/report: everything a case report needs, including what the v1 result does not carry. */
export const JobReport = z.object({
  generatedAt: DateTime,
  applicationId: z.uuid(),
  job: JobResult,
  files: z.array(
    z.object({
      fileId: z.uuid(),
      name: z.string(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      modelVersion: z.string().nullable(),
    }),
  ),
}).meta({ id: 'JobReport' });
export type JobReport = z.infer<typeof JobReport>;

/** Where one file of a job stands while work runs (extension: GET /v1/jobs/{jobId}/progress). */
export const FileStage = z.enum(['queued', 'decoding', 'analysing', 'done', 'error']);
export type FileStage = z.infer<typeof FileStage>;
export const JobProgress = z.object({
  jobId: z.uuid(),
  files: z.array(
    z.object({
      fileId: z.uuid(),
      stage: FileStage,
      /** When the analysis of the file began (its latest attempt); null while it waits in the queue. */
      startedAt: DateTime.nullable(),
    }),
  ),
}).meta({ id: 'JobProgress' });
export type JobProgress = z.infer<typeof JobProgress>;

/** Where a case stands, as the specialist sets it in the window (the case header). */
export const CaseStatus = z.enum(['open', 'in_review', 'closed']);
export type CaseStatus = z.infer<typeof CaseStatus>;

/** Files by machine verdict, plus those still processing or ended in error: how a case (CaseInfo) and its report count. */
export const VerdictCounts = z.object({
  ai_generated: z.number().int().nonnegative(),
  authentic: z.number().int().nonnegative(),
  inconclusive: z.number().int().nonnegative(),
  processing: z.number().int().nonnegative(),
  error: z.number().int().nonnegative(),
});

/**
 * GET /app/cases/{caseId}/report.json and GET /v1/jobs/{jobId}/report.json: the case report as data, the same every time
 * the case is unchanged (no time of printing in it), written as canonical JSON (keys sorted, no spaces). The PDF
 * beside it prints the SHA-256 of exactly these bytes, which binds the two.
 */
export const CaseReportFile = z.object({
  fileId: z.uuid(),
  jobId: z.uuid(),
  applicationId: z.uuid(),
  name: z.string(),
  mediaType: MediaType,
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  status: z.enum(['processing', 'completed', 'error']),
  submittedAt: DateTime,
  completedAt: DateTime.nullable(),
  verdict: Verdict.nullable(),
  error: JobResultError.nullable(),
  expertReview: ExpertReview.nullable(),
  modelVersion: z.string().nullable(),
  aggregation: z.string().nullable(),
  /** The tile scores behind the heatmap (what GET .../regions serves). */
  regions: z.array(RegionGrid),
  /** The file result's pixelSize: the image as analysed, after EXIF orientation; null for a PDF or a file not decoded. */
  pixelSize: PixelSize.nullable(),
});
export type CaseReportFile = z.infer<typeof CaseReportFile>;

export const CaseReport = z.object({
  format: z.literal('veracity-case-report'),
  /** 3: the report names its case by id (`caseId`); 2 named it by `caseName` only. */
  version: z.literal(3),
  /** The case (GET /app/cases/{caseId}); null for the report of one job (an API key does not see cases). */
  caseId: z.uuid().nullable(),
  /** The case's name as it is now; for one job's report, the job's `metadata.case` (null without one). */
  caseName: z.string().nullable(),
  /** The case's status as it is now (GET /app/cases/{caseId}); null for the report of one job. */
  caseStatus: CaseStatus.nullable(),
  /** The case's notes as they are now ('' when none); null for the report of one job. */
  caseNotes: z.string().nullable(),
  appVersion: z.string(),
  /** The core's local time zone (IANA), in which the PDF states every time. */
  timeZone: z.string(),
  /** The latest change to any job of the report: the state the report describes. */
  asOf: DateTime,
  summary: z.object({
    files: z.number().int().nonnegative(),
    /** Files by machine verdict. */
    ...VerdictCounts.shape,
    reviewed: z.number().int().nonnegative(),
    /**
     * Files by effective verdict: the expert review where there is one, the machine verdict otherwise (processing and
     * error count the files without a review still processing or ended in error).
     */
    effective: VerdictCounts,
  }),
  jobs: z.array(z.object({ jobId: z.uuid(), applicationId: z.uuid(), status: JobStatus, createdAt: DateTime, completedAt: DateTime.nullable() })),
  /** In submission order: by job, then by the file's place in its request. */
  files: z.array(CaseReportFile),
}).meta({ id: 'CaseReport' });
export type CaseReport = z.infer<typeof CaseReport>;

/**
 * The certificate of the installation's own key, with which every case report PDF is signed (a PAdES signature): what
 * a reader is given to check that a report came from this installation unaltered. Self-signed; never the key.
 */
export const ReportSigningCertificate = z.object({
  subject: z.string(),
  /** SHA-256 of the certificate (DER), upper-case hex pairs joined by colons: compare it with what a PDF reader shows. */
  fingerprintSha256: z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
  serialNumber: z.string(),
  notBefore: DateTime,
  notAfter: DateTime,
  /** The certificate, PEM (-----BEGIN CERTIFICATE-----). */
  pem: z.string(),
}).meta({ id: 'ReportSigningCertificate' });
export type ReportSigningCertificate = z.infer<typeof ReportSigningCertificate>;

// ---- Request parameters: checked by the server before a handler runs (a refusal names the parameter in
// details.issues[0].path) ----

/**
 * A UUID path or query parameter: any 8-4-4-4-12 hex id, any case, compared lower-case. Not z.uuid(), which also
 * checks the RFC 9562 version and variant digits: a well-formed id of another variant (00000000-0000-0000-0000-000000000001)
 * is an id that does not exist (404, DECISIONS 12) or names another application (403, DECISIONS 11), not a malformed one.
 */
export const uuidParameter = (name: string) =>
  z.guid({ error: (iss) => (iss.input === undefined ? `${name} is required.` : `${name} must be a UUID.`) }).transform((s) => s.toLowerCase());

/**
 * A positive integer of any length, clamped to `max`: a well-formed value is never refused for its size (the spec
 * clamps pageSize; a page past the end is an empty page). Compared as a BigInt, so digits beyond 2^53 are not rounded.
 */
export const positiveInteger = (name: string, fallback: number, max: number) =>
  z
    .string({ error: `${name} must be a positive integer, given once.` })
    .regex(/^\d+$/, `${name} must be a positive integer.`)
    .refine((s) => /[1-9]/.test(s), `${name} must be at least 1.`)
    // A default (not .optional()): the OpenAPI document states it, as the spec's query tables do.
    .default(String(fallback))
    .transform((s) => (BigInt(s) > BigInt(max) ? max : Number(s)));

/** DECISIONS 13: only the words true and false. */
export const WaitQuery = z.object({
  wait: z
    .enum(['true', 'false'], { error: 'wait must be "true" or "false".' })
    .default('true')
    .transform((v) => v === 'true')
    .meta({ description: 'Hold the answer until the job is terminal or the 30 s window ends (default true).' }),
});

export const JobIdParams = z.object({ jobId: uuidParameter('jobId') });

/** The query of a case report (GET /app/cases/{caseId}/report.pdf and GET /v1/jobs/{jobId}/report.pdf). */
export const CaseReportQuery = z
  .object({
    examiner: z
      .string({ error: 'examiner must be given once.' })
      .max(200, 'examiner must be at most 200 characters.')
      .optional()
      .meta({ description: 'Printed in the sign-off block of the PDF (left blank to be written by hand when absent).' }),
  })
  .catchall(z.string({ error: 'A query parameter must be given once.' }));
export const JobReportQuery = CaseReportQuery;
/** Both ids are checked before either is looked up: a malformed fileId is 400 whether or not the job exists. */
export const JobFileParams = z.object({ jobId: uuidParameter('jobId'), fileId: uuidParameter('fileId') });

export const JobListQuery = z
  .object({
    applicationId: uuidParameter('applicationId'),
    // A page beyond 2^53 is answered as page 2^53 - 1 (JSON numbers are exact only that far): still an empty page.
    page: positiveInteger('page', 1, Number.MAX_SAFE_INTEGER),
    pageSize: positiveInteger('pageSize', PAGE_SIZE_MAX, PAGE_SIZE_MAX).meta({ description: `Values above ${PAGE_SIZE_MAX} are clamped to ${PAGE_SIZE_MAX}.` }),
    case: z
      .string({ error: 'case must be given once.' })
      .max(CASE_NAME_MAX, `case must be a string of at most ${CASE_NAME_MAX} characters.`)
      .optional()
      .meta({ description: 'Extension: only jobs whose metadata.case equals this.' }),
  })
  // Any other parameter is ignored, but never given twice (two values of one name are a mistake worth telling).
  .catchall(z.string({ error: 'A query parameter must be given once.' }));

export const AssessHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1, `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters.`)
    .max(IDEMPOTENCY_KEY_MAX, `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters.`)
    .regex(/^[\x20-\x7e]+$/, 'Idempotency-Key must be printable ASCII.')
    .optional(),
});

/**
 * POST /v1/assess's body, for the OpenAPI document only: it is streamed and checked part by part in the handler
 * (src/server/multipart-upload.ts), never buffered for a schema.
 */
export const AssessBody = z.object({
  file: z.array(z.file()).min(1).max(MAX_FILES_PER_REQUEST).meta({ description: `1 to ${MAX_FILES_PER_REQUEST} files of one case.` }),
  metadata: z.string().optional().meta({ description: 'A JSON object, echoed in the result as sent (compact).' }),
});
