// The test PostgreSQL itself: it starts as an unprivileged user, takes password logins over TCP, and leaves nothing behind.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('test PostgreSQL', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves a fresh database over TCP with a password, as a non-root server process', async () => {
    const url = await server.createDatabase('harness');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; superuser: string }>(
        "SELECT current_database() AS db, current_setting('is_superuser') AS superuser",
      );
      expect(rows[0].db).toMatch(/^harness_/);
      expect(rows[0].superuser).toBe('on');
      const pid = Number(fs.readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(fs.statSync(`/proc/${pid}`).uid).not.toBe(0);
    } finally {
      await client.end();
    }
    const wrong = new pg.Client({ connectionString: url.replace(/:[^:@/]+@/, ':wrong@') });
    await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
  });

  it('removes its directory when stopped', async () => {
    const other = await startPostgres();
    expect(fs.existsSync(other.dir)).toBe(true);
    await other.stop();
    expect(fs.existsSync(other.dir)).toBe(false);
    const client = new pg.Client({ connectionString: other.adminUrl, connectionTimeoutMillis: 2000 });
    await expect(client.connect()).rejects.toThrow();
  });
});
