/**
 * Inventory: what is left to sell, computed one way for everyone.
 *
 * remaining(performance) = capacity − sold − active holds        (never below 0)
 * remaining(type)        = min(remaining(performance),
 *                              cap − sold of the type − active holds of the type)
 *
 * `sold_count` counters live on the performance and price rows. The availability
 * endpoint reads them as an advisory snapshot; a sale (takeInventory) locks the same
 * rows in a fixed order, recounts with the very same query inside its transaction,
 * and only then moves the counters. Holds are created under the same performance lock,
 * so nothing changes the count between the recount and the update. The CHECK
 * constraints on both counters are the last line: an oversell cannot commit.
 * docs/inventory.md explains the design.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import { badRequest } from '../../http/errors.ts';

export interface TypeAvailability {
  ticket_type_id: string;
  ticket_type_name: string;
  remaining: number;
}

export interface Availability {
  performance_id: string;
  performance_remaining: number;
  ticket_types: TypeAvailability[];
}

interface AvailabilityRow {
  performance_id: string;
  performance_remaining: number;
  ticket_type_id: string | null;
  ticket_type_name: string | null;
  sort_order: number | null;
  type_remaining: number | null;
}

/**
 * The counting query, for one or more performances. Types without an active price on a
 * performance are absent. Holds are active while not released and not expired at `now`.
 */
async function countRemaining(db: Executor, performanceIds: string[], now: Date): Promise<Map<string, Availability>> {
  const result = await sql<AvailabilityRow>`
    WITH active_holds AS (
      SELECT performance_id, ticket_type_id, sum(quantity)::int AS quantity
      FROM holds
      WHERE performance_id = ANY(${performanceIds}::uuid[])
        AND released_at IS NULL
        AND (expires_at IS NULL OR expires_at > ${now})
      GROUP BY performance_id, ticket_type_id
    ),
    perf AS (
      SELECT p.id,
             greatest(p.capacity - p.sold_count
                      - coalesce((SELECT sum(h.quantity) FROM active_holds h WHERE h.performance_id = p.id), 0), 0)::int AS remaining
      FROM performances p
      WHERE p.id = ANY(${performanceIds}::uuid[])
    )
    SELECT perf.id AS performance_id,
           perf.remaining AS performance_remaining,
           tt.id AS ticket_type_id,
           tt.name AS ticket_type_name,
           tt.sort_order,
           CASE WHEN pr.id IS NULL THEN NULL
                WHEN pr.limited_quantity IS NULL THEN perf.remaining
                ELSE greatest(least(perf.remaining,
                       pr.limited_quantity - pr.sold_count
                       - coalesce((SELECT h.quantity FROM active_holds h
                                   WHERE h.performance_id = perf.id AND h.ticket_type_id = pr.ticket_type_id), 0)), 0)
           END::int AS type_remaining
    FROM perf
    LEFT JOIN prices pr ON pr.performance_id = perf.id AND pr.is_active
    LEFT JOIN ticket_types tt ON tt.id = pr.ticket_type_id
    ORDER BY perf.id, tt.sort_order, tt.id
  `.execute(db);

  const byPerformance = new Map<string, Availability>();
  for (const row of result.rows) {
    let availability = byPerformance.get(row.performance_id);
    if (!availability) {
      availability = { performance_id: row.performance_id, performance_remaining: row.performance_remaining, ticket_types: [] };
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

/** Availability of one performance (an advisory snapshot), or undefined if it does not exist. */
export async function getAvailability(db: Executor, performanceId: string, now: Date): Promise<Availability | undefined> {
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
 * Locks the performances (in id order, so concurrent sales never deadlock) that the
 * caller is about to change the inventory of. Must run inside a transaction.
 */
export async function lockPerformances(trx: Executor, performanceIds: string[]): Promise<void> {
  const ids = [...new Set(performanceIds)].sort();
  await sql`SELECT id FROM performances WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE`.execute(trx);
}

/**
 * Takes inventory for a sale, atomically: lock, recount with the availability query,
 * refuse with a 400 naming the ticket type and what remains, then move the counters.
 * Must run inside the sale's transaction. Lines must reference active prices.
 */
export async function takeInventory(trx: Executor, lines: InventoryLine[], now: Date): Promise<void> {
  const performanceIds = [...new Set(lines.map((line) => line.performanceId))];
  await lockPerformances(trx, performanceIds);
  const available = await countRemaining(trx, performanceIds, now);

  const perType = totals(lines, priceKey);
  for (const [key, quantity] of perType) {
    const [performanceId, ticketTypeId] = key.split('/') as [string, string];
    const type = available.get(performanceId)?.ticket_types.find((t) => t.ticket_type_id === ticketTypeId);
    if (!type) throw badRequest(`Ticket type ${ticketTypeId} is not on sale for performance ${performanceId}.`);
    if (quantity > type.remaining) {
      throw badRequest(
        `Not enough tickets left: ${quantity} "${type.ticket_type_name}" requested, ${type.remaining} remaining for this performance.`,
      );
    }
  }
  // Several types may each fit while their sum exceeds the performance's capacity.
  for (const [performanceId, quantity] of totals(lines, (line) => line.performanceId)) {
    const remaining = available.get(performanceId)?.performance_remaining ?? 0;
    if (quantity > remaining) {
      const names = available.get(performanceId)?.ticket_types.filter((t) => perType.has(`${performanceId}/${t.ticket_type_id}`)).map((t) => `"${t.ticket_type_name}"`) ?? [];
      throw badRequest(`Not enough tickets left: ${quantity} tickets of ${names.join(', ')} requested, ${remaining} remaining for this performance.`);
    }
  }

  await moveCounters(trx, lines, +1);
}

/** Returns seats of refunded or cancelled tickets to availability. */
export async function releaseInventory(trx: Executor, lines: InventoryLine[]): Promise<void> {
  await lockPerformances(trx, lines.map((line) => line.performanceId));
  await moveCounters(trx, lines, -1);
}

async function moveCounters(trx: Executor, lines: InventoryLine[], sign: 1 | -1): Promise<void> {
  for (const [performanceId, quantity] of [...totals(lines, (line) => line.performanceId)].sort()) {
    await trx.updateTable('performances')
      .set((eb) => ({ sold_count: eb('sold_count', '+', sign * quantity) }))
      .where('id', '=', performanceId)
      .execute();
  }
  for (const [key, quantity] of [...totals(lines, priceKey)].sort()) {
    const [performanceId, ticketTypeId] = key.split('/') as [string, string];
    await trx.updateTable('prices')
      .set((eb) => ({ sold_count: eb('sold_count', '+', sign * quantity) }))
      .where('performance_id', '=', performanceId)
      .where('ticket_type_id', '=', ticketTypeId)
      .execute();
  }
}
