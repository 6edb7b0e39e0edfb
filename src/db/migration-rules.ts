// The rule both databases' migrations follow: numbered, forward-only, checked at every start. A database that holds
// a migration this version does not know (written by a newer version) or one whose text differs from ours is
// refused; the caller then applies, in order, the ones it lacks, recording each with its checksum.
import crypto from 'node:crypto';

export interface MigrationText {
  id: number;
  name: string;
  sql: string;
}

export function migrationChecksum(m: MigrationText): string {
  return crypto.createHash('sha256').update(m.sql).digest('hex');
}

/** Throws when the applied rows are not a prefix of what this version knows; returns the migrations still to apply. */
export function pendingMigrations<M extends MigrationText>(known: readonly M[], applied: readonly { id: number; name: string; checksum: string }[]): M[] {
  for (const row of applied) {
    const mine = known.find((m) => m.id === row.id);
    if (!mine) {
      throw new Error(
        `Database has migration ${row.id} (${row.name}) that this version of Veracity does not know: it was written by a newer version. Refusing to start.`,
      );
    }
    if (migrationChecksum(mine) !== row.checksum) {
      throw new Error(`Migration ${row.id} (${row.name}) differs from the one applied to this database. Refusing to start.`);
    }
  }
  const done = new Set(applied.map((r) => r.id));
  return known.filter((m) => !done.has(m.id));
}
