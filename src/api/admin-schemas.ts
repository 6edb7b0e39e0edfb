// Schemas of the app-only routes under /app (applications and API keys for the Settings screen) and of the
// case report extension. /app routes take the per-launch UI token, never an API key; /v1 routes take API keys.
import { z } from 'zod';
import { JobResult, PipelineKind } from './schemas.js';

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
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

/** The answer to creating a key: the only time the key is sent. */
export const CreatedApiKey = ApiKeyInfo.extend({ apiKey: z.string() });
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
});
export type ApplicationInfo = z.infer<typeof ApplicationInfo>;

/** The answer to creating an application: it, plus its first key, shown this once. */
export const CreatedApplication = ApplicationInfo.extend({ createdKey: CreatedApiKey });
export type CreatedApplication = z.infer<typeof CreatedApplication>;

export const ApplicationList = z.object({ applications: z.array(ApplicationInfo) });
export type ApplicationList = z.infer<typeof ApplicationList>;

export const CreateApplicationRequest = z.object({ name: z.string().trim().min(1).max(100), kind: PipelineKind }).strict();
export const CreateKeyRequest = z
  .object({ name: z.string().trim().min(1).max(100).optional(), expiresInDays: z.number().int().min(1).max(3650).optional() })
  .strict();

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
});
export type JobReport = z.infer<typeof JobReport>;
