/**
 * The "in flight" state of an idempotency key lives exactly as long as the request holding
 * it (docs/idempotency.md, Lease). A retry that finds the key `in_progress` asks
 * leaseIsLive(): true answers 409 (in flight), false means the holder is gone and the retry
 * takes the key over with a new lease token (the fencing token).
 *
 * - PostgreSQL (any number of processes): the row's `locked_until`, a short lease that a
 *   heartbeat renews every third of a lease while the request runs. A process that dies
 *   stops renewing, so its keys are free at most one lease after its last heartbeat.
 * - PGlite (the embedded database belongs to exactly one process): the lease tokens held
 *   by this process's running requests. A token not held here was left by a process that
 *   died, so its key is free at once after a restart; no heartbeat is needed, and none
 *   could run anyway while the request's transaction holds the only connection.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Engine } from '../../db/client.ts';
import { extendIdempotencyLease } from '../../db/repositories/idempotency.ts';
import type { Clock } from '../../lib/clock.ts';

/** Lease tokens of the requests this process is running (one process: one set). */
const liveLeaseTokens = new Set<string>();

export function leaseIsLive(
  engine: Engine,
  row: { lease_token: string | null; locked_until: Date | null },
  now: Date,
): boolean {
  if (engine === 'pglite') return row.lease_token !== null && liveLeaseTokens.has(row.lease_token);
  return row.locked_until !== null && row.locked_until.getTime() > now.getTime();
}

interface LeaseContext {
  engine: Engine;
  db: Db;
  clock: Clock;
  leaseMs: number;
  organizerId: string;
  key: string;
  leaseToken: string;
  log: FastifyBaseLogger;
}

/**
 * The lease of one executing request. Created when the claim decides to execute (inside
 * the claim's transaction, so that on PGlite no other claim can see the row before the
 * token counts as live); ended when the request's response has been stored.
 */
export class HeldLease {
  #timer: NodeJS.Timeout | undefined;
  #renewing = false;
  #ended = false;

  constructor(private readonly ctx: LeaseContext) {
    liveLeaseTokens.add(ctx.leaseToken);
  }

  /** PostgreSQL: renew the lease every third of its length until stopped (no-op on PGlite). */
  startHeartbeat(): void {
    if (this.ctx.engine === 'pglite' || this.#ended || this.#timer) return;
    const interval = Math.max(1, Math.floor(this.ctx.leaseMs / 3));
    this.#timer = setInterval(() => void this.#renew(), interval);
    // A running request keeps the process alive by itself; the heartbeat must not.
    this.#timer.unref();
  }

  /** Stops renewing (the request is finishing); the key still counts as held until end(). */
  stopHeartbeat(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The request is over: its key no longer counts as in flight in this process. */
  end(): void {
    this.stopHeartbeat();
    this.#ended = true;
    liveLeaseTokens.delete(this.ctx.leaseToken);
  }

  async #renew(): Promise<void> {
    // Never two renewals at once: a slow one (a busy pool) is not stacked up behind.
    if (this.#renewing) return;
    this.#renewing = true;
    const { db, clock, leaseMs, organizerId, key, leaseToken, log } = this.ctx;
    try {
      const lockedUntil = new Date(clock.now().getTime() + leaseMs);
      const held = await extendIdempotencyLease(db, organizerId, key, leaseToken, lockedUntil);
      if (!held && this.#timer) {
        // Taken over after a missed renewal; the fencing token stops this request's commit.
        log.warn({ idempotencyKey: key }, 'idempotency lease lost while the request runs');
        this.stopHeartbeat();
      }
    } catch (err) {
      // The next beat tries again; if none gets through, the lease runs out (safe: fenced).
      log.warn({ err, idempotencyKey: key }, 'idempotency: could not renew the lease');
    } finally {
      this.#renewing = false;
    }
  }
}
