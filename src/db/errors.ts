/**
 * The one place that decides which database errors are passing faults rather than bugs:
 * the HTTP error handler answers them 503 with `retry-after` (docs/operations.md,
 * "Database connections lost or slow"). Anything not recognised here stays a 500.
 */

/**
 * - `unavailable`: the connection was lost or could not be made (a restart, a failover,
 *   a terminated backend, a network cut).
 * - `overloaded`: the database did not answer in time (no connection became free within
 *   the acquire timeout, or a statement ran past statement_timeout).
 * - `busy`: a concurrent transaction held the rows (lock timeout, serialization failure,
 *   deadlock); the same request usually succeeds when retried.
 */
export type DatabaseFault = 'unavailable' | 'overloaded' | 'busy';

/** Thrown when no database connection became free within the acquire timeout. */
export class AcquireTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    // The wording of node-postgres's pool, so both engines read the same in logs.
    super(`timeout exceeded when trying to connect (waited ${waitedMs} ms for a database connection)`);
    this.name = 'AcquireTimeoutError';
  }
}

/** Socket errors of a connection that dropped or could not be opened. */
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

const SQLSTATE_FAULTS: Record<string, DatabaseFault> = {
  '57P01': 'unavailable', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02': 'unavailable', // crash_shutdown: another backend crashed
  '57P03': 'unavailable', // cannot_connect_now: the server is starting or in recovery
  '53300': 'unavailable', // too_many_connections
  '57014': 'overloaded', // query_canceled: statement_timeout (we never cancel otherwise)
  '55P03': 'busy', // lock_not_available: lock_timeout
  '40001': 'busy', // serialization_failure
  '40P01': 'busy', // deadlock_detected
};

/** node-postgres reports a lost connection with these messages and no code. */
const CONNECTION_LOST_MESSAGES = [
  /^Connection terminated/, // "... unexpectedly", "... due to connection timeout"
  /is not queryable/, // a client whose connection failed earlier
];
const POOL_ACQUIRE_TIMEOUT_MESSAGE = /^timeout exceeded when trying to connect/;

function classifyOne(err: unknown): DatabaseFault | undefined {
  if (err instanceof AcquireTimeoutError) return 'overloaded';
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    const bySqlState = SQLSTATE_FAULTS[code];
    if (bySqlState) return bySqlState;
    // Class 08: connection exception (the server could not be reached or dropped us).
    if (/^08[0-9A-Z]{3}$/.test(code)) return 'unavailable';
    if (SOCKET_ERROR_CODES.has(code)) return 'unavailable';
  }
  if (typeof message === 'string') {
    if (POOL_ACQUIRE_TIMEOUT_MESSAGE.test(message)) return 'overloaded';
    if (CONNECTION_LOST_MESSAGES.some((pattern) => pattern.test(message))) return 'unavailable';
  }
  return undefined;
}

/**
 * What kind of passing database fault `err` is, or undefined for anything else. Looks
 * through `cause` and AggregateError (a connect that tried several addresses) too.
 */
export function classifyDatabaseError(err: unknown, depth = 0): DatabaseFault | undefined {
  const direct = classifyOne(err);
  if (direct || depth >= 3 || typeof err !== 'object' || err === null) return direct;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const fault = classifyDatabaseError(inner, depth + 1);
      if (fault) return fault;
    }
  }
  const cause = (err as { cause?: unknown }).cause;
  return cause === undefined ? undefined : classifyDatabaseError(cause, depth + 1);
}

/** PostgreSQL unique violation (23505) on the named index or constraint. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  if (!e || e.code !== '23505') return false;
  return e.constraint === constraint || (e.message ?? '').includes(`"${constraint}"`);
}
