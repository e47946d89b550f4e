/**
 * The delivery log seen through the API: an endpoint's deliveries (filtered by status and
 * creation time), one delivery with its payload and attempts, manual redelivery (a new
 * row, fresh retry budget, same event and thus same webhook-id), the recovery of an
 * endpoint's failures (a redelivery of each), and the admin test.ping addressed to one
 * endpoint whatever its status.
 */
import {
  deliveryListQuery,
  type DeliveryFilters,
  findDeliveryWithEvent,
  type DeliveryRow,
  insertDelivery,
  insertRedeliveries,
  recoveryCandidates,
} from '../db/repositories/webhook-deliveries.ts';
import { findEndpointById, lockEndpoint } from '../db/repositories/webhook-endpoints.ts';
import { keysetPage, type PageRequest } from '../db/pagination.ts';
import { afterCommit, withTransaction, type Executor } from '../db/transaction.ts';
import { notFound } from '../errors/domain-error.ts';
import { envelope } from './dispatch.ts';
import { emitDomainEvent } from '../outbox/domain-events.ts';
import { checkTimeRange } from '../lib/time-range.ts';
import { getEndpoint } from './endpoints.ts';
import { notifyDeliveriesQueued } from '../outbox/wakeup.ts';

const TEST_PING_MESSAGE = 'This is a test event from Marquee.';
/** One recovery sends at most this many deliveries again (docs/webhooks.md, "Recovering"). */
export const RECOVERY_CAP = 1000;

/**
 * An endpoint's delivery log, newest first, narrowed by the filters. The cursor must be a
 * delivery of this endpoint, not necessarily one the filters match (its status may have
 * changed since the previous page): the page continues after its place in the log.
 */
export async function listEndpointDeliveries(
  db: Executor,
  organizerId: string,
  endpointId: string,
  filters: DeliveryFilters,
  page: PageRequest,
) {
  checkTimeRange('created', filters.createdGte, filters.createdLt);
  await getEndpoint(db, organizerId, endpointId);
  return keysetPage(db, deliveryListQuery(db, organizerId, endpointId, filters), page, {
    table: 'webhook_deliveries',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
    // The cursor must be a row of this endpoint, not just of this organizer.
    parent: { column: 'endpoint_id', id: endpointId },
  });
}

/**
 * One delivery with its attempt log and its payload: the exact body every attempt sends
 * (and signs), rebuilt from the stored event as the worker builds it, so it is kept as
 * long as the event is (docs/webhooks.md, "Retention").
 */
export async function getDelivery(db: Executor, organizerId: string, deliveryId: string) {
  const found = await findDeliveryWithEvent(db, organizerId, deliveryId);
  if (!found) throw notFound('Webhook delivery');
  const { event_created_at, event_data_json, ...row } = found;
  return { row, payload: envelope({ event_type: row.event_type, event_created_at, event_data_json }) };
}

/**
 * Appends a fresh delivery of the same event to the same endpoint: attempt 0, pending,
 * a full retry budget. The original row is left exactly as it was.
 */
export async function redeliver(
  db: Executor,
  organizerId: string,
  deliveryId: string,
  now: Date,
): Promise<DeliveryRow> {
  const [row] = await insertRedeliveries(db, organizerId, [deliveryId], now);
  if (!row) throw notFound('Webhook delivery');
  notifyDeliveriesQueued();
  return row;
}

export interface RecoveryResult {
  /** Deliveries sent again by this call (each a redelivery). */
  redelivered: number;
  /** Events skipped because a delivery of them to the endpoint is already pending. */
  alreadyPending: number;
  /** More failures remain beyond RECOVERY_CAP: call again. */
  hasMore: boolean;
}

/**
 * Redelivers, as redeliver() does, the latest delivery of every event of the endpoint
 * that failed or was exhausted since `since` and has not been delivered or queued again
 * since (docs/webhooks.md, "Recovering"): oldest first, at most RECOVERY_CAP a call. The
 * endpoint's row lock makes concurrent recoveries of one endpoint take turns, so the
 * second finds the first's redeliveries pending and skips those events: running it
 * twice queues nothing twice.
 */
export async function recoverEndpoint(
  db: Executor,
  organizerId: string,
  endpointId: string,
  since: Date,
  now: Date,
): Promise<RecoveryResult> {
  return withTransaction(db, async (trx) => {
    if (!(await lockEndpoint(trx, organizerId, endpointId))) throw notFound('Webhook endpoint');
    const found = await recoveryCandidates(trx, endpointId, since, RECOVERY_CAP + 1);
    const rows = await insertRedeliveries(trx, organizerId, found.ids.slice(0, RECOVERY_CAP), now);
    if (rows.length > 0) afterCommit(trx, notifyDeliveriesQueued);
    return {
      redelivered: rows.length,
      alreadyPending: found.alreadyPending,
      hasMore: found.ids.length > RECOVERY_CAP,
    };
  });
}

/**
 * The dashboard's test button: a `test.ping` domain event `{message, endpoint_id}` and
 * one delivery of it to this endpoint, sent even when the endpoint is disabled.
 */
export async function sendTestPing(
  db: Executor,
  endpointId: string,
  now: Date,
  /** The dashboard's organizer: another organizer's endpoint is not found. The admin API passes none. */
  organizerId?: string,
): Promise<DeliveryRow> {
  const endpoint = await findEndpointById(db, endpointId);
  if (!endpoint || (organizerId !== undefined && endpoint.organizer_id !== organizerId))
    throw notFound('Webhook endpoint');
  const row = await withTransaction(db, async (trx) => {
    const eventId = await emitDomainEvent(trx, {
      organizerId: endpoint.organizer_id,
      type: 'test.ping',
      data: { message: TEST_PING_MESSAGE, endpoint_id: endpoint.id },
      at: now,
    });
    return insertDelivery(trx, {
      organizer_id: endpoint.organizer_id,
      endpoint_id: endpoint.id,
      event_id: eventId,
      event_type: 'test.ping',
      status: 'pending',
      created_at: now,
      updated_at: now,
    });
  });
  notifyDeliveriesQueued();
  return row;
}
