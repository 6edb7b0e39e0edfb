// Which team-server nodes (API nodes and workers) are alive, from a heartbeat row each in PostgreSQL (table
// team_nodes, PostgreSQL migration 6). Every node beats its row about once a second on the database's own clock; a
// row not beaten for deadAfterMs belongs to a node that died (kill -9, a lost machine) or stopped answering, and any
// node may reap it: remove what that node left (its temp folder in the shared blob directory, the files it held in
// the queue) and delete the row, in one transaction that holds the row, so two nodes never reap the same one twice.
// A node that finds its own row gone was judged dead (it stalled past deadAfterMs): it registers again under the same
// id and tells its owner (onLost), whose work in flight was handed on meanwhile.
import crypto from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import type { PgPool } from './connection.js';
import { inTransaction } from './jobs-store.js';

export type NodeRole = 'api' | 'worker';

export interface NodeRegistryOptions {
  role: NodeRole;
  /** How often this node beats its row. */
  beatMs?: number;
  /** A row not beaten for this long belongs to a dead node (keep it several beats above beatMs). */
  deadAfterMs?: number;
  /** Told when this node finds it was judged dead (its row reaped), once it is registered again. */
  onLost?: () => void;
  onError?: (err: Error) => void;
}

export interface NodeRegistry {
  /** This node's id: its temp folder's name, and who holds a unit of the queue. */
  readonly id: string;
  readonly deadAfterMs: number;
  /** Ids of the nodes registered now (alive, or dead and not yet reaped). */
  registered(): Promise<Set<string>>;
  /**
   * Reaps the nodes whose row has not been beaten for deadAfterMs: `clean` runs first, in the transaction that holds
   * and then deletes their rows (a failure rolls it back, and the next reap tries again). Returns the ids reaped.
   */
  reap(clean?: (dead: string[], client: pg.PoolClient) => Promise<void>): Promise<string[]>;
  /** Beats once now (the timer beats on its own; for tests and the start). */
  beat(): Promise<void>;
  /** Stops beating and deletes this node's row (a clean stop: nothing is left to reap). */
  close(): Promise<void>;
}

export const NODE_BEAT_MS = 1000;
export const NODE_DEAD_AFTER_MS = 6000;

export async function createNodeRegistry(pool: PgPool, opts: NodeRegistryOptions): Promise<NodeRegistry> {
  const id = crypto.randomUUID();
  const beatMs = opts.beatMs ?? NODE_BEAT_MS;
  const deadAfterMs = opts.deadAfterMs ?? NODE_DEAD_AFTER_MS;
  const onError = opts.onError ?? (() => {});
  const register = () =>
    pool.query('INSERT INTO team_nodes (id, role, host, pid) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET beat_at = now()', [
      id,
      opts.role,
      os.hostname(),
      process.pid,
    ]);
  await register();

  let closed = false;
  let beating: Promise<void> | null = null;
  async function beatOnce(): Promise<void> {
    const { rowCount } = await pool.query('UPDATE team_nodes SET beat_at = now() WHERE id = $1', [id]);
    if (rowCount === 0 && !closed) {
      // Reaped: another node judged this one dead and handed its work on. Back in the registry under the same id.
      await register();
      opts.onLost?.();
    }
  }
  const beat = () => {
    // One beat at a time: a slow database never stacks them up.
    beating ??= beatOnce()
      .catch((err: Error) => onError(err))
      .finally(() => {
        beating = null;
      });
    return beating;
  };
  const timer = setInterval(() => void beat(), beatMs);
  timer.unref();

  return {
    id,
    deadAfterMs,
    async registered() {
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM team_nodes');
      return new Set(rows.map((r) => r.id));
    },
    async reap(clean) {
      return inTransaction(pool, async (client) => {
        // SKIP LOCKED: a row another node is reaping now (or its node beating it) is left to that transaction.
        const { rows } = await client.query<{ id: string }>(
          `SELECT id FROM team_nodes WHERE id <> $1 AND beat_at < now() - make_interval(secs => $2::double precision / 1000)
           FOR UPDATE SKIP LOCKED`,
          [id, deadAfterMs],
        );
        const dead = rows.map((r) => r.id);
        if (!dead.length) return [];
        await clean?.(dead, client);
        await client.query('DELETE FROM team_nodes WHERE id = ANY($1::text[])', [dead]);
        return dead;
      });
    },
    beat,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await beating;
      await pool.query('DELETE FROM team_nodes WHERE id = $1', [id]).catch((err: Error) => onError(err));
    },
  };
}
