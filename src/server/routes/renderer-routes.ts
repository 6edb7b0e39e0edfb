// Serves the built React renderer (dist/renderer) from the core, same origin as the API, under a strict CSP.
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { AppDeps } from '../app.js';
import { rendererAvailable } from '../renderer-files.js';

export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function registerRendererRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const root = deps.config.rendererDir;
  if (!rendererAvailable(root)) return;
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    index: ['index.html'],
    dotfiles: 'deny',
    setHeaders: (res) => {
      res.header('content-security-policy', RENDERER_CSP);
      res.header('x-content-type-options', 'nosniff');
      res.header('referrer-policy', 'no-referrer');
      res.header('cross-origin-opener-policy', 'same-origin');
      res.header('cross-origin-resource-policy', 'same-origin');
    },
  });
}
