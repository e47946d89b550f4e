/**
 * SQL for the catalog: venues, categories, events, performances, ticket types, prices
 * and holds. One query per function; every query that reads tenant data filters on
 * organizer_id (the admin routes, which have no tenant, use the *Any variants).
 */
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type {
  EventsTable,
  HoldsTable,
  PerformancesTable,
  PricesTable,
  TicketTypesTable,
  Translation,
} from '../schema.ts';

// ---------------------------------------------------------------- venues, categories

export function findVenue(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('venues')
    .select(['id', 'name', 'is_online'])
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/** Inserts a named venue unless one with that name (case-insensitive) exists; race-safe. */
export async function insertVenueIfAbsent(db: Executor, organizerId: string, name: string, now: Date): Promise<void> {
  await sql`
    INSERT INTO venues (organizer_id, name, is_online, created_at)
    VALUES (${organizerId}, ${name}, false, ${now})
    ON CONFLICT (organizer_id, lower(name)) WHERE NOT is_online DO NOTHING
  `.execute(db);
}

export function findVenueByName(db: Executor, organizerId: string, name: string) {
  return db
    .selectFrom('venues')
    .select(['id', 'name', 'is_online'])
    .where('organizer_id', '=', organizerId)
    .where('is_online', '=', false)
    .where(sql<boolean>`lower(name) = lower(${name})`)
    .executeTakeFirst();
}

/** Inserts the organizer's one shared Online venue unless it exists; race-safe. */
export async function insertOnlineVenueIfAbsent(db: Executor, organizerId: string, now: Date): Promise<void> {
  await sql`
    INSERT INTO venues (organizer_id, name, is_online, created_at)
    VALUES (${organizerId}, 'Online', true, ${now})
    ON CONFLICT (organizer_id) WHERE is_online DO NOTHING
  `.execute(db);
}

export function findOnlineVenue(db: Executor, organizerId: string) {
  return db
    .selectFrom('venues')
    .select(['id', 'name', 'is_online'])
    .where('organizer_id', '=', organizerId)
    .where('is_online', '=', true)
    .executeTakeFirst();
}

export async function insertCategoryIfAbsent(
  db: Executor,
  organizerId: string,
  name: string,
  now: Date,
): Promise<void> {
  await sql`
    INSERT INTO categories (organizer_id, name, created_at)
    VALUES (${organizerId}, ${name}, ${now})
    ON CONFLICT (organizer_id, lower(name)) DO NOTHING
  `.execute(db);
}

export function findCategoryByName(db: Executor, organizerId: string, name: string) {
  return db
    .selectFrom('categories')
    .select(['id', 'name'])
    .where('organizer_id', '=', organizerId)
    .where(sql<boolean>`lower(name) = lower(${name})`)
    .executeTakeFirst();
}

// ---------------------------------------------------------------- events

export type EventRow = Awaited<ReturnType<typeof findEvent>> & {};

export function findEvent(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/** The event, whatever its organizer (admin API), locked for the rest of the transaction. */
export function findEventAnyForUpdate(db: Executor, id: string) {
  return db.selectFrom('events').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findEventForUpdate(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .forUpdate()
    .executeTakeFirst();
}

export function findEventIdByTitle(db: Executor, organizerId: string, title: string) {
  return db
    .selectFrom('events')
    .select('id')
    .where('organizer_id', '=', organizerId)
    .where(sql<boolean>`lower(title) = lower(${title})`)
    .executeTakeFirst();
}

/**
 * Inserts the event unless its title is taken in the organizer (the events_title_uq
 * index decides, also against a concurrent insert); undefined when it is taken.
 */
export async function insertEventUnlessTitleTaken(
  db: Executor,
  values: Insertable<EventsTable>,
): Promise<EventRow | undefined> {
  return db
    .insertInto('events')
    .values(values)
    .onConflict((oc) => oc.expression(sql`organizer_id, lower(title)`).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateEventRow(
  db: Executor,
  organizerId: string,
  id: string,
  values: {
    title?: string;
    translations?: Translation[];
    contact_email?: string | null;
    is_archived?: boolean;
    updated_at: Date;
  },
) {
  const { translations, ...rest } = values;
  return db
    .updateTable('events')
    .set({ ...rest, ...(translations === undefined ? {} : { translations: JSON.stringify(translations) }) })
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function markEventPublished(db: Executor, id: string, now: Date) {
  return db
    .updateTable('events')
    .set({ status: 'published', published_at: now, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What GET /v1/events may narrow the catalog to (docs/catalog.md). */
export interface EventFilters {
  status?: 'draft' | 'published' | undefined;
  /** Part of the title, any case; LIKE's wildcards in it match themselves. */
  title?: string | undefined;
}

/** The organizer's events, for keysetPage (newest first). */
export function eventsQuery(db: Executor, organizerId: string, filters: EventFilters = {}) {
  let query = db.selectFrom('events').selectAll().where('organizer_id', '=', organizerId);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.title !== undefined) {
    const pattern = `%${filters.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`title ILIKE ${pattern}`);
  }
  return query;
}

// ---------------------------------------------------------------- performances

export type PerformanceRow = Awaited<ReturnType<typeof findPerformance>> & {};

export function findPerformance(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('performances')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

export function findPerformanceAny(db: Executor, id: string) {
  return db.selectFrom('performances').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertPerformances(db: Executor, rows: Insertable<PerformancesTable>[]) {
  return db.insertInto('performances').values(rows).execute();
}

/** The event's performances, for keysetPage (soonest first). */
export function performancesQuery(db: Executor, organizerId: string, eventId: string) {
  return db
    .selectFrom('performances')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('event_id', '=', eventId);
}

/** Draft performances of the event go live; returns them in schedule order. */
export function publishDraftPerformances(db: Executor, eventId: string, now: Date) {
  return db
    .updateTable('performances')
    .set({ status: 'published', updated_at: now })
    .where('event_id', '=', eventId)
    .where('status', '=', 'draft')
    .returning(['id', 'starts_at'])
    .execute();
}

/**
 * What an addition to an event counts against (docs/catalog.md, "Adding to an event"): its
 * performances and ticket types, the next ticket type's sort_order, and the ticket type
 * names taken (lower-cased). Read under the event's row lock, so additions count one
 * after the other.
 */
export async function eventContents(db: Executor, eventId: string) {
  const [performances, ticketTypes] = await Promise.all([
    db
      .selectFrom('performances')
      .select('id')
      .where('event_id', '=', eventId)
      .orderBy('starts_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('ticket_types')
      .select(['id', 'name', 'sort_order'])
      .where('event_id', '=', eventId)
      .orderBy('sort_order')
      .orderBy('id')
      .execute(),
  ]);
  return {
    performanceIds: performances.map((p) => p.id),
    ticketTypes,
    nextSortOrder: ticketTypes.reduce((max, tt) => Math.max(max, tt.sort_order + 1), 0),
  };
}

/**
 * Each ticket type of the event with the price and cap a new performance gets: those of
 * its first price (create and the additions give a type the same price on every
 * performance). A type without any price is left out.
 */
export function ticketTypePrices(db: Executor, eventId: string) {
  return db
    .selectFrom('ticket_types as tt')
    .innerJoin('prices as pr', 'pr.ticket_type_id', 'tt.id')
    .distinctOn('tt.id')
    .select(['tt.id', 'pr.price_minor', 'pr.limited_quantity'])
    .where('tt.event_id', '=', eventId)
    .orderBy('tt.id')
    .orderBy('pr.created_at')
    .orderBy('pr.id')
    .execute();
}

/** The event's updated_at moves: its detail changed. */
export function touchEvent(db: Executor, id: string, now: Date) {
  return db.updateTable('events').set({ updated_at: now }).where('id', '=', id).execute();
}

// ---------------------------------------------------------------- ticket types, prices

export function insertTicketTypes(db: Executor, rows: Insertable<TicketTypesTable>[]) {
  return db.insertInto('ticket_types').values(rows).execute();
}

export function insertPrices(db: Executor, rows: Insertable<PricesTable>[]) {
  return db.insertInto('prices').values(rows).execute();
}

/** A ticket type with its prices, as aggregated by findEventDetail (JSON, hence plain values). */
interface TicketTypeWithPrices {
  id: string;
  name: string;
  description: string | null;
  sort_order: number;
  translations: Translation[] | null;
  /** ISO 8601 in UTC with milliseconds, as every response spells a timestamp. */
  updated_at: string;
  prices: {
    performance_id: string;
    seat_category_key: string;
    price_minor: number;
    limited_quantity: number | null;
    is_active: boolean;
  }[];
}

/** An event with its ticket types and their prices: what findEventDetail returns. */
export type EventDetailRow = EventRow & { ticket_types: TicketTypeWithPrices[] };

/**
 * The event of this organizer with its ticket types (sort_order, id) and each type's
 * prices (in the schedule order of their performances), in ONE query: the children come
 * back as a JSON aggregate, so the detail costs a single round trip.
 */
export function findEventDetail(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('events')
    .selectAll()
    .select(
      sql<TicketTypeWithPrices[]>`COALESCE((
        SELECT json_agg(json_build_object(
          'id', tt.id,
          'name', tt.name,
          'description', tt.description,
          'sort_order', tt.sort_order,
          'translations', tt.translations,
          'updated_at', to_char(tt.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'prices', COALESCE((
            SELECT json_agg(json_build_object(
              'performance_id', pr.performance_id,
              'seat_category_key', pr.seat_category_key,
              'price_minor', pr.price_minor,
              'limited_quantity', pr.limited_quantity,
              'is_active', pr.is_active
            ) ORDER BY perf.starts_at, perf.id)
            FROM prices pr
            JOIN performances perf ON perf.id = pr.performance_id
            WHERE pr.ticket_type_id = tt.id AND perf.event_id = events.id
          ), '[]'::json)
        ) ORDER BY tt.sort_order, tt.id)
        FROM ticket_types tt
        WHERE tt.event_id = events.id
      ), '[]'::json)`.as('ticket_types'),
    )
    .where('events.id', '=', id)
    .where('events.organizer_id', '=', organizerId)
    .executeTakeFirst();
}

// ---------------------------------------------------------------- holds

export type HoldRow = Awaited<ReturnType<typeof insertHold>>;

export function insertHold(db: Executor, values: Insertable<HoldsTable>) {
  return db.insertInto('holds').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Sets released_at unless already set (a second release keeps the first time); with an
 * organizer, only a hold of that organizer.
 */
export function releaseHoldRow(db: Executor, id: string, now: Date, organizerId?: string) {
  let q = db
    .updateTable('holds')
    .set((eb) => ({ released_at: eb.fn.coalesce('released_at', eb.val(now)) }))
    .where('id', '=', id);
  if (organizerId !== undefined) q = q.where('organizer_id', '=', organizerId);
  return q.returningAll().executeTakeFirst();
}

/**
 * The holds of a performance, for keysetPage (newest first): by default those still
 * holding seats (not released, and a cart hold not past its expiry), else every hold.
 */
export function holdsQuery(db: Executor, performanceId: string, activeAt: Date | undefined) {
  let q = db.selectFrom('holds').selectAll().where('performance_id', '=', performanceId);
  if (activeAt !== undefined)
    q = q
      .where('released_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', activeAt)]));
  return q;
}
