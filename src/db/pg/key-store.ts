// The team server's key store (src/db/stores.ts KeyStore) on PostgreSQL: applications and their API keys, kept as
// SHA-256 digests and a four-character hint, never the key. The signing secret is not here: it comes from the
// environment (src/auth/api-keys.ts).
import type { KeyRows, KeyStore } from '../stores.js';
import type { PgPool, Queryable } from './connection.js';
import { toApp, toKey, type AppRow, type KeyRow } from '../rows.js';
import { inTransaction } from './jobs-store.js';
import { listen, type ListenerOptions } from './listener.js';

/** Every revocation is announced on this channel, at its commit, to every node (src/auth/api-keys.ts keeps keys). */
export const KEYS_CHANGED_CHANNEL = 'veracity_keys_changed';

/** The revocation UPDATE and its announcement in one statement, so one transaction: the NOTIFY goes out at commit. */
const revokeAndNotify = (where: string) =>
  `WITH revoked AS (UPDATE api_keys SET revoked_at = $2 WHERE ${where} AND revoked_at IS NULL RETURNING id)
   SELECT (SELECT count(*) FROM revoked)::int AS n, pg_notify('${KEYS_CHANGED_CHANNEL}', '') AS notified`;

function keyRows(q: Queryable, changed: () => void = () => {}): KeyRows {
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
      const { rows } = await q.query<{ n: number }>(revokeAndNotify('id = $1'), [id, at]);
      changed();
      return rows[0].n;
    },
    async revokeApplicationKeys(applicationId, at) {
      const { rows } = await q.query<{ n: number }>(revokeAndNotify('application_id = $1'), [applicationId, at]);
      changed();
      return rows[0].n;
    },
  };
}

/** What a node hears of revocations: see listenForKeyChanges. */
export interface PgKeyChanges {
  /** Changes at every announced revocation, this node's own and after the listening connection is (re)made; null while it is down. */
  revision(): number | null;
  /** This node changed a key: its own requests must see it at once, before its notification comes back. */
  bump(): void;
  close(): Promise<void>;
}

export type PgKeyChangesOptions = ListenerOptions;

/**
 * Listens for revocations on a connection of its own (as src/db/pg/job-events.ts does for finished jobs); resolves
 * once the LISTEN is in place. While that connection is down the revision is null, so the key service reads every
 * key's row again on every request, and a reconnection changes the revision (a revocation announced while it was
 * down was not heard).
 */
export async function listenForKeyChanges(connectionString: string, opts: PgKeyChangesOptions = {}): Promise<PgKeyChanges> {
  let n = 0;
  const listener = await listen(
    connectionString,
    KEYS_CHANGED_CHANNEL,
    'veracity-keys',
    {
      onNotify: () => void n++,
      // (Re)made: a revocation announced while the connection was down was not heard, so the revision moves.
      onListening: () => void n++,
    },
    opts,
  );
  return {
    revision: () => (listener.listening() ? n : null),
    bump() {
      n++;
    },
    close: () => listener.close(),
  };
}

/**
 * The key store on `pool`. With `changes` (an API node), keysRevision follows the revocations every node announces;
 * without (the `keys` CLI, which checks no request), it is null and a key's row would be read every time.
 */
export function createPgKeyStore(pool: PgPool, changes?: PgKeyChanges): KeyStore {
  const changed = () => changes?.bump();
  return {
    ...keyRows(pool, changed),
    keysRevision: () => changes?.revision() ?? null,
    // Key-store transactions of every node take turns (they are rare: a key made, a revocation, the first start):
    // a check-then-write inside one, such as "no applications yet: make the default pair", holds across nodes.
    withTransaction: async (fn) => {
      const result = await inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended('veracity:key-store', 0))");
        return fn(keyRows(client, changed));
      });
      changed(); // again once committed: a key read while the transaction was open may predate its revocation
      return result;
    },
  };
}
