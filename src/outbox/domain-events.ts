/**
 * The transactional outbox: domain code calls emitDomainEvent() with the transaction
 * that makes the change, so the event commits or rolls back with it. Delivery (webhooks,
 * src/webhooks/) happens after commit, from these rows; nothing is ever published before
 * commit. The event types and their payloads are defined here; webhooks and mail read
 * them, the domain writes through this module.
 */
import { afterCommit, type Executor } from '../db/transaction.ts';
import { insertDomainEventWithDeliveries, type NewDomainEvent } from '../db/repositories/domain-events.ts';
import { notifyDeliveriesQueued } from './wakeup.ts';

/** The 7 subscribable event types (docs/webhooks.md), plus the synthetic test.ping. */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.refunded',
  'ticket.issued',
  'ticket.checked_in',
  'event.published',
  'event.updated',
] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
export type DomainEventType = SubscribableEventType | 'test.ping';

interface DomainEventInput {
  organizerId: string;
  type: DomainEventType;
  /** The `data` object of the webhook envelope, exactly the fields docs/webhooks.md lists for the type. */
  data: Record<string, unknown>;
  /** The event's timestamp (the clock's now). */
  at: Date;
}

/**
 * Records a domain event in the caller's transaction, and in the same transaction queues
 * one pending webhook delivery per enabled endpoint of the organizer subscribed to the
 * type; the pump is woken once the transaction commits. Returns the event id (the
 * webhook-id). `test.ping` is never fanned out: it is addressed to one endpoint by the
 * admin test route.
 */
export async function emitDomainEvent(trx: Executor, event: DomainEventInput): Promise<string> {
  const { id, queued } = await insertDomainEventWithDeliveries(trx, storedDomainEvent(event));
  afterCommit(trx, () => deliveriesQueued(queued));
  return id;
}

/**
 * The row of a domain event that a statement of the caller's writes together with the
 * change (a sale: saleInsertStatement); the caller then reports what it queued to
 * deliveriesQueued(). emitDomainEvent() is both in a statement of its own.
 */
export function storedDomainEvent(event: DomainEventInput): NewDomainEvent {
  return {
    organizerId: event.organizerId,
    type: event.type,
    data: JSON.stringify(event.data),
    at: event.at,
    fanOut: event.type !== 'test.ping',
  };
}

/** Wakes this process's delivery pump when a statement queued deliveries. */
export function deliveriesQueued(queued: number): void {
  if (queued > 0) notifyDeliveriesQueued();
}
