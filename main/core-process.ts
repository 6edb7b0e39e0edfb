// Starts and watches the core (the `serve` command of src/bin/veracity.mjs) as a separate process, so decoding and
// inference never run on the window's event loop; used by Electron (utilityProcess) and by `npm start` (child_process).
// The core says it is ready with a CoreReady message over IPC (src/api/core-ready.ts); its printed lines are only logged.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { appUrlOf, parseCoreReady } from '../src/api/core-ready.js';

/** stdio of a core started with child_process: output piped (logged), and the IPC channel its ready message comes on. */
export const CORE_STDIO: StdioOptions = ['ignore', 'pipe', 'pipe', 'ipc'];

export interface CoreArgs {
  dataDir: string;
  port?: number;
  /** Packaged builds ship the models beside the asar (extraResources), not where the core looks by default. */
  modelsDir?: string;
}

/** The core's arguments. Never a token: `serve` makes its own and sends it (CoreReady); argv is readable with ps. */
export function coreArgs({ dataDir, port = 0, modelsDir }: CoreArgs): string[] {
  const args = ['serve', '--port', String(port), '--data-dir', dataDir];
  if (modelsDir) args.push('--models-dir', modelsDir);
  return args;
}

/** The parts of a child process the supervisor needs; both Node's ChildProcess and Electron's UtilityProcess fit. */
export interface CoreChild {
  stdout: NodeJS.ReadableStream | null;
  stderr: NodeJS.ReadableStream | null;
  kill: () => boolean;
  onExit: (listener: (code: number | null) => void) => void;
  /** Messages from the core (a Node child needs CORE_STDIO's 'ipc' entry; a utility process has its port). */
  onMessage: (listener: (message: unknown) => void) => void;
}

/** A Node child process (spawned with CORE_STDIO) as a CoreChild; an exit that already happened is reported at once. */
export function coreChildOf(child: ChildProcess): CoreChild {
  return {
    stdout: child.stdout,
    stderr: child.stderr,
    kill: () => child.kill(),
    onMessage: (listener) => {
      child.on('message', listener);
    },
    onExit: (listener) => {
      if (child.exitCode !== null || child.signalCode !== null) listener(child.exitCode);
      else child.once('exit', (code) => listener(code));
    },
  };
}

export interface StartedCore {
  baseUrl: string;
  /** Present when the core serves the renderer (dist/renderer exists). */
  appUrl: string | null;
  uiToken: string | null;
  child: CoreChild;
}

export interface StartCoreOptions {
  spawn: () => CoreChild;
  /** How long to wait for the ready message (the core opens SQLite and runs migrations first). */
  timeoutMs?: number;
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
}

/** Splits a stream into lines, whatever the chunking. */
export function onLines(stream: NodeJS.ReadableStream | null, listener: (line: string) => void): void {
  if (!stream) return;
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    let index = buffer.indexOf('\n');
    while (index >= 0) {
      listener(buffer.slice(0, index).replace(/\r$/, ''));
      buffer = buffer.slice(index + 1);
      index = buffer.indexOf('\n');
    }
  });
  stream.on('end', () => {
    if (buffer.length > 0) listener(buffer);
    buffer = '';
  });
}

export class CoreStartError extends Error {
  constructor(
    message: string,
    readonly lastLines: string[],
  ) {
    super(message);
    this.name = 'CoreStartError';
  }
}

/**
 * Spawns the core and resolves once it listens. Rejects with the last lines it printed when it exits first or does
 * not come up in time (the caller shows them on the crash screen and in the log).
 */
export function startCore({ spawn, timeoutMs = 60_000, onLine }: StartCoreOptions): Promise<StartedCore> {
  const child = spawn();
  const tail: string[] = [];
  const remember = (line: string): void => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
  };
  return new Promise<StartedCore>((resolve, reject) => {
    let settled = false;
    const finish = (result: StartedCore | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(startTimer);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const startTimer = setTimeout(() => {
      child.kill();
      finish(new CoreStartError(`The Veracity engine did not start within ${Math.round(timeoutMs / 1000)} s.`, tail));
    }, timeoutMs);
    child.onMessage((message) => {
      const ready = parseCoreReady(message);
      if (ready) finish({ baseUrl: ready.baseUrl, appUrl: appUrlOf(ready), uiToken: ready.uiToken, child });
    });
    onLines(child.stdout, (line) => {
      onLine?.('stdout', line);
      remember(line);
    });
    onLines(child.stderr, (line) => {
      onLine?.('stderr', line);
      remember(line);
    });
    child.onExit((code) => {
      finish(new CoreStartError(`The Veracity engine stopped while starting (exit code ${code ?? 'unknown'}).`, tail));
    });
  });
}

/** Asks the core to stop and waits for it, killing it harder after `graceMs` (clean shutdown on quit). */
export function stopCore(child: CoreChild, graceMs = 5_000, forceKill?: () => void): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => {
      forceKill?.();
      finish();
    }, graceMs);
    function finish(): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    }
    child.onExit(() => finish());
    if (!child.kill()) finish();
  });
}
