/**
 * One scan, start to verdict (docs/door.md, "The flow"): look the code up
 * (`GET /v1/tickets?serial_no=`), check the performance, then
 * `POST /v1/tickets/{id}/check_in` under the Idempotency-Key the scan was given when it
 * was made; a 409 is turned into its reason by reading the ticket (and, for a ticket
 * still purchased, its order).
 *
 * A scan whose check-in was sent once goes straight back to the check-in with the same
 * key: the first answer may have been lost on its way back, and its replay is the truth
 * (docs/idempotency.md). Looking the ticket up again would find it checked in by this very
 * scan and call it a refusal.
 *
 * What the flow cannot settle now it throws as a ScanDeferred (no network, a 429, a 503):
 * the scan stays queued and is tried again, in order, with the same key.
 */
import type { Marquee, MarqueeApiError, Ticket } from '@marquee/sdk';
import { conflictReason, lookupOf, precheck, type Outcome } from './outcome.ts';

export type DoorApi = Pick<Marquee, 'tickets' | 'orders'>;

/** A scan as the flow needs it; `ticketId` is set once its check-in has been sent. */
interface FlowScan {
  code: string;
  performanceId: string;
  idempotencyKey: string;
  ticketId?: string | undefined;
}

interface FlowHooks {
  /** Called (and awaited: it persists the fact) just before the check-in is first sent. */
  beforeCheckIn(ticketId: string): Promise<void>;
  /** How the screen names another performance: "Sat 2 May, 19:00 (Jazz Night)". */
  performanceLabel(ticket: Ticket): Promise<string>;
}

export type DeferCause = 'offline' | 'rate_limited' | 'unavailable';

export class ScanDeferred extends Error {
  override name = 'ScanDeferred';
  constructor(
    readonly reason: DeferCause,
    /** When to try again, from the answer's retry-after (429, 503). */
    readonly retryAfterMs?: number,
    options?: { cause: unknown },
  ) {
    super(`scan deferred: ${reason}`, options);
  }
}

/** Attempts of one check-in: the first, then up to two after a race that changed nothing. */
const CHECK_IN_ATTEMPTS = 3;

export async function runScan(api: DoorApi, scan: FlowScan, hooks: FlowHooks): Promise<Outcome> {
  try {
    return await decide(api, scan, hooks);
  } catch (err) {
    const deferred = deferral(err);
    if (deferred) throw deferred;
    // Any other refusal (a revoked key, a missing scope) is final for this scan: shown, not retried.
    if (isApiError(err)) return { kind: 'error', detail: err.detail, requestId: err.requestId };
    throw err;
  }
}

async function decide(api: DoorApi, scan: FlowScan, hooks: FlowHooks): Promise<Outcome> {
  let ticketId = scan.ticketId;
  if (ticketId === undefined) {
    const query = lookupOf(scan.code);
    const found = query === undefined ? undefined : (await api.tickets.list({ ...query, limit: 1 })).data[0];
    const verdict = precheck(found, scan.code.trim().toUpperCase(), scan.performanceId);
    if (verdict.kind === 'other_performance')
      return {
        ...verdict,
        kind: 'refused',
        reason: 'other_performance',
        performanceLabel: await hooks.performanceLabel(verdict.ticket),
      };
    if (verdict.kind !== 'check_in') return verdict;
    ticketId = verdict.ticket.id;
    await hooks.beforeCheckIn(ticketId);
  }
  let key = scan.idempotencyKey;
  for (let attempt = 1; ; attempt++) {
    try {
      return { kind: 'admitted', ticket: await api.tickets.checkIn(ticketId, { idempotencyKey: key }) };
    } catch (err) {
      if (!(isApiError(err) && err.status === 409)) throw err;
      if (err.code !== 'invalid_state' && err.code !== 'concurrent_modification') throw err;
      if (err.code === 'invalid_state') {
        const ticket = await api.tickets.get(ticketId);
        const order = ticket.status === 'purchased' ? await api.orders.get(ticket.order_id) : undefined;
        const reason = conflictReason(ticket, order);
        if (reason) return reason;
      }
      if (attempt === CHECK_IN_ATTEMPTS) return { kind: 'error', detail: err.detail, requestId: err.requestId };
      // The 409 changed nothing and is stored under this key: the next try needs a key of
      // its own, derived from the scan's so a replay of this scan walks the same keys.
      key = `${scan.idempotencyKey}:retry-${attempt}`;
    }
  }
}

/** A failure that leaves the scan queued, or undefined for one that is an answer. */
function deferral(err: unknown): ScanDeferred | undefined {
  if (err instanceof ScanDeferred) return err;
  if (err instanceof Error && err.name === 'MarqueeConnectionError')
    return new ScanDeferred('offline', undefined, { cause: err });
  if (isApiError(err)) {
    if (err.status === 429) return new ScanDeferred('rate_limited', err.retryAfterMs, { cause: err });
    // A key still in flight elsewhere (another tab replaying it) settles within seconds.
    if (err.status === 503 || err.code === 'idempotency_key_in_flight')
      return new ScanDeferred('unavailable', err.retryAfterMs, { cause: err });
  }
  return undefined;
}

/**
 * The SDK's errors told apart by name rather than instanceof: the door is handed a client
 * whose module copy need not be this one's (a test's, a bundle's).
 */
function isApiError(err: unknown): err is MarqueeApiError {
  return err instanceof Error && err.name === 'MarqueeApiError';
}
