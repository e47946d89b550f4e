/**
 * The composite create: venue, category, event, performances, ticket types and their
 * per-performance prices in one transaction, `event.published` per performance when it
 * goes live at once (docs/catalog.md).
 */
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import {
  findCategoryByName,
  findEventIdByTitle,
  findOnlineVenue,
  findVenue,
  findVenueByName,
  insertCategoryIfAbsent,
  insertEventUnlessTitleTaken,
  insertOnlineVenueIfAbsent,
  insertPerformances,
  insertPrices,
  insertTicketTypes,
  insertVenueIfAbsent,
  type EventDetailRow,
} from '../../db/repositories/catalog.ts';
import type { PerformancesTable, PricesTable, TicketTypesTable, Translation } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import { isValidTimeZone } from '../../lib/locale.ts';
import { isInTimestampRange, TIMESTAMP_RANGE_TEXT } from '../../lib/timestamps.ts';
import { emitDomainEvent } from '../../webhooks/outbox.ts';
import { cleanTitle, DEFAULT_LOCALE, duplicateTitle, getEventDetail } from './events.ts';
import { sanitizeDescription } from './sanitize.ts';

const DEFAULT_CATEGORY = 'General';
/** The seat category every price of a general-admission event is created under. */
const GENERAL_SEAT_CATEGORY = 'general';
const DEFAULT_DURATION_MS = 3 * 60 * 60 * 1000;

interface CreateEventInput {
  title: string;
  description?: string | null;
  timezone?: string | null;
  venue: 'online' | { id?: string; name?: string };
  category_name?: string | null;
  performances: { starts_at: string; ends_at?: string | null; capacity: number; title?: string | null }[];
  ticket_types: { name: string; description?: string | null; price_minor: number; quantity?: number | null }[];
  publish?: boolean;
}

interface Tenant {
  organizerId: string;
  timezone: string;
}

function validateCreate(input: CreateEventInput, tenant: Tenant) {
  const title = cleanTitle(input.title);
  const timezone = input.timezone ?? tenant.timezone;
  if (!isValidTimeZone(timezone)) {
    throw invalid(
      'parameter_invalid',
      `\`timezone\` must be an IANA time zone such as Europe/Berlin, got "${timezone}".`,
      'timezone',
    );
  }
  if (typeof input.venue === 'object') {
    const { id, name } = input.venue;
    if ((id === undefined) === (name === undefined)) {
      throw invalid(
        'parameter_invalid',
        '`venue` must be `{"id": …}` of an existing venue, `{"name": …}`, or the string "online".',
        'venue',
      );
    }
    if (name !== undefined && name.trim() === '')
      throw invalid('parameter_invalid', '`venue.name` must not be blank.', 'venue.name');
  }
  const categoryName = (input.category_name ?? DEFAULT_CATEGORY).trim();
  if (categoryName === '') throw invalid('parameter_invalid', '`category_name` must not be blank.', 'category_name');

  const performances = validPerformances(input.performances);
  const ticketTypes = validTicketTypes(input.ticket_types);

  return {
    title,
    timezone,
    categoryName,
    performances,
    ticketTypes,
    description: sanitizeDescription(input.description),
  };
}

