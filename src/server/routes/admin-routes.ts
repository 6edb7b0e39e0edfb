// App-only routes (per-launch UI token): the Settings screen's applications and API keys, and the window's own
// per-launch credentials. A key's text is sent once, in the answer that creates it; listings carry its identity only.
import type { FastifyInstance } from 'fastify';
import {
  CreateApplicationRequest,
  CreateKeyRequest,
  type ApiKeyInfo,
  type ApplicationInfo,
  type CreatedApiKey,
  type CreatedApplication,
} from '../../api/admin-schemas.js';
import type { IssuedKey } from '../../auth/api-keys.js';
import type { ApiKeyRecord, Application } from '../../db/applications-repository.js';
import { ApiHttpError } from '../api-error.js';
import type { AppDeps } from '../app.js';
import { parseUuid } from '../query.js';

const keyInfo = (k: ApiKeyRecord): ApiKeyInfo => ({
  id: k.id,
  name: k.name,
  createdAt: k.createdAt,
  expiresAt: k.expiresAt,
  revokedAt: k.revokedAt,
  hint: k.hint,
});

const createdKey = (k: IssuedKey): CreatedApiKey => ({ ...keyInfo(k), apiKey: k.token });

function badBody(issues: { path: PropertyKey[]; message: string }[]): ApiHttpError {
  return new ApiHttpError('invalid_request', 'Invalid request body.', {
    issues: issues.map((i) => ({ path: i.path.map(String).join('.') || 'body', message: i.message })),
  });
}

export function registerAdminRoutes(app: FastifyInstance, deps: AppDeps): void {
  const appInfo = async (a: Application): Promise<ApplicationInfo> => ({
    ...a,
    keys: deps.apps.listKeys(a.id).map(keyInfo),
    windowKey: await deps.keys.windowKey(a.id),
  });

  app.get('/app/applications', async (_req, reply) => {
    const applications = await Promise.all(deps.apps.listApplications().map(appInfo));
    return reply.header('cache-control', 'no-store').send({ applications });
  });

  app.post('/app/applications', async (req, reply) => {
    const parsed = CreateApplicationRequest.safeParse(req.body);
    if (!parsed.success) throw badBody(parsed.error.issues);
    const { app: created, key } = await deps.keys.createApplication(parsed.data.name, parsed.data.kind);
    const body: CreatedApplication = { ...(await appInfo(created)), createdKey: createdKey(key) };
    return reply.status(201).header('cache-control', 'no-store').send(body);
  });

  app.post('/app/applications/:applicationId/keys', async (req, reply) => {
    const id = parseUuid((req.params as { applicationId: string }).applicationId, 'applicationId');
    const application = deps.apps.getApplication(id);
    if (!application) throw new ApiHttpError('not_found', 'No such application.');
    const parsed = CreateKeyRequest.safeParse(req.body ?? {});
    if (!parsed.success) throw badBody(parsed.error.issues);
    const key = await deps.keys.issueKey(id, parsed.data.name ?? `${application.name} key`, parsed.data.expiresInDays);
    return reply.status(201).header('cache-control', 'no-store').send(createdKey(key));
  });

  app.post('/app/keys/:keyId/revoke', async (req) => {
    const id = parseUuid((req.params as { keyId: string }).keyId, 'keyId');
    if (!deps.apps.getKey(id)) throw new ApiHttpError('not_found', 'No such key.');
    deps.apps.revokeKey(id, new Date().toISOString());
    return keyInfo(deps.apps.getKey(id)!);
  });
}
