// The one signal by which the core tells the process that started it that it is ready, and where: a message over the
// IPC channel (a Node child's `process.send`, an Electron utility process's `parentPort`), never text printed for
// people. The core sends it (src/ready-signal.ts); the shell and the test harnesses read it with parseCoreReady.
// Pure: no Node imports.

export const CORE_READY = 'veracity-core-ready';

export interface CoreReady {
  type: typeof CORE_READY;
  /** Where the API listens: always http://127.0.0.1:PORT or http://[::1]:PORT. */
  baseUrl: string;
  /** The per-launch UI token when the core serves the window (dist/renderer exists), else null. */
  uiToken: string | null;
}

const BASE_URL = /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}$/;
const UI_TOKEN = /^[A-Za-z0-9_-]{16,256}$/;

export function coreReady(baseUrl: string, uiToken: string | null): CoreReady {
  return { type: CORE_READY, baseUrl, uiToken };
}

/**
 * The ready message, or null for anything else. A base URL that is not loopback or a token of another shape is
 * refused: the shell loads that address into its window and hands it the token.
 */
export function parseCoreReady(message: unknown): CoreReady | null {
  if (message === null || typeof message !== 'object') return null;
  const { type, baseUrl, uiToken } = message as Record<string, unknown>;
  if (type !== CORE_READY || typeof baseUrl !== 'string' || !BASE_URL.test(baseUrl)) return null;
  if (uiToken !== null && (typeof uiToken !== 'string' || !UI_TOKEN.test(uiToken))) return null;
  return { type, baseUrl, uiToken };
}

/** The address that opens the window with its token (in the fragment, which browsers never send to a server). */
export function appUrlOf(ready: CoreReady): string | null {
  return ready.uiToken === null ? null : `${ready.baseUrl}/#token=${ready.uiToken}`;
}
