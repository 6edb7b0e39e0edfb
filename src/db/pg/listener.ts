// One PostgreSQL LISTEN on a connection of its own, re-made when it drops: what every cross-node signal of the team
// server hears (finished jobs in job-events.ts, revoked keys in key-store.ts). A notification sent while the
// connection is down is not heard: each user says what that costs it (onListening tells it the connection is back).
import pg from 'pg';

export interface ListenerOptions {
  /** Delay before re-making the listening connection after it drops or cannot be made. */
  reconnectDelayMs?: number;
  /** Told when the listening connection drops or cannot be re-made (for the node's log). */
  onError?: (err: Error) => void;
}

export interface ListenerHandlers {
  /** A notification on the channel, with its payload ('' when none). */
  onNotify: (payload: string) => void;
  /** The LISTEN is in place (at start, and after every reconnection). */
  onListening?: () => void;
}

export interface Listener {
  /** Whether the LISTEN is in place now. */
  listening(): boolean;
  close(): Promise<void>;
}

/** Starts listening on `channel`; resolves once the LISTEN is in place (so a notification after this is never missed). */
export async function listen(connectionString: string, channel: string, applicationName: string, handlers: ListenerHandlers, opts: ListenerOptions = {}): Promise<Listener> {
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  async function connect(): Promise<void> {
    // keepAlive: a connection silently cut (no error, no notification) is found out by TCP rather than never.
    const c = new pg.Client({ connectionString, application_name: applicationName, keepAlive: true });
    c.on('notification', (msg) => {
      if (msg.channel === channel) handlers.onNotify(msg.payload ?? '');
    });
    // Dropped once it was listening: nothing is heard until a new connection listens (a failed connect() is its caller's).
    const dropped = () => {
      if (client !== c) return;
      client = null;
      scheduleReconnect();
    };
    c.on('error', (err) => {
      opts.onError?.(err);
      dropped();
      c.end().catch(() => {});
    });
    c.on('end', dropped);
    await c.connect();
    try {
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await c.end();
      return;
    }
    client = c;
    handlers.onListening?.();
  }

  function scheduleReconnect(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().catch((err: Error) => {
        opts.onError?.(err);
        scheduleReconnect();
      });
    }, opts.reconnectDelayMs ?? 1000);
    retry.unref();
  }

  await connect();
  return {
    listening: () => client !== null,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const c = client;
      client = null;
      await c?.end();
    },
  };
}
