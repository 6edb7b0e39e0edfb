// Assembles a team-server node (issue 15) on PostgreSQL: an API node (`veracity serve --database-url`) answers the v1
// API and analyses nothing; a worker node (`veracity worker --database-url`) takes files from pg-boss and analyses
// them. Both run the same services as the desktop core (src/core.ts) over the PostgreSQL stores (src/db/pg/).
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createKeyService, type KeyService } from './auth/api-keys.js';
import { reportSigningKeyFileOf, trustAnchorsFileOf, UI_TOKEN_SHAPE, type CoreConfig } from './config/config.js';
import { rateLimitStoreCtor } from './db/rate-limit-store.js';
import { openPgBackend, type PgBackend } from './db/pg/backend.js';
import { createAnalysisRunner } from './jobs/analysis-runner.js';
import { createCaseService } from './jobs/case-service.js';
import { createJobService, jobServiceSettings, type JobService } from './jobs/job-service.js';
import { createTrustAnchorSettings } from './jobs/trust-anchor-settings.js';
import { startPools, warmUpOf, type WarmedUp } from './jobs/warm-up.js';
import { WorkerPool, type WorkerPoolOptions } from './jobs/worker-pool.js';
import { loadOrCreateReportSigningKey } from './report/signing-key.js';
import { buildApp } from './server/app.js';
import { createCoreLogger } from './server/request-logger.js';

/** The environment variable holding the key-signing secret shared by every API node (never a file of the repository). */
export const KEY_SECRET_ENV = 'VERACITY_KEY_SECRET';
export const DATABASE_URL_ENV = 'VERACITY_DATABASE_URL';
export const BLOB_DIR_ENV = 'VERACITY_BLOB_DIR';
/** The environment variable holding the secret that opens the window and its /app routes on an API node. */
export const UI_TOKEN_ENV = 'VERACITY_UI_TOKEN';

/** The signing secret from the environment: at least 32 bytes, given as base64 or hex. */
export function keySecretFromEnv(env: NodeJS.ProcessEnv = process.env): Uint8Array {
  const raw = env[KEY_SECRET_ENV]?.trim();
  if (!raw) {
    throw new Error(`${KEY_SECRET_ENV} is not set: a team server signs API keys with a secret every API node shares (at least 32 random bytes, base64 or hex).`);
  }
  const bytes = /^[0-9a-f]+$/i.test(raw) && raw.length % 2 === 0 ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length < 32) throw new Error(`${KEY_SECRET_ENV} is too short: give at least 32 random bytes (base64 or hex).`);
  return new Uint8Array(bytes);
}

/**
 * The window's secret from the environment, or null when none is set: the API node then refuses every /app route, as
 * before. A value of the wrong shape stops the node instead of being ignored (the operator meant to open the window).
 */
export function uiTokenFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  const raw = env[UI_TOKEN_ENV]?.trim();
  if (!raw) return null;
  if (!UI_TOKEN_SHAPE.test(raw)) {
    throw new Error(`${UI_TOKEN_ENV} must be at least 32 characters of A-Z, a-z, 0-9, '-' and '_' (e.g. \`openssl rand -hex 32\`).`);
  }
  return raw;
}

/**
 * The key that signs the window's per-application credentials on a team server: derived (HKDF-SHA256) from the key
 * secret every API node shares, so a credential minted by one node is accepted by all of them, with a label of its
 * own, so it is never the API keys' signing key, and bound to the UI secret, so changing VERACITY_UI_TOKEN on the
 * nodes also retires every window credential handed out under the old one.
 */
export function windowSecretOf(keySecret: Uint8Array, uiToken: string): Uint8Array {
  const bound = crypto.createHash('sha256').update(uiToken).digest();
  return new Uint8Array(crypto.hkdfSync('sha256', keySecret, 'veracity-window-credentials', Buffer.concat([Buffer.from('veracity-window-v1:'), bound]), 32));
}

