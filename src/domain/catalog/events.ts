/**
 * Events: the composite create (venue, category, event, performances, ticket types and
 * their per-performance prices, in one transaction), detail and list reads, the partial
 * update, and publishing a draft. Domain events go to the outbox in the same
 * transaction as the change. docs/catalog.md records the rules and decisions.
 */
import { isInTimestampRange, TIMESTAMP_RANGE_TEXT } from '../../lib/timestamps.ts';
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import {
  eventsQuery,
  findCategoryByName,
  findEvent,
  findEventDetail,
  findEventAnyForUpdate,
  findEventForUpdate,
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
  markEventPublished,
  publishDraftPerformances,
  updateEventRow,
  type EventRow,
  type TicketTypeWithPrices,
} from '../../db/repositories/catalog.ts';
import { keysetPage, mapPage, type PageRequest } from '../../db/pagination.ts';
import type { PerformancesTable, PricesTable, TicketTypesTable, Translation } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { isValidTimeZone } from '../../lib/locale.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { Clock } from '../../lib/clock.ts';
import { emitDomainEvent } from '../../outbox/emit.ts';
import { sanitizeDescription } from './sanitize.ts';

const DEFAULT_LOCALE = 'en';
const DEFAULT_CATEGORY = 'General';
/** The seat category every price of a general-admission event is created under. */
const GENERAL_SEAT_CATEGORY = 'general';
const DEFAULT_DURATION_MS = 3 * 60 * 60 * 1000;
const TITLE_MIN = 3;

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

interface UpdateEventInput {
  title?: string;
  description?: string | null;
  contact_email?: string | null;
  is_archived?: boolean;
}

interface Tenant {
  organizerId: string;
  timezone: string;
}

const duplicateTitle = (title: string) => conflict('resource_exists', `An event titled "${title}" already exists.`);

/** PostgreSQL unique violation (23505) on the named index or constraint. */
function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  if (!e || e.code !== '23505') return false;
  return e.constraint === constraint || (e.message ?? '').includes(`"${constraint}"`);
}

function cleanTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length < TITLE_MIN)
    throw invalid(
      'parameter_invalid',
      `\`title\` must be at least ${TITLE_MIN} characters, not counting surrounding spaces.`,
      'title',
    );
  return trimmed;
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

  const performances = input.performances.map((p, i) => {
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

  const seen = new Set<string>();
  const ticketTypes = input.ticket_types.map((tt, i) => {
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

  return {
    title,
    timezone,
    categoryName,
    performances,
    ticketTypes,
    description: sanitizeDescription(input.description),
  };
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
): Promise<EventDetail> {
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

    const status = publish ? 'published' : 'draft';
    const performances: Insertable<PerformancesTable>[] = v.performances.map((p) => ({
      id: randomUUID(),
      organizer_id: organizerId,
      event_id: event.id,
      title: p.title,
      translations: JSON.stringify(
        p.title === null ? [] : [{ locale: DEFAULT_LOCALE, title: p.title, description: null }],
      ),
      starts_at: p.startsAt,
      ends_at: p.endsAt,
      capacity: p.capacity,
      status,
      created_at: now,
      updated_at: now,
    }));
    await insertPerformances(trx, performances);

    const ticketTypes: Insertable<TicketTypesTable>[] = v.ticketTypes.map((tt, index) => ({
      id: randomUUID(),
      organizer_id: organizerId,
      event_id: event.id,
      name: tt.name,
      description: tt.description,
      translations: JSON.stringify([{ locale: DEFAULT_LOCALE, title: tt.name, description: tt.description }]),
      sort_order: index,
      created_at: now,
      updated_at: now,
    }));
    await insertTicketTypes(trx, ticketTypes);

    const prices: Insertable<PricesTable>[] = [];
    ticketTypes.forEach((tt, index) => {
      for (const performance of performances) {
        prices.push({
          organizer_id: organizerId,
          ticket_type_id: tt.id!,
          performance_id: performance.id!,
          seat_category_key: GENERAL_SEAT_CATEGORY,
          price_minor: v.ticketTypes[index]!.priceMinor,
          limited_quantity: v.ticketTypes[index]!.quantity,
          created_at: now,
        });
      }
    });
    await insertPrices(trx, prices);

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
    return loadEventDetail(trx, organizerId, event.id);
  });
}

// ---------------------------------------------------------------- presentation

/** The `en` translation first, else the first available. */
function resolveTranslation<T extends { locale: string }>(translations: T[]): T | undefined {
  return translations.find((t) => t.locale === DEFAULT_LOCALE) ?? translations[0];
}

function presentEvent(row: EventRow) {
  const translations = row.translations ?? [];
  const resolved = resolveTranslation(translations);
  return {
    id: row.id,
    object: 'event' as const,
    title: resolved?.title ?? row.title,
    description: resolved?.description ?? null,
    admission_type: row.admission_type,
    image_url: row.image_url,
    contact_email: row.contact_email,
    timezone: row.timezone,
    venue_id: row.venue_id,
    category_id: row.category_id,
    is_archived: row.is_archived,
    translations: translations.map((t) => ({
      locale: t.locale,
      title: t.title ?? row.title,
      description: t.description ?? null,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

type EventDetail = ReturnType<typeof presentEventDetail>;

function presentEventDetail(row: EventRow & { ticket_types: TicketTypeWithPrices[] }) {
  const { ticket_types: ticketTypes, ...event } = row;
  return {
    ...presentEvent(event),
    ticket_types: ticketTypes.map((tt) => ({
      id: tt.id,
      object: 'ticket_type' as const,
      name: tt.name,
      description: tt.description,
      sort_order: tt.sort_order,
      translations: (tt.translations ?? []).map((t) => ({
        locale: t.locale,
        name: t.title ?? tt.name,
        description: t.description ?? null,
      })),
      prices: tt.prices.map((p) => ({
        performance_id: p.performance_id,
        seat_category_key: p.seat_category_key,
        price_minor: Number(p.price_minor),
        limited_quantity: p.limited_quantity,
        is_active: p.is_active,
      })),
    })),
  };
}

/** The detail (event, ticket types, prices) in one query; 404 when not the organizer's. */
async function loadEventDetail(db: Executor, organizerId: string, id: string): Promise<EventDetail> {
  const row = await findEventDetail(db, organizerId, id);
  if (!row) throw notFound('Event');
  return presentEventDetail(row);
}

// ---------------------------------------------------------------- reads

export function getEventDetail(db: Executor, organizerId: string, id: string): Promise<EventDetail> {
  return loadEventDetail(db, organizerId, id);
}

// ---------------------------------------------------------------- detail cache

/**
 * The serialized GET /v1/events/{id} body per event, in-process, for EVENT_DETAIL_TTL_MS
 * (docs/catalog.md). Keyed by event id; the entry remembers its organizer and is served
 * only to that organizer (another organizer's request misses, loads, and gets the 404).
 * Every change to what the detail shows calls forgetEventDetail() once it has committed.
 */
export type EventDetailCache = TtlCache<{ organizerId: string; body: Buffer }>;
const EVENT_DETAIL_TTL_MS = 1000;
const EVENT_DETAIL_MAX_ENTRIES = 10_000;

export function createEventDetailCache(clock: Clock): EventDetailCache {
  return new TtlCache({ ttlMs: EVENT_DETAIL_TTL_MS, maxEntries: EVENT_DETAIL_MAX_ENTRIES, clock });
}

/** Drops the event's cached detail and fences off loads in flight (call after the commit). */
export function forgetEventDetail(cache: EventDetailCache, eventId: string): void {
  cache.delete(eventId);
}

/** The event row of this organizer, or 404. */
export async function requireEvent(db: Executor, organizerId: string, id: string): Promise<EventRow> {
  const event = await findEvent(db, organizerId, id);
  if (!event) throw notFound('Event');
  return event;
}

/** The whole catalog, drafts, past and archived included, newest first. */
export async function listEvents(db: Executor, organizerId: string, page: PageRequest) {
  const rows = await keysetPage(db, eventsQuery(db, organizerId), page, {
    table: 'events',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
  return mapPage(rows, presentEvent);
}

// ---------------------------------------------------------------- update

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function updateEvent(
  db: Executor,
  organizerId: string,
  id: string,
  input: UpdateEventInput,
  now: Date,
): Promise<EventDetail> {
  if (Object.keys(input).length === 0) {
    throw invalid('empty_update', 'Send at least one of `title`, `description`, `contact_email`, `is_archived`.');
  }
  const title = input.title === undefined ? undefined : cleanTitle(input.title);
  let contactEmail = input.contact_email;
  if (typeof contactEmail === 'string') {
    contactEmail = contactEmail.trim();
    if (contactEmail.length < 10)
      throw invalid('parameter_invalid', '`contact_email` must be at least 10 characters.', 'contact_email');
    if (!EMAIL.test(contactEmail))
      throw invalid(
        'parameter_invalid',
        `\`contact_email\` must be an e-mail address such as box@example.com, got "${contactEmail}".`,
        'contact_email',
      );
  }

  return withTransaction(db, async (trx) => {
    const event = await findEventForUpdate(trx, organizerId, id);
    if (!event) throw notFound('Event');

    let translations: Translation[] | undefined;
    if (title !== undefined || input.description !== undefined) {
      translations = (event.translations ?? []).map((t) => ({ ...t }));
      let own = translations.find((t) => t.locale === event.default_locale);
      if (!own) {
        own = { locale: event.default_locale, title: event.title, description: null };
        translations.push(own);
      }
      if (title !== undefined) own.title = title;
      if (input.description !== undefined) own.description = sanitizeDescription(input.description);
    }
    const resolvedTitle = translations ? (resolveTranslation(translations)?.title ?? event.title) : undefined;

    try {
      await updateEventRow(trx, organizerId, id, {
        ...(resolvedTitle !== undefined && resolvedTitle !== null ? { title: resolvedTitle } : {}),
        ...(translations ? { translations } : {}),
        ...(contactEmail !== undefined ? { contact_email: contactEmail } : {}),
        ...(input.is_archived !== undefined ? { is_archived: input.is_archived } : {}),
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error, 'events_title_uq')) throw duplicateTitle(title ?? resolvedTitle ?? '');
      throw error;
    }
    await emitDomainEvent(trx, { organizerId, type: 'event.updated', data: { event_id: id }, at: now });
    return loadEventDetail(trx, organizerId, id);
  });
}

// ---------------------------------------------------------------- publish (admin)

/** A draft goes live: it and its draft performances are published, one event.published each. */
export async function publishEvent(db: Executor, id: string, now: Date): Promise<EventDetail> {
  return withTransaction(db, async (trx) => {
    const event = await findEventAnyForUpdate(trx, id);
    if (!event) throw notFound('Event');
    if (event.status === 'published') throw conflict('invalid_state', 'Event is already published.');
    const published = await markEventPublished(trx, id, now);
    const performances = await publishDraftPerformances(trx, id, now);
    performances.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime() || (a.id < b.id ? -1 : 1));
    for (const performance of performances) {
      await emitDomainEvent(trx, {
        organizerId: event.organizer_id,
        type: 'event.published',
        data: { event_id: id, performance_id: performance.id },
        at: now,
      });
    }
    return loadEventDetail(trx, published.organizer_id, published.id);
  });
}
