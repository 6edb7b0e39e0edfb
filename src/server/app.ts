// buildApp(deps) registers plugins, hooks and routes and never listens; listen() in src/core.ts binds 127.0.0.1.
import crypto from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { Principal, KeyService } from '../auth/api-keys.js';
import type { BlobStore } from '../jobs/intake.js';
import type { CoreConfig } from '../config/config.js';
import type { CaseService } from '../jobs/case-service.js';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { JobService } from '../jobs/job-service.js';
import type { ReportSigningKey } from '../report/signing-key.js';
import type { TrustAnchorSettings } from '../jobs/trust-anchor-settings.js';
import type { WorkerPool } from '../jobs/worker-pool.js';
import { ApiHttpError, invalid, toApiError } from './api-error.js';
import { isLingering, lingerOnClose } from './lingering-close.js';
import { isAllowedHost, isAllowedOrigin, repeatedHeader, splitRequestTarget } from './loopback-guard.js';
import { registerOpenApi } from './openapi.js';
import { fastifyLoggerOptions } from './request-logger.js';
import { serializeResponse, validateRequest } from './route-schemas.js';
import { registerAppRoutes } from './routes/app-routes.js';
import { registerAssessRoute } from './routes/assess-route.js';
import { registerCaseRoutes } from './routes/case-routes.js';
import { registerJobFileRoutes } from './routes/job-file-routes.js';
import { registerJobRoutes } from './routes/job-routes.js';
import { registerProgressRoute } from './routes/progress-route.js';
import { registerRendererRoutes } from './routes/renderer-routes.js';
import { registerReportRoutes } from './routes/report-routes.js';
import { registerTrustAnchorRoutes } from './routes/trust-anchor-routes.js';
import { notMultipart } from './multipart-upload.js';
import { MULTIPART_LIMITS } from './upload-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set by authentication when the credential is missing or invalid; sent after the rate limiter counted it. */
    authRefusal: ApiHttpError | null;
    /** The rate-limit bucket authentication chose (the key's, the window's, or the client's refusals); null: the client's. */
    rateBucket: string | null;
    /** The matched route pattern, once read (routeOf). */
    routePattern: string | null;
  }
}

/**
 * Refused credentials (missing, bad or revoked API keys, wrong UI tokens) one client may present per rate-limit window
 * (at most the per-key ceiling), whatever the credentials. A person mistyping never gets near it; a script retrying a
 * stale key or guessing gets 429 and Retry-After, and past the limit its guesses are not even verified.
 */
export const AUTH_FAILURES_MAX = 30;

const REQ_ID_PREFIX = crypto.randomBytes(6).toString('base64url');
let reqCount = 0;

/** Node's default, set explicitly: the request line, and so any one path parameter, can be no longer than this. */
const MAX_HEADER_BYTES = 16 * 1024;

/** What the routes may use: services, never repositories. */
export interface AppDeps {
  config: CoreConfig;
  keys: KeyService;
  jobs: JobService;
  cases: CaseService;
  store: BlobStore;
  /** Counters shared by API nodes (a team server: src/db/rate-limit-store.ts); the desktop keeps the plugin's in-memory store. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
  probePool: WorkerPool;
  /** The installation's report signing key (report-signing.ts): case report PDFs are signed with it. */
  reportSigning: ReportSigningKey;
  /** The C2PA trust anchors the analysis reads, as Settings lists and edits them. */
  trustAnchors: TrustAnchorSettings;
  /** The port clients must name in Host/Origin: the listening port (80 for inject()). */
  port: () => number;
  uiToken: string | null;
  /** What the window is told it talks to (GET /app/server): this computer's core, or a team server's API node. */
  serverKind?: 'desktop' | 'team';
  /** The core's logger (createCoreLogger), null when silent: requests log to it (request-logger.ts). */
  log: Logger | null;
}

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*)$/i;
/** The last Authorization header read and its token: a client sends the same one on every request (issue #14). */
let lastAuthorization: { header: string; token: string | null } = { header: '', token: null };

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return null;
  if (h === lastAuthorization.header) return lastAuthorization.token;
  // The scheme is case-insensitive and followed by one or more spaces (RFC 9110 11.1, 11.4).
  const m = BEARER.exec(h);
  const token = m ? m[1] : null;
  lastAuthorization = { header: h, token };
  return token;
}