export interface TeamOptions {
  databaseUrl: string;
  /** The directory every node mounts for uploaded files; none (or ''): they are kept in PostgreSQL (small deployments). */
  blobDir?: string;
  keySecret: Uint8Array;
  /**
   * The secret that opens the window and its /app routes (VERACITY_UI_TOKEN, the same on every API node); none: the
   * node serves the v1 API only and answers 401 to every /app route.
   */
  uiToken?: string | null;
  /** Seconds a taken file may stay unsettled before pg-boss gives it to another worker. */
  expireInSeconds?: number;
  /** How often pg-boss looks for expired units, cluster-wide (default 30 s). */
  maintenanceIntervalSeconds?: number;
  maxConnections?: number;
  /** Node heartbeats and the reaping of dead nodes (src/db/pg/node-registry.ts; defaults there and in backend.ts). */
  nodeBeatMs?: number;
  nodeDeadAfterMs?: number;
  sweepIntervalMs?: number;
}

export interface TeamApiNode {
  app: FastifyInstance;
  backend: PgBackend;
  keys: KeyService;
  jobs: JobService;
  config: CoreConfig;
  setPort(port: number): void;
  /** The probe process started with the node (config.warmWorkers), settled once it has loaded its code and pdf.js. */
  warmedUp: Promise<WarmedUp>;
  close(): Promise<void>;
}

/**
 * Queue policy from the file timeout: a unit is expired only well after its analysis would have been killed (the
 * worker pool bounds a file twice by the file timeout: until its worker begins it, then its analysis).
 */
const expiry = (config: CoreConfig, team: TeamOptions) => team.expireInSeconds ?? Math.ceil((config.fileTimeoutMs * 2 + config.shutdownGraceMs) / 1000) + 30;

export async function createTeamApiNode(
  config: CoreConfig,
  team: TeamOptions,
  opts: { workerSpawn?: WorkerPoolOptions['spawn']; workerEntry?: string; now?: () => Date } = {},
): Promise<TeamApiNode> {
  const log = createCoreLogger(config.logLevel);
  const backend = await openPgBackend({
    databaseUrl: team.databaseUrl,
    blobDir: team.blobDir,
    maxConnections: team.maxConnections,
    queue: { expireInSeconds: expiry(config, team), maintenanceIntervalSeconds: team.maintenanceIntervalSeconds },
    onError: (err) => log?.error({ err }, 'PostgreSQL connection error'),
    role: 'api',
    nodeBeatMs: team.nodeBeatMs,
    nodeDeadAfterMs: team.nodeDeadAfterMs,
    sweepIntervalMs: team.sweepIntervalMs,
  });
  try {
    const uiToken = team.uiToken ?? null;
    const keys = createKeyService({
      secret: team.keySecret,
      store: backend.keyStore,
      ...(uiToken ? { windowSecret: windowSecretOf(team.keySecret, uiToken) } : {}),
    });
    await keys.ensureDefaultApplications();
    // Previews are made here, for the person waiting on them; analysis runs on worker nodes only.
    const probePool = new WorkerPool({ spawn: opts.workerSpawn, entry: opts.workerEntry, maxRssBytes: 3 * 2 ** 30, size: 1, name: 'probe', warm: warmUpOf(config).probe });
    const jobs = createJobService({
      store: backend.jobsStore,
      blobs: backend.blobs,
      queue: backend.queue,
      events: backend.events,
      // Stages are recorded by the worker analysing each file: progress reads them from the database.
      stages: backend.stages,
      pool: probePool,
      analyse: false,
      // Other nodes write the same jobs: answers are read from the database every time, never kept in this node.
      keepAnswers: false,
      previewPool: probePool,
      // A report process reads a case's rows itself, through one connection of its own (src/jobs/report-process.ts).
      reportRows: { kind: 'pg', url: team.databaseUrl },
      ...jobServiceSettings(config),
      now: opts.now,
      log: { error: (o, m) => log?.error(o, m), info: (o, m) => log?.info(o, m) },
    });
    const cases = createCaseService({ store: backend.jobsStore, now: opts.now });
    // Every API node signs reports as the one installation when they share the key's file (VERACITY_REPORT_SIGNING_KEY
    // on a volume they all mount); else each node's own data dir holds its own.
    const reportSigning = await loadOrCreateReportSigningKey(reportSigningKeyFileOf(config));
    let port = 80;
    const app = await buildApp({
      config,
      keys,
      jobs,
      cases,
      store: backend.blobs,
      rateLimitStore: rateLimitStoreCtor(backend.rateLimit),
      probePool,
      reportSigning,
      // Listed, not edited from the window: the workers read the one file VERACITY_TRUST_ANCHORS names.
      trustAnchors: createTrustAnchorSettings(trustAnchorsFileOf(config), false),
      port: () => port,
      // The window is served only where the operator gave the node a UI secret (VERACITY_UI_TOKEN).
      uiToken,
      serverKind: 'team',
      log,
    });
    const recovered = await jobs.recover();
    if (recovered.swept.tmp) log?.info(recovered, 'swept leftover uploads');
    const warmedUp = startPools(config, { probe: probePool }, log ?? undefined);
    let closed = false;
    const node: TeamApiNode = {
      app,
      backend,
      keys,
      jobs,
      config,
      warmedUp,
      setPort(p) {
        port = p;
      },
      async close() {
        if (closed) return;
        closed = true;
        jobs.shutdown();
        await app.close();
        await probePool.close();
        await backend.close();
      },
    };
    return node;
  } catch (err) {
    await backend.close();
    throw err;
  }
}

