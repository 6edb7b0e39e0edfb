// App-only routes (per-launch UI token): the Settings screen's applications and API keys.
import type { FastifyInstance } from 'fastify';
import { CreateApplicationRequest, CreateKeyRequest, type ApiKeyInfo, type ApplicationInfo } from '../../api/admin-schemas.js';
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
  apiKey: k.token,
});

function badBody(issues: { path: PropertyKey[]; message: string }[]): ApiHttpError {
  return new ApiHttpError('invalid_request', 'Invalid request body.', {
    issues: issues.map((i) => ({ path: i.path.map(String).join('.') || 'body', message: i.message })),
  });
}

export function registerAdminRoutes(app: FastifyInstance, deps: AppDeps): void {
  const appInfo = (a: Application): ApplicationInfo => ({ ...a, keys: deps.apps.listKeys(a.id).map(keyInfo) });

  app.get('/app/applications', async () => ({ applications: deps.apps.listApplications().map(appInfo) }));

  app.post('/app/applications', async (req, reply) => {
    const parsed = CreateApplicationRequest.safeParse(req.body);
    if (!parsed.success) throw badBody(parsed.error.issues);
    const { app: created } = await deps.keys.createApplication(parsed.data.name, parsed.data.kind);
    return reply.status(201).send(appInfo(created));
  });

  app.post('/app/applications/:applicationId/keys', async (req, reply) => {
    const id = parseUuid((req.params as { applicationId: string }).applicationId, 'applicationId');
    const application = deps.apps.getApplication(id);
    if (!application) throw new ApiHttpError('not_found', 'No such application.');
    const parsed = CreateKeyRequest.safeParse(req.body ?? {});
    if (!parsed.success) throw badBody(parsed.error.issues);
    const key = await deps.keys.issueKey(id, parsed.data.name ?? `${application.name} key`, parsed.data.expiresInDays);
    return reply.status(201).send(keyInfo(key));
  });

  app.post('/app/keys/:keyId/revoke', async (req) => {
    const id = parseUuid((req.params as { keyId: string }).keyId, 'keyId');
    if (!deps.apps.getKey(id)) throw new ApiHttpError('not_found', 'No such key.');
    deps.apps.revokeKey(id, new Date().toISOString());
    return keyInfo(deps.apps.getKey(id)!);
  });
}
