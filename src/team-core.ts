// Assembles a team-server node (issue 15) on PostgreSQL: an API node (`veracity serve --database-url`) answers the v1
// API and analyses nothing; a worker node (`veracity worker --database-url`) takes files from pg-boss and analyses
// them. Both run the same services as the desktop core (src/core.ts) over the PostgreSQL stores (src/db/pg/).
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createKeyService, type KeyService } from './auth/api-keys.js';
import type { CoreConfig } from './config/config.js';
import { rateLimitStoreCtor } from './db/rate-limit-store.js';
import { openPgBackend, type PgBackend } from './db/pg/backend.js';
import { createAnalysisRunner } from './jobs/analysis-runner.js';
import { createCaseService } from './jobs/case-service.js';
import { createJobService, jobServiceSettings, type JobService } from './jobs/job-service.js';
import { WorkerPool, type WorkerPoolOptions } from './jobs/worker-pool.js';
import { buildApp } from './server/app.js';

/** The environment variable holding the key-signing secret shared by every API node (never a file of the repository). */
export const KEY_SECRET_ENV = 'VERACITY_KEY_SECRET';
export const DATABASE_URL_ENV = 'VERACITY_DATABASE_URL';
export const BLOB_DIR_ENV = 'VERACITY_BLOB_DIR';

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

export interface TeamOptions {
  databaseUrl: string;
  /** The directory every node mounts for uploaded files; none (or ''): they are kept in PostgreSQL (small deployments). */
  blobDir?: string;
  keySecret: Uint8Array;
  /** Seconds a taken file may stay unsettled before pg-boss gives it to another worker. */
  expireInSeconds?: number;
  /** How often pg-boss looks for expired units, cluster-wide (default 30 s). */
  maintenanceIntervalSeconds?: number;
  maxConnections?: number;
}

export interface TeamApiNode {
  app: FastifyInstance;
  backend: PgBackend;
  keys: KeyService;
  jobs: JobService;
  config: CoreConfig;
  setPort(port: number): void;
  close(): Promise<void>;
}

/** Queue policy from the file timeout: a unit is expired only well after its analysis would have been killed. */
const expiry = (config: CoreConfig, team: TeamOptions) => team.expireInSeconds ?? Math.ceil((config.fileTimeoutMs * 2 + config.shutdownGraceMs) / 1000) + 30;

export async function createTeamApiNode(
  config: CoreConfig,
  team: TeamOptions,
  opts: { workerSpawn?: WorkerPoolOptions['spawn']; workerEntry?: string; now?: () => Date } = {},
): Promise<TeamApiNode> {
  let app: FastifyInstance | undefined;
  const backend = await openPgBackend({
    databaseUrl: team.databaseUrl,
    blobDir: team.blobDir,
    maxConnections: team.maxConnections,
    queue: { expireInSeconds: expiry(config, team), maintenanceIntervalSeconds: team.maintenanceIntervalSeconds },
    onError: (err) => app?.log.error({ err }, 'PostgreSQL connection error'),
  });
  try {
    const keys = createKeyService({ secret: team.keySecret, store: backend.keyStore });
    await keys.ensureDefaultApplications();
    // Previews are made here, for the person waiting on them; analysis runs on worker nodes only.
    const probePool = new WorkerPool({ spawn: opts.workerSpawn, entry: opts.workerEntry, maxRssBytes: 3 * 2 ** 30, size: 1, name: 'probe' });
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
      ...jobServiceSettings(config),
      now: opts.now,
      log: { error: (o, m) => app?.log.error(o, m), info: (o, m) => app?.log.info(o, m) },
    });
    const cases = createCaseService({ store: backend.jobsStore, now: opts.now });
    let port = 80;
    app = await buildApp({
      config,
      keys,
      jobs,
      cases,
      store: backend.blobs,
      rateLimitStore: rateLimitStoreCtor(backend.rateLimit),
      probePool,
      port: () => port,
      // No UI token: the desktop window is not served by a team node.
      uiToken: null,
    });
    const recovered = await jobs.recover();
    if (recovered.swept.tmp) app.log.info(recovered, 'swept leftover uploads');
    let closed = false;
    const node: TeamApiNode = {
      app,
      backend,
      keys,
      jobs,
      config,
      setPort(p) {
        port = p;
      },
      async close() {
        if (closed) return;
        closed = true;
        jobs.shutdown();
        await app!.close();
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
  });
  const pool = new WorkerPool({
    spawn: opts.workerSpawn,
    entry: opts.workerEntry,
    maxRssBytes: 3 * 2 ** 30,
    size: config.analysisWorkers,
    name: 'analysis',
    lowPriority: true,
  });
  const runner = createAnalysisRunner({
    store: backend.jobsStore,
    blobs: backend.blobs,
    queue: backend.queue,
    events: backend.events,
    stages: backend.stages,
    pool,
    modelsDir: config.modelsDir,
    threadsPerWorker: config.threadsPerWorker,
    fileTimeoutMs: config.fileTimeoutMs,
    concurrency: config.analysisWorkers,
    now: opts.now,
    log: opts.log,
  });
  await backend.blobs.sweepLeftovers(async () => new Set());
  runner.start();
  let closed = false;
  return {
    backend,
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
