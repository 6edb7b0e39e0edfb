// A pool of child processes that run analysis tasks one at a time each, with a wall-clock and a memory bound:
// a task past its time or memory is killed with its process, which is replaced for the next task.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../config/config.js';
import { STOP_SIGNALS } from '../stop-signal.js';
import type { WarmUp, WorkerRequest, WorkerResponse } from './worker-protocol.js';

export class WorkerTaskError extends Error {
  constructor(
    public readonly reason: 'timeout' | 'crashed' | 'memory' | 'failed' | 'closed',
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type TaskInput = Exclude<WorkerRequest, { op: 'shutdown' }> extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

interface Pending {
  input: TaskInput;
  timeoutMs: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onStart?: () => void;
  onStage?: (stage: 'analysing') => void;
  /** The worker has reported that it began the task (analyses only). */
  begun?: boolean;
}

export interface RunOptions {
  /**
   * Called once, when the worker reports that it has begun the task (not when the task is queued or sent: a
   * worker still booting, or killed before it read the message, has not started anything).
   */
  onStart?: () => void;
  /** Called when the worker reports a later stage of the task (an analysis: decoding done, detectors running). */
  onStage?: (stage: 'analysing') => void;
}

interface Slot {
  child: ChildProcess | null;
  busy: Pending | null;
  taskId: number;
  timer: NodeJS.Timeout | null;
  memTimer: NodeJS.Timeout | null;
}

export interface WorkerPoolOptions {
  size: number;
  /** Worker bootstrap script (a .mjs that registers the TS loader). */
  entry?: string;
  /** Resident memory at which a worker is killed, in bytes (checked twice a second, Linux only). */
  maxRssBytes?: number;
  spawn?: (entry: string) => ChildProcess;
  name: string;
  /** Run the workers at the lowest CPU priority (batch analysis), so the HTTP process is always served first. */
  lowPriority?: boolean;
  /** What each worker loads as it starts, before its first task (start() starts them ahead of any task). */
  warm?: WarmUp;
}

/** What a worker started with a warm-up reported: the model it loaded (null: a probe process), or why not. */
export type WarmReport = { model: string | null } | { error: string };

/** Niceness of worker processes (0 = the server's own priority, 19 = the lowest). */
const WORKER_NICE = 19;

const DEFAULT_ENTRY = path.join(REPO_ROOT, 'src', 'bin', 'analysis-worker.mjs');

/**
 * Signals a terminal (Ctrl+C: SIGINT) or a service manager (SIGTERM) sends to a whole process group: a worker in the
 * parent's group gets them with the parent, whose clean stop (close()) follows. Our worker ignores them
 * (src/bin/analysis-worker.mjs); a worker that dies of one anyway (another entry, or one killed alone) is judged only
 * after GROUP_STOP_WINDOW_MS: if close() came meanwhile the task is handed back as `closed`, as the stop's own tasks
 * are, otherwise it crashed. Judged at once, the group's Ctrl+C failed every file under analysis for good.
 */
const GROUP_STOP_SIGNALS: ReadonlySet<string> = new Set<string>(STOP_SIGNALS);
const GROUP_STOP_WINDOW_MS = 1000;

const closedError = () => new WorkerTaskError('closed', 'internal_error', 'The analysis service is shutting down.');

function rssOf(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export class WorkerPool {
  private readonly slots: Slot[];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Called whenever a running task settles (close() waits on it for its grace period). */
  private readonly settled = new Set<() => void>();
  /** Each worker started with a warm-up: what it reported (or that it stopped first). */
  private readonly warmed = new WeakMap<ChildProcess, Promise<WarmReport>>();
  /** Tasks whose worker died of a group stop signal, waiting (GROUP_STOP_WINDOW_MS) to see whether the pool closes. */
  private readonly signalled = new Map<Pending, NodeJS.Timeout>();

  constructor(private readonly opts: WorkerPoolOptions) {
    this.slots = Array.from({ length: opts.size }, () => ({ child: null, busy: null, taskId: 0, timer: null, memTimer: null }));
  }

  /** Tasks waiting for a free worker plus tasks running. */
  get load(): number {
    return this.queue.length + this.slots.filter((s) => s.busy).length;
  }

  run<T>(input: TaskInput, timeoutMs: number, opts: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ input, timeoutMs, resolve: resolve as (v: unknown) => void, reject, onStart: opts.onStart, onStage: opts.onStage });
      this.dispatch();
    });
  }

  /**
   * Starts the first `count` workers (all by default) ahead of any task, one after the other, each once the one before
   * it has reported, so that each loads what its first task needs (options.warm) while nobody waits; resolves with what
   * each worker started with a warm-up reported (none without options.warm). Tasks are taken as usual meanwhile: one
   * that arrives first goes to the first worker and waits only for the part of its loading it needs.
   */
  async start(count = this.slots.length): Promise<WarmReport[]> {
    const reports: WarmReport[] = [];
    for (const slot of this.slots.slice(0, count)) {
      if (this.closed) break;
      const report = this.warmed.get(this.ensureChild(slot));
      if (report) reports.push(await report);
    }
    return reports;
  }

  private spawn(): ChildProcess {
    const entry = this.opts.entry ?? DEFAULT_ENTRY;
    if (this.opts.spawn) return this.opts.spawn(entry);
    const warm = this.opts.warm;
    const child = fork(entry, [], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: ['--max-old-space-size=2048'],
      env: { ...process.env, VERACITY_WORKER: this.opts.name, ...(warm ? { VERACITY_WARM: JSON.stringify(warm) } : {}) },
      serialization: 'advanced',
    });
    if (warm) {
      this.warmed.set(
        child,
        new Promise<WarmReport>((resolve) => {
          const onMessage = (m: WorkerResponse) => {
            if (m.id !== 0 || !('warm' in m)) return;
            child.off('message', onMessage);
            resolve(m.warm);
          };
          child.on('message', onMessage);
          // 'close', not 'exit': the pool takes its own 'exit' listeners off a process it stops
          child.once('close', (code, signal) => resolve({ error: `the process stopped before it was ready (${signal ?? `exit ${code}`})` }));
        }),
      );
    }
    // Analysis is batch work that keeps every core busy: at the lowest priority, so the HTTP process (polls, the UI)
    // is answered first; analysis still gets every idle cycle. test/bench/responsiveness: busy p99 21-52 ms at nice 0,
    // 9-44 ms at nice 10, 26-31 ms at nice 19 under a load average of 8 on 2 cores (server run-queue wait 61-73 ms/s
    // busy vs 50-52 idle at 19, 136 vs 81 at 10); throughput unchanged.
    // The probe pool is on the request path (an upload waits for it): it is created without lowPriority.
    if (child.pid && this.opts.lowPriority) {
      try {
        os.setPriority(child.pid, WORKER_NICE);
      } catch {
        // not permitted on this platform: run at normal priority
      }
    }
    return child;
  }

  private ensureChild(slot: Slot): ChildProcess {
    if (slot.child && slot.child.exitCode === null && slot.child.signalCode === null && slot.child.connected) return slot.child;
    const child = this.spawn();
    slot.child = child;
    child.on('message', (msg: WorkerResponse) => this.onMessage(slot, child, msg));
    child.on('exit', (code, signal) => this.onExit(slot, child, code, signal));
    child.on('error', () => undefined); // 'exit' follows and settles the task
    return child;
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy) continue;
      const task = this.queue.shift()!;
      slot.busy = task;
      slot.taskId = this.nextId++;
      const child = this.ensureChild(slot);
      // Two bounds of timeoutMs each for a task whose worker reports its start (an analysis): one until it has begun
      // (spawning, loading the analysis code: slow for a new process at nice 19 on a busy machine), then one for the
      // work itself, from that report. A single bound from here failed files that a booting worker had not even begun.
      // Other tasks (probe, preview: their workers report no start) have the one bound. src/team-core.ts sets the
      // queue's expiry above both.
      this.bound(slot, task, task.input.op === 'analyse' ? 'The analysis process did not begin the file within' : 'Analysis took longer than');
      if (this.opts.maxRssBytes && process.platform === 'linux') {
        const cap = this.opts.maxRssBytes;
        slot.memTimer = setInterval(() => {
          const rss = child.pid ? rssOf(child.pid) : null;
          if (rss !== null && rss > cap) {
            this.kill(slot, new WorkerTaskError('memory', 'internal_error', `Analysis used more than ${Math.round(cap / 2 ** 20)} MiB of memory and was stopped.`));
          }
        }, 500);
      }
      child.send({ ...task.input, id: slot.taskId } as WorkerRequest, (err) => {
        if (err) this.kill(slot, new WorkerTaskError('crashed', 'internal_error', 'The analysis process could not be reached.'));
      });
    }
  }

  /** (Re)starts the slot's time bound: the task is stopped `task.timeoutMs` from now, the error saying what ran over. */
  private bound(slot: Slot, task: Pending, what: string): void {
    if (slot.timer) clearTimeout(slot.timer);
    const seconds = Math.round(task.timeoutMs / 1000);
    slot.timer = setTimeout(() => this.kill(slot, new WorkerTaskError('timeout', 'internal_error', `${what} ${seconds} s and was stopped.`)), task.timeoutMs);
  }

  private settle(slot: Slot): Pending | null {
    const task = slot.busy;
    slot.busy = null;
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.memTimer) clearInterval(slot.memTimer);
    slot.timer = null;
    slot.memTimer = null;
    if (task) for (const fn of [...this.settled]) fn();
    return task;
  }

  private kill(slot: Slot, error: WorkerTaskError): void {
    const task = this.settle(slot);
    const child = slot.child;
    slot.child = null;
    child?.removeAllListeners('exit');
    child?.kill('SIGKILL');
    task?.reject(error);
    this.dispatch();
  }

  private onMessage(slot: Slot, child: ChildProcess, msg: WorkerResponse): void {
    if (slot.child !== child || msg.id !== slot.taskId || !slot.busy) return;
    if ('started' in msg) {
      const task = slot.busy;
      if (task.begun) return; // once
      task.begun = true;
      this.bound(slot, task, 'Analysis took longer than');
      task.onStart?.();
      return;
    }
    if ('stage' in msg) {
      slot.busy.onStage?.(msg.stage);
      return;
    }
    if ('warm' in msg) return; // id 0, never a task's (read at spawn)
    const task = this.settle(slot)!;
    if (msg.ok) task.resolve(msg.result);
    else task.reject(new WorkerTaskError('failed', msg.error.code, msg.error.message));
    this.dispatch();
  }

  private onExit(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    slot.child = null;
    const task = this.settle(slot);
    const crashed = new WorkerTaskError('crashed', 'internal_error', `The analysis process stopped unexpectedly (${signal ?? `exit ${code}`}).`);
    if (!task) {
      this.dispatch();
    } else if (this.closed && signal) {
      // Killed while the pool stops (the signal that stops the parent, a service manager's kill): part of the stop.
      task.reject(closedError());
    } else if (signal && GROUP_STOP_SIGNALS.has(signal)) {
      // Possibly the group's stop, with the parent's close() a moment away. The queue moves on at the verdict (or when
      // another task settles), not now: a process spawned now would most likely only be stopped with the rest.
      const timer = setTimeout(() => {
        this.signalled.delete(task);
        task.reject(crashed);
        this.dispatch();
      }, GROUP_STOP_WINDOW_MS);
      this.signalled.set(task, timer);
    } else {
      task.reject(crashed);
      this.dispatch();
    }
  }

  /**
   * Stops taking work at once: queued tasks are rejected as `closed` (they never started). Running tasks get up to
   * `graceMs` to finish; those still running then are stopped and rejected as `closed`, so the caller can hand them
   * back rather than count them as failed.
   */
  async close(opts: { graceMs?: number } = {}): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(closedError());
    for (const [t, timer] of this.signalled) {
      clearTimeout(timer);
      t.reject(closedError());
    }
    this.signalled.clear();
    if (opts.graceMs && this.slots.some((s) => s.busy)) {
      await new Promise<void>((resolve) => {
        const check = () => {
          if (this.slots.some((s) => s.busy)) return;
          done();
        };
        const done = () => {
          clearTimeout(timer);
          this.settled.delete(check);
          resolve();
        };
        const timer = setTimeout(done, opts.graceMs);
        this.settled.add(check);
      });
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        const child = slot.child;
        const task = this.settle(slot);
        task?.reject(closedError());
        slot.child = null;
        if (!child || child.exitCode !== null) return;
        child.removeAllListeners('exit');
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 2000);
          child.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
          if (child.connected) child.send({ id: 0, op: 'shutdown' } as WorkerRequest, () => undefined);
          else child.kill('SIGKILL');
        });
      }),
    );
  }
}
