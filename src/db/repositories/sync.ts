/**
 * SQL of incremental sync (docs/sync.md): the time filters of the orders and tickets lists
 * and the horizon that makes polling by updated_at miss nothing
 * (migrations/0013_sync_horizon.sql).
 */
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { Database } from '../schema.ts';

/** The time filters of a list: `_gte` inclusive, `_lt` exclusive. */
export interface TimeWindow {
  created_gte?: Date;
  created_lt?: Date;
  updated_gte?: Date;
  updated_lt?: Date;
}

/**
 * The horizon of a list read now: the least of `now` (the caller's clock) and the stamps
 * registered by transactions still open; it also raises the floor that later stamps are
 * kept above. A statement of its own, run BEFORE the list query, so the list's snapshot
 * is taken after the registrations were read; never inside a transaction whose snapshot
 * is older (the lists run outside transactions).
 */
export async function readSyncHorizon(db: Executor, now: Date): Promise<Date> {
  const result = await sql<{ horizon: Date }>`SELECT sync_horizon(${now}::timestamptz) AS horizon`.execute(db);
  return new Date(result.rows[0]!.horizon);
}

/**
 * Adds the window's filters on `table`, and, with a horizon, keeps only rows stamped before
 * it: on created_at when the window filters on it, on updated_at when the window filters
 * on it or `cutUpdated` (a list ordered by updated_at).
 */
export function whereInWindow<TB extends 'orders' | 'tickets', O>(
  query: SelectQueryBuilder<Database, TB, O>,
  table: TB,
  window: TimeWindow,
  horizon: { at: Date; cutUpdated: boolean } | undefined,
): SelectQueryBuilder<Database, TB, O> {
  const created = sql.ref(`${table}.created_at`);
  const updated = sql.ref(`${table}.updated_at`);
  let q = query;
  const add = (condition: ReturnType<typeof sql<boolean>>) => {
    q = q.where(condition as never);
  };
  if (window.created_gte !== undefined) add(sql<boolean>`${created} >= ${window.created_gte}`);
  if (window.created_lt !== undefined) add(sql<boolean>`${created} < ${window.created_lt}`);
  if (window.updated_gte !== undefined) add(sql<boolean>`${updated} >= ${window.updated_gte}`);
  if (window.updated_lt !== undefined) add(sql<boolean>`${updated} < ${window.updated_lt}`);
  if (horizon !== undefined) {
    if (window.created_gte !== undefined || window.created_lt !== undefined)
      add(sql<boolean>`${created} < ${horizon.at}`);
    if (horizon.cutUpdated || window.updated_gte !== undefined || window.updated_lt !== undefined)
      add(sql<boolean>`${updated} < ${horizon.at}`);
  }
  return q;
}
