// Runtime configuration of the core, read once at boot from flags and environment and checked with zod,
// so a bad value stops the process with a message instead of surfacing later as odd behaviour.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { canonicalAuthority } from '../api/host-names.js';
import { defaultDataDir } from './data-dir.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const Int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The addresses `serve` may listen on without --allow-network (read by listen-address.ts too). */
export const LOOPBACK_LISTEN: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);

/** What a UI token must look like: at least 32 characters a `#token=` fragment carries unchanged (base64url or hex). */
export const UI_TOKEN_SHAPE = /^[A-Za-z0-9_-]{32,256}$/;

export const CoreConfig = z.object({
  dataDir: z.string().min(1),
  host: z.string().default('127.0.0.1'),
  port: Int(0, 65535).default(0),
  modelsDir: z.string().min(1).default(path.join(REPO_ROOT, 'models')),
  rendererDir: z.string().min(1).default(path.join(REPO_ROOT, 'dist', 'renderer')),
  /** Requests per key per window (DECISIONS 27). */
  rateLimitMax: Int(1, 1_000_000).default(1200),
  rateLimitWindowMs: Int(1000, 3_600_000).default(60_000),
  /** Files waiting for or under analysis, at most (DECISIONS 24). */
  queueMaxFiles: Int(1, 100_000).default(200),
  analysisWorkers: Int(1, 64).default(Math.max(1, Math.min(2, os.availableParallelism()))),
  threadsPerWorker: Int(1, 64).default(1),
  /**
   * Start the first analysis process and the probe process with the core, each loading its modules (and the model)
   * before any file arrives (src/jobs/warm-up.ts): otherwise the first file after a start waits for that (about 5 s
   * on 2 cores). VERACITY_WARM_WORKERS=0 leaves them to start with the first file.
   */
  warmWorkers: z.preprocess((v) => (v === '0' || v === 'false' ? false : v === '1' || v === 'true' ? true : v), z.boolean()).default(true),
  /** Wall-clock bound of one file's analysis; the worker is killed past it. */
  fileTimeoutMs: Int(1000, 600_000).default(60_000),
  probeTimeoutMs: Int(500, 120_000).default(15_000),
  /** On a clean stop, how long running analyses may finish before they are stopped and handed back for the next start. */
  shutdownGraceMs: Int(0, 60_000).default(2000),
  waitWindowMs: Int(1, 30_000).default(30_000),
  maxWaiters: Int(1, 100_000).default(256),
  idempotencyTtlMs: Int(1000, 30 * 24 * 3_600_000).default(24 * 3_600_000),
  requestTimeoutMs: Int(1000, 3_600_000).default(120_000),
  headersTimeoutMs: Int(1000, 600_000).default(10_000),
  /** Extra origins allowed besides the server's own (e.g. an Electron custom scheme). */
  extraOrigins: z.array(z.string()).default([]),
  /**
   * Authorities (`name` or `name:port`, canonical: see loopback-guard.ts) a team server answers to besides loopback.
   * Empty on the desktop. Only `veracity serve --allow-network` sets them (its flags or VERACITY_ALLOWED_HOSTS); the desktop never reads them.
   */
  allowedHosts: z
    .array(z.string())
    .default([])
    .transform((hosts, ctx) =>
      hosts.map((h) => {
        const canonical = canonicalAuthority(h.trim());
        if (canonical === null) ctx.addIssue({ code: 'custom', message: `"${h}" is not a host name with an optional port` });
        return canonical ?? h;
      }),
    ),
  /**
   * The window's token when the caller chooses it (a team API node's VERACITY_UI_TOKEN, a test); else the core makes
   * one per launch. Never from argv. The team server's shape: at least 32 characters a `#token=` fragment carries.
   */
  uiToken: z.string().regex(UI_TOKEN_SHAPE, 'must be at least 32 characters of A-Z, a-z, 0-9, - and _').optional(),
  /**
   * The PEM bundle of C2PA trust anchors the analysis reads (VERACITY_TRUST_ANCHORS, e.g. one file every node of a
   * team server mounts). Unset: the data dir's own bundle (`veracity serve --trust-anchors FILE` installs it there).
   */
  trustAnchorsFile: z.string().min(1).optional(),
  /**
   * The PEM file of the installation's report signing key and certificate (VERACITY_REPORT_SIGNING_KEY), made on first
   * start when absent. Unset: the data dir's. API nodes of a team server name one file on a volume they all mount, so
   * every node signs as the one installation (the first node to start makes it).
   */
  reportSigningKeyFile: z.string().min(1).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
}).superRefine((c, ctx) => {
  // Loopback by default (DECISIONS 28): listening anywhere else takes an explicit allowed-hosts list, which only
  // `veracity serve --allow-network` gives; the desktop never does.
  if (!LOOPBACK_LISTEN.has(c.host) && c.allowedHosts.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['host'], message: `"${c.host}" is not a loopback address; a server on the network needs allowed host names (--allow-network --allowed-host NAME)` });
  }
});
export type CoreConfig = z.infer<typeof CoreConfig>;

