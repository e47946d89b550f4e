/**
 * Each request's logger (docs/operations.md, "Logs": every line of a request carries its
 * request id): the pino child with the request id, made when the request first writes a
 * line at a level the process logs, not for every request. At `info` Fastify's request
 * lines make it at once; at `warn` and above most requests write nothing and make none,
 * which is a read's largest saving of its kind (bench/README.md, "What each change
 * bought"). Lines are the child's own, so they read exactly as before.
 */
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

class RequestLogger implements FastifyBaseLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #made(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  #write(level: Level, args: unknown[]): void {
    // The parent's level, unless a line already made the child (whose level may be set).
    if (!(this.#child ?? this.#parent).isLevelEnabled(level)) return;
    const logger = this.#made();
    Reflect.apply(logger[level], logger, args);
  }
}

function isPino(logger: FastifyBaseLogger): logger is Logger {
  return typeof (logger as Partial<Logger>).isLevelEnabled === 'function';
}

/**
 * Fastify's `childLoggerFactory`: a request logger that makes its child on first use. A
 * route with its own log level or serializers, or a logger that is not pino, gets its
 * child at once, as Fastify's own factory would give it.
 */
export const lazyRequestLogger: ChildLoggerFactory = (logger, bindings, options) =>
  isPino(logger) && options.level === undefined && options.serializers === undefined
    ? new RequestLogger(logger, bindings)
    : logger.child(bindings, options);
