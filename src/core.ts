// Assembles the core from its parts (data dir, database, keys, file store, worker pools, job service, HTTP app).
// Used by the CLI's `serve`, by the Electron shell and by the API tests, so all three run the same core.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createKeyService, loadOrCreateSecret, type KeyService } from './auth/api-keys.js';
import { reportSigningKeyFileOf, trustAnchorsFileOf, type CoreConfig } from './config/config.js';
import { createCasesRepository } from './db/cases-repository.js';
import { createApplicationsRepository, type ApplicationsRepository } from './db/applications-repository.js';
import { openDatabase, type Db } from './db/connection.js';
import { createJobsRepository, type JobsRepository } from './db/jobs-repository.js';
import { createLocalWorkQueue, createSqliteJobsStore, createSqliteKeyStore } from './db/sqlite-stores.js';
import type { JobsStore, KeyStore } from './db/stores.js';
import { createCaseService } from './jobs/case-service.js';
import { createFileStore } from './jobs/file-store.js';
import { createJobService, jobServiceSettings, type JobService } from './jobs/job-service.js';
import { createLocalJobEvents } from './jobs/local-events.js';
import { createTrustAnchorSettings } from './jobs/trust-anchor-settings.js';
import { startPools, warmUpOf, type WarmedUp } from './jobs/warm-up.js';
import { WorkerPool, type WorkerPoolOptions } from './jobs/worker-pool.js';
import { loadOrCreateReportSigningKey } from './report/signing-key.js';
import { buildApp } from './server/app.js';
import { createCoreLogger } from './server/request-logger.js';

export interface Core {
  app: FastifyInstance;
  /** The desktop's SQLite connection and its synchronous repositories (tests and the CLI read them directly). */
  db: Db;
  apps: ApplicationsRepository;
  jobsRepo: JobsRepository;
  /** What the services use: the storage interfaces (src/db/stores.ts), here on SQLite. */
  jobsStore: JobsStore;
  keyStore: KeyStore;
  keys: KeyService;
  jobs: JobService;
  config: CoreConfig;
  uiToken: string | null;
  /** Port the server listens on (set by listen()); 80 until then, which is what inject() sends in Host. */
  setPort(port: number): void;
  /**
   * The first analysis process and the probe process, started with the core (config.warmWorkers): settled once each has
   * loaded what its first file needs, with what each reported; empty lists when they start with the first file instead.
   */
  warmedUp: Promise<WarmedUp>;
  close(): Promise<void>;
}

/** Creates the data dir (user-only), its database and secret, and the default applications. */
export async function openDataDir(dataDir: string): Promise<{ db: Db; apps: ApplicationsRepository; keyStore: KeyStore; keys: KeyService }> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') fs.chmodSync(dataDir, 0o700);
  const db = openDatabase(path.join(dataDir, 'veracity.db'));
  const apps = createApplicationsRepository(db);
  const keyStore = createSqliteKeyStore(apps);
  const keys = createKeyService({ secret: loadOrCreateSecret(dataDir), store: keyStore });
  try {
    await keys.ensureDefaultApplications();
  } catch (err) {
    db.close();
    throw err;
  }
  return { db, apps, keyStore, keys };
}

export async function createCore(
  config: CoreConfig,
  opts: { workerSpawn?: WorkerPoolOptions['spawn']; workerEntry?: string; uiToken?: string | null; now?: () => Date } = {},
): Promise<Core> {
  const log = createCoreLogger(config.logLevel);
  const { db, apps, keyStore, keys } = await openDataDir(config.dataDir);
  // The installation's report signing key, made on the first start (a key that cannot be read stops the start).
  const reportSigning = await loadOrCreateReportSigningKey(reportSigningKeyFileOf(config)).catch((err: unknown) => {
    db.close();
    throw err;
  });
  const jobsRepo = createJobsRepository(db);
  const jobsStore = createSqliteJobsStore(db, { jobs: jobsRepo, cases: createCasesRepository(db) });
  const queue = createLocalWorkQueue(db, jobsRepo);
  const events = createLocalJobEvents();
  const store = createFileStore(config.dataDir);
  const common = { spawn: opts.workerSpawn, entry: opts.workerEntry, maxRssBytes: 3 * 2 ** 30 };
  const warm = warmUpOf(config);
  const analysisPool = new WorkerPool({ ...common, size: config.analysisWorkers, name: 'analysis', lowPriority: true, warm: warm.analysis });
  const probePool = new WorkerPool({ ...common, size: 1, name: 'probe', warm: warm.probe });
  let port = 80;
  const uiToken = opts.uiToken === undefined ? (config.uiToken ?? crypto.randomBytes(24).toString('base64url')) : opts.uiToken;
  const jobs = createJobService({
    store: jobsStore,
    blobs: store,
    queue,
    events,
    pool: analysisPool,
    // A preview is asked for by a person waiting on the window: the probe pool, at normal priority, not the queue.
    previewPool: probePool,
    // A report process reads a case's rows itself, through a read-only connection of its own (src/jobs/report-process.ts).
    reportRows: { kind: 'sqlite', file: db.name },
    ...jobServiceSettings(config),
    now: opts.now,
    log: { error: (o, m) => log?.error(o, m), info: (o, m) => log?.info(o, m) },
  });
  const cases = createCaseService({ store: jobsStore, now: opts.now });
  const app = await buildApp({
    config,
    keys,
    jobs,
    cases,
    store,
    probePool,
    reportSigning,
    // Set in the window's Settings unless VERACITY_TRUST_ANCHORS names the bundle.
    trustAnchors: createTrustAnchorSettings(trustAnchorsFileOf(config), config.trustAnchorsFile === undefined),
    port: () => port,
    uiToken,
    log,
  });
  const recovered = await jobs.recover();
  if (recovered.requeued || recovered.swept.tmp || recovered.swept.orphans) {
    log?.info(recovered, 'recovered after restart');
  }
  // The first file after a start would otherwise wait for its analysis process to load the model (about 5 s here).
  const warmedUp = startPools(config, { analysis: analysisPool, probe: probePool }, log ?? undefined);
  let closed = false;
  return {
    warmedUp,
    app,
    db,
    apps,
    jobsRepo,
    jobsStore,
    keyStore,
    keys,
    jobs,
    config,
    uiToken,
    setPort(p: number) {
      port = p;
    },
    async close() {
      if (closed) return;
      closed = true;
      jobs.shutdown();
      // Analysis stops taking work at once (queued files stay queued, uncounted, for the next start) while the
      // server finishes its requests; running files get the grace period, then are handed back.
      await Promise.all([app.close(), analysisPool.close({ graceMs: config.shutdownGraceMs })]);
      await probePool.close();
      await jobs.whenIdle(); // every analysis has recorded its outcome or its hand-back
      await events.close();
      db.close();
    },
  };
}

/** Binds the core's app to the configured loopback host and port; returns the base URL. */
export async function listen(core: Pick<Core, 'app' | 'config' | 'setPort'>): Promise<string> {
  const { host, port } = core.config;
  await core.app.listen({ host, port });
  const addr = core.app.server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : port;
  core.setPort(actual);
  core.app.server.headersTimeout = core.config.headersTimeoutMs;
  core.app.server.requestTimeout = core.config.requestTimeoutMs;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${actual}`;
}
