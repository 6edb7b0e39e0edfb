// Shared rate-limit counters (src/db/stores.ts RateLimitStore) for API nodes on one PostgreSQL: one fixed window per
// key, counted by a single atomic upsert and timed by the database's clock, so nodes with skewed clocks agree.
import type { RateLimitStore } from '../stores.js';
import type { PgPool } from './connection.js';

/** Windows that ended this long ago are deleted, at most once per PRUNE_EVERY_MS per node. */
const PRUNE_EVERY_MS = 60_000;

export function createPgRateLimitStore(pool: PgPool): RateLimitStore {
  let lastPrune = 0;
  return {
    async incr(key, timeWindowMs) {
      const { rows } = await pool.query<{ current: number; ttl: string }>(
        `WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
         INSERT INTO rate_limit_counters AS r (key, count, window_ends_ms)
           SELECT $1, 1, now.ms + $2 FROM now
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN r.window_ends_ms <= (SELECT ms FROM now) THEN 1 ELSE r.count + 1 END,
           window_ends_ms = CASE WHEN r.window_ends_ms <= (SELECT ms FROM now) THEN (SELECT ms FROM now) + $2 ELSE r.window_ends_ms END
         RETURNING r.count AS current, r.window_ends_ms - (SELECT ms FROM now) AS ttl`,
        [key, Math.max(1, Math.round(timeWindowMs))],
      );
      const now = Date.now();
      if (now - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = now;
        // Best effort: a failed prune leaves rows that the next one removes; counting is unaffected.
        pool
          .query('DELETE FROM rate_limit_counters WHERE window_ends_ms < (extract(epoch FROM clock_timestamp()) * 1000)::bigint')
          .catch(() => {});
      }
      // A statement that took its clock reading, then waited on a concurrent insert of the same key, sees a window
      // that began after its reading: its ttl can exceed the window by that wait. No window lasts longer than itself.
      const window = Math.max(1, Math.round(timeWindowMs));
      return { current: rows[0].current, ttl: Math.min(window, Math.max(0, Number(rows[0].ttl))) };
    },
    async read(key) {
      const { rows } = await pool.query<{ current: number; ttl: string }>(
        `WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
         SELECT r.count AS current, r.window_ends_ms - now.ms AS ttl FROM rate_limit_counters r, now
          WHERE r.key = $1 AND r.window_ends_ms > now.ms`,
        [key],
      );
      return rows.length === 0 ? { current: 0, ttl: 0 } : { current: rows[0].current, ttl: Math.max(0, Number(rows[0].ttl)) };
    },
  };
}
