/**
 * What creating an event and adding to it share (docs/catalog.md): the rules of a
 * performance item and a ticket type item, and the rows they become, one price per ticket
 * type and performance. POST /v1/events (./create-event.ts) and the dashboard's additions
 * to an existing event (./add-to-event.ts) use these alone, so an item means the same in
 * both.
 */
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { PerformancesTable, PricesTable, TicketTypesTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import { isInTimestampRange, TIMESTAMP_RANGE_TEXT } from '../../lib/timestamps.ts';
import { emitDomainEvent } from '../../outbox/domain-events.ts';
import { DEFAULT_LOCALE } from './events.ts';

/** The seat category every price of a general-admission event is created under. */
const GENERAL_SEAT_CATEGORY = 'general';
const DEFAULT_DURATION_MS = 3 * 60 * 60 * 1000;

/** At most this many performances and ticket types per event, however they were added. */
export const MAX_PERFORMANCES = 50;
export const MAX_TICKET_TYPES = 20;

export interface PerformanceItem {
  starts_at: string;
  ends_at?: string | null;
  capacity: number;
  title?: string | null;
}

export interface TicketTypeItem {
  name: string;
  description?: string | null;
  price_minor: number;
  quantity?: number | null;
}

export function validPerformances(performances: PerformanceItem[]) {
  return performances.map((p, i) => {
    const startsAt = new Date(p.starts_at);
    const endsAt = p.ends_at == null ? new Date(startsAt.getTime() + DEFAULT_DURATION_MS) : new Date(p.ends_at);
    if (endsAt.getTime() < startsAt.getTime()) {
      throw invalid(
        'parameter_invalid',
        `\`performances.${i}.ends_at\` must not be before its \`starts_at\`.`,
        `performances.${i}.ends_at`,
      );
    }
    if (!isInTimestampRange(endsAt)) {
      throw invalid(
        'parameter_invalid',
        `\`performances.${i}.ends_at\` (\`starts_at\` plus 3 hours when absent) must be ${TIMESTAMP_RANGE_TEXT}.`,
        `performances.${i}.ends_at`,
      );
    }
    const perfTitle = p.title == null ? null : p.title.trim() || null;
    return { startsAt, endsAt, capacity: p.capacity, title: perfTitle };
  });
}

type ValidPerformance = ReturnType<typeof validPerformances>[number];

/**
 * Names trimmed, at least 2 characters, unique regardless of case among the items and
 * the names the event already has (`taken`, lower-cased).
 */
export function validTicketTypes(ticketTypes: TicketTypeItem[], taken: ReadonlySet<string> = new Set()) {
  const seen = new Set<string>();
  return ticketTypes.map((tt, i) => {
    const name = tt.name.trim();
    const param = `ticket_types.${i}.name`;
    if (name.length < 2)
      throw invalid(
        'parameter_invalid',
        `\`${param}\` must be at least 2 characters, not counting surrounding spaces.`,
        param,
      );
    if (seen.has(name.toLowerCase()))
      throw invalid('parameter_invalid', `\`${param}\` "${name}" is used twice; ticket type names must differ.`, param);
    if (taken.has(name.toLowerCase()))
      throw invalid(
        'parameter_invalid',
        `\`${param}\` "${name}" is already a ticket type of this event; ticket type names must differ.`,
        param,
      );
    seen.add(name.toLowerCase());
    const description = tt.description == null ? null : tt.description.trim() || null;
    return { name, description, priceMinor: tt.price_minor, quantity: tt.quantity ?? null };
  });
}

type ValidTicketType = ReturnType<typeof validTicketTypes>[number];

export interface RowContext {
  organizerId: string;
  /** Whether the new performances go live at once (the event is published). */
  publish: boolean;
  now: Date;
}

export function performanceRows(
  eventId: string,
  performances: ValidPerformance[],
  { organizerId, publish, now }: RowContext,
): (Insertable<PerformancesTable> & { id: string })[] {
  return performances.map((p) => ({
    id: randomUUID(),
    organizer_id: organizerId,
    event_id: eventId,
    title: p.title,
    translations: JSON.stringify(
      p.title === null ? [] : [{ locale: DEFAULT_LOCALE, title: p.title, description: null }],
    ),
    starts_at: p.startsAt,
    ends_at: p.endsAt,
    capacity: p.capacity,
    status: publish ? 'published' : 'draft',
    created_at: now,
    updated_at: now,
  }));
}

/** The rows of new ticket types; their sort_order continues after `firstSortOrder - 1`. */
export function ticketTypeRows(
  eventId: string,
  ticketTypes: ValidTicketType[],
  { organizerId, now }: RowContext,
  firstSortOrder = 0,
): (Insertable<TicketTypesTable> & { id: string })[] {
  return ticketTypes.map((tt, index) => ({
    id: randomUUID(),
    organizer_id: organizerId,
    event_id: eventId,
    name: tt.name,
    description: tt.description,
    translations: JSON.stringify([{ locale: DEFAULT_LOCALE, title: tt.name, description: tt.description }]),
    sort_order: firstSortOrder + index,
    created_at: now,
    updated_at: now,
  }));
}

/** A ticket type as its prices need it: its id, its price and its per-performance cap. */
interface PricedType {
  id: string;
  priceMinor: number;
  quantity: number | null;
}

/** One price per ticket type and performance, under the general seat category. */
export function priceRows(
  types: PricedType[],
  performanceIds: string[],
  { organizerId, now }: RowContext,
): Insertable<PricesTable>[] {
  return types.flatMap((tt) =>
    performanceIds.map((performanceId) => ({
      organizer_id: organizerId,
      ticket_type_id: tt.id,
      performance_id: performanceId,
      seat_category_key: GENERAL_SEAT_CATEGORY,
      price_minor: tt.priceMinor,
      limited_quantity: tt.quantity,
      created_at: now,
    })),
  );
}

/** `event.published` for each performance that goes live, in the order given. */
export async function emitPublished(
  trx: Executor,
  { organizerId, now }: RowContext,
  eventId: string,
  performances: { id: string }[],
): Promise<void> {
  for (const performance of performances) {
    await emitDomainEvent(trx, {
      organizerId,
      type: 'event.published',
      data: { event_id: eventId, performance_id: performance.id },
      at: now,
    });
  }
}
