/**
 * The lists an integrator polls for changes (orders, tickets): time filters, the sync
 * order and the horizon that makes "miss none" hold (docs/sync.md).
 */
import type { SelectQueryBuilder } from 'kysely';
import { keysetPage, type Page, type PageRequest } from '../../db/pagination.ts';
import { readSyncHorizon, whereInWindow, type TimeWindow } from '../../db/repositories/sync.ts';
import type { Database } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { checkTimeRange } from '../../lib/time-range.ts';

/** `created_desc`: newest first (the default); `updated_asc`: least recently changed first, the sync order. */
export type ListOrder = 'created_desc' | 'updated_asc';

export interface ListView {
  window: TimeWindow;
  order: ListOrder;
  /** The caller's clock: the horizon is never later than it. */
  now: Date;
}

/**
 * One page of `query` (a list of `table` for one organizer) in the view's order, filtered by
 * its time window, whose ranges checkTimeRange vets first. A list that filters on a time or
 * is ordered by updated_at reads the horizon first and returns only rows stamped before it.
 * In the sync order, the cursor is the position (updated_gte, starting_after) the client
 * passes back, not the cursor row's current updated_at, which may have moved on since the
 * client saw it.
 */
export async function listInView<TB extends 'orders' | 'tickets', O>(
  db: Executor,
  table: TB,
  organizerId: string,
  query: SelectQueryBuilder<Database, TB, O>,
  page: PageRequest,
  view: ListView,
): Promise<Page<O>> {
  checkTimeRange('created', view.window.created_gte, view.window.created_lt);
  checkTimeRange('updated', view.window.updated_gte, view.window.updated_lt);
  const byUpdated = view.order === 'updated_asc';
  const timeFiltered = Object.values(view.window).some((value) => value !== undefined);
  const horizon =
    byUpdated || timeFiltered ? { at: await readSyncHorizon(db, view.now), cutUpdated: byUpdated } : undefined;
  const filtered = whereInWindow(query, table, view.window, horizon);
  if (!byUpdated)
    return keysetPage(db, filtered, page, { table, sortColumn: 'created_at', direction: 'desc', organizerId });
  return keysetPage(db, filtered, page, {
    table,
    sortColumn: 'updated_at',
    direction: 'asc',
    organizerId,
    ...(view.window.updated_gte === undefined ? {} : { cursorSortValue: view.window.updated_gte }),
  });
}
