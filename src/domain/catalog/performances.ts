/** Performances: reads, the schedule of an event, and availability (via inventory.ts). */
import {
  findPerformance,
  isPerformanceOfEvent,
  performancesQuery,
  type PerformanceRow,
} from '../../db/repositories/catalog.ts';
import { keysetPage, mapPage, type PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import { invalid, notFound } from '../../errors/domain-error.ts';
import { getAvailability } from '../inventory/inventory.ts';
import { requireEvent } from './events.ts';

function presentPerformance(row: PerformanceRow) {
  return {
    id: row.id,
    object: 'performance' as const,
    event_id: row.event_id,
    status: row.status,
    title: row.title,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    capacity: row.capacity,
    online_sales_enabled: row.online_sales_enabled,
    box_office_sales_enabled: row.box_office_sales_enabled,
    translations: (row.translations ?? []).map((t) => ({ locale: t.locale, title: t.title ?? null })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function requirePerformance(db: Executor, organizerId: string, id: string): Promise<PerformanceRow> {
  const row = await findPerformance(db, organizerId, id);
  if (!row) throw notFound('Performance');
  return row;
}

export async function getPerformance(db: Executor, organizerId: string, id: string) {
  return presentPerformance(await requirePerformance(db, organizerId, id));
}

/** The event's schedule, soonest first; an unknown or foreign event is a 404. */
export async function listPerformances(db: Executor, organizerId: string, eventId: string, page: PageRequest) {
  await requireEvent(db, organizerId, eventId);
  // The cursor must be a performance of this event, not just of this organizer.
  if (page.starting_after !== undefined && !(await isPerformanceOfEvent(db, eventId, page.starting_after))) {
    throw invalid(
      'invalid_cursor',
      `starting_after \`${page.starting_after}\` is not the id of an item in this list.`,
      'starting_after',
    );
  }
  const rows = await keysetPage(db, performancesQuery(db, organizerId, eventId), page, {
    table: 'performances',
    sortColumn: 'starts_at',
    direction: 'asc',
    organizerId,
  });
  return mapPage(rows, presentPerformance);
}

/** The advisory availability snapshot: the very count order placement rechecks under lock. */
export async function getPerformanceAvailability(db: Executor, organizerId: string, id: string, now: Date) {
  await requirePerformance(db, organizerId, id);
  const availability = await getAvailability(db, id, now);
  if (!availability) throw notFound('Performance');
  return {
    object: 'availability' as const,
    performance_id: availability.performance_id,
    performance_remaining: availability.performance_remaining,
    ticket_types: availability.ticket_types.map((t) => ({ ticket_type_id: t.ticket_type_id, remaining: t.remaining })),
  };
}
