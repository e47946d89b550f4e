/**
 * SQL for a performance's calendar file (docs/tickets.md, "Calendar files"): the
 * performance with its event's title, zone and language, its venue and its organizer.
 */
import type { Executor } from '../transaction.ts';

/** The performance and what its calendar entry says; undefined when it is not the organizer's. */
export function findPerformanceForCalendar(db: Executor, organizerId: string, performanceId: string) {
  return db
    .selectFrom('performances as p')
    .innerJoin('events as e', 'e.id', 'p.event_id')
    .innerJoin('venues as v', 'v.id', 'e.venue_id')
    .innerJoin('organizers as o', 'o.id', 'p.organizer_id')
    .select([
      'p.id',
      'p.starts_at',
      'p.ends_at',
      'e.title as event_title',
      'e.timezone as event_timezone',
      'e.language as event_language',
      'v.name as venue_name',
      'o.name as organizer_name',
      'o.default_language',
    ])
    .where('p.id', '=', performanceId)
    .where('p.organizer_id', '=', organizerId)
    .executeTakeFirst();
}
