/**
 * The languages a buyer's e-mails, PDF tickets and wallet passes can speak (docs/tickets.md,
 * "Languages"), each named in itself: the tags the API takes as `default_language` and an
 * event's `language` (docs/dashboard.md). English is what applies when none is set.
 * With the calls of an event's ticket settings, through the session's dashboard client.
 */
import type { paths } from '../generated/dashboard.ts';
import { answer, dashboard } from './dashboard.ts';

export const TICKET_LANGUAGES: readonly { tag: string; name: string }[] = [
  { tag: 'en', name: 'English' },
  { tag: 'de', name: 'Deutsch' },
  { tag: 'fr', name: 'Français' },
  { tag: 'es', name: 'Español' },
  { tag: 'ar', name: 'العربية' },
];

/** A tag's own name ("de" → "Deutsch"); the tag itself for one this console does not list. */
export const languageName = (tag: string): string => TICKET_LANGUAGES.find((l) => l.tag === tag)?.name ?? tag;

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** An event's language and what its buyers receive (GET /dashboard/v1/events/{id}/ticket_settings). */
export type EventTicketSettings = Json<paths['/dashboard/v1/events/{id}/ticket_settings']['get']['responses'][200]>;

export const getEventTicketSettings = (eventId: string) =>
  answer(dashboard.GET('/dashboard/v1/events/{id}/ticket_settings', { params: { path: { id: eventId } } }));

/** Sets the event's language; null: the organizer's default. */
export const updateEventTicketSettings = (eventId: string, language: string | null) =>
  answer(
    dashboard.PATCH('/dashboard/v1/events/{id}/ticket_settings', {
      params: { path: { id: eventId } },
      body: { language },
    }),
  );
