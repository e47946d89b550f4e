/**
 * Inventory: what is left to sell, computed one way for everyone.
 *
 * remaining(performance) = capacity − sold − active holds        (never below 0)
 * remaining(type)        = min(remaining(performance),
 *                              cap − sold of the type − active holds of the type)
 *
 * `sold_count` counters live on the performance and price rows. The availability
 * endpoint reads them as an advisory snapshot; a sale (takeInventory, one call of the
 * database function take_inventory()) locks the same rows in a fixed order, recounts
 * with the very same query inside its transaction, and moves the counters only if
 * everything fits (recount and move are one statement). Holds are created under the same
 * performance lock, so nothing changes the count between the recount and the update. The
 * CHECK constraints on both counters are the last line: an oversell cannot commit.
 * One fit rule (refuseIfShort) judges counts both before a sale writes (an early,
 * unlocked refusal) and under the lock (the only place a sale is accepted).
 * docs/inventory.md explains the design.
 */
import { sql } from 'kysely';
import { PREPARED } from '../../db/prepared.ts';
import type { Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';

interface TypeAvailability {
  ticket_type_id: string;
  ticket_type_name: string;
  remaining: number;
}

interface Availability {
  performance_id: string;
  performance_remaining: number;
  ticket_types: TypeAvailability[];
}

/** One row of inventory_remaining(): a (performance, active price) with what remains of each. */
interface InventoryCount {
  performance_id: string;
  performance_remaining: number;
  ticket_type_id: string | null;
  ticket_type_name: string | null;
  sort_order: number | null;
  type_remaining: number | null;
}

function toAvailability(rows: InventoryCount[]): Map<string, Availability> {
  const byPerformance = new Map<string, Availability>();
  for (const row of rows) {
    let availability = byPerformance.get(row.performance_id);
    if (!availability) {
      availability = {
        performance_id: row.performance_id,
        performance_remaining: row.performance_remaining,
        ticket_types: [],
      };
      byPerformance.set(row.performance_id, availability);
    }
    if (row.ticket_type_id !== null && row.type_remaining !== null) {
      availability.ticket_types.push({
        ticket_type_id: row.ticket_type_id,
        ticket_type_name: row.ticket_type_name ?? '',
        remaining: row.type_remaining,
      });
    }
  }
  return byPerformance;
}

/**
 * The counting query, for one or more performances, is ONE piece of SQL: the database
 * function inventory_remaining() (migrations/0006_inventory_functions.sql). The
 * availability endpoint and hold creation run it on its own; a sale runs it inside
 * take_inventory(), under the lock. Types without an active price on a performance are
 * absent. Holds are active while not released and not expired at `now`.
 */
async function countRemaining(db: Executor, performanceIds: string[], now: Date): Promise<Map<string, Availability>> {
  const result = await sql<InventoryCount>`${PREPARED}
    SELECT performance_id, performance_remaining, ticket_type_id, ticket_type_name, sort_order, type_remaining
    FROM inventory_remaining(${performanceIds}::uuid[], ${now}::timestamptz)
    ORDER BY performance_id, sort_order, ticket_type_id
  `.execute(db);
  return toAvailability(result.rows);
}

/** Availability of one performance (an advisory snapshot), or undefined if it does not exist. */
export async function getAvailability(
  db: Executor,
  performanceId: string,
  now: Date,
): Promise<Availability | undefined> {
  return (await countRemaining(db, [performanceId], now)).get(performanceId);
}

interface InventoryLine {
  performanceId: string;
  ticketTypeId: string;
  quantity: number;
}

/** Sums the quantity of lines per key. */
function totals(lines: InventoryLine[], key: (line: InventoryLine) => string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of lines) sums.set(key(line), (sums.get(key(line)) ?? 0) + line.quantity);
  return sums;
}

const priceKey = (line: InventoryLine) => `${line.performanceId}/${line.ticketTypeId}`;

/** What a sale re-checks under the lock: the performance's sellability. */
interface LockedPerformance {
  id: string;
  status: string;
  box_office_sales_enabled: boolean;
  event_status: string;
}

