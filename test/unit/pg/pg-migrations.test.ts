// PostgreSQL migrations against a real server: a fresh database gets the whole schema, a second start changes
// nothing, and a database written by a newer (or different) version is refused before anything touches it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePg, openPgPool } from '../../../src/db/pg/connection.js';
import { PG_MIGRATIONS } from '../../../src/db/pg-migrations/index.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('PostgreSQL migrations', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const tables = async (pool: pg.Pool) =>
    (await pool.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.t);

  it('creates the schema on a fresh database and is a no-op when run again', async () => {
    const url = await server.createDatabase('fresh');
    const pool = await openPgPool(url);
    try {
      expect(await tables(pool)).toEqual([
        'api_keys', 'applications', 'blobs', 'cases', 'idempotency_keys', 'job_files', 'jobs', 'rate_limit_counters', 'schema_migrations', 'team_nodes',
      ]);
      const { rows } = await pool.query<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(PG_MIGRATIONS.map((m) => m.id));
      await pool.query(`INSERT INTO applications (id, name, kind, created_at) VALUES ('a1', 'Images', 'images', '2026-01-01T00:00:00.000Z')`);
      expect(await migratePg(pool, PG_MIGRATIONS)).toEqual([]);
      expect((await pool.query('SELECT id FROM applications')).rows).toEqual([{ id: 'a1' }]);
    } finally {
      await pool.end();
    }
    // A second node opening the same database applies nothing and keeps the data.
    const again = await openPgPool(url);
    try {
      expect((await again.query('SELECT count(*)::int AS n FROM applications')).rows[0].n).toBe(1);
    } finally {
      await again.end();
    }
  });

  it('several nodes starting at once apply each migration once', async () => {
    const url = await server.createDatabase('race');
    const pools = await Promise.all([openPgPool(url), openPgPool(url), openPgPool(url)]);
    try {
      const { rows } = await pools[0].query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(rows[0].n).toBe(PG_MIGRATIONS.length);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('refuses a database migrated by a newer version', async () => {
    const url = await server.createDatabase('newer');
    const newer = [...PG_MIGRATIONS, { id: PG_MIGRATIONS.length + 1, name: 'from the future', sql: 'CREATE TABLE future (id integer)' }];
    await (await openPgPool(url, { migrations: newer })).end();
    await expect(openPgPool(url)).rejects.toThrow(/written by a newer version\. Refusing to start/);
  });

  it('refuses a database whose applied migration differs from this version', async () => {
    const url = await server.createDatabase('edited');
    const edited = PG_MIGRATIONS.map((m) => (m.id === 2 ? { ...m, sql: `${m.sql}\nCREATE TABLE extra (id integer);` } : m));
    await (await openPgPool(url, { migrations: edited })).end();
    await expect(openPgPool(url)).rejects.toThrow(/Migration 2 \(rate-limit counters\) differs/);
  });

  it('leaves no half-applied migration behind when one fails', async () => {
    const url = await server.createDatabase('broken');
    const broken = [...PG_MIGRATIONS, { id: 99, name: 'broken', sql: 'CREATE TABLE half (id integer); SELECT no_such_function();' }];
    await expect(openPgPool(url, { migrations: broken })).rejects.toThrow(/migration 99 \(broken\) failed/);
    const pool = await openPgPool(url);
    try {
      expect(await tables(pool)).not.toContain('half');
    } finally {
      await pool.end();
    }
  });
});
