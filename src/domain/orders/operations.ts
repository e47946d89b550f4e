/**
 * State changes of an order after the sale (admin API, docs/orders.md):
 * settle (unpaid → placed, `order.paid`), refund (tickets → refunded, seats back,
 * `order.refunded`), refund settlement (pending → refunded|failed, the small
 * `order.refunded`), cancel (order and its purchased tickets → cancelled, seats back).
 * Each locks the order row first, so two operations on one order run one after the other.
 */
import {
  findOrderOrganizer,
  insertPayment,
  insertRefund,
  lockOrder,
  lockRefund,
  settleRefundRow,
  touchOrder,
  updateOrderStatus,
  type OrderRow,
} from '../../db/repositories/orders.ts';
import {
  findCheckedInTicketNos,
  findRefundedTicketIds,
  findTicketsOfOrders,
  releaseTickets,
  type TicketRow,
  touchTicketsOfOrder,
} from '../../db/repositories/tickets.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { emitDomainEvent } from '../../outbox/domain-events.ts';
import { releaseInventory } from '../inventory/inventory.ts';
import { enqueueOrderEmails } from '../../mail/jobs.ts';
import { loadOrderDetail, type RefundResult } from './detail.ts';

/** REST tender names → the internal vocabulary of payments and `order.paid`. */
const TENDER = { cash: 'cash', card: 'card', bank_transfer: 'bankTransfer' } as const;
type SettleTender = keyof typeof TENDER;

async function lockOrderById(trx: Executor, id: string): Promise<OrderRow> {
  const organizerId = await findOrderOrganizer(trx, id);
  const order = organizerId === undefined ? undefined : await lockOrder(trx, organizerId, id);
  if (!order) throw notFound('Order');
  return order;
}

/** The order, locked for a change; with an organizer (the dashboard), only one of its orders. */
export async function lockOrderFor(trx: Executor, id: string, organizerId: string | undefined) {
  const order = await lockOrderById(trx, id);
  if (organizerId !== undefined && order.organizer_id !== organizerId) throw notFound('Order');
  return order;
}

export async function settleOrder(
  db: Executor,
  id: string,
  tender: SettleTender,
  now: Date,
  /** The dashboard's organizer: another organizer's order is not found. The admin API passes none. */
  organizerId?: string,
) {
  return withTransaction(db, async (trx) => {
    const order = await lockOrderFor(trx, id, organizerId);
    if (order.status !== 'unpaid')
      throw conflict(
        'invalid_state',
        `Order ${order.order_no} is ${order.status}; only an unpaid order can be settled.`,
      );
    const updated = await updateOrderStatus(trx, order.id, { status: 'placed', paid_at: now, updated_at: now });
    // Paid now: the doors' copies of its tickets must learn it (docs/door.md, "The local copy").
    await touchTicketsOfOrder(trx, order.id, now);
    await insertPayment(trx, {
      organizer_id: order.organizer_id,
      order_id: order.id,
      tender: TENDER[tender],
      amount_minor: order.total_minor,
      currency: order.currency,
      created_at: now,
    });
    await emitDomainEvent(trx, {
      organizerId: order.organizer_id,
      type: 'order.paid',
      data: {
        order_id: order.id,
        order_no: order.order_no,
        status: updated.status,
        amount_minor: order.total_minor,
        total_minor: order.total_minor,
        currency: order.currency,
        tender: TENDER[tender],
      },
      at: now,
    });
    // A pay-later buyer gets the e-tickets once the order is paid.
    await enqueueOrderEmails(trx, updated, ['etickets'], now);
    return loadOrderDetail(trx, updated, { items: false });
  });
}

function inventoryLines(tickets: TicketRow[]) {
  return tickets.map((t) => ({ performanceId: t.performance_id, ticketTypeId: t.ticket_type_id, quantity: 1 }));
}

/**
 * The tickets a refund takes: the listed ones, each a purchased ticket of the order (400
 * for a stranger or a duplicate, 409 for one no longer purchased), or by default every
 * purchased ticket (409 when there is none).
 */
function refundableTickets(order: OrderRow, tickets: TicketRow[], ticketIds: string[] | undefined): TicketRow[] {
  if (!ticketIds) {
    const purchased = tickets.filter((t) => t.status === 'purchased');
    if (purchased.length === 0)
      throw conflict(
        'invalid_state',
        `Order ${order.order_no} has no refundable tickets: each is checked in, refunded or cancelled.`,
      );
    return purchased;
  }
  if (new Set(ticketIds).size !== ticketIds.length)
    throw invalid('parameter_invalid', '`ticket_ids` lists a ticket twice.', 'ticket_ids');
  return ticketIds.map((ticketId) => {
    const ticket = tickets.find((t) => t.id === ticketId);
    if (!ticket)
      throw invalid(
        'parameter_invalid',
        `\`ticket_ids\`: ${ticketId} is not a ticket of order ${order.order_no}.`,
        'ticket_ids',
      );
    if (ticket.status !== 'purchased')
      throw conflict(
        'invalid_state',
        `Ticket ${ticket.ticket_no} is ${ticket.status.replace('_', ' ')} and cannot be refunded.`,
        'ticket_ids',
      );
    return ticket;
  });
}

