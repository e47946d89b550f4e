/** Performances: reads, the schedule of an event, and availability (via inventory.ts). */
import { findPerformance, performancesQuery, type PerformanceRow } from '../../db/repositories/catalog.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/domain-error.ts';
import { getAvailability } from '../inventory/inventory.ts';
import { requireEvent } from './events.ts';

async function requirePerformance(db: Executor, organizerId: string, id: string): Promise<PerformanceRow> {
  const row = await findPerformance(db, organizerId, id);
  if (!row) throw notFound('Performance');
  return row;
}

export async function getPerformance(db: Executor, organizerId: string, id: string) {
  return requirePerformance(db, organizerId, id);
}

/** The event's schedule, soonest first; an unknown or foreign event is a 404. */
export async function listPerformances(db: Executor, organizerId: string, eventId: string, page: PageRequest) {
  await requireEvent(db, organizerId, eventId);
  return keysetPage(db, performancesQuery(db, organizerId, eventId), page, {
    table: 'performances',
    sortColumn: 'starts_at',
    direction: 'asc',
    organizerId,
    // The cursor must be a row of this event, not just of this organizer.
    parent: { column: 'event_id', id: eventId },
  });
}

/** The advisory availability snapshot: the very count order placement rechecks under lock. */
export async function getPerformanceAvailability(db: Executor, organizerId: string, id: string, now: Date) {
  await requirePerformance(db, organizerId, id);
  const availability = await getAvailability(db, id, now);
  if (!availability) throw notFound('Performance');
  return availability;
}
