// The team server's PostgreSQL pool and its migration runner: the same rules as src/db/connection.ts (numbered,
// forward-only, refuse a database ahead of or diverging from the code), made safe for several nodes starting at once.
import pg from 'pg';
import { migrationChecksum, pendingMigrations } from '../migration-rules.js';
import { PG_MIGRATIONS, type Migration } from '../pg-migrations/index.js';

export type PgPool = pg.Pool;
/** A pool or one of its clients: what a query can run on. */
export type Queryable = pg.Pool | pg.PoolClient;

/** Any number, fixed: the advisory lock that serialises migration runs of every node on one database. */
const MIGRATION_LOCK = 7_281_504_113;

export interface PgOptions {
  /** Connections this node may hold (API node: requests; worker: its analysis slots plus the queue's). */
  maxConnections?: number;
  migrations?: readonly Migration[];
}

/**
 * Connects to `url` (postgres://…, credentials from the environment, never a file of the repository), applies the
 * pending migrations and returns the pool. Throws, and closes the pool, when the database is not one this version
 * can use.
 */
export async function openPgPool(url: string, opts: PgOptions = {}): Promise<PgPool> {
  const pool = new pg.Pool({ connectionString: url, max: opts.maxConnections ?? 10, application_name: 'veracity' });
  // An idle client whose server went away emits 'error' on the pool; without a listener that ends the process.
  // The next query gets a fresh connection (or fails, and its caller answers for it).
  pool.on('error', () => {});
  try {
    await migratePg(pool, opts.migrations ?? PG_MIGRATIONS);
    return pool;
  } catch (err) {
    await pool.end();
    throw err;
  }
}

/**
 * Applies the migrations this database lacks, each in its own transaction, under an advisory lock (a node starting
 * while another migrates waits, then finds the work done). Returns the ids applied.
 */
export async function migratePg(pool: PgPool, migrations: readonly Migration[]): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at text NOT NULL)`);
      const { rows: applied } = await client.query<{ id: number; name: string; checksum: string }>(
        'SELECT id, name, checksum FROM schema_migrations ORDER BY id',
      );
      const pending = pendingMigrations([...migrations].sort((a, b) => a.id - b.id), applied);
      const done: number[] = [];
      for (const m of pending) {
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (id, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [
            m.id,
            m.name,
            migrationChecksum(m),
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`PostgreSQL migration ${m.id} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
        }
        done.push(m.id);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
