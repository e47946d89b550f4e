/**
 * The composite create: venue, category, event, performances, ticket types and their
 * per-performance prices in one transaction, `event.published` per performance when it
 * goes live at once (docs/catalog.md).
 */
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
import type { Translation } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import { isValidTimeZone } from '../../lib/locale.ts';
import { cleanTitle, DEFAULT_LOCALE, duplicateTitle, getEventDetail } from './events.ts';
import { sanitizeDescription } from './sanitize.ts';
import {
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

const DEFAULT_CATEGORY = 'General';

interface CreateEventInput {
  title: string;
  description?: string | null;
  timezone?: string | null;
  venue: 'online' | { id?: string; name?: string };
  category_name?: string | null;
  performances: PerformanceItem[];
  ticket_types: TicketTypeItem[];
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
    const priced = ticketTypes.map((tt, i) => ({ id: tt.id, ...v.ticketTypes[i]! }));
    await insertPrices(
      trx,
      priceRows(
        priced,
        performances.map((p) => p.id),
        context,
      ),
    );

    if (publish) await emitPublished(trx, context, event.id, performances);
    return getEventDetail(trx, organizerId, event.id);
  });
}