/** Environment overrides, named VERACITY_<UPPER_SNAKE>. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<keyof CoreConfig, unknown>> {
  const map: Partial<Record<keyof CoreConfig, string>> = {
    modelsDir: 'VERACITY_MODELS_DIR',
    rateLimitMax: 'VERACITY_RATE_LIMIT_MAX',
    rateLimitWindowMs: 'VERACITY_RATE_LIMIT_WINDOW_MS',
    queueMaxFiles: 'VERACITY_QUEUE_MAX_FILES',
    analysisWorkers: 'VERACITY_ANALYSIS_WORKERS',
    threadsPerWorker: 'VERACITY_THREADS_PER_WORKER',
    warmWorkers: 'VERACITY_WARM_WORKERS',
    fileTimeoutMs: 'VERACITY_FILE_TIMEOUT_MS',
    probeTimeoutMs: 'VERACITY_PROBE_TIMEOUT_MS',
    waitWindowMs: 'VERACITY_WAIT_WINDOW_MS',
    logLevel: 'VERACITY_LOG_LEVEL',
    trustAnchorsFile: 'VERACITY_TRUST_ANCHORS',
    reportSigningKeyFile: 'VERACITY_REPORT_SIGNING_KEY',
  };
  const out: Partial<Record<keyof CoreConfig, unknown>> = {};
  for (const [key, name] of Object.entries(map) as [keyof CoreConfig, string][]) {
    if (env[name] !== undefined && env[name] !== '') out[key] = env[name];
  }
  return out;
}

/** Name of the trust-anchor bundle in the data dir. */
export const TRUST_ANCHORS_FILE = 'trust-anchors.pem';

/** The trust-anchor bundle the analysis reads: the configured file, else the data dir's (absent: no anchors). */
export const trustAnchorsFileOf = (c: Pick<CoreConfig, 'dataDir' | 'trustAnchorsFile'>): string => c.trustAnchorsFile ?? path.join(c.dataDir, TRUST_ANCHORS_FILE);

/** Name of the report signing key (private key and certificate, 0600) in the data dir. */
export const REPORT_SIGNING_KEY_FILE = 'report-signing-key.pem';

/** The report signing key's file: the configured one, else the data dir's. */
export const reportSigningKeyFileOf = (c: Pick<CoreConfig, 'dataDir' | 'reportSigningKeyFile'>): string => c.reportSigningKeyFile ?? path.join(c.dataDir, REPORT_SIGNING_KEY_FILE);

export function loadConfig(overrides: Partial<Record<keyof CoreConfig, unknown>>, env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const merged = { dataDir: defaultDataDir(env), ...configFromEnv(env), ...stripUndefined(overrides) };
  const parsed = CoreConfig.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  return parsed.data;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
