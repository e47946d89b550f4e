/**
 * SQL for inventory (the rules and why: docs/inventory.md). The counting query and the
 * sale's lock-recount-move are database functions (migrations/0006_inventory_functions.sql,
 * migrations/0014_sale_commits_at_the_lock.sql, and for several sales judged under one
 * lock migrations/0024_sales_judged_together.sql); these are their calls, the plain lock,
 * and the counter move of releases.
 */
import { sql } from 'kysely';
import { literal } from '../literals.ts';
import { PREPARED } from '../prepared.ts';
import { sendLast, type Executor } from '../transaction.ts';

/** One row of inventory_remaining(): a (performance, active price) with what remains of each. */
export interface InventoryCount {
  performance_id: string;
  performance_remaining: number;
  ticket_type_id: string | null;
  ticket_type_name: string | null;
  sort_order: number | null;
  type_remaining: number | null;
}

/** What a sale re-checks under the lock: the performance's sellability. */
export interface LockedPerformance {
  id: string;
  status: string;
  box_office_sales_enabled: boolean;
  event_status: string;
}

/** A row of take_inventory(): a locked performance, or a recount row with whether every counter moved. */
export type TakeInventoryRow =
  | { kind: 'locked'; performance_id: string; status: string; box_office_sales_enabled: boolean; event_status: string }
  | (InventoryCount & { kind: 'counted'; taken: boolean });

/**
 * inventory_remaining() for the performances, in display order. Types without an active
 * price on a performance are absent; holds count while not released and not expired at `now`.
 */
export async function selectRemaining(db: Executor, performanceIds: string[], now: Date): Promise<InventoryCount[]> {
  const result = await sql<InventoryCount>`${PREPARED}
    SELECT performance_id, performance_remaining, ticket_type_id, ticket_type_name, sort_order, type_remaining
    FROM inventory_remaining(${performanceIds}::uuid[], ${now}::timestamptz)
    ORDER BY performance_id, sort_order, ticket_type_id
  `.execute(db);
  return result.rows;
}

/**
 * Locks the performances `ids` (sorted by the caller: a fixed order, so concurrent
 * writers never deadlock) FOR NO KEY UPDATE, with what decides their sellability.
 *
 * FOR NO KEY UPDATE, the lock an UPDATE of sold_count takes anyway: it excludes every other
 * inventory writer (they all lock here) but not the FOR KEY SHARE locks that foreign keys
 * take. A sale inserts its tickets (which reference the performance) BEFORE it locks; with
 * FOR UPDATE, two sales would each wait for the other's key-share lock: a deadlock. The
 * performance's own columns are its latest committed version (the row lock re-reads it);
 * the event's status is as of the start of this statement.
 */
export async function lockPerformanceRows(trx: Executor, ids: string[]): Promise<LockedPerformance[]> {
  const result = await sql<LockedPerformance>`
    SELECT p.id, p.status, p.box_office_sales_enabled, e.status AS event_status
    FROM performances p
    JOIN events e ON e.id = p.event_id
    WHERE p.id = ANY(${ids}::uuid[])
    ORDER BY p.id
    FOR NO KEY UPDATE OF p
  `.execute(trx);
  return result.rows;
}

/** SQLSTATE of take_inventory_or_refuse()'s refusal (migrations/0014_sale_commits_at_the_lock.sql). */
const REFUSED_UNDER_THE_LOCK = 'MQ001';

/**
 * take_inventory_or_refuse() (migrations/0014_sale_commits_at_the_lock.sql), sent as the
 * transaction's last statement (sendLast: with the COMMIT behind it when the sale owns its
 * transaction). take_inventory() locks the performances in id order, recounts with
 * inventory_remaining() on a snapshot taken after the lock was granted, and in the same
 * statement moves the counters, each only within what the recount leaves and its CHECK
 * constraint; the function raises when a counter did not move or a locked performance is
 * no longer box-office sellable. Resolves to undefined once taken; to take_inventory()'s
 * rows when refused (the transaction is then aborted: the caller rolls back), from which
 * the caller words the refusal. With `onlyIf` (an SQL condition), the call runs only if
 * it holds when the statement runs, and else nothing is taken.
 * `perPerformance` and `perPrice` are the quantities per performance and per
 * (performance, ticket type), sorted.
 */
