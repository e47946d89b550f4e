/**
 * Inventory: what is left to sell, computed one way for everyone.
 *
 * remaining(performance) = capacity − sold − active holds        (never below 0)
 * remaining(type)        = min(remaining(performance),
 *                              cap − sold of the type − active holds of the type)
 *
 * `sold_count` counters live on the performance and price rows. The availability
 * endpoint reads them as an advisory snapshot; every sale, with or without an
 * Idempotency-Key, takes inventory one way (takeInventoryLast, one call of the database
 * function take_inventory_or_refuse()): it locks the same rows in a fixed order,
 * recounts with the very same query inside its transaction, and moves the counters only
 * if the recount shows that everything fits. Holds are created under the same
 * performance lock, so nothing changes the count between the recount and the move. The
 * CHECK constraints on both counters are the last line: an oversell cannot commit.
 * Who decides what: under the lock the database alone accepts or refuses (it moves a
 * counter only within what the recount leaves and refuses an unsellable performance),
 * and this module alone words a refusal, from the rows the database returned: the fit
 * rule (refuseIfShort) and the sale's sellability check (checkLocked) are the same
 * functions that refuse early, before a sale writes, on the unlocked counts of its
 * first read. A test holds the database's verdicts and the wording to the same rule.
 * Sales that commit together take inventory in one call (takeInventoryForSalesLast, the
 * database function take_inventory_for_sales_or_refuse()): one lock and one recount for
 * all, each sale judged in turn as if it ran alone in that order, each refusal worded as
 * a lone sale's would be.
 * docs/inventory.md explains the design.
 */
import {
  lockPerformanceRows,
  moveCounterRows,
  selectRemaining,
  takeInventoryForSalesOrRefuse,
  takeInventoryOrRefuse,
  type InventoryCount,
  type LockedPerformance,
  type TakeInventoryRow,
} from '../../db/repositories/inventory.ts';
import type { Executor } from '../../db/transaction.ts';
import { DomainError, invalid } from '../../errors/domain-error.ts';

interface TypeAvailability {
  ticket_type_id: string;
  ticket_type_name: string;
  remaining: number;
}

