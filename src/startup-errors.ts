/**
 * Start-up failures an operator can fix (an unreachable database, an unwritable DATA_DIR,
 * a busy port) become one line that names the setting and the cause, without a stack
 * trace; anything else is a programming error and keeps its stack. See
 * docs/operations.md, "Start-up errors".
 */
import { ConfigError } from './config.ts';
import { DataDirInUseError } from './lib/data-dir-lock.ts';

/** An expected operational failure at start, blamed on one setting. */
export class StartupError extends Error {
  constructor(
    readonly setting: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${setting}: ${detail}`, options);
    this.name = 'StartupError';
  }
}

/**
 * The message to print for a failed start: one line for an expected failure (several
 * for a ConfigError, one per invalid variable), or undefined for an unexpected error,
 * whose stack the caller prints.
 */
export function startupFailureMessage(err: unknown): string | undefined {
  if (err instanceof ConfigError) return err.message;
  if (err instanceof StartupError || err instanceof DataDirInUseError) return `Marquee cannot start: ${err.message}`;
  return undefined;
}

interface SystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
}

/** Node's errors from the operating system carry a code like ENOENT or ECONNREFUSED. */
function isSystemError(err: unknown): err is SystemError {
  return (
    err instanceof Error &&
    typeof (err as SystemError).code === 'string' &&
    /^E[A-Z0-9]+$/.test((err as SystemError).code)
  );
}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a parent is not a directory',
  EEXIST: 'exists and is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available',
};

/** `(ECONNREFUSED: connection refused)`: the code an operator can search for, and its meaning. */
function cause(err: SystemError): string {
  return `(${err.code}: ${CAUSES[err.code] ?? firstLine(err.message)})`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/** `host:port` of a URL, with the scheme's default port; never the credentials. */
function endpoint(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || defaultPort}`;
  } catch {
    return 'the configured server';
  }
}

/** A failure to create or write DATA_DIR (or to open the embedded database in it). */
export function dataDirError(err: unknown, dataDir: string): unknown {
  if (err instanceof DataDirInUseError || err instanceof StartupError) return err;
  if (isSystemError(err)) {
    const target = err.path ?? dataDir;
    return new StartupError('DATA_DIR', `cannot create or write ${target} ${cause(err)}`, { cause: err });
  }
  if (err instanceof Error)
    return new StartupError('DATA_DIR', `${dataDir}: ${firstLine(err.message)}`, { cause: err });
  return err;
}

/** PostgreSQL's own refusals (FATAL at connect) carry a five-character SQLSTATE. */
function isServerError(err: unknown): err is Error & { code: string; severity: string } {
  return (
    err instanceof Error &&
    typeof (err as { severity?: unknown }).severity === 'string' &&
    /^[0-9A-Z]{5}$/.test(String((err as { code?: unknown }).code))
  );
}

/**
 * A failure to reach the database named by DATABASE_URL: refused, unknown host, timeout,
 * or refused by the server (bad credentials, missing database). PostgreSQL's messages
 * name the user and database but never the password, and neither does this.
 */
export function databaseError(err: unknown, databaseUrl: string): unknown {
  const at = endpoint(databaseUrl, 5432);
  if (isSystemError(err)) {
    if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
      return new StartupError('DATABASE_URL', `cannot resolve the host of ${at} ${cause(err)}`, { cause: err });
    }
    return new StartupError('DATABASE_URL', `cannot connect to ${at} ${cause(err)}`, { cause: err });
  }
  if (isServerError(err)) {
    return new StartupError(
      'DATABASE_URL',
      `the server at ${at} refused the connection: ${firstLine(err.message)} (${err.code})`,
      { cause: err },
    );
  }
  // node-postgres' own connection failures: a connect timeout, or a server that hung up.
  if (err instanceof Error && /timeout|connection terminated/i.test(err.message)) {
    return new StartupError('DATABASE_URL', `cannot connect to ${at} (${firstLine(err.message)})`, { cause: err });
  }
  return err;
}

/** A failure of the start-up ping to the Redis named by REDIS_URL. */
export function redisError(err: unknown, redisUrl: string): unknown {
  const at = endpoint(redisUrl, 6379);
  if (isSystemError(err)) {
    if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
      return new StartupError('REDIS_URL', `cannot resolve the host of ${at} ${cause(err)}`, { cause: err });
    }
    return new StartupError('REDIS_URL', `cannot connect to ${at} ${cause(err)}`, { cause: err });
  }
  // A reply error (wrong password, NOAUTH) or ioredis' own "Connection is closed.".
  if (err instanceof Error)
    return new StartupError('REDIS_URL', `cannot use ${at} (${firstLine(err.message)})`, { cause: err });
  return err;
}

/** A failure to listen on HOST:PORT. */
export function listenError(
  err: unknown,
  host: string,
  port: number,
  settings: { port: string; host: string } = { port: 'PORT', host: 'HOST' },
): unknown {
  if (!isSystemError(err)) return err;
  const at = `${host}:${port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartupError(settings.port, `${at} is already in use by another process ${cause(err)}`, {
        cause: err,
      });
    case 'EACCES':
      return new StartupError(settings.port, `no permission to listen on ${at} ${cause(err)}`, { cause: err });
    default:
      return new StartupError(settings.host, `cannot listen on ${at} ${cause(err)}`, { cause: err });
  }
}