export async function takeInventoryOrRefuse(
  trx: Executor,
  perPerformance: Array<[string, number]>,
  perPrice: Array<[string, string, number]>,
  now: Date,
  onlyIf?: string,
): Promise<TakeInventoryRow[] | undefined> {
  const call = `SELECT take_inventory_or_refuse(
    ${literal(perPerformance.map(([id]) => id))}::uuid[], ${literal(perPerformance.map(([, q]) => q))}::int[],
    ${literal(perPrice.map(([p]) => p))}::uuid[], ${literal(perPrice.map(([, t]) => t))}::uuid[],
    ${literal(perPrice.map(([, , q]) => q))}::int[], ${literal(now)}::timestamptz)${onlyIf === undefined ? '' : ` WHERE ${onlyIf}`}`;
  return sendLastOrRefused<TakeInventoryRow[]>(trx, call, REFUSED_UNDER_THE_LOCK);
}

/**
 * Sends `call` as the transaction's last statement (sendLast); resolves to undefined once
 * it ran, or to the JSON its refusal (SQLSTATE `refusedCode`) carries in its DETAIL.
 */
async function sendLastOrRefused<T>(trx: Executor, call: string, refusedCode: string): Promise<T | undefined> {
  try {
    await sendLast(trx, call);
    return undefined;
  } catch (err) {
    const fields = err as { code?: unknown; detail?: unknown };
    if (fields.code !== refusedCode || typeof fields.detail !== 'string') throw err;
    return JSON.parse(fields.detail) as T;
  }
}

/**
 * A sale's verdict from take_inventory_for_sales() (migrations/0024_sales_judged_together.sql:
 * several sales' inventory under ONE lock, judged one after another in the order of `sale`,
 * 1-based, as if each had called take_inventory_or_refuse() alone in that order; the
 * counters move once, by the accepted sales' totals): `judged` is take_inventory()'s rows
 * at its turn when refused.
 */
export interface SaleVerdictRow {
  sale: number;
  accepted: boolean;
  judged: TakeInventoryRow[] | null;
}

/** SQLSTATE of take_inventory_for_sales_or_refuse()'s refusal (migrations/0024_sales_judged_together.sql). */
const A_SALE_OF_THE_BATCH_REFUSED = 'MQ002';

/**
 * take_inventory_for_sales_or_refuse() (migrations/0024_sales_judged_together.sql): as
 * take_inventory_for_sales(), sent as the transaction's last statement (sendLast: with the
 * COMMIT behind it when the caller's withTransaction or openTransaction opened it so).
 * Resolves to undefined when every sale was accepted; to every sale's row when any was
 * refused (the transaction is then aborted, the counters unmoved: the caller rolls back).
 */
export async function takeInventoryForSalesOrRefuse(
  trx: Executor,
  lines: Array<{ sale: number; performanceId: string; ticketTypeId: string; quantity: number }>,
  now: Date,
): Promise<SaleVerdictRow[] | undefined> {
  const call = `SELECT take_inventory_for_sales_or_refuse(
    ${literal(lines.map((l) => l.sale))}::int[], ${literal(lines.map((l) => l.performanceId))}::uuid[],
    ${literal(lines.map((l) => l.ticketTypeId))}::uuid[], ${literal(lines.map((l) => l.quantity))}::int[],
    ${literal(now)}::timestamptz)`;
  return sendLastOrRefused<SaleVerdictRow[]>(trx, call, A_SALE_OF_THE_BATCH_REFUSED);
}

/**
 * Adds the (signed) quantities to the performance and price counters in ONE statement.
 * The caller holds the performances' locks, so nothing else writes these rows meanwhile;
 * the CHECK constraints still refuse an oversell.
 */
export async function moveCounterRows(
  trx: Executor,
  perPerformance: Array<[string, number]>,
  perPrice: Array<[string, string, number]>,
): Promise<void> {
  await sql`
    WITH performance_counts AS (
      UPDATE performances p SET sold_count = p.sold_count + v.quantity
      FROM unnest(${perPerformance.map(([id]) => id)}::uuid[], ${perPerformance.map(([, q]) => q)}::int[]) AS v(id, quantity)
      WHERE p.id = v.id
    )
    UPDATE prices pr SET sold_count = pr.sold_count + v.quantity
    FROM unnest(${perPrice.map(([p]) => p)}::uuid[], ${perPrice.map(([, t]) => t)}::uuid[], ${perPrice.map(([, , q]) => q)}::int[])
      AS v(performance_id, ticket_type_id, quantity)
    WHERE pr.performance_id = v.performance_id AND pr.ticket_type_id = v.ticket_type_id
  `.execute(trx);
}
