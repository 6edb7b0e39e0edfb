// The v1 contract as zod schemas: every body the API sends or accepts. The one part of src/ the renderer may import.
import { z } from 'zod';

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
});
export type ApiError = z.infer<typeof ApiError>;

export const ConfidenceLevel = z.enum(['high', 'medium', 'low']);
export type ConfidenceLevel = z.infer<typeof ConfidenceLevel>;
export const VerdictAssessment = z.enum(['ai_generated', 'authentic', 'inconclusive']);
export type VerdictAssessment = z.infer<typeof VerdictAssessment>;
export const DimensionAssessment = z.enum(['likely_ai', 'likely_authentic', 'inconclusive']);
export type DimensionAssessment = z.infer<typeof DimensionAssessment>;

export const Dimension = z.object({
  key: z.string().min(1),
  label: z.string().min(1),
  score: z.number().min(0).max(1),
  assessment: DimensionAssessment.optional(),
  confidence: ConfidenceLevel.optional(),
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

export const FileResult = z.object({
  file: FileInfo,
  status: z.enum(['processing', 'completed', 'error']),
  startedAt: DateTime,
  completedAt: DateTime.nullable(),
  verdict: Verdict.optional(),
  dimensions: z.array(Dimension).optional(),
  error: JobResultError.optional(),
  expertReview: ExpertReview.optional(),
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
});
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
export const JobList = z.object({ jobs: z.array(JobListEntry), pagination: PaginationMeta });
export type JobList = z.infer<typeof JobList>;

// ---- Extensions (DECISIONS 32-34) ----

export const ReviewRequest = z
  .object({
    assessment: VerdictAssessment,
    note: z.string().max(4000).optional(),
    reviewer: z.string().trim().min(1).max(200),
  })
  .strict();
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
});
export type RegionGrid = z.infer<typeof RegionGrid>;
export const FileRegions = z.object({
  fileId: z.uuid(),
  modelVersion: z.string().nullable(),
  aggregation: z.string().nullable(),
  grids: z.array(RegionGrid),
});
export type FileRegions = z.infer<typeof FileRegions>;