export interface Availability {
  performance_id: string;
  performance_remaining: number;
  ticket_types: TypeAvailability[];
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
 * What remains of one or more performances: the counting query is ONE piece of SQL, the
 * database function inventory_remaining() (src/db/repositories/inventory.ts). The
 * availability endpoint and hold creation run it on its own; a sale runs it inside
 * take_inventory_or_refuse(), under the lock.
 */
async function countRemaining(db: Executor, performanceIds: string[], now: Date): Promise<Map<string, Availability>> {
  return toAvailability(await selectRemaining(db, performanceIds, now));
}

/** Availability of one performance (an advisory snapshot), or undefined if it does not exist. */
export async function getAvailability(
  db: Executor,
  performanceId: string,
  now: Date,
): Promise<Availability | undefined> {
  return (await countRemaining(db, [performanceId], now)).get(performanceId);
}

export interface InventoryLine {
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

/**
 * Locks the performances (in id order, so concurrent sales never deadlock; FOR NO KEY
 * UPDATE, see lockPerformanceRows) that the caller is about to change the inventory of,
 * and returns them with what decides their sellability (no extra round trip for a caller
 * that re-checks it). Must run inside a transaction.
 */
export async function lockPerformances(trx: Executor, performanceIds: string[]): Promise<LockedPerformance[]> {
  return lockPerformanceRows(trx, [...new Set(performanceIds)].sort());
}

/**
 * Takes inventory for a sale, atomically and in ONE statement, the LAST of the sale's
 * transaction (sendLast: when the sale owns its transaction, the COMMIT travels in the
 * same message, so the lock every sale of the performance queues on is released inside
 * the database, never across a round trip to this process; docs/inventory.md, "The lock
 * is held inside the database"). The database function take_inventory_or_refuse() locks
 * the performances (in id order, FOR NO KEY UPDATE, as lockPerformances does), recounts
 * with inventory_remaining() in a statement whose snapshot is taken after the lock was
 * granted, and moves the counters in that same statement, each only within what the
 * recount leaves; it refuses (raises) when a counter could not move or a performance is
 * no longer box-office sellable. Only then is the refusal judged and worded here, from
 * the rows it returns: `checkLocked` on the locked performances (the sale re-checks
 * sellability with the rule it applied early; it throws to refuse), then refuseIfShort
 * (the fit rule, whose comparison the database's moves mirror), each a 400 naming what
 * failed. The caller's transaction then rolls back, the moved counters included.
 *
 * `onlyIf`, an SQL condition, lets a caller send this before it knows whether the rest of
 * its transaction went in: inventory is taken only if the condition holds then (a sale:
 * only if its order was written). Must run inside the sale's transaction; lines must
 * reference active prices.
 */
export async function takeInventoryLast(
  trx: Executor,
  lines: InventoryLine[],
  now: Date,
  opts: { checkLocked?: (locked: LockedPerformance[]) => void; onlyIf?: string } = {},
): Promise<void> {
  const { checkLocked, onlyIf } = opts;
  const { perPerformance, perPrice } = quantities(lines);
  const refused = await takeInventoryOrRefuse(trx, perPerformance, perPrice, now, onlyIf);
  if (refused === undefined) return;
  judgeRefusal(refused, lines, checkLocked);
  throw new Error('takeInventoryLast: the database refused a sale that fits its recount and is sellable');
}

/** A sale of a batch: its lines, and its sellability check under the lock (as takeInventoryLast's `checkLocked`). */
export interface SaleToJudge {
  lines: InventoryLine[];
  checkLocked?: (locked: LockedPerformance[]) => void;
}

/**
 * Several sales' inventory under one lock and one recount, as the LAST statement of the
 * caller's transaction, with the COMMIT behind it in the same message when the
 * transaction was opened to commit so (take_inventory_for_sales_or_refuse(), as
 * takeInventoryLast is for a lone sale): the lock is released inside the database. Each
 * sale is judged in turn, as if it had taken inventory alone in that order. Resolves to
 * undefined when every sale was accepted (and, so opened, committed); else to each sale's
 * outcome (refusalsOf), and the transaction is aborted with nothing taken: the caller
 * rolls back and writes the accepted sales again without the refused ones.
 */
export async function takeInventoryForSalesLast(
  trx: Executor,
  sales: SaleToJudge[],
  now: Date,
): Promise<Array<DomainError | undefined> | undefined> {
  const refused = await takeInventoryForSalesOrRefuse(trx, linesOfSales(sales), now);
  return refused === undefined ? undefined : refusalsOf(sales, refused);
}

/** The lines of every sale, each with its sale's 1-based index. */
export function linesOfSales(sales: SaleToJudge[]) {
  return sales.flatMap((s, index) => s.lines.map((line) => ({ ...line, sale: index + 1 })));
}

/** Per sale: undefined when the database accepted it, else its 400, worded from its rows. */
export function refusalsOf(
  sales: SaleToJudge[],
  rows: Array<{ sale: number; accepted: boolean; judged: TakeInventoryRow[] | null }>,
): Array<DomainError | undefined> {
  const verdicts = new Map(rows.map((row) => [row.sale, row]));
  return sales.map((s, index) => {
    const verdict = verdicts.get(index + 1);
    if (verdict === undefined) {
      if (s.lines.length === 0) return undefined;
      throw new Error(`take_inventory_for_sales: no verdict for sale ${index + 1}`);
    }
    if (verdict.accepted) return undefined;
    try {
      judgeRefusal(verdict.judged ?? [], s.lines, s.checkLocked);
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
    throw new Error('take_inventory_for_sales: the database refused a sale that fits its turn and is sellable');
  });
}

/** The quantities per performance and per (performance, ticket type), sorted. */
function quantities(lines: InventoryLine[]) {
  const perPerformance = [...totals(lines, (line) => line.performanceId)].sort();
  const perPrice = [...totals(lines, priceKey)]
    .sort()
    .map(([key, quantity]) => [...key.split('/'), quantity] as [string, string, number]);
  return { perPerformance, perPrice };
}

/** Words a refusal from take_inventory()'s rows: sellability under the lock, then the fit rule. */
function judgeRefusal(
  rows: TakeInventoryRow[],
  lines: InventoryLine[],
  checkLocked?: (locked: LockedPerformance[]) => void,
): void {
  const locked: LockedPerformance[] = [];
  const counted: InventoryCount[] = [];
  let taken = false;
  for (const row of rows) {
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
  // A counter could not move although the recount allows the sale: the counters and the
  // recount disagree, which only a bug (or a change made around the lock) can cause.
  if (!taken) throw new Error('takeInventoryLast: every line fits the recount, but a counter could not move');
}

/**
 * THE fit rule, in one place: refuses (400, naming the ticket type and what remains) lines
 * that do not fit the counts of inventory_remaining(). A sale applies it twice to the same
 * kind of numbers: early, to the unlocked counts its step-1 read carries (a refusal there
 * is correct as of that read and writes nothing), and under the lock, to the recount of
 * take_inventory_or_refuse(), which alone may accept. So both refusals have exactly the same detail.
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

/** Returns seats of refunded or cancelled tickets to availability. */
export async function releaseInventory(trx: Executor, lines: InventoryLine[]): Promise<void> {
  await lockPerformances(
    trx,
    lines.map((line) => line.performanceId),
  );
  await moveCounters(trx, lines, -1);
}

/** Moves the performance and price counters of the lines by `sign` × their quantities (one statement). */
async function moveCounters(trx: Executor, lines: InventoryLine[], sign: 1 | -1): Promise<void> {
  const perPerformance = [...totals(lines, (line) => line.performanceId)]
    .sort()
    .map(([id, quantity]) => [id, sign * quantity] as [string, number]);
  const perPrice = [...totals(lines, priceKey)]
    .sort()
    .map(([key, quantity]) => [...key.split('/'), sign * quantity] as [string, string, number]);
  await moveCounterRows(trx, perPerformance, perPrice);
}
