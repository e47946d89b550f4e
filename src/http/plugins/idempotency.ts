/**
 * Idempotency keys (spec: Idempotency, rules 1-10; docs/idempotency.md).
 */
import type { FastifyRequest } from 'fastify';

export interface IdempotencySettings {
  /** How long a first request holds its key before a retry may take it over (crash recovery). */
  leaseMs: number;
  /** How long a key is kept and answers replays (spec: 24 hours). */
  retentionMs: number;
  /**
   * Test seam: runs inside the request-scoped transaction right before the handler of an
   * idempotent request. A test throws from it to provoke a 5xx on a real route, or awaits
   * in it to keep a request in flight. Unset in production.
   */
  beforeExecute?: (request: FastifyRequest) => void | Promise<void>;
}

export const DEFAULT_IDEMPOTENCY_SETTINGS: Readonly<IdempotencySettings> = Object.freeze({
  leaseMs: 60_000,
  retentionMs: 24 * 60 * 60 * 1000,
});