function validPerformances(performances: CreateEventInput['performances']) {
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

/** Names trimmed, at least 2 characters, unique regardless of case. */
function validTicketTypes(ticketTypes: CreateEventInput['ticket_types']) {
  const seen = new Set<string>();
  return ticketTypes.map((tt, i) => {
    const name = tt.name.trim();
    if (name.length < 2)
      throw invalid(
        'parameter_invalid',
        `\`ticket_types.${i}.name\` must be at least 2 characters, not counting surrounding spaces.`,
        `ticket_types.${i}.name`,
      );
    if (seen.has(name.toLowerCase()))
      throw invalid(
        'parameter_invalid',
        `\`ticket_types.${i}.name\` "${name}" is used twice; ticket type names must differ.`,
        `ticket_types.${i}.name`,
      );
    seen.add(name.toLowerCase());
    const description = tt.description == null ? null : tt.description.trim() || null;
    return { name, description, priceMinor: tt.price_minor, quantity: tt.quantity ?? null };
  });
}

async function resolveVenue(
  trx: Executor,
  organizerId: string,
  venue: CreateEventInput['venue'],
  now: Date,
): Promise<string> {
  if (venue === 'online') {
    await insertOnlineVenueIfAbsent(trx, organizerId, now);
    return (await findOnlineVenue(trx, organizerId))!.id;
  }
  if (venue.id !== undefined) {
    const found = await findVenue(trx, organizerId, venue.id);
    if (!found)
      throw invalid('parameter_invalid', `\`venue.id\` ${venue.id} is not a venue of this organizer.`, 'venue.id');
    return found.id;
  }
  const name = venue.name!.trim();
  await insertVenueIfAbsent(trx, organizerId, name, now);
  return (await findVenueByName(trx, organizerId, name))!.id;
}

async function resolveCategory(trx: Executor, organizerId: string, name: string, now: Date): Promise<string> {
  await insertCategoryIfAbsent(trx, organizerId, name, now);
  return (await findCategoryByName(trx, organizerId, name))!.id;
}

/** Creates the event with everything it needs; returns its detail. */
export async function createEvent(
  db: Executor,
  tenant: Tenant,
  input: CreateEventInput,
  now: Date,
): Promise<EventDetailRow> {
  const v = validateCreate(input, tenant);
  const publish = input.publish ?? true;
  const { organizerId } = tenant;

  // Fail fast (and without creating a venue or category) on a title already taken; the
  // unique index below remains the guard against a concurrent create of the same title.
  if (await findEventIdByTitle(db, organizerId, v.title)) throw duplicateTitle(v.title);

  return withTransaction(db, async (trx) => {
    const venueId = await resolveVenue(trx, organizerId, input.venue, now);
    const categoryId = await resolveCategory(trx, organizerId, v.categoryName, now);
    const translations: Translation[] = [{ locale: DEFAULT_LOCALE, title: v.title, description: v.description }];

    const event = await insertEventUnlessTitleTaken(trx, {
      organizer_id: organizerId,
      venue_id: venueId,
      category_id: categoryId,
      title: v.title,
      default_locale: DEFAULT_LOCALE,
      translations: JSON.stringify(translations),
      timezone: v.timezone,
      status: publish ? 'published' : 'draft',
      published_at: publish ? now : null,
      created_at: now,
      updated_at: now,
    });
    if (!event) throw duplicateTitle(v.title);

    const context: RowContext = { organizerId, publish, now };
    const performances = performanceRows(event.id, v.performances, context);
    await insertPerformances(trx, performances);
    const ticketTypes = ticketTypeRows(event.id, v.ticketTypes, context);
    await insertTicketTypes(trx, ticketTypes);
    await insertPrices(trx, priceRows(ticketTypes, v.ticketTypes, performances, context));

    if (publish) {
      for (const performance of performances) {
        await emitDomainEvent(trx, {
          organizerId,
          type: 'event.published',
          data: { event_id: event.id, performance_id: performance.id },
          at: now,
        });
      }
    }
    return getEventDetail(trx, organizerId, event.id);
  });
}

type Validated = ReturnType<typeof validateCreate>;

interface RowContext {
  organizerId: string;
  publish: boolean;
  now: Date;
}

function performanceRows(
  eventId: string,
  performances: Validated['performances'],
  { organizerId, publish, now }: RowContext,
): Insertable<PerformancesTable>[] {
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

function ticketTypeRows(
  eventId: string,
  ticketTypes: Validated['ticketTypes'],
  { organizerId, now }: RowContext,
): Insertable<TicketTypesTable>[] {
  return ticketTypes.map((tt, index) => ({
    id: randomUUID(),
    organizer_id: organizerId,
    event_id: eventId,
    name: tt.name,
    description: tt.description,
    translations: JSON.stringify([{ locale: DEFAULT_LOCALE, title: tt.name, description: tt.description }]),
    sort_order: index,
    created_at: now,
    updated_at: now,
  }));
}

/** One price per ticket type and performance, under the general seat category. */
function priceRows(
  ticketTypes: Insertable<TicketTypesTable>[],
  input: Validated['ticketTypes'],
  performances: Insertable<PerformancesTable>[],
  { organizerId, now }: RowContext,
): Insertable<PricesTable>[] {
  return ticketTypes.flatMap((tt, index) =>
    performances.map((performance) => ({
      organizer_id: organizerId,
      ticket_type_id: tt.id!,
      performance_id: performance.id!,
      seat_category_key: GENERAL_SEAT_CATEGORY,
      price_minor: input[index]!.priceMinor,
      limited_quantity: input[index]!.quantity,
      created_at: now,
    })),
  );
}
