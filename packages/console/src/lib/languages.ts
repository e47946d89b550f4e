/**
 * The languages a buyer's e-mails, PDF tickets and wallet passes can speak (docs/tickets.md,
 * "Languages"), each named in itself: the tags the API takes as `default_language` and an
 * event's `language` (docs/dashboard.md). English is what applies when none is set.
 */
export const TICKET_LANGUAGES: readonly { tag: string; name: string }[] = [
  { tag: 'en', name: 'English' },
  { tag: 'de', name: 'Deutsch' },
  { tag: 'fr', name: 'Français' },
  { tag: 'es', name: 'Español' },
  { tag: 'ar', name: 'العربية' },
];

/** A tag's own name ("de" → "Deutsch"); the tag itself for one this console does not list. */
export const languageName = (tag: string): string => TICKET_LANGUAGES.find((l) => l.tag === tag)?.name ?? tag;
