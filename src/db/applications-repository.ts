// Applications (one pipeline kind each) and their API keys, kept as digests (never the key). No SQL outside repositories.
import type { PipelineKind } from '../api/schemas.js';
import type { Db } from './connection.js';
import { toApp, toKey, type AppRow, type KeyRow } from './rows.js';

export interface Application {
  id: string;
  name: string;
  kind: PipelineKind;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  applicationId: string;
  name: string;
  /** SHA-256 (hex) of the key: enough to recognise it, useless to present it. */
  tokenSha256: string;
  /** The key's last four characters, to tell keys apart in lists. */
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/**
 * The key revision of each connection (see keysRevision): bumped by this connection's own key writes, which
 * `PRAGMA data_version` does not count, and whenever data_version shows another connection's commit.
 */
const revisions = new WeakMap<Db, { n: number; dataVersion: number | null; readThisTurn: boolean }>();

export function createApplicationsRepository(db: Db) {
  let rev = revisions.get(db);
  if (!rev) revisions.set(db, (rev = { n: 0, dataVersion: null, readThisTurn: false }));
  const revision = rev;
  const keysWritten = <T>(result: T): T => {
    revision.n++;
    return result;
  };
  const stmts = {
    // Changes when another connection (another process: `veracity keys revoke`) commits to the database file; one
    // read of the WAL index, no row (issue #14).
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    insertApp: db.prepare('INSERT INTO applications (id, name, kind, created_at) VALUES (@id, @name, @kind, @createdAt)'),
    getApp: db.prepare('SELECT * FROM applications WHERE id = ?'),
    listApps: db.prepare('SELECT * FROM applications ORDER BY created_at, id'),
    countApps: db.prepare('SELECT count(*) AS n FROM applications'),
    insertKey: db.prepare(
      'INSERT INTO api_keys (id, application_id, name, token_sha256, token_hint, created_at, expires_at, revoked_at) VALUES (@id, @applicationId, @name, @tokenSha256, @hint, @createdAt, @expiresAt, NULL)',
    ),
    getKey: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    listKeys: db.prepare('SELECT * FROM api_keys WHERE application_id = ? ORDER BY created_at, id'),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    revokeAppKeys: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE application_id = ? AND revoked_at IS NULL'),
  };
  return {
    insertApplication(app: Application): void {
      stmts.insertApp.run(app);
    },
    getApplication(id: string): Application | undefined {
      const r = stmts.getApp.get(id) as AppRow | undefined;
      return r && toApp(r);
    },
    listApplications(): Application[] {
      return (stmts.listApps.all() as AppRow[]).map(toApp);
    },
    countApplications(): number {
      return (stmts.countApps.get() as { n: number }).n;
    },
    insertKey(key: Omit<ApiKeyRecord, 'revokedAt'>): void {
      keysWritten(stmts.insertKey.run(key));
    },
    getKey(id: string): ApiKeyRecord | undefined {
      const r = stmts.getKey.get(id) as KeyRow | undefined;
      return r && toKey(r);
    },
    listKeys(applicationId: string): ApiKeyRecord[] {
      return (stmts.listKeys.all(applicationId) as KeyRow[]).map(toKey);
    },
    /** Returns the number of keys revoked (0 if already revoked or unknown). */
    revokeKey(id: string, at: string): number {
      return keysWritten(stmts.revokeKey.run(at, id).changes);
    },
    revokeApplicationKeys(applicationId: string, at: string): number {
      return keysWritten(stmts.revokeAppKeys.run(at, applicationId).changes);
    },
    /**
     * A number that changes whenever a key may have changed: after this connection wrote a key (through this
     * repository) or any other connection, of this process or another, committed anything to the database. Equal
     * numbers mean no key changed in between. Synchronous and rowless: the key service reads it on every request
     * instead of the key's row (src/auth/api-keys.ts).
     */
    keysRevision(): number {
      // data_version is read once per turn of the event loop: the requests of one turn (read from their sockets
      // together, under load up to one per connection) share the read, which was 8.6 % of the server's time when
      // every request made it (issue #14 profile). Another process's revocation is seen by every request read
      // after the turn in which it committed; this connection's own key writes move `n` at once.
      if (!revision.readThisTurn) {
        const v = stmts.dataVersion.get() as number;
        if (v !== revision.dataVersion) {
          revision.dataVersion = v;
          revision.n++;
        }
        revision.readThisTurn = true;
        setImmediate(() => {
          revision.readThisTurn = false;
        });
      }
      return revision.n;
    },
    /** The connection, for the key store's transactions (src/db/sqlite-stores.ts). */
    db,
  };
}
export type ApplicationsRepository = ReturnType<typeof createApplicationsRepository>;
