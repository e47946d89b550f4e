/**
 * Holds (admin API and the dashboard, which passes its organizer: another organizer's
 * performance or hold is not found): a storefront cart hold expires (default 15
 * minutes), an organizer's hold allocation does not; both reduce availability while active. A hold is created
 * under the same performance lock a sale takes (lockPerformances), after the same count
 * (getAvailability), so holds and sales serialize and neither can oversell the other.
 */
import { findPerformanceAny, holdsQuery, insertHold, releaseHoldRow } from '../../db/repositories/catalog.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid, notFound } from '../../errors/domain-error.ts';
import { getAvailability, lockPerformances } from '../inventory/inventory.ts';

const CART_HOLD_TTL_MS = 15 * 60 * 1000;

interface CreateHoldInput {
  kind: 'cart' | 'allocation';
  quantity: number;
  ticket_type_id?: string | null;
  expires_at?: string | null;
}

export async function createHold(
  db: Executor,
  performanceId: string,
  input: CreateHoldInput,
  now: Date,
  /** The dashboard's organizer: another organizer's performance is not found. The admin API passes none. */
  organizerId?: string,
) {
  let expiresAt: Date | null = null;
  if (input.kind === 'allocation') {
    if (input.expires_at != null)
      throw invalid(
        'parameter_invalid',
        '`expires_at` is for cart holds only; a hold allocation does not expire.',
        'expires_at',
      );
  } else {
    expiresAt = input.expires_at == null ? new Date(now.getTime() + CART_HOLD_TTL_MS) : new Date(input.expires_at);
    if (expiresAt.getTime() <= now.getTime())
      throw invalid('parameter_invalid', '`expires_at` must be in the future.', 'expires_at');
  }
  const ticketTypeId = input.ticket_type_id ?? null;

  return withTransaction(db, async (trx) => {
    const performance = await findPerformanceAny(trx, performanceId);
    if (!performance || (organizerId !== undefined && performance.organizer_id !== organizerId))
      throw notFound('Performance');
    await lockPerformances(trx, [performanceId]);
    const available = (await getAvailability(trx, performanceId, now))!;

    let remaining = available.performance_remaining;
    const plural = input.quantity === 1 ? '' : 's';
    let what = `seat${plural}`;
    if (ticketTypeId !== null) {
      const type = available.ticket_types.find((t) => t.ticket_type_id === ticketTypeId);
      if (!type)
        throw invalid(
          'not_on_sale',
          `Ticket type ${ticketTypeId} has no active price on performance ${performanceId}.`,
        );
      remaining = type.remaining;
      what = `"${type.ticket_type_name}" ticket${plural}`;
    }
    if (input.quantity > remaining) {
      throw invalid(
        'insufficient_inventory',
        `Cannot hold ${input.quantity} ${what}: ${remaining} remaining for this performance.`,
      );
    }
    const row = await insertHold(trx, {
      organizer_id: performance.organizer_id,
      performance_id: performanceId,
      ticket_type_id: ticketTypeId,
      kind: input.kind,
      quantity: input.quantity,
      expires_at: expiresAt,
      created_at: now,
    });
    return row;
  });
}

/** Releases a hold; releasing it again answers the same hold (first released_at kept). */
export async function releaseHold(
  db: Executor,
  id: string,
  now: Date,
  /** The dashboard's organizer: another organizer's hold is not found. The admin API passes none. */
  organizerId?: string,
) {
  const row = await releaseHoldRow(db, id, now, organizerId);
  if (!row) throw notFound('Hold');
  return row;
}

/**
 * The holds of a performance, newest first: those still holding seats at `now` (not
 * released, a cart hold not expired), or with `includeReleased` every hold. An unknown
 * performance, or with an organizer another organizer's, is not found.
 */
export async function listHolds(
  db: Executor,
  performanceId: string,
  page: PageRequest,
  opts: { includeReleased: boolean; now: Date; organizerId?: string | undefined },
) {
  const performance = await findPerformanceAny(db, performanceId);
  if (!performance || (opts.organizerId !== undefined && performance.organizer_id !== opts.organizerId))
    throw notFound('Performance');
  return keysetPage(db, holdsQuery(db, performanceId, opts.includeReleased ? undefined : opts.now), page, {
    table: 'holds',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId: performance.organizer_id,
    parent: { column: 'performance_id', id: performanceId },
  });
}
