/**
 * Events: the detail and list reads, and what creating and changing an event share (the
 * title rule, translations). Create is in ./create-event.ts, update and publish in
 * ./change-event.ts. docs/catalog.md records the rules and decisions.
 */
import {
  eventsQuery,
  type EventFilters,
  findEvent,
  findEventDetail,
  type EventDetailRow,
  type EventRow,
} from '../../db/repositories/catalog.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';

export const DEFAULT_LOCALE = 'en';
const TITLE_MIN = 3;

export const duplicateTitle = (title: string) =>
  conflict('resource_exists', `An event titled "${title}" already exists.`);

export function cleanTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length < TITLE_MIN)
    throw invalid(
      'parameter_invalid',
      `\`title\` must be at least ${TITLE_MIN} characters, not counting surrounding spaces.`,
      'title',
    );
  return trimmed;
}

export /** The `en` translation first, else the first available. */
function resolveTranslation<T extends { locale: string }>(translations: T[]): T | undefined {
  return translations.find((t) => t.locale === DEFAULT_LOCALE) ?? translations[0];
}

/** The detail (event, ticket types, prices) in one query; 404 when not the organizer's. */
export async function getEventDetail(db: Executor, organizerId: string, id: string): Promise<EventDetailRow> {
  const row = await findEventDetail(db, organizerId, id);
  if (!row) throw notFound('Event');
  return row;
}

/** The event row of this organizer, or 404. */
export async function requireEvent(db: Executor, organizerId: string, id: string): Promise<EventRow> {
  const event = await findEvent(db, organizerId, id);
  if (!event) throw notFound('Event');
  return event;
}

/** The whole catalog, drafts, past and archived included, newest first. */
export async function listEvents(db: Executor, organizerId: string, page: PageRequest, filters: EventFilters = {}) {
  return keysetPage(db, eventsQuery(db, organizerId, filters), page, {
    table: 'events',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
}
