// The team server's commands (issue 15), dispatched from src/cli.ts when a database URL is given by
// --database-url or VERACITY_DATABASE_URL: `serve` runs an API node, `worker` an analysis worker, `keys` manages
// the applications and keys kept in PostgreSQL. Secrets (the key-signing secret, the database password inside the
// URL) come from the environment, never from a file of the repository.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { coreReady } from './api/core-ready.js';
import { LISTEN_OPTIONS, listenAddress } from './config/listen-address.js';
import { loadConfig, trustAnchorsFileOf } from './config/config.js';
import { readTrustAnchors } from './analysis/index.js';
import { announceReady } from './ready-signal.js';
import { stopSignal } from './stop-signal.js';
import { BLOB_DIR_ENV, DATABASE_URL_ENV, UI_TOKEN_ENV, createTeamApiNode, createTeamWorker, keySecretFromEnv, uiTokenFromEnv, type TeamOptions } from './team-core.js';
import { rendererAvailable } from './server/renderer-files.js';
import { createKeyService } from './auth/api-keys.js';
import { openPgPool } from './db/pg/connection.js';
import { createPgKeyStore } from './db/pg/key-store.js';
import { KEYS_OPTIONS, runKeysCommand } from './keys-command.js';

export const TEAM_USAGE = `  veracity serve --database-url postgres://... [--blob-dir DIR] [--port N] [--models-dir DIR] [--host ADDRESS --allow-network --allowed-host NAME ...]
  veracity worker --database-url postgres://... [--blob-dir DIR] [--models-dir DIR]
  veracity keys create|list|revoke ... --database-url postgres://...

With a database URL (--database-url or ${DATABASE_URL_ENV}) Veracity runs as a team server on PostgreSQL: API nodes
and analysis workers share the database and a blob directory (--blob-dir or ${BLOB_DIR_ENV}, mounted by every node).
For small deployments, leave out --blob-dir and the uploaded files are kept in PostgreSQL (every node alike).
API keys are signed with VERACITY_KEY_SECRET (at least 32 random bytes, base64 or hex), the same on every API node.
An API node serves the window (open http(s)://HOST/#token=...) only when ${UI_TOKEN_ENV} holds its secret (at least
32 characters, e.g. \`openssl rand -hex 32\`), the same on every API node; without it every /app route answers 401.`;

/**
 * True when the command names a database: the team server's commands then run. The environment variable counts only
 * when no --data-dir is given, so the desktop (which always passes its data dir) stays on SQLite whatever is set.
 */
export function teamMode(args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = (name: string) => args.some((a) => a === name || a.startsWith(`${name}=`));
  return flag('--database-url') || (!!env[DATABASE_URL_ENV] && !flag('--data-dir'));
}

function teamOptions(values: { 'database-url'?: string; 'blob-dir'?: string }): TeamOptions {
  const databaseUrl = values['database-url'] ?? process.env[DATABASE_URL_ENV];
  if (!databaseUrl || !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error(`--database-url (or ${DATABASE_URL_ENV}) must be a postgres:// URL.`);
  const blobDir = values['blob-dir'] ?? process.env[BLOB_DIR_ENV];
  // No blob directory: the uploaded files are kept in PostgreSQL (src/db/pg/pg-blob-store.ts).
  return { databaseUrl, blobDir: blobDir ? path.resolve(blobDir) : undefined, keySecret: keySecretFromEnv() };
}

/** `veracity serve --database-url ...`: an API node; loopback unless --allow-network with --allowed-host, as `serve`. */
export async function serveTeam(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'database-url': { type: 'string' },
      'blob-dir': { type: 'string' },
      ...LISTEN_OPTIONS,
      port: { type: 'string' },
      'models-dir': { type: 'string' },
    },
    strict: true,
  });
  // The window's secret comes from the environment only (never argv, which other local users can read with ps).
  const team = { ...teamOptions(values), uiToken: uiTokenFromEnv() };
  const config = loadConfig({ ...listenAddress(values), port: values.port, modelsDir: values['models-dir'] ? path.resolve(values['models-dir']) : undefined });
  const node = await createTeamApiNode(config, team);
  try {
    await node.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await node.close();
    throw err;
  }
  const addr = node.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  node.setPort(port);
  node.app.server.headersTimeout = config.headersTimeoutMs;
  node.app.server.requestTimeout = config.requestTimeoutMs;
  const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // The UI secret is the operator's and is never printed (logs of a server are read by others): only where it goes.
  announceReady(coreReady(baseUrl, null));
  if (!team.uiToken) process.stdout.write(`Window: off (set ${UI_TOKEN_ENV} on every API node to serve it)\n`);
  else if (!rendererAvailable(config.rendererDir)) process.stdout.write(`Window: off (no built window in ${config.rendererDir}: run \`npm run build:renderer\`)\n`);
  else process.stdout.write(`Window at ${baseUrl}/#token=<${UI_TOKEN_ENV}> (or this server's https name behind its proxy)\n`);
  await stopSignal('veracity serve', 'the workers carry on with the files already accepted.');
  await node.close();
  return 0;
}

/** `veracity worker --database-url ...`: takes files from pg-boss and analyses them until stopped. */
export async function workerCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'database-url': { type: 'string' }, 'blob-dir': { type: 'string' }, 'models-dir': { type: 'string' } },
    strict: true,
  });
  const team = teamOptions(values);
  const config = loadConfig({ modelsDir: values['models-dir'] ? path.resolve(values['models-dir']) : undefined });
  const log = {
    error: (o: object, m: string) => process.stderr.write(`${JSON.stringify({ level: 'error', msg: m, ...o, err: String((o as { err?: unknown }).err ?? '') })}\n`),
    info: (o: object, m: string) => process.stderr.write(`${JSON.stringify({ level: 'info', msg: m, ...o })}\n`),
  };
  // The C2PA trust anchors this node's analyses read (VERACITY_TRUST_ANCHORS, one file every worker mounts): checked
  // before any file is taken, so a broken bundle stops the node instead of failing every analysis.
  const anchorsFile = trustAnchorsFileOf(config);
  const anchors = await readTrustAnchors(anchorsFile);
  const worker = await createTeamWorker(config, team, { log });
  process.stderr.write(`veracity worker: taking files from PostgreSQL with ${config.analysisWorkers} analysis process(es); ${anchors.length} C2PA trust anchor(s) from ${anchorsFile}\n`);
  await stopSignal('veracity worker', 'the files it was analysing are handed back to be analysed again.');
  await worker.close();
  return 0;
}

/** `veracity keys ... --database-url ...`: the keys of a team server. */
export async function keysTeam(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { 'database-url': { type: 'string' }, ...KEYS_OPTIONS },
    allowPositionals: true,
    strict: true,
  });
  const team = teamOptions(values);
  const pool = await openPgPool(team.databaseUrl, { maxConnections: 2 });
  try {
    const store = createPgKeyStore(pool);
    const keys = createKeyService({ secret: team.keySecret, store });
    await keys.ensureDefaultApplications();
    // A team server: `--kind` issues a key for its existing application of that kind.
    return await runKeysCommand(sub, values, positionals, keys, async (kind, name, days) => {
      const found = (await keys.applicationsWithKeys()).find(({ application }) => application.kind === kind);
      if (!found) throw new Error(`No ${kind} application on this server.`);
      return { app: found.application, key: await keys.issueKeyFor(found.application.id, name, days) };
    });
  } finally {
    await pool.end();
  }
}

