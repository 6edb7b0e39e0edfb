// Schemas of the app-only routes under /app (applications and API keys for the Settings screen) and of the
// case report extension. /app routes take the per-launch UI token, never an API key; /v1 routes take API keys.
import { z } from 'zod';
import { JobResult, PipelineKind } from './schemas.js';

const DateTime = z.iso.datetime({ offset: true });

export const ApiKeyInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  createdAt: DateTime,
  expiresAt: DateTime.nullable(),
  revokedAt: DateTime.nullable(),
  apiKey: z.string(), // the JWT itself, so the Settings screen can show and copy it
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

export const ApplicationInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: PipelineKind,
  createdAt: DateTime,
  keys: z.array(ApiKeyInfo),
});
export type ApplicationInfo = z.infer<typeof ApplicationInfo>;

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
