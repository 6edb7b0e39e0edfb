// The one SQLite connection of the core: durability pragmas (DECISIONS 30) and the migration runner.
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

function checksum(m: Migration): string {
  return crypto.createHash('sha256').update(m.sql).digest('hex');
}

/** Open (creating if needed) the database at `file`, apply pending migrations, and refuse a database ahead of or diverging from the code. */
export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    // FULL: a job answered 200/202 survives power loss, not only a process kill (SQLite docs on WAL + NORMAL).
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
  const applied = db.prepare('SELECT id, name, checksum FROM schema_migrations ORDER BY id').all() as {
    id: number;
    name: string;
    checksum: string;
  }[];
  for (const row of applied) {
    const known = migrations.find((m) => m.id === row.id);
    if (!known) {
      throw new Error(
        `Database has migration ${row.id} (${row.name}) that this version of Veracity does not know: it was written by a newer version. Refusing to start.`,
      );
    }
    if (checksum(known) !== row.checksum) {
      throw new Error(`Migration ${row.id} (${row.name}) differs from the one applied to this database. Refusing to start.`);
    }
  }
  const insert = db.prepare('INSERT INTO schema_migrations (id, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of [...migrations].sort((a, b) => a.id - b.id)) {
    if (applied.some((r) => r.id === m.id)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.id, m.name, checksum(m), new Date().toISOString());
    })();
  }
}