export interface TeamWorkerNode {
  backend: PgBackend;
  /** Resolves when no file taken by this node is under analysis or being recorded. */
  whenIdle(): Promise<void>;
  /** The first analysis process, started with the node (config.warmWorkers): settled once it has loaded the model. */
  warmedUp: Promise<WarmedUp>;
  close(): Promise<void>;
}

/** A worker node: takes files from pg-boss, `config.analysisWorkers` at once, and records their outcomes. */
export async function createTeamWorker(
  config: CoreConfig,
  team: TeamOptions,
  opts: { workerSpawn?: WorkerPoolOptions['spawn']; workerEntry?: string; now?: () => Date; log?: { error: (o: object, m: string) => void; info: (o: object, m: string) => void } } = {},
): Promise<TeamWorkerNode> {
  const backend = await openPgBackend({
    databaseUrl: team.databaseUrl,
    blobDir: team.blobDir,
    maxConnections: team.maxConnections,
    queue: { expireInSeconds: expiry(config, team), maintenanceIntervalSeconds: team.maintenanceIntervalSeconds },
    onError: (err) => opts.log?.error({ err }, 'PostgreSQL connection error'),
    listenForKeys: false,
    role: 'worker',
    nodeBeatMs: team.nodeBeatMs,
    nodeDeadAfterMs: team.nodeDeadAfterMs,
    sweepIntervalMs: team.sweepIntervalMs,
  });
  const pool = new WorkerPool({
    spawn: opts.workerSpawn,
    entry: opts.workerEntry,
    maxRssBytes: 3 * 2 ** 30,
    size: config.analysisWorkers,
    name: 'analysis',
    lowPriority: true,
    warm: warmUpOf(config).analysis,
  });
  const runner = createAnalysisRunner({
    store: backend.jobsStore,
    blobs: backend.blobs,
    queue: backend.queue,
    events: backend.events,
    stages: backend.stages,
    pool,
    modelsDir: config.modelsDir,
    trustAnchorsFile: trustAnchorsFileOf(config),
    threadsPerWorker: config.threadsPerWorker,
    fileTimeoutMs: config.fileTimeoutMs,
    concurrency: config.analysisWorkers,
    now: opts.now,
    log: opts.log,
  });
  await backend.blobs.sweepLeftovers(async () => new Set());
  runner.start();
  const warmedUp = startPools(config, { analysis: pool }, opts.log);
  let closed = false;
  return {
    backend,
    warmedUp,
    whenIdle: () => runner.whenIdle(),
    async close() {
      if (closed) return;
      closed = true;
      runner.stop();
      await pool.close({ graceMs: config.shutdownGraceMs });
      await runner.whenIdle();
      await backend.close();
    },
  };
}

/** A fresh secret for a new team server, as VERACITY_KEY_SECRET expects it. */
export function newKeySecret(): string {
  return crypto.randomBytes(48).toString('base64');
}
