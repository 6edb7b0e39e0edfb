// Which credential the window uses for each kind of file: the window's own per-launch credential (never an API key:
// those are shown once, to the tools they are made for) of the first application of that kind.
import type { ApplicationInfo } from '../../src/api/app-schemas.js';
import type { PipelineKind } from '../../src/api/schemas.js';
import type { AppKey } from './case-session.js';

/** The window's credential for this application's jobs, from GET /app/applications. */
export function usableKey(application: ApplicationInfo): string | null {
  return application.windowKey || null;
}

export function activeKeys(applications: ApplicationInfo[]): Partial<Record<PipelineKind, AppKey>> {
  const keys: Partial<Record<PipelineKind, AppKey>> = {};
  for (const application of applications) {
    if (keys[application.kind]) continue;
    const apiKey = usableKey(application);
    if (apiKey) keys[application.kind] = { applicationId: application.id, apiKey };
  }
  return keys;
}