/**
 * The rate-limit bucket of a client's refused credentials: its address, whatever credential it sent (a bucket per
 * credential let a guesser who changed credentials at each request go on for ever). The socket's peer address: the
 * server trusts no proxy header (trustProxy: false), so behind a proxy all its clients share one bucket.
 */
const refusedBucket = (req: FastifyRequest): string => `refused:${req.ip}`;

/**
 * The matched route pattern ('' when none matched): every decision is made on it, never on the raw target. Read once
 * per request: Fastify's `routeOptions` builds a new object at every read (three reads a request before, issue #14).
 */
const routeOf = (req: FastifyRequest): string => (req.routePattern ??= req.routeOptions.url ?? '');

function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    ...fastifyLoggerOptions(deps.log),
    trustProxy: false,
    bodyLimit: 64 * 1024,
    connectionTimeout: 0, // the wait window holds responses up to 30 s; slow *senders* are cut by requestTimeout
    requestTimeout: config.requestTimeoutMs,
    // Node enforces requestTimeout/headersTimeout only when it sweeps connections, every 30 s by default: a
    // stalled client held its socket (and its half-written temp file) up to 30 s past the limit. Sweep every second.
    // requireHostHeader off: Node's parser would answer an HTTP/1.1 request without Host with an empty 400 of its
    // own; the loopback guard refuses it instead, with the API's 403 like any other foreign Host (DECISIONS 28).
    http: { connectionsCheckingInterval: 1000, requireHostHeader: false, maxHeaderSize: MAX_HEADER_BYTES },
    // An absolute-form target (`GET http://127.0.0.1:PORT/v1/jobs HTTP/1.1`) becomes its origin-form path here,
    // once, before routing and every hook; the guard checks the authority it named (req.originalUrl).
    rewriteUrl: (req) => splitRequestTarget(req.url ?? '/').path,
    keepAliveTimeout: 5_000,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Unique across restarts (a random prefix per process) without a random UUID per request.
    genReqId: () => `${REQ_ID_PREFIX}-${(++reqCount).toString(36)}`,
    // A path the router cannot decode (`/v1/jobs/%zz`) is refused before any hook runs; answer it as an ApiError too.
    frameworkErrors: sendError,
    // A path parameter as long as the request line allows: an over-long id still reaches its route, and so the
    // guard, authentication, the rate limit and the route's own 400, instead of Fastify's bare 414 or no route.
    routerOptions: { maxParamLength: MAX_HEADER_BYTES },
    clientErrorHandler: (err, socket) => {
      // Malformed HTTP never reaches routes; answer it in the ApiError shape and close.
      if (!socket.writable || isLingering(socket as Socket)) return socket.destroy(); // lingering: already answered
      const timeout = (err as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const status = timeout ? 408 : (err as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify({ code: 'invalid_request', message: timeout ? 'Request timed out.' : 'Malformed HTTP request.' });
      // Closed both ways once the answer is written, not half-closed: the request the socket carried (a stalled upload,
      // its temp file being written) ends now, so its intake deletes the file, rather than when the client hangs up.
      socket.end(
        `HTTP/1.1 ${status} ${timeout ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        () => socket.destroy(),
      );
    },
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('authRefusal', null);
  app.decorateRequest('rateBucket', null);
  app.decorateRequest('routePattern', null);

  // 3. Rate limit per API key (DECISIONS 27, 29), checked in onRequest (a route hook, so after the app's hooks 0-2
  // below): before the body is read. Authentication chooses the bucket (req.rateBucket): the key's, the window's
  // ('ui'), or for a refused credential its client's, with a small ceiling: a script hammering with bad keys, one or
  // many, gets 429 like any other, and no one can spend a real key's budget without the key.
  await app.register(rateLimit, {
    global: true,
    max: (_req, key) => (key.startsWith('refused:') ? Math.min(AUTH_FAILURES_MAX, config.rateLimitMax) : config.rateLimitMax),
    timeWindow: config.rateLimitWindowMs,
    hook: 'onRequest',
    ...(deps.rateLimitStore ? { store: deps.rateLimitStore } : {}),
    enableDraftSpec: true,
    keyGenerator: (req) => req.rateBucket ?? `ip:${req.ip}`,
    allowList: (req) => !routeOf(req).startsWith('/v1/') && !routeOf(req).startsWith('/app/'),
    errorResponseBuilder: (_req, ctx) =>
      new ApiHttpError('rate_limited', `Too many requests. Retry in ${Math.max(1, Math.ceil(ctx.ttl / 1000))} s.`, {
        retryAfter: Math.max(1, Math.ceil(ctx.ttl / 1000)),
      }),
  });
  // The same limiter, same store, read without counting: whether a client has refusals left before its credential is
  // verified (2).
  const readLimit = app.createRateLimit();
  const refusalsSpent = async (req: FastifyRequest): Promise<boolean> => {
    req.rateBucket = refusedBucket(req);
    const r = await readLimit(req, { increment: false });
    return !r.isAllowed && r.remaining === 0;
  };

  // Hooks 0-2 and 4 are callback-style, not async: on the request path of every poll, each async hook costs a
  // promise and a turn of the microtask queue for nothing (issue #14's profile). 0-2 are one hook (one turn of
  // Fastify's hook runner less) and make no closure on the path of a key verified before.
  const port = deps.port;
  const allowedHosts = config.allowedHosts;
  const admit = (req: FastifyRequest, principal: Principal | null) => {
    req.principal = principal;
    if (principal) {
      req.rateBucket = `key:${principal.keyId}`;
    } else {
      req.authRefusal = new ApiHttpError('unauthorized', 'Missing or invalid API key.');
      req.rateBucket = refusedBucket(req);
    }
  };
  app.addHook('onRequest', (req, _reply, done) => {
    // 0. One line of each header decided on (Host, Origin, Authorization): Node keeps the first Host and Authorization
    // and joins Origins, so a second line would otherwise be ignored unseen (RFC 9112 3.2: 400).
    const repeated = repeatedHeader(req.raw.rawHeaders);
    if (repeated !== null) return done(invalid(repeated, `Send one ${repeated} header.`));

    // 1. Loopback guard: Host and Origin, before anything else (DECISIONS 28). An absolute-form target's authority
    // is checked like Host.
    const { authority } = splitRequestTarget(req.originalUrl);
    if (!isAllowedHost(req.headers.host, port(), allowedHosts) || (authority !== null && !isAllowedHost(authority, port(), allowedHosts))) {
      return done(new ApiHttpError('forbidden', allowedHosts.length === 0 ? 'Requests must be addressed to this computer (loopback host).' : 'Requests must be addressed to one of this server\'s allowed host names.'));
    }
    if (!isAllowedOrigin(req.headers.origin, port(), config.extraOrigins, allowedHosts)) return done(new ApiHttpError('forbidden', 'Cross-origin requests are not allowed.'));

    // 2. Authentication: API keys for /v1, the per-launch UI token for /app (before the body is read). A refusal is
    // only noted here: the rate limiter (3) counts it first, and 4 sends it. Decided on the matched route pattern,
    // not the raw URL, so no spelling of a path can skip the check.
    const route = routeOf(req);
    if (route.startsWith('/v1/') && route !== '/v1/openapi.json') {
      const token = bearer(req);
      // A key verified before whose state has not changed: decided without a promise; no key at all, refused.
      const kept = token ? deps.keys.verifyKept(token) : null;
      if (kept !== undefined) {
        admit(req, kept);
        return done();
      }
      const verify = () =>
        deps.keys.verify(token!).then((principal) => {
          admit(req, principal);
          done();
        }, done);
      // A key in use (verified before, due for its recheck) is verified again whoever sends it. Any other credential
      // is verified in full only while its client has refusals left: past its limit, only a credential that carries
      // this installation's signature is (an HMAC in memory: a key issued here, never used since this start, is
      // counted in its own bucket, DECISIONS 29, whatever other clients on 127.0.0.1 sent); every guess gets 429
      // from the limiter without a database read.
      if (deps.keys.knows(token!)) return void verify();
      refusalsSpent(req)
        .then(async (spent) => {
          if (!spent || (await deps.keys.signedHere(token!))) return verify();
          admit(req, null);
          done();
        })
        .catch(done);
      return;
    }
    if (route.startsWith('/app/')) {
      // The UI token is compared in memory, in constant time, like a kept key: the window keeps working whoever else
      // on its address guesses; a wrong token counts against its client.
      const token = bearer(req);
      if (deps.uiToken && token && safeEqual(token, deps.uiToken)) {
        req.rateBucket = 'ui';
      } else {
        req.authRefusal = new ApiHttpError('unauthorized', 'Missing or invalid app token.');
        req.rateBucket = refusedBucket(req);
      }
    }
    done();
  });

  // 4. The authentication refusal, once the limiter has counted it; still before any of the body is read.
  app.addHook('preParsing', (req, _reply, payload, done) => {
    if (req.authRefusal) return done(req.authRefusal);
    done(null, payload);
  });

  // Every route declares its schemas (zod): requests are validated before the handler, responses before they are
  // sent (route-schemas.ts), and the OpenAPI document is generated from the same declarations (openapi.ts).
  app.setValidatorCompiler(validateRequest);
  app.setSerializerCompiler(serializeResponse);
  await registerOpenApi(app);

  app.setErrorHandler(sendError);
  app.setNotFoundHandler((req, reply) => {
    const e = new ApiHttpError('not_found', 'No such resource.');
    return reply.status(404).send(e.toBody());
  });

  // The multipart parser, and the two hooks it adds to every route of its scope (temp-file clean-up), only where a
  // multipart body is taken: a scope of its own for POST /v1/assess, which inherits every hook, handler and compiler
  // above (so registered after them). Elsewhere a multipart body is refused as any other unsupported Content-Type.
  // In this scope multipart is the only parser: any other type (or none) is refused from its header by the catch-all,
  // before a byte of the body is read. Fastify's JSON and text parsers would read up to bodyLimit first and answer a
  // larger body "too large", with no word of its type.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_req, _payload, done) => done(notMultipart(), undefined));
    await uploads.register(multipart, { limits: MULTIPART_LIMITS, preservePath: true, throwFileSizeLimit: false });
    registerAssessRoute(uploads, deps);
  });
  registerJobRoutes(app, deps);
  registerJobFileRoutes(app, deps);
  registerProgressRoute(app, deps);
  registerAppRoutes(app, deps);
  registerTrustAnchorRoutes(app, deps);
  registerCaseRoutes(app, deps);
  registerReportRoutes(app, deps);
  await registerRendererRoutes(app, deps);
  return app;
}

/** The one error handler: every error, the router's own included (frameworkErrors), leaves as an ApiError. */
function sendError(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply) {
  const apiErr = toApiError(err);
  if (apiErr.status >= 500) req.log.error({ err }, 'request failed'); // the request's logger adds its id
  else req.log.info({ code: apiErr.code, detail: apiErr.message }, 'request refused');
  // A refusal sent before the body was read closes the connection instead of taking the rest of the upload,
  // lingering briefly so that a client still sending reads our answer rather than a reset (lingering-close.ts).
  if (!req.raw.complete) {
    reply.header('connection', 'close');
    lingerOnClose(req.raw, reply.raw);
  }
  if (apiErr.retryAfter !== undefined && !reply.hasHeader('retry-after')) reply.header('retry-after', String(apiErr.retryAfter));
  return reply.status(apiErr.status).type('application/json; charset=utf-8').send(apiErr.toBody());
}
