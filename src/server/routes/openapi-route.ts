// GET /v1/openapi.json: the v1 endpoints and extensions as OpenAPI 3.1, generated from the zod schemas (DECISIONS 35).
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../openapi.js';

export function registerOpenApiRoute(app: FastifyInstance): void {
  let doc: object | null = null;
  app.get('/v1/openapi.json', async () => (doc ??= buildOpenApiDocument()));
}
