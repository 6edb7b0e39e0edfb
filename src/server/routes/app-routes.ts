// App-only routes (per-launch UI token): the Settings screen's applications and API keys, the window's own
// per-launch credentials, and what kind of server the window talks to. A key's text is sent once, in the answer
// that creates it; listings carry its identity only.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ApiKeyInfo,
  ApplicationIdParams,
  ApplicationList,
  CreateApplicationRequest,
  CreatedApiKey,
  CreatedApplication,
  CreateKeyRequest,
  KeyIdParams,
  ServerInfo,
} from '../../api/app-schemas.js';
import { ApiError } from '../../api/schemas.js';
import { keyInfo, type IssuedKey } from '../../auth/api-keys.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';

const createdKey = (k: IssuedKey): CreatedApiKey => ({ ...keyInfo(k), apiKey: k.token });

export function registerAppRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/app/server', { schema: { response: { 200: ServerInfo, ...COMMON_ERRORS } } }, async (_req, reply) =>
    reply.header('cache-control', 'no-store').send({ kind: deps.serverKind ?? 'desktop' }),
  );

  app.get('/app/applications', { schema: { response: { 200: ApplicationList, ...COMMON_ERRORS } } }, async (_req, reply) => {
    const applications = await deps.keys.listApplications();
    return reply.header('cache-control', 'no-store').send({ applications });
  });

  app.post(
    '/app/applications',
    { schema: { body: CreateApplicationRequest, response: { 201: CreatedApplication, ...COMMON_ERRORS } } },
    async (req, reply) => {
      const { app: created, key } = await deps.keys.createApplication(req.body.name, req.body.kind);
      const body: CreatedApplication = { ...(await deps.keys.applicationInfo(created)), createdKey: createdKey(key) };
      return reply.status(201).header('cache-control', 'no-store').send(body);
    },
  );

  app.post(
    '/app/applications/:applicationId/keys',
    // No body at all is a key with the defaults, as `{}` is.
    { schema: { params: ApplicationIdParams, body: CreateKeyRequest.nullish(), response: { 201: CreatedApiKey, 404: ApiError, ...COMMON_ERRORS } } },
    async (req, reply) => {
      const key = await deps.keys.issueKeyFor(req.params.applicationId, req.body?.name, req.body?.expiresInDays);
      return reply.status(201).header('cache-control', 'no-store').send(createdKey(key));
    },
  );

  app.post(
    '/app/keys/:keyId/revoke',
    { schema: { params: KeyIdParams, response: { 200: ApiKeyInfo, 404: ApiError, ...COMMON_ERRORS } } },
    async (req) => deps.keys.revokeKey(req.params.keyId),
  );
}
