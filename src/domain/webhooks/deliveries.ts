/**
 * The delivery log seen through the API: an endpoint's deliveries, manual redelivery
 * (a new row, fresh retry budget, same event and thus same webhook-id), and the admin
 * test.ping addressed to one endpoint whatever its status.
 */
import {
  deliveryBelongsToEndpoint,
  deliveryListQuery,
  findDelivery,
  type DeliveryRow,
  findEndpointById,
  insertDelivery,
} from '../../db/repositories/webhooks.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid, notFound } from '../../errors/domain-error.ts';
import { emitDomainEvent } from '../../webhooks/outbox.ts';
import { getEndpoint } from './endpoints.ts';
import { notifyDeliveriesQueued } from '../../webhooks/wakeup.ts';

const TEST_PING_MESSAGE = 'This is a test event from Marquee.';

export async function listEndpointDeliveries(db: Executor, organizerId: string, endpointId: string, page: PageRequest) {
  await getEndpoint(db, organizerId, endpointId);
  // keysetPage checks the cursor against the organizer; it must also be in this log.
  if (page.starting_after !== undefined && !(await deliveryBelongsToEndpoint(db, page.starting_after, endpointId))) {
    throw invalid(
      'invalid_cursor',
      `starting_after \`${page.starting_after}\` is not the id of an item in this list.`,
      'starting_after',
    );
  }
  return keysetPage(db, deliveryListQuery(db, organizerId, endpointId), page, {
    table: 'webhook_deliveries',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
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
  const original = await findDelivery(db, organizerId, deliveryId);
  if (!original) throw notFound('Webhook delivery');
  const row = await insertDelivery(db, {
    organizer_id: organizerId,
    endpoint_id: original.endpoint_id,
    event_id: original.event_id,
    event_type: original.event_type,
    status: 'pending',
    created_at: now,
    updated_at: now,
  });
  notifyDeliveriesQueued();
  return row;
}

/**
 * The dashboard's test button: a `test.ping` domain event `{message, endpoint_id}` and
 * one delivery of it to this endpoint, sent even when the endpoint is disabled.
 */
export async function sendTestPing(db: Executor, endpointId: string, now: Date): Promise<DeliveryRow> {
  const endpoint = await findEndpointById(db, endpointId);
  if (!endpoint) throw notFound('Webhook endpoint');
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
