// The team server's key store (src/db/stores.ts KeyStore) on PostgreSQL: applications and their API keys, kept as
// SHA-256 digests and a four-character hint, never the key. The signing secret is not here: it comes from the
// environment (src/auth/api-keys.ts).
import type { KeyRows, KeyStore } from '../stores.js';
import type { PgPool, Queryable } from './connection.js';
import { toApp, toKey, type AppRow, type KeyRow } from '../rows.js';
import { inTransaction } from './jobs-store.js';


function keyRows(q: Queryable): KeyRows {
  return {
    async insertApplication(app) {
      await q.query('INSERT INTO applications (id, name, kind, created_at) VALUES ($1, $2, $3, $4)', [app.id, app.name, app.kind, app.createdAt]);
    },
    async getApplication(id) {
      const { rows } = await q.query<AppRow>('SELECT * FROM applications WHERE id = $1', [id]);
      return rows[0] && toApp(rows[0]);
    },
    async listApplications() {
      const { rows } = await q.query<AppRow>('SELECT * FROM applications ORDER BY created_at, id');
      return rows.map(toApp);
    },
    async countApplications() {
      const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM applications');
      return rows[0].n;
    },
    async insertKey(k) {
      await q.query(
        `INSERT INTO api_keys (id, application_id, name, token_sha256, token_hint, created_at, expires_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)`,
        [k.id, k.applicationId, k.name, k.tokenSha256, k.hint, k.createdAt, k.expiresAt],
      );
    },
    async getKey(id) {
      const { rows } = await q.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
      return rows[0] && toKey(rows[0]);
    },
    async listKeys(applicationId) {
      const { rows } = await q.query<KeyRow>('SELECT * FROM api_keys WHERE application_id = $1 ORDER BY created_at, id', [applicationId]);
      return rows.map(toKey);
    },
    async revokeKey(id, at) {
      return (await q.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, at])).rowCount ?? 0;
    },
    async revokeApplicationKeys(applicationId, at) {
      return (await q.query('UPDATE api_keys SET revoked_at = $2 WHERE application_id = $1 AND revoked_at IS NULL', [applicationId, at])).rowCount ?? 0;
    },
  };
}

export function createPgKeyStore(pool: PgPool): KeyStore {
  return {
    ...keyRows(pool),
    // Key-store transactions of every node take turns (they are rare: a key made, a revocation, the first start):
    // a check-then-write inside one, such as "no applications yet: make the default pair", holds across nodes.
    withTransaction: (fn) =>
      inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended('veracity:key-store', 0))");
        return fn(keyRows(client));
      }),
  };
}
