/**
 * One delivery attempt, end to end: build the Standard Webhooks request from the
 * claimed row, send it through the vetting sender, and record the outcome (success,
 * retry later, exhausted), the 410 and sustained-failure auto-disable rules included.
 * The worker (src/workers/webhook-delivery.ts) decides when and how many.
 */
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import {
  autoDisableEndpoint,
  claimDueDeliveries,
  insertAttemptLog,
  latestDeliveries,
  recordDeliveryAttempt,
  releaseDeliveries,
  type AttemptRecord,
  type ClaimedDelivery,
} from '../../db/repositories/webhooks.ts';
import { withTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import type { WebhookSender } from './sender.ts';
import { signWebhook } from './signature.ts';

export const USER_AGENT = 'Marquee-Webhooks/1';
/** Payloads are compact summaries; the spec promises consumers under 20 KB. */
export const MAX_PAYLOAD_BYTES = 20 * 1024;
/** At most this many deliveries of one endpoint are leased at once (all workers together, approximately). */
export const PER_ENDPOINT_IN_FLIGHT = 4;
/** The sustained-failure rule: this many latest deliveries all failed... */
export const SUSTAINED_FAILURE_COUNT = 20;
/** ...and spanning at least this long, oldest to newest created_at. */
export const SUSTAINED_FAILURE_SPAN_MS = 3 * 24 * 60 * 60 * 1000;

export interface DispatchContext {
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
  sender: WebhookSender;
}

/** A claim outlives the longest possible attempt (one deadline covers it) with room to record. */
export function leaseMs(config: Readonly<Config>): number {
  return config.webhookTimeoutMs + 30_000;
}

/**
 * Claims up to `limit` due deliveries, at most PER_ENDPOINT_IN_FLIGHT per endpoint in
 * this batch (the rest are released at once for a later claim).
 */
export async function claimDeliveries(ctx: DispatchContext, limit: number): Promise<ClaimedDelivery[]> {
  const now = ctx.clock.now();
  const claimed = await claimDueDeliveries(ctx.db, {
    now,
    leaseUntil: new Date(now.getTime() + leaseMs(ctx.config)),
    limit,
    perEndpointCap: PER_ENDPOINT_IN_FLIGHT,
  });
  const perEndpoint = new Map<string, number>();
  const kept: ClaimedDelivery[] = [];
  const released: string[] = [];
  for (const row of claimed) {
    const count = perEndpoint.get(row.endpoint_id) ?? 0;
    if (count < PER_ENDPOINT_IN_FLIGHT) {
      perEndpoint.set(row.endpoint_id, count + 1);
      kept.push(row);
    } else {
      released.push(row.id);
    }
  }
  await releaseDeliveries(ctx.db, released);
  return kept;
}

export interface DeliveryOutcome {
  deliveryId: string;
  status: AttemptRecord['status'];
  attempt: number;
  /** False when the lease had been lost and the result was not recorded. */
  recorded: boolean;
}

/** The exact bytes sent: `{type, timestamp, data}` with the stored event data. */
export function envelope(row: Pick<ClaimedDelivery, 'event_type' | 'event_created_at' | 'event_data'>): string {
  return JSON.stringify({ type: row.event_type, timestamp: row.event_created_at.toISOString(), data: row.event_data });
}

/** Sends one claimed delivery and records the attempt. Never throws for a receiver's failure. */
export async function attemptDelivery(ctx: DispatchContext, row: ClaimedDelivery): Promise<DeliveryOutcome> {
  const attempt = row.attempt + 1;
  const body = envelope(row);
  const size = Buffer.byteLength(body);
  if (size >= MAX_PAYLOAD_BYTES) {
    // Never happens with the spec's compact payloads; refuse rather than break the promise.
    return record(ctx, row, {
      status: 'exhausted', attempt, response_status: null, response_ms: null,
      error: `Payload of ${size} bytes is over the 20 KB limit; not sent.`, next_retry_at: null, now: ctx.clock.now(),
    }, false);
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
  else if (result.gone) status = 'failed'; // not retried: the endpoint is disabled below
  else if (attempt <= delays.length) {
    status = 'failed';
    nextRetryAt = new Date(now.getTime() + delays[attempt - 1]!);
  } else status = 'exhausted';
  return record(ctx, row, {
    status, attempt, response_status: result.status, response_ms: result.responseMs,
    error: result.error, next_retry_at: nextRetryAt, now,
  }, result.gone);
}

async function record(ctx: DispatchContext, row: ClaimedDelivery, rec: AttemptRecord, gone: boolean): Promise<DeliveryOutcome> {
  const recorded = await withTransaction(ctx.db, async (trx) => {
    if (!(await recordDeliveryAttempt(trx, row.id, row.locked_until, rec))) return false;
    await insertAttemptLog(trx, row.id, rec);
    if (gone) {
      await autoDisableEndpoint(trx, row.endpoint_id, `Endpoint answered 410 Gone on ${rec.now.toISOString()}.`, rec.now);
    } else if (rec.status === 'failed' || rec.status === 'exhausted') {
      await checkSustainedFailure(trx, row, rec.now);
    }
    return true;
  });
  return { deliveryId: row.id, status: rec.status, attempt: rec.attempt, recorded };
}

/**
 * Auto-disables the endpoint when its last 20 deliveries (since it was last re-enabled)
 * all failed or were exhausted and the oldest and newest of them are 3 days apart.
 */
async function checkSustainedFailure(db: Parameters<typeof latestDeliveries>[0], row: ClaimedDelivery, now: Date): Promise<void> {
  const latest = await latestDeliveries(db, row.endpoint_id, row.reenabled_at, SUSTAINED_FAILURE_COUNT);
  if (latest.length < SUSTAINED_FAILURE_COUNT) return;
  if (!latest.every((d) => d.status === 'failed' || d.status === 'exhausted')) return;
  const newest = latest[0]!.created_at;
  const oldest = latest[latest.length - 1]!.created_at;
  if (newest.getTime() - oldest.getTime() < SUSTAINED_FAILURE_SPAN_MS) return;
  await autoDisableEndpoint(
    db,
    row.endpoint_id,
    `The last ${SUSTAINED_FAILURE_COUNT} deliveries all failed, from ${oldest.toISOString()} to ${newest.toISOString()}.`,
    now,
  );
}
