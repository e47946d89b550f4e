/**
 * Delivery attempts, end to end: claim due deliveries, build the Standard Webhooks
 * request from a claimed row, send it through the vetting sender, and record outcomes
 * (success, retry later, exhausted), with the auto-disable rules (endpoint-states.ts)
 * applied as they are recorded. Sending and recording are separate steps so the worker
 * (src/webhooks/pump.ts) can record a group of finished sends at once.
 */
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import {
  claimDueDeliveries,
  recordDeliveryAttempts,
  type AttemptRecord,
  type ClaimedDelivery,
} from '../db/repositories/webhook-deliveries.ts';
import { withTransaction } from '../db/transaction.ts';
import { webhookDeliveries } from '../metrics/registry.ts';
import type { Clock } from '../lib/clock.ts';
import { applyAutoDisableRules } from './endpoint-states.ts';
import type { WebhookSender } from './sender.ts';
import { signWebhook } from './signature.ts';

const USER_AGENT = 'Marquee-Webhooks/1';
/** Payloads are compact summaries; docs/webhooks.md promises consumers under 20 KB. */
const MAX_PAYLOAD_BYTES = 20 * 1024;
/** At most this many deliveries of one endpoint are being sent at once by one worker. */
export const PER_ENDPOINT_IN_FLIGHT = 4;
/**
 * At most this many deliveries of one endpoint are leased at once (all workers together):
 * those being sent plus those a worker holds ready to send next.
 */
export const PER_ENDPOINT_LEASED = 128;
/** One claim offers each organizer this many rows per send it may have in flight. */
const CLAIMS_PER_IN_FLIGHT = 4;
/** How many due rows one claim takes at most. */
export const CLAIM_BATCH = 400;

