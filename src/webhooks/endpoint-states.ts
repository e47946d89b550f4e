/**
 * Every change of a webhook endpoint's `status` (docs/webhooks.md, "Auto-disable and
 * re-enabling"), the client's and the service's, in one place:
 *
 * - created: `enabled` (endpoints.ts, createEndpoint).
 * - a client's PATCH `{"status": "enabled"}`, from any status: `enabled`, the reason
 *   cleared; coming from `disabled` or `auto_disabled` it also starts a fresh
 *   sustained-failure window (`reenabled_at`).
 * - a client's PATCH `{"status": "disabled"}`, from any status: `disabled`, keeping an
 *   earlier automatic reason visible.
 * - the worker, recording a 410 Gone or a sustained failure, from `enabled` or
 *   `disabled`: `auto_disabled` with a `disabled_reason`. A client cannot set it.
 *
 * Deleting ends an endpoint; rotating its secret, recovering its failures
 * (deliveries.ts) and the test ping leave the status as it is.
 */
import type { Updateable } from 'kysely';
import { autoDisableEndpoint, type EndpointRow } from '../db/repositories/webhook-endpoints.ts';
import { latestDeliveries, type AttemptRecord, type ClaimedDelivery } from '../db/repositories/webhook-deliveries.ts';
import type { WebhookEndpointsTable } from '../db/schema.ts';
import type { Executor } from '../db/transaction.ts';

/** The sustained-failure rule: this many latest deliveries all failed... */
const SUSTAINED_FAILURE_COUNT = 20;
/** ...and spanning at least this long, oldest to newest created_at. */
const SUSTAINED_FAILURE_SPAN_MS = 3 * 24 * 60 * 60 * 1000;

/** The statuses a client may set. */
type ManualStatus = 'enabled' | 'disabled';

/** The columns a client's status change sets, given the endpoint's current status. */
export function manualStatusChange(
  requested: ManualStatus,
  current: EndpointRow['status'],
  now: Date,
): Updateable<WebhookEndpointsTable> {
  const set: Updateable<WebhookEndpointsTable> = {};
  if (requested === 'enabled') {
    set.status = 'enabled';
    set.disabled_reason = null;
    // A fresh sustained-failure window: older failures no longer count against it.
    if (current !== 'enabled') set.reenabled_at = now;
  } else {
    // A manual disable keeps an earlier auto-disable reason (null if there was none).
    set.status = 'disabled';
  }
  return set;
}

/** A recorded attempt, as the auto-disable rules read it (dispatch.ts, FinishedAttempt). */
interface RecordedAttempt {
  row: Pick<ClaimedDelivery, 'endpoint_id' | 'organizer_id' | 'reenabled_at'>;
  rec: Pick<AttemptRecord, 'status' | 'now'>;
  /** The receiver answered 410 Gone. */
  gone: boolean;
}

/** Where an auto-disable is logged (docs/webhooks.md, "Logs"). */
interface DisableLogger {
  warn(fields: object, message: string): void;
}

/**
 * The automatic transitions, applied in the transaction that records a group of attempts
 * (dispatch.ts, recordAttempts): a 410 disables its endpoint; otherwise each endpoint
 * with a recorded failure gets the sustained-failure check, once, after the whole group
 * is written.
 */
export async function applyAutoDisableRules(
  trx: Executor,
  log: DisableLogger,
  recorded: RecordedAttempt[],
): Promise<void> {
  const gone = new Map<string, RecordedAttempt>();
  const failing = new Map<string, RecordedAttempt>();
  for (const f of recorded) {
    if (f.gone) {
      if (!gone.has(f.row.endpoint_id)) gone.set(f.row.endpoint_id, f);
    } else if (f.rec.status === 'failed' || f.rec.status === 'exhausted') {
      const seen = failing.get(f.row.endpoint_id);
      if (!seen || f.rec.now > seen.rec.now) failing.set(f.row.endpoint_id, f);
    }
  }
  for (const [endpointId, f] of gone) {
    const reason = `Endpoint answered 410 Gone on ${f.rec.now.toISOString()}.`;
    if (await autoDisableEndpoint(trx, endpointId, reason, f.rec.now)) logDisabled(log, f.row, reason);
  }
  for (const [endpointId, f] of failing) {
    if (!gone.has(endpointId)) await checkSustainedFailure(trx, log, f.row, f.rec.now);
  }
}

function logDisabled(log: DisableLogger, row: RecordedAttempt['row'], reason: string): void {
  log.warn({ endpointId: row.endpoint_id, organizerId: row.organizer_id, reason }, 'webhook endpoint auto-disabled');
}

/**
 * Auto-disables the endpoint when its last 20 deliveries (since it was last re-enabled)
 * all failed or were exhausted and the oldest and newest of them are 3 days apart.
 */
async function checkSustainedFailure(
  db: Executor,
  log: DisableLogger,
  row: RecordedAttempt['row'],
  now: Date,
): Promise<void> {
  const latest = await latestDeliveries(db, row.endpoint_id, row.reenabled_at, SUSTAINED_FAILURE_COUNT);
  if (latest.length < SUSTAINED_FAILURE_COUNT) return;
  if (!latest.every((d) => d.status === 'failed' || d.status === 'exhausted')) return;
  const newest = latest[0]!.created_at;
  const oldest = latest[latest.length - 1]!.created_at;
  if (newest.getTime() - oldest.getTime() < SUSTAINED_FAILURE_SPAN_MS) return;
  const reason = `The last ${SUSTAINED_FAILURE_COUNT} deliveries all failed, from ${oldest.toISOString()} to ${newest.toISOString()}.`;
  if (await autoDisableEndpoint(db, row.endpoint_id, reason, now)) logDisabled(log, row, reason);
}
