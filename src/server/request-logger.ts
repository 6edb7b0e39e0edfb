// The logger of each request: Fastify makes a pino child (bound to the request id) for every request, serialising its
// bindings, although at the usual levels (warn and up) a request that goes well logs nothing. This one makes that
// child only when a line is written at a level the logger writes (issue #14: it cost without protecting anything);
// a line, when written, is the same as before, request id included.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger, LevelWithSilentOrString } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Methods on the prototype, not closures: one small object per request. */
class LazyChild {
  #child: Logger | null = null;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions | undefined,
  ) {}
  #real(): Logger {
    return (this.#child ??= this.parent.child(this.bindings, this.opts));
  }
  #log(level: Level, args: unknown[]): void {
    if (this.#child || this.parent.isLevelEnabled(level)) (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }
  get level(): LevelWithSilentOrString {
    return this.#child ? this.#child.level : this.parent.level;
  }
  set level(level: LevelWithSilentOrString) {
    this.#real().level = level;
  }
  fatal(...a: unknown[]): void {
    this.#log('fatal', a);
  }
  error(...a: unknown[]): void {
    this.#log('error', a);
  }
  warn(...a: unknown[]): void {
    this.#log('warn', a);
  }
  info(...a: unknown[]): void {
    this.#log('info', a);
  }
  debug(...a: unknown[]): void {
    this.#log('debug', a);
  }
  trace(...a: unknown[]): void {
    this.#log('trace', a);
  }
  silent(): void {}
  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, opts);
  }
}

/** Fastify's childLoggerFactory for a pino logger (not for `logger: false`): the request's logger, its child made on its first written line. */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  // A route with a level of its own gets its child at once (its level, not the parent's, decides what is written).
  if (opts.level !== undefined) return logger.child(bindings, opts);
  return new LazyChild(logger as Logger, bindings, opts) as unknown as FastifyBaseLogger;
}
