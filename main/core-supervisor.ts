// Keeps one core running for the window: starts it, reports a crash (with the last lines it printed) so the window
// can show the crash screen, restarts it on request, and stops it on quit without calling that a crash.
import { CoreStartError, startCore, stopCore, type CoreChild, type StartedCore } from './core-process.js';

export type CoreState =
  | { state: 'stopped' }
  | { state: 'starting' }
  | { state: 'running'; core: StartedCore }
  | { state: 'crashed'; reason: string; lastLines: string[] };

export interface SupervisorOptions {
  spawn: () => CoreChild;
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** Called on every change; the shell loads the app or the crash screen from it. */
  onState: (state: CoreState) => void;
  timeoutMs?: number;
  stopGraceMs?: number;
}

export class CoreSupervisor {
  private current: CoreState = { state: 'stopped' };
  private pending: Promise<CoreState> | null = null;
  private stopping = false;
  private readonly tail: string[] = [];

  constructor(private readonly options: SupervisorOptions) {}

  get state(): CoreState {
    return this.current;
  }

  /** The running core, or null. */
  get running(): StartedCore | null {
    return this.current.state === 'running' ? this.current.core : null;
  }

  private set(state: CoreState): void {
    this.current = state;
    this.options.onState(state);
  }

  /** Starts the core (or waits for the start already under way). */
  start(): Promise<CoreState> {
    this.pending ??= this.boot().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Stops the running core, if any, then starts a fresh one (the crash screen's Restart button). */
  async restart(): Promise<CoreState> {
    if (this.pending) await this.pending;
    await this.stop();
    return this.start();
  }

  /** Stops the core cleanly; its exit is not reported as a crash. */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.stopping = true;
    try {
      await stopCore(running.child, this.options.stopGraceMs);
    } finally {
      this.stopping = false;
      this.set({ state: 'stopped' });
    }
  }

  private remember(stream: 'stdout' | 'stderr', line: string): void {
    this.tail.push(line);
    if (this.tail.length > 20) this.tail.shift();
    this.options.onLine?.(stream, line);
  }

  private async boot(): Promise<CoreState> {
    this.set({ state: 'starting' });
    this.tail.length = 0;
    try {
      const core = await startCore({
        spawn: this.options.spawn,
        timeoutMs: this.options.timeoutMs,
        onLine: (stream, line) => this.remember(stream, line),
      });
      core.child.onExit((code) => {
        if (this.stopping || this.running !== core) return;
        this.set({
          state: 'crashed',
          reason:
            code === null
              ? 'The engine that analyses files was stopped by the operating system (for example, it ran out of memory).'
              : `The engine that analyses files stopped unexpectedly (exit code ${code}).`,
          lastLines: [...this.tail],
        });
      });
      this.set({ state: 'running', core });
    } catch (error) {
      const lastLines = error instanceof CoreStartError ? error.lastLines : [...this.tail];
      this.set({ state: 'crashed', reason: error instanceof Error ? error.message : String(error), lastLines });
    }
    return this.current;
  }
}