/** Where the outcome of every recorded attempt is logged (docs/webhooks.md, "Logs"). */
interface OutcomeLogger {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface DispatchContext {
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
  sender: WebhookSender;
  log: OutcomeLogger;
}

/** A claim outlives the longest possible attempt (one deadline covers it) with room to record. */
export function leaseMs(config: Readonly<Config>): number {
  return config.webhookTimeoutMs + 30_000;
}

/**
 * Claims up to `limit` due deliveries (leased until now + leaseMs), in due order, at
 * most PER_ENDPOINT_LEASED leased per endpoint counting those already leased, and at
 * most CLAIMS_PER_IN_FLIGHT × WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZER of one organizer.
 */
export async function claimDeliveries(ctx: DispatchContext, limit: number): Promise<ClaimedDelivery[]> {
  const now = ctx.clock.now();
  return claimDueDeliveries(ctx.db, {
    now,
    leaseUntil: new Date(now.getTime() + leaseMs(ctx.config)),
    limit,
    perEndpointCap: PER_ENDPOINT_LEASED,
    perOrganizerClaim: CLAIMS_PER_IN_FLIGHT * ctx.config.webhookMaxInFlightPerOrganizer,
  });
}

export interface DeliveryOutcome {
  deliveryId: string;
  status: AttemptRecord['status'];
  attempt: number;
  /** False when the lease had been lost and the result was not recorded. */
  recorded: boolean;
}

/** A sent (or refused) attempt waiting to be recorded. */
export interface FinishedAttempt {
  row: ClaimedDelivery;
  rec: AttemptRecord;
  /** The receiver answered 410 Gone: the endpoint is disabled when this is recorded. */
  gone: boolean;
}

/**
 * The exact bytes sent: `{"type":…,"timestamp":…,"data":…}`, the stored data text pasted
 * in as it is (it is JSON.stringify output, kept verbatim in a json column).
 */
export function envelope(row: Pick<ClaimedDelivery, 'event_type' | 'event_created_at' | 'event_data_json'>): string {
  return `{"type":${JSON.stringify(row.event_type)},"timestamp":"${row.event_created_at.toISOString()}","data":${row.event_data_json}}`;
}

/** Sends one claimed delivery and says what to record. Never throws for a receiver's failure. */
export async function sendAttempt(ctx: DispatchContext, row: ClaimedDelivery): Promise<FinishedAttempt> {
  const attempt = row.attempt + 1;
  const body = envelope(row);
  const size = Buffer.byteLength(body);
  if (size >= MAX_PAYLOAD_BYTES) {
    // Never happens with these compact payloads; refuse rather than break the promise.
    return {
      row,
      gone: false,
      rec: {
        status: 'exhausted',
        attempt,
        response_status: null,
        response_ms: null,
        error: `Payload of ${size} bytes is over the 20 KB limit; not sent.`,
        next_retry_at: null,
        now: ctx.clock.now(),
        response: null,
      },
    };
  }
  const timestamp = Math.floor(ctx.clock.now().getTime() / 1000);
  const result = await ctx.sender.send({
    url: row.url,
    body,
    headers: {
      'webhook-id': row.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(row.secret, row.event_id, timestamp, body),
      'user-agent': USER_AGENT,
    },
  });
  const now = ctx.clock.now();
  const delays = ctx.config.webhookRetryDelaysMs;
  let status: AttemptRecord['status'];
  let nextRetryAt: Date | null = null;
  if (result.ok) status = 'success';
  else if (result.gone)
    status = 'failed'; // not retried: the endpoint is disabled when recorded
  else if (attempt <= delays.length) {
    status = 'failed';
    nextRetryAt = new Date(now.getTime() + delays[attempt - 1]!);
  } else status = 'exhausted';
  return {
    row,
    gone: result.gone,
    rec: {
      status,
      attempt,
      response_status: result.status,
      response_ms: result.responseMs,
      error: result.error,
      next_retry_at: nextRetryAt,
      now,
      response: result.response,
    },
  };
}

/**
 * Records a group of finished attempts: one statement updates every delivery still
 * leased by us and logs its attempt. When some of them failed, the same transaction
 * applies the auto-disable rules (endpoint-states.ts): a 410 disables its endpoint;
 * otherwise each endpoint with a recorded failure gets the sustained-failure check (once
 * per endpoint, after all of the group's rows are written). An all-success group is a
 * single round trip.
 */
export async function recordAttempts(ctx: DispatchContext, batch: FinishedAttempt[]): Promise<DeliveryOutcome[]> {
  if (batch.length === 0) return [];
  const attempts = batch.map((f) => ({ id: f.row.id, heldLease: f.row.locked_until, rec: f.rec }));
  const anyFailure = batch.some((f) => f.rec.status !== 'success');
  const recorded = anyFailure
    ? await withTransaction(ctx.db, async (trx) => {
        const ids = await recordDeliveryAttempts(trx, attempts);
        await applyAutoDisableRules(
          trx,
          ctx.log,
          batch.filter((f) => ids.has(f.row.id)),
        );
        return ids;
      })
    : await recordDeliveryAttempts(ctx.db, attempts);
  for (const f of batch) {
    const wasRecorded = recorded.has(f.row.id);
    logOutcome(ctx.log, f, wasRecorded);
    webhookDeliveries.inc({ outcome: wasRecorded ? f.rec.status : 'lease_lost' });
  }
  return batch.map((f) => ({
    deliveryId: f.row.id,
    status: f.rec.status,
    attempt: f.rec.attempt,
    recorded: recorded.has(f.row.id),
  }));
}

/**
 * One line per attempt: debug when delivered, warn when it failed (with the next try, or
 * that it was the last). Ids only: never the URL (it may carry a token) nor the secret.
 */
function logOutcome(log: OutcomeLogger, f: FinishedAttempt, recorded: boolean): void {
  const fields = {
    deliveryId: f.row.id,
    endpointId: f.row.endpoint_id,
    organizerId: f.row.organizer_id,
    eventId: f.row.event_id,
    eventType: f.row.event_type,
    attempt: f.rec.attempt,
    responseStatus: f.rec.response_status,
    responseMs: f.rec.response_ms,
  };
  if (!recorded) {
    log.debug(fields, 'webhook attempt not recorded: its lease had run out, another worker retries it');
  } else if (f.rec.status === 'success') {
    log.debug(fields, 'webhook delivered');
  } else if (f.rec.status === 'failed' && f.rec.next_retry_at !== null) {
    log.warn(
      { ...fields, error: f.rec.error, nextRetryAt: f.rec.next_retry_at },
      'webhook attempt failed; retrying later',
    );
  } else {
    log.warn({ ...fields, error: f.rec.error }, 'webhook attempt failed; no retry is left');
  }
}
