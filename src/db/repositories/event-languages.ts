/**
 * SQL for an event's ticket language (docs/dashboard.md, "Event ticket settings"): the
 * event's own language beside its organizer's default, read and set in one statement each.
 */
import type { Executor } from '../transaction.ts';

export interface EventLanguageRow {
  /** The event's language; null: the organizer's default. */
  language: string | null;
  /** The organizer's default language; null: English. */
  default_language: string | null;
}

/** The event's language and its organizer's default; undefined when the event is not the organizer's. */
export function findEventLanguage(
  db: Executor,
  organizerId: string,
  eventId: string,
): Promise<EventLanguageRow | undefined> {
  return db
    .selectFrom('events')
    .innerJoin('organizers', 'organizers.id', 'events.organizer_id')
    .select(['events.language', 'organizers.default_language'])
    .where('events.id', '=', eventId)
    .where('events.organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/**
 * Sets the event's language (null: back to the organizer's default) and answers it with
 * the organizer's default; undefined when the event is not the organizer's. The event's
 * `updated_at` stays: it stamps the /v1 Event, which does not show the language.
 */
export function updateEventLanguage(
  db: Executor,
  organizerId: string,
  eventId: string,
  language: string | null,
): Promise<EventLanguageRow | undefined> {
  return db
    .updateTable('events')
    .from('organizers')
    .set({ language })
    .whereRef('organizers.id', '=', 'events.organizer_id')
    .where('events.id', '=', eventId)
    .where('events.organizer_id', '=', organizerId)
    .returning(['events.language', 'organizers.default_language'])
    .executeTakeFirst();
}
