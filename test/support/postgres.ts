// A real PostgreSQL for tests: Debian's `postgresql` binaries, initdb in a temp dir as an unprivileged user, one
// server per test file on a free port (TCP with a password, like a deployment) with its unix socket in the temp dir.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The unprivileged account the server runs as when the tests run as root (initdb refuses root). */
const SERVICE_USER = 'postgres';
const SUPERUSER = 'veracity_test';

export interface TestPostgres {
  /** postgres:// URL of the `postgres` maintenance database (superuser). */
  readonly adminUrl: string;
  readonly port: number;
  readonly dir: string;
  /** Creates an empty database with a fresh name; returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Where initdb and pg_ctl are: $VERACITY_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string {
  const fromEnv = process.env.VERACITY_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb'))) return bin;
  }
  throw new Error(`No PostgreSQL server binaries under ${root}: install Debian's postgresql package (see .ci/run) or set VERACITY_PG_BIN.`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function lookupIds(user: string): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', user])).stdout.trim());
  const gid = Number((await run('id', ['-g', user])).stdout.trim());
  return { uid, gid };
}

/** Starts a fresh PostgreSQL server. Call stop() in afterAll. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-pg-'));
  const dataDir = path.join(dir, 'data');
  const pwFile = path.join(dir, 'pw');
  const logFile = path.join(dir, 'server.log');
  const password = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    ids = await lookupIds(SERVICE_USER);
    fs.chownSync(dir, ids.uid, ids.gid);
    fs.chownSync(pwFile, ids.uid, ids.gid);
  }
  fs.chmodSync(dir, 0o700);
  const pgRun = (cmd: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', SERVICE_USER, '--', path.join(bin, cmd), ...args]) : run(path.join(bin, cmd), args);

  let started = false;
  const stop = async (): Promise<void> => {
    if (started) {
      started = false;
      try {
        await pgRun('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '30']);
      } catch {
        // Already gone (a test may stop it on purpose): removing the directory is all that is left.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await pgRun('initdb', [
      '-D', dataDir, '-U', SUPERUSER, '--pwfile', pwFile, '--auth-local=trust', '--auth-host=scram-sha-256',
      '-E', 'UTF8', '--locale=C', '--no-sync',
    ]);
    let port = 0;
    // A free port can be taken between finding it and the server binding it: try a few.
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      const opts = [
        `-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1",
        // Tests never survive a power cut: no fsync keeps a shared 2-core machine responsive.
        '-c fsync=off', '-c max_connections=200',
      ].join(' ');
      try {
        await pgRun('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', opts]);
        started = true;
        break;
      } catch (err) {
        if (attempt >= 3) {
          const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
          throw new Error(`pg_ctl start failed: ${(err as Error).message}\n${log}`);
        }
      }
    }
    const adminUrl = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    let counter = 0;
    return {
      adminUrl,
      port,
      dir,
      async createDatabase(prefix = 'veracity') {
        const name = `${prefix}_${process.pid}_${++counter}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name}"`);
        } finally {
          await client.end();
        }
        return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
