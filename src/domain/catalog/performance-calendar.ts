/**
 * A performance's calendar file (docs/tickets.md, "Calendar files"): the same entry the
 * e-ticket mail attaches, without an order, in the event's language.
 */
import { findPerformanceForCalendar } from '../../db/repositories/calendars.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CalendarFile } from '../../documents/calendar.ts';
import { notFound } from '../../errors/domain-error.ts';
import { languageOf } from '../../i18n/index.ts';

/** The performance's .ics; an unknown or another organizer's performance is a 404. */
export async function getPerformanceCalendar(db: Executor, organizerId: string, id: string): Promise<CalendarFile> {
  const row = await findPerformanceForCalendar(db, organizerId, id);
  if (!row) throw notFound('Performance');
  // ics and the time-zone blocks load with the first calendar file (docs/architecture.md, "Start-up").
  const { calendarFilename, performanceCalendar } = await import('../../documents/calendar.ts');
  const performance = {
    performanceId: row.id,
    eventTitle: row.event_title,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    timeZone: row.event_timezone,
    venueName: row.venue_name,
    organizerName: row.organizer_name,
  };
  return {
    filename: calendarFilename(performance),
    content: performanceCalendar(performance, languageOf(row.event_language, row.default_language)),
  };
}
