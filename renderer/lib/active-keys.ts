// Which API key the window uses for each kind of file: the first usable key of the first application of that kind.
import type { ApplicationInfo } from '../../src/api/admin-schemas.js';
import type { PipelineKind } from '../../src/api/schemas.js';
import type { AppKey } from './case-session.js';

/** A key is usable when it is neither revoked nor expired. */
export function usableKey(application: ApplicationInfo, now: Date): string | null {
  return application.keys.find((k) => k.revokedAt === null && (k.expiresAt === null || new Date(k.expiresAt) > now))?.apiKey ?? null;
}

export function activeKeys(applications: ApplicationInfo[], now: Date): Partial<Record<PipelineKind, AppKey>> {
  const keys: Partial<Record<PipelineKind, AppKey>> = {};
  for (const application of applications) {
    if (keys[application.kind]) continue;
    const apiKey = usableKey(application, now);
    if (apiKey) keys[application.kind] = { applicationId: application.id, apiKey };
  }
  return keys;
}
