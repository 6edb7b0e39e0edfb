// The logger of each request: Fastify makes a pino child (bound to the request id) for every request, serialising its
// bindings, although at the usual levels (warn and up) a request that goes well logs nothing. This one makes that
// child only when a line is written at a level the logger writes (issue #14: it cost without protecting anything);
// a line, when written, is the same as before, request id included.
import { LogController, type FastifyBaseLogger } from 'fastify';
import { pino, type Bindings, type ChildLoggerOptions, type Logger, type LevelWithSilentOrString } from 'pino';

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

/** The core's logger: pino writing JSON lines to `stream` (stderr: stdout is the CLI's), or null when silent. */
export function createCoreLogger(level: Level | 'silent', stream: NodeJS.WritableStream = process.stderr): Logger | null {
  if (level === 'silent') return null;
  // pino's error serialiser, as Fastify sets it (at info Fastify adds its request and reply serialisers itself).
  return pino({ level, serializers: { err: pino.stdSerializers.err } }, stream as pino.DestinationStream);
}

/**
 * How Fastify gets the logger. Where requests are logged (info and below), Fastify is given the logger itself, and
 * writes its two lines per request. Above info (the usual levels, warn and up) Fastify gets none: a Fastify with a
 * logger follows every response with listeners and timestamps for the request-completed line it would not write
 * (issue #14's profile), while a request's own lines (an error, a refusal) still go to this logger through the
 * factory, request id included.
 */
export function fastifyLoggerOptions(log: Logger | null) {
  if (log === null) return { logger: false as const };
  if (log.isLevelEnabled('info')) return { loggerInstance: log as FastifyBaseLogger, childLoggerFactory: lazyRequestLogger };
  return {
    logger: false as const,
    childLoggerFactory: (_none: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions) => lazyRequestLogger(log as unknown as FastifyBaseLogger, bindings, opts),
    logController: new LogController({ disableRequestLogging: true }),
  };
}
