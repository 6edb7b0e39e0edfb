// The team server's commands (issue 15), dispatched from src/cli.ts when a database URL is given by
// --database-url or VERACITY_DATABASE_URL: `serve` runs an API node, `worker` an analysis worker, `keys` manages
// the applications and keys kept in PostgreSQL. Secrets (the key-signing secret, the database password inside the
// URL) come from the environment, never from a file of the repository.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { coreReady } from './api/core-ready.js';
import { KEY_EXPIRES_IN_DAYS_MAX } from './api/limits.js';
import { LISTEN_OPTIONS, listenAddress } from './config/listen-address.js';
import { loadConfig } from './config/config.js';
import { announceReady } from './ready-signal.js';
import { BLOB_DIR_ENV, DATABASE_URL_ENV, createTeamApiNode, createTeamWorker, keySecretFromEnv, type TeamOptions } from './team-core.js';
import { createKeyService } from './auth/api-keys.js';
import { openPgPool } from './db/pg/connection.js';
import { createPgKeyStore } from './db/pg/key-store.js';

export const TEAM_USAGE = `  veracity serve --database-url postgres://... [--blob-dir DIR] [--port N] [--models-dir DIR] [--host ADDRESS --allow-network --allowed-host NAME ...]
  veracity worker --database-url postgres://... [--blob-dir DIR] [--models-dir DIR]
  veracity keys create|list|revoke ... --database-url postgres://...

With a database URL (--database-url or ${DATABASE_URL_ENV}) Veracity runs as a team server on PostgreSQL: API nodes
and analysis workers share the database and a blob directory (--blob-dir or ${BLOB_DIR_ENV}, mounted by every node).
For small deployments, leave out --blob-dir and the uploaded files are kept in PostgreSQL (every node alike).
API keys are signed with VERACITY_KEY_SECRET (at least 32 random bytes, base64 or hex), the same on every API node.`;

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

const untilSignal = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

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
  const team = teamOptions(values);
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
  announceReady(coreReady(`http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, null));
  await untilSignal();
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
  const worker = await createTeamWorker(config, team, { log });
  process.stderr.write(`veracity worker: taking files from PostgreSQL with ${config.analysisWorkers} analysis process(es)\n`);
  await untilSignal();
  await worker.close();
  return 0;
}

/** `veracity keys ... --database-url ...`: the keys of a team server. */
export async function keysTeam(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      'database-url': { type: 'string' },
      kind: { type: 'string' },
      application: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const team = teamOptions(values);
  const pool = await openPgPool(team.databaseUrl, { maxConnections: 2 });
  try {
    const store = createPgKeyStore(pool);
    const keys = createKeyService({ secret: team.keySecret, store });
    await keys.ensureDefaultApplications();
    if (sub === 'create') {
      const days = values['expires-in-days'];
      const expiresInDays = days === undefined ? undefined : Number(days);
      if (expiresInDays !== undefined && (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > KEY_EXPIRES_IN_DAYS_MAX)) {
        throw new Error(`--expires-in-days must be a whole number of days from 1 to ${KEY_EXPIRES_IN_DAYS_MAX}.`);
      }
      const apps = await store.listApplications();
      const app = values.application !== undefined ? apps.find((a) => a.id === values.application) : apps.find((a) => a.kind === values.kind);
      if (!app) throw new Error(values.application !== undefined ? `No application with id ${values.application}.` : '--kind must be "images" or "pdfs" (or give --application ID).');
      const key = await keys.issueKey(app.id, values.name ?? `${app.name} key`, expiresInDays);
      process.stdout.write(`${JSON.stringify({ applicationId: app.id, name: app.name, kind: app.kind, keyId: key.id, expiresAt: key.expiresAt, apiKey: key.token })}\n`);
      process.stderr.write('This is the only time this key is shown: Veracity keeps only its digest. Store it now.\n');
      return 0;
    }
    if (sub === 'list') {
      const out = await Promise.all(
        (await store.listApplications()).map(async (a) => ({
          applicationId: a.id,
          name: a.name,
          kind: a.kind,
          createdAt: a.createdAt,
          keys: (await store.listKeys(a.id)).map((k) => ({ keyId: k.id, name: k.name, createdAt: k.createdAt, expiresAt: k.expiresAt, revokedAt: k.revokedAt, hint: k.hint })),
        })),
      );
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return 0;
    }
    if (sub === 'revoke') {
      const id = positionals[0];
      if (!id) throw new Error('keys revoke needs an application id or a key id.');
      const at = new Date().toISOString();
      let n: number;
      if (await store.getKey(id)) n = await store.revokeKey(id, at);
      else if (await store.getApplication(id)) n = await store.revokeApplicationKeys(id, at);
      else throw new Error(`No application or key with id ${id}.`);
      process.stdout.write(`${JSON.stringify({ revoked: n })}\n`);
      return 0;
    }
    throw new Error(`Unknown keys subcommand "${sub ?? ''}". Use create, list or revoke.`);
  } finally {
    await pool.end();
  }
}