/** The wanted tickets become refunded, in position order; 409 if one changed state meanwhile. */
async function markRefunded(trx: Executor, orderId: string, wanted: TicketRow[], refundId: string, now: Date) {
  // Conditional on `purchased`: a check-in that committed meanwhile leaves its ticket out.
  const moved = await releaseTickets(
    trx,
    orderId,
    wanted.map((t) => t.id),
    { status: 'refunded', refund_id: refundId, updated_at: now },
  );
  if (moved.length !== wanted.length)
    throw conflict(
      'concurrent_modification',
      'A ticket of this refund changed state meanwhile (e.g. was checked in); review the order and retry.',
    );
  return moved.sort((a, b) => a.position - b.position);
}

export async function refundOrder(
  db: Executor,
  id: string,
  input: { ticket_ids?: string[]; mode: 'cash' | 'card' },
  now: Date,
  /** The dashboard's organizer: another organizer's order is not found. The admin API passes none. */
  organizerId?: string,
) {
  return withTransaction(db, async (trx) => {
    const order = await lockOrderFor(trx, id, organizerId);
    if (order.status === 'cancelled')
      throw conflict('invalid_state', `Order ${order.order_no} is cancelled; there is nothing to refund.`);
    if (order.status === 'unpaid')
      throw conflict(
        'invalid_state',
        `Order ${order.order_no} is unpaid, so no money can be refunded; cancel it instead.`,
      );
    const wanted = refundableTickets(order, await findTicketsOfOrders(trx, [order.id]), input.ticket_ids);
    const amount = wanted.reduce((sum, t) => sum + t.total_minor, 0);
    const status = input.mode === 'cash' ? 'refunded' : 'pending';
    const refund = await insertRefund(trx, {
      organizer_id: order.organizer_id,
      order_id: order.id,
      mode: input.mode,
      status,
      amount_minor: amount,
      currency: order.currency,
      ticket_count: wanted.length,
      settled_at: status === 'refunded' ? now : null,
      created_at: now,
      updated_at: now,
    });
    const moved = await markRefunded(trx, order.id, wanted, refund.id, now);
    await releaseInventory(trx, inventoryLines(moved));
    await touchOrder(trx, order.id, now);
    await emitDomainEvent(trx, {
      organizerId: order.organizer_id,
      type: 'order.refunded',
      data: {
        order_id: order.id,
        refund_id: refund.id,
        status,
        refunded_items: moved.length,
        total_refunded_minor: amount,
        currency: order.currency,
        mode: input.mode,
      },
      at: now,
    });
    const result: RefundResult = { refund, ticketIds: moved.map((t) => t.id) };
    return result;
  });
}

export async function settleRefund(
  db: Executor,
  id: string,
  status: 'refunded' | 'failed',
  now: Date,
  /** The dashboard's organizer: another organizer's refund is not found. The admin API passes none. */
  organizerId?: string,
) {
  return withTransaction(db, async (trx) => {
    const refund = await lockRefund(trx, id);
    if (!refund || (organizerId !== undefined && refund.organizer_id !== organizerId)) throw notFound('Refund');
    if (refund.status !== 'pending')
      throw conflict(
        'invalid_state',
        `Refund ${refund.id} is already ${refund.status}; only a pending card refund can be settled.`,
      );
    const settled = await settleRefundRow(trx, refund.id, status, now);
    await emitDomainEvent(trx, {
      organizerId: refund.organizer_id,
      type: 'order.refunded',
      data: { order_id: refund.order_id, refund_id: refund.id, status },
      at: now,
    });
    const result: RefundResult = { refund: settled, ticketIds: await findRefundedTicketIds(trx, refund.id) };
    return result;
  });
}

export async function cancelOrder(
  db: Executor,
  id: string,
  now: Date,
  /** The dashboard's organizer: another organizer's order is not found. The admin API passes none. */
  organizerId?: string,
) {
  return withTransaction(db, async (trx) => {
    const order = await lockOrderFor(trx, id, organizerId);
    if (order.status === 'cancelled') throw conflict('invalid_state', `Order ${order.order_no} is already cancelled.`);
    const moved = await releaseTickets(trx, order.id, 'all', { status: 'cancelled', updated_at: now });
    // Read after the update: it waited for any concurrent check-in of these tickets.
    const [checkedIn] = await findCheckedInTicketNos(trx, order.id);
    if (checkedIn !== undefined) {
      throw conflict(
        'invalid_state',
        `Order ${order.order_no} cannot be cancelled: ticket ${checkedIn} is checked in. Refund the other tickets instead.`,
      );
    }
    if (moved.length > 0) await releaseInventory(trx, inventoryLines(moved));
    const updated = await updateOrderStatus(trx, order.id, { status: 'cancelled', cancelled_at: now, updated_at: now });
    return loadOrderDetail(trx, updated, { items: true });
  });
}
