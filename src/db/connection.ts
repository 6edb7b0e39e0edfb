// The one SQLite connection of the core: durability pragmas (DECISIONS 30), owner-only file modes, and the migration runner.
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { migrationChecksum, pendingMigrations } from './migration-rules.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

/**
 * The database and its WAL and shared-memory files are readable by their user only, whatever the umask. SQLite
 * creates -wal and -shm with the mode of the database file, so creating that file 0600 first is enough for new
 * ones; files left by an older version (created 0644) are narrowed here.
 */
function restrictFileModes(file: string): void {
  if (process.platform === 'win32' || file === ':memory:' || file === '') return;
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch {
      // Not there (yet), or not ours to change: opening it decides whether it can be used.
    }
  }
}

/** Open (creating if needed) the database at `file`, apply pending migrations, and refuse a database ahead of or diverging from the code. */
export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  restrictFileModes(file);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    // FULL: a job answered 200/202 survives power loss, not only a process kill (SQLite docs on WAL + NORMAL).
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // For migrations that turn a secret into its digest (migration 2: API keys).
    db.function('sha256_hex', { deterministic: true }, (text: unknown) => crypto.createHash('sha256').update(String(text)).digest('hex'));
    // For migrations that give existing rows an id (migration 3: a case per distinct metadata.case).
    db.function('random_uuid', { deterministic: false }, () => crypto.randomUUID());
    const applied = migrate(db, migrations);
    // Best effort, both: on a full disk the core must still start (secure_delete already zeroed what a scrubbing
    // migration freed, and the next start truncates the WAL again).
    try {
      if (applied.some((m) => m.scrub)) db.exec('VACUUM');
    } catch {
      // VACUUM needs room for a copy of the database; without it the file keeps its zeroed free pages.
    }
    try {
      // An old WAL frame can hold rows that no longer exist (the WAL is reused, not cleared): start each run with
      // an empty one. Cheap: at start-up the WAL holds at most what the last run did not checkpoint.
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // A checkpoint that cannot write leaves the WAL as it was; SQLite checkpoints it later.
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Applies the migrations this database lacks, in order; returns them. */
export function migrate(db: Db, migrations: readonly Migration[]): Migration[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
  const applied = db.prepare('SELECT id, name, checksum FROM schema_migrations ORDER BY id').all() as {
    id: number;
    name: string;
    checksum: string;
  }[];
  const pending = pendingMigrations([...migrations].sort((a, b) => a.id - b.id), applied);
  const insert = db.prepare('INSERT INTO schema_migrations (id, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  const done: Migration[] = [];
  for (const m of pending) {
    // secure_delete zeroes the pages and cells the migration frees, in the same transaction: even if the VACUUM
    // after it never runs (a crash), the removed bytes are not left in the file's free pages.
    const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
    if (m.scrub) db.pragma('secure_delete = ON');
    try {
      db.transaction(() => {
        db.exec(m.sql);
        insert.run(m.id, m.name, migrationChecksum(m), new Date().toISOString());
      })();
    } finally {
      db.pragma(`secure_delete = ${secureDelete}`);
    }
    done.push(m);
  }
  return done;
}
