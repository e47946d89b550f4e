/**
 * Adding performances and ticket types to an existing event (the dashboard's
 * addPerformances and addTicketTypes; docs/catalog.md, "Adding to an event"). The items
 * follow the rules of POST /v1/events (./event-parts.ts) and the limits count the whole
 * event: at most 50 performances and 20 ticket types. Every new performance is priced
 * with every ticket type, every new ticket type on every performance. A performance
 * added to a published event goes live at once (`event.published`); each call emits one
 * `event.updated`. The event's row lock serializes additions, so two at once cannot pass
 * a limit between them.
 */
import {
  eventContents,
  findEventForUpdate,
  insertPerformances,
  insertPrices,
  insertTicketTypes,
  ticketTypePrices,
  touchEvent,
  type EventDetailRow,
  type EventRow,
} from '../../db/repositories/catalog.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { emitDomainEvent } from '../../outbox/domain-events.ts';
import { eventDetailChanged } from './changes.ts';
import {
  MAX_PERFORMANCES,
  MAX_TICKET_TYPES,
  emitPublished,
  performanceRows,
  priceRows,
  ticketTypeRows,
  validPerformances,
  validTicketTypes,
  type PerformanceItem,
  type RowContext,
  type TicketTypeItem,
} from './event-parts.ts';
import { getEventDetail } from './events.ts';

/** The event of this organizer, locked for the addition; 404 unknown, 409 archived. */
async function lockEventForAddition(trx: Executor, organizerId: string, id: string, what: string): Promise<EventRow> {
  const event = await findEventForUpdate(trx, organizerId, id);
  if (!event) throw notFound('Event');
  if (event.is_archived)
    throw conflict(
      'invalid_state',
      `Event is archived, so no ${what} can be added; unarchive it first (PATCH is_archived false).`,
    );
  return event;
}

/** 400 `limit_reached` naming the list when the event would pass its limit. */
function checkLimit(param: string, noun: string, max: number, existing: number, adding: number) {
  if (existing + adding <= max) return;
  const remaining = max - existing;
  const room = remaining === 0 ? 'none can be added' : `at most ${remaining} more can be added`;
  throw invalid(
    'limit_reached',
    `An event has at most ${max} ${noun}; this one has ${existing}, so ${room} (${adding} sent).`,
    param,
  );
}

/** The detail changed: event.updated once, updated_at, and the readers told after commit. */
async function finish(trx: Executor, event: EventRow, now: Date): Promise<EventDetailRow> {
  await touchEvent(trx, event.id, now);
  await emitDomainEvent(trx, {
    organizerId: event.organizer_id,
    type: 'event.updated',
    data: { event_id: event.id },
    at: now,
  });
  eventDetailChanged(trx, event.id);
  return getEventDetail(trx, event.organizer_id, event.id);
}

export async function addPerformances(
  db: Executor,
  organizerId: string,
  eventId: string,
  items: PerformanceItem[],
  now: Date,
): Promise<EventDetailRow> {
  const performances = validPerformances(items);
  return withTransaction(db, async (trx) => {
    const event = await lockEventForAddition(trx, organizerId, eventId, 'performances');
    const contents = await eventContents(trx, event.id);
    checkLimit('performances', 'performances', MAX_PERFORMANCES, contents.performanceIds.length, items.length);
    const context: RowContext = { organizerId, publish: event.status === 'published', now };
    const rows = performanceRows(event.id, performances, context);
    await insertPerformances(trx, rows);
    const types = (await ticketTypePrices(trx, event.id)).map((tt) => ({
      id: tt.id,
      priceMinor: tt.price_minor,
      quantity: tt.limited_quantity,
    }));
    const ids = rows.map((r) => r.id);
    if (types.length > 0) await insertPrices(trx, priceRows(types, ids, context));
    if (context.publish) {
      // In schedule order, as a publish emits them.
      const live = [...rows].sort(
        (a, b) => (a.starts_at as Date).getTime() - (b.starts_at as Date).getTime() || (a.id < b.id ? -1 : 1),
      );
      await emitPublished(trx, context, event.id, live);
    }
    return finish(trx, event, now);
  });
}

export async function addTicketTypes(
  db: Executor,
  organizerId: string,
  eventId: string,
  items: TicketTypeItem[],
  now: Date,
): Promise<EventDetailRow> {
  // The names are checked again under the lock, against the event's own names.
  validTicketTypes(items);
  return withTransaction(db, async (trx) => {
    const event = await lockEventForAddition(trx, organizerId, eventId, 'ticket types');
    const contents = await eventContents(trx, event.id);
    checkLimit('ticket_types', 'ticket types', MAX_TICKET_TYPES, contents.ticketTypes.length, items.length);
    const taken = new Set(contents.ticketTypes.map((tt) => tt.name.toLowerCase()));
    const ticketTypes = validTicketTypes(items, taken);
    const context: RowContext = { organizerId, publish: event.status === 'published', now };
    const rows = ticketTypeRows(event.id, ticketTypes, context, contents.nextSortOrder);
    await insertTicketTypes(trx, rows);
    const priced = rows.map((row, i) => ({ id: row.id, ...ticketTypes[i]! }));
    if (contents.performanceIds.length > 0)
      await insertPrices(trx, priceRows(priced, contents.performanceIds, context));
    return finish(trx, event, now);
  });
}
