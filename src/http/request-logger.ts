/**
 * Each request's logger (docs/operations.md, "Logs": every line of a request carries its
 * request id): the pino child with the request id, made when the request first writes a
 * line at a level the process logs, not for every request. At `info` Fastify's request
 * lines make it at once; at `warn` and above most requests write nothing and make none,
 * which is a read's largest saving of its kind (bench/README.md, "What each change
 * bought"). Lines are the child's own, so they read exactly as before.
 *
 * Above `info` Fastify is not given the logger at all (frameworkLogging): a Fastify with
 * a logger attaches two listeners to every response and reads the clock twice, only for
 * its "request completed" line, which those levels never write. Its request loggers then
 * come from the factory, children of the process logger with Fastify's serializers, and
 * `app.log` is set to that same logger, so every line reads as it would otherwise.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

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
 * Fastify's `childLoggerFactory`: a request logger over `parent` that makes its child on
 * first use. A route with its own log level or serializers, or a logger that is not
 * pino, gets its child at once, as Fastify's own factory would give it.
 */
function requestLoggerOf(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return isPino(parent) && options.level === undefined && options.serializers === undefined
    ? new RequestLogger(parent, bindings)
    : parent.child(bindings, options);
}

/**
 * The fields Fastify logs a request and a reply as (the serializers it adds to a logger
 * it is given), for the lines it writes through a request's logger at `warn` and above.
 */
const FRAMEWORK_SERIALIZERS = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: request.url,
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

interface FrameworkLogging {
  /** Fastify's logger options. */
  options: Pick<FastifyServerOptions, 'logger' | 'loggerInstance' | 'childLoggerFactory'>;
  /** Set as `app.log` once the instance exists: where Fastify was given no logger. */
  appLog?: FastifyBaseLogger;
  /** Whether Fastify writes a line for every request (it was given the logger). */
  logsEveryRequest: boolean;
}

/**
 * How Fastify gets the process logger: as its own at `info` and below (it writes its
 * request lines), none above (see the top of this module), none without one (tests).
 */
export function frameworkLogging(logger: FastifyBaseLogger | undefined): FrameworkLogging {
  if (logger === undefined)
    return { options: { logger: false, childLoggerFactory: requestLoggerOf }, logsEveryRequest: false };
  if (!isPino(logger) || logger.isLevelEnabled('info'))
    return { options: { loggerInstance: logger, childLoggerFactory: requestLoggerOf }, logsEveryRequest: true };
  const parent = logger.child({}, { serializers: FRAMEWORK_SERIALIZERS });
  return {
    options: {
      logger: false,
      childLoggerFactory: (_none, bindings, options) => requestLoggerOf(parent, bindings, options),
    },
    appLog: parent,
    logsEveryRequest: false,
  };
}
