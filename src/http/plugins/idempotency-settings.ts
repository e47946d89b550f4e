/**
 * The idempotency layer's settings (docs/idempotency.md), apart from the layer itself
 * (./idempotency.ts) so that the app's dependencies can name them.
 */
import type { FastifyRequest } from 'fastify';
import { IDEMPOTENCY_RETENTION_MS } from '../../db/repositories/idempotency.ts';

export interface IdempotencySettings {
  /**
   * The lease of a running request on PostgreSQL: renewed every third of it while the
   * request runs, so a key whose process died is free at most this long after its last
   * renewal (IDEMPOTENCY_LEASE). Unused for liveness on PGlite (docs/idempotency.md).
   */
  leaseMs: number;
  /** How long a key is kept and answers replays (24 hours, docs/idempotency.md). */
  retentionMs: number;
  /**
   * Test seam: runs inside the request-scoped transaction right before the handler of an
   * idempotent request. A test throws from it to provoke a 5xx on a real route, or awaits
   * in it to keep a request in flight. Unset in production.
   */
  beforeExecute?: (request: FastifyRequest) => void | Promise<void>;
}

export const DEFAULT_IDEMPOTENCY_SETTINGS: Readonly<IdempotencySettings> = Object.freeze({
  leaseMs: 5_000,
  retentionMs: IDEMPOTENCY_RETENTION_MS,
});
