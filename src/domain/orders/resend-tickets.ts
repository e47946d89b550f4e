/**
 * Resending an order's e-tickets (the dashboard's resendTickets; docs/dashboard.md,
 * "Resend e-tickets"): one more durable `etickets` mail job, to the buyer or to another
 * address, which the mail worker sends like the first. Only an order whose e-tickets are
 * valid: paid (not unpaid, not cancelled), with a purchased or checked-in ticket.
 */
import { findTicketsOfOrders } from '../../db/repositories/tickets.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict } from '../../errors/domain-error.ts';
import { enqueueEticketsResend } from '../../mail/jobs.ts';
import { lockOrderFor } from './operations.ts';

export async function resendTickets(
  db: Executor,
  id: string,
  input: { email?: string | undefined },
  now: Date,
  /** The dashboard's organizer: another organizer's order is not found. */
  organizerId?: string,
) {
  return withTransaction(db, async (trx) => {
    // The order's lock: a refund or cancel of this order runs before or after, not across.
    const order = await lockOrderFor(trx, id, organizerId);
    if (order.status === 'cancelled')
      throw conflict('invalid_state', `Order ${order.order_no} is cancelled; it has no e-tickets to send.`);
    if (order.status === 'unpaid')
      throw conflict('invalid_state', `Order ${order.order_no} is unpaid; its e-tickets are sent once it is settled.`);
    const tickets = await findTicketsOfOrders(trx, [order.id]);
    if (!tickets.some((t) => t.status === 'purchased' || t.status === 'checked_in'))
      throw conflict(
        'invalid_state',
        `Order ${order.order_no} has no valid tickets to send: each is refunded or cancelled.`,
      );
    return enqueueEticketsResend(trx, order, input.email?.trim(), now);
  });
}
