// Adapts a RateLimitStore (src/db/stores.ts) to @fastify/rate-limit's custom store contract (a constructor with
// callback-style incr and child), so that API nodes sharing a database share their counters.
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RateLimitStore } from './stores.js';

export function rateLimitStoreCtor(store: RateLimitStore): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      store.incr(key, timeWindow).then(
        (r) => callback(null, r),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }
    /** The plugin's non-counting read (`createRateLimit()(req, { increment: false })`): the server peeks at a client's refusals. */
    read(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      store.read(key).then(
        (r) => callback(null, r),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }
    /** One counter per key whatever the route: the limit is per API key (DECISIONS 27), not per route. */
    child(): FastifyRateLimitStore {
      return this;
    }
  }
  return SharedRateLimitStore;
}
