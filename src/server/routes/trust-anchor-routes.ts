// Settings routes (UI token) for the Content Credentials trust anchors (issue 24, item 2): list them with their
// subjects and expiry, add certificates (PEM) and remove one by its fingerprint. Stored in the data dir's bundle
// (trust-anchors.pem, 0600), which the analysis re-reads when it changes. Where the bundle is configured outside the
// window (VERACITY_TRUST_ANCHORS, a team server whose workers mount one file), it is listed and not edited here.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AddTrustAnchorsRequest, FingerprintParams, TrustAnchorList } from '../../api/app-schemas.js';
import { ApiError } from '../../api/schemas.js';
import { ApiHttpError, invalid } from '../api-error.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';

export function registerTrustAnchorRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const anchors = deps.trustAnchors;
  const list = async (): Promise<TrustAnchorList> => ({ anchors: await anchors.list(), editable: anchors.editable });
  const mustEdit = () => {
    if (!anchors.editable) throw new ApiHttpError('forbidden', 'The trust anchors are configured outside this window (VERACITY_TRUST_ANCHORS or the team server): edit that file.');
  };

  app.get('/app/trust-anchors', { schema: { response: { 200: TrustAnchorList, ...COMMON_ERRORS } } }, async (_req, reply) =>
    reply.header('cache-control', 'no-store').send(await list()),
  );

  app.post('/app/trust-anchors', { schema: { body: AddTrustAnchorsRequest, response: { 200: TrustAnchorList, ...COMMON_ERRORS } } }, async (req, reply) => {
    mustEdit();
    try {
      await anchors.add(req.body.pem);
    } catch (err) {
      throw invalid('pem', (err as Error).message);
    }
    return reply.header('cache-control', 'no-store').send(await list());
  });

  app.delete(
    '/app/trust-anchors/:fingerprint',
    { schema: { params: FingerprintParams, response: { 200: TrustAnchorList, 404: ApiError, ...COMMON_ERRORS } } },
    async (req, reply) => {
      mustEdit();
      if (!(await anchors.remove(req.params.fingerprint))) throw new ApiHttpError('not_found', 'No trust anchor has this fingerprint.');
      return reply.header('cache-control', 'no-store').send(await list());
    },
  );
}
