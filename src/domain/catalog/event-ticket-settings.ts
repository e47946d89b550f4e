/**
 * An event's ticket settings (docs/dashboard.md, "Event ticket settings"): the language
 * of what its buyers receive (e-mails, PDF tickets, wallet passes; docs/tickets.md,
 * "Languages"). A dashboard-only setting: the /v1 Event does not carry it.
 */
import {
  findEventLanguage,
  updateEventLanguage,
  type EventLanguageRow,
} from '../../db/repositories/event-languages.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/domain-error.ts';
import { languageOf, type Language } from '../../i18n/index.ts';
import { checkLanguage } from '../organizers/organizers.ts';

interface EventTicketSettings {
  /** The event's own language; null: the organizer's default applies. */
  language: string | null;
  /** What its buyers' documents speak: the event's language, else the organizer's default, else English. */
  effective_language: Language;
}

const settingsOf = (row: EventLanguageRow): EventTicketSettings => ({
  language: row.language,
  effective_language: languageOf(row.language, row.default_language),
});

/** GET /dashboard/v1/events/{id}/ticket_settings; 404 when the event is not the organizer's. */
export async function getEventTicketSettings(
  db: Executor,
  organizerId: string,
  eventId: string,
): Promise<EventTicketSettings> {
  const row = await findEventLanguage(db, organizerId, eventId);
  if (!row) throw notFound('Event');
  return settingsOf(row);
}

/**
 * PATCH /dashboard/v1/events/{id}/ticket_settings: a language no catalogue ships answers
 * 400 (param `language`) naming those that do; null hands the event back to the
 * organizer's default. Mails already sent keep their language.
 */
export async function updateEventTicketSettings(
  db: Executor,
  organizerId: string,
  eventId: string,
  input: { language: string | null },
): Promise<EventTicketSettings> {
  checkLanguage(input.language, 'language');
  const row = await updateEventLanguage(db, organizerId, eventId, input.language);
  if (!row) throw notFound('Event');
  return settingsOf(row);
}
