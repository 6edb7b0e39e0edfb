// Schemas of the app-only routes under /app: applications and API keys for the Settings screen. /app routes take the
// per-launch UI token, never an API key; /v1 routes take API keys (their schemas are in schemas.ts).
import { z } from 'zod';
import { PipelineKind } from './schemas.js';

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

export const CreateApplicationRequest = z.object({ name: z.string().trim().min(1).max(100), kind: PipelineKind }).strict().meta({ id: 'CreateApplicationRequest' });
export const CreateKeyRequest = z
  .object({ name: z.string().trim().min(1).max(100).optional(), expiresInDays: z.number().int().min(1).max(3650).optional() })
  .strict().meta({ id: 'CreateKeyRequest' });

const uuidParam = (name: string) => z.uuid({ error: `${name} must be a UUID.` }).transform((s) => s.toLowerCase());
export const ApplicationIdParams = z.object({ applicationId: uuidParam('applicationId') });
export const KeyIdParams = z.object({ keyId: uuidParam('keyId') });