/**
 * Locks the performances (in id order, so concurrent sales never deadlock) that the
 * caller is about to change the inventory of, and returns them with what decides their
 * sellability (no extra round trip for a caller that re-checks it).
 *
 * FOR NO KEY UPDATE, the lock an UPDATE of sold_count takes anyway: it excludes every other
 * inventory writer (they all lock here) but not the FOR KEY SHARE locks that foreign keys
 * take. A sale inserts its tickets (which reference the performance) BEFORE it locks; with
 * FOR UPDATE, two sales would each wait for the other's key-share lock: a deadlock. The performance's own
 * columns are its latest committed version (the row lock re-reads it); the event's status
 * is as of the start of this statement. Must run inside a transaction.
 */
export async function lockPerformances(trx: Executor, performanceIds: string[]): Promise<LockedPerformance[]> {
  const ids = [...new Set(performanceIds)].sort();
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

/**
 * Takes inventory for a sale, atomically and in ONE round trip: the database function
 * take_inventory() (migrations/0006_inventory_functions.sql) locks the performances (in id
 * order, FOR NO KEY UPDATE, as lockPerformances does), then, in its own statement whose
 * snapshot is taken after the lock was granted, recounts with inventory_remaining() and
 * moves the counters only if every line fits. It returns the locked performances'
 * sellability and the counts; here refuseIfShort (the fit rule) judges those counts to refuse
 * with a 400 naming the ticket type and what remains (the caller's transaction then rolls
 * back, counters included). Must run inside the sale's transaction. Lines must reference
 * active prices.
 *
 * `checkLocked` runs on the locked rows before the counts are judged (the sale re-checks
 * that each performance is still sellable; it throws to refuse). Callers should make this
 * the LAST work of their transaction, right before COMMIT: the row lock is held until
 * then, and every sale of the performance waits for it (docs/inventory.md).
 */
export async function takeInventory(
  trx: Executor,
  lines: InventoryLine[],
  now: Date,
  checkLocked?: (locked: LockedPerformance[]) => void,
): Promise<void> {
  const perPerformance = [...totals(lines, (line) => line.performanceId)].sort();
  const perPrice = [...totals(lines, priceKey)]
    .sort()
    .map(([key, quantity]) => [...key.split('/'), quantity] as [string, string, number]);
  const result = await sql<TakeInventoryRow>`${PREPARED}
    SELECT kind, performance_id, status, box_office_sales_enabled, event_status,
           performance_remaining, ticket_type_id, ticket_type_name, sort_order, type_remaining, taken
    FROM take_inventory(${perPerformance.map(([id]) => id)}::uuid[], ${perPerformance.map(([, q]) => q)}::int[],
                        ${perPrice.map(([p]) => p)}::uuid[], ${perPrice.map(([, t]) => t)}::uuid[], ${perPrice.map(([, , q]) => q)}::int[],
                        ${now}::timestamptz)
    ORDER BY kind, performance_id, sort_order, ticket_type_id
  `.execute(trx);
  const locked: LockedPerformance[] = [];
  const counted: InventoryCount[] = [];
  let taken = false;
  for (const row of result.rows) {
    if (row.kind === 'locked') {
      locked.push({
        id: row.performance_id,
        status: row.status,
        box_office_sales_enabled: row.box_office_sales_enabled,
        event_status: row.event_status,
      });
    } else {
      counted.push(row);
      taken = row.taken;
    }
  }
  checkLocked?.(locked);
  refuseIfShort(lines, counted);
  // The function applied the same test to the same numbers; disagreeing would be a bug.
  if (!taken) throw new Error('takeInventory: every line fits the recount, but the counters were not moved');
}

/**
 * THE fit rule, in one place: refuses (400, naming the ticket type and what remains) lines
 * that do not fit the counts of inventory_remaining(). A sale applies it twice to the same
 * kind of numbers: early, to the unlocked counts its step-1 read carries (a refusal there
 * is correct as of that read and writes nothing), and under the lock, to the recount of
 * take_inventory(), which alone may accept. So both refusals have exactly the same detail.
 * The counts are put in the order the availability endpoint shows them first, since the
 * detail of a performance-wide refusal lists the requested types in that order.
 */
export function refuseIfShort(lines: InventoryLine[], counts: InventoryCount[]): void {
  const available = toAvailability([...counts].sort(byDisplayOrder));
  const perType = totals(lines, priceKey);
  for (const [key, quantity] of perType) {
    const [performanceId, ticketTypeId] = key.split('/') as [string, string];
    const type = available.get(performanceId)?.ticket_types.find((t) => t.ticket_type_id === ticketTypeId);
    if (!type)
      throw invalid('not_on_sale', `Ticket type ${ticketTypeId} is not on sale for performance ${performanceId}.`);
    if (quantity > type.remaining) {
      throw invalid(
        'insufficient_inventory',
        `Not enough tickets left: ${quantity} "${type.ticket_type_name}" requested, ${type.remaining} remaining for this performance.`,
      );
    }
  }
  // Several types may each fit while their sum exceeds the performance's capacity.
  for (const [performanceId, quantity] of totals(lines, (line) => line.performanceId)) {
    const remaining = available.get(performanceId)?.performance_remaining ?? 0;
    if (quantity > remaining) {
      const names =
        available
          .get(performanceId)
          ?.ticket_types.filter((t) => perType.has(`${performanceId}/${t.ticket_type_id}`))
          .map((t) => `"${t.ticket_type_name}"`) ?? [];
      throw invalid(
        'insufficient_inventory',
        `Not enough tickets left: ${quantity} tickets of ${names.join(', ')} requested, ${remaining} remaining for this performance.`,
      );
    }
  }
}

/** The SQL order `performance_id, sort_order, ticket_type_id` (uuids compare as their lower-case text; nulls last). */
function byDisplayOrder(a: InventoryCount, b: InventoryCount): number {
  const text = (x: string | null, y: string | null) =>
    x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
  return (
    text(a.performance_id, b.performance_id) ||
    (a.sort_order ?? Infinity) - (b.sort_order ?? Infinity) || // NaN (both null) falls through too
    text(a.ticket_type_id, b.ticket_type_id)
  );
}

/** A row of take_inventory(): a locked performance, or a recount row with whether the counters moved. */
type TakeInventoryRow =
  | { kind: 'locked'; performance_id: string; status: string; box_office_sales_enabled: boolean; event_status: string }
  | (InventoryCount & { kind: 'counted'; taken: boolean });

/** Returns seats of refunded or cancelled tickets to availability. */
export async function releaseInventory(trx: Executor, lines: InventoryLine[]): Promise<void> {
  await lockPerformances(
    trx,
    lines.map((line) => line.performanceId),
  );
  await moveCounters(trx, lines, -1);
}

/**
 * Moves the performance and price counters of the lines in ONE statement (a round trip
 * less under the lock). The caller holds the performances' locks, so nothing else writes
 * these rows meanwhile; the CHECK constraints still refuse an oversell.
 */
async function moveCounters(trx: Executor, lines: InventoryLine[], sign: 1 | -1): Promise<void> {
  const perPerformance = [...totals(lines, (line) => line.performanceId)].sort();
  const perPrice = [...totals(lines, priceKey)]
    .sort()
    .map(([key, quantity]) => [...key.split('/'), quantity] as [string, string, number]);
  await sql`
    WITH performance_counts AS (
      UPDATE performances p SET sold_count = p.sold_count + v.quantity
      FROM unnest(${perPerformance.map(([id]) => id)}::uuid[], ${perPerformance.map(([, q]) => sign * q)}::int[]) AS v(id, quantity)
      WHERE p.id = v.id
    )
    UPDATE prices pr SET sold_count = pr.sold_count + v.quantity
    FROM unnest(${perPrice.map(([p]) => p)}::uuid[], ${perPrice.map(([, t]) => t)}::uuid[], ${perPrice.map(([, , q]) => sign * q)}::int[])
      AS v(performance_id, ticket_type_id, quantity)
    WHERE pr.performance_id = v.performance_id AND pr.ticket_type_id = v.ticket_type_id
  `.execute(trx);
}
