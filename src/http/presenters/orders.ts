/** The public shapes of an order, its transactions and refunds (schemas Order, OrderDetail, OrderTransaction, Refund). */
import type { OrderRow, OrderTransactionRow } from '../../db/repositories/orders.ts';
import type { TicketRow } from '../../db/repositories/tickets.ts';
import type { OrderDetail, RefundResult } from '../../domain/orders/detail.ts';
import { presentAnswer } from './questions.ts';
import { presentTicket } from './tickets.ts';

export function presentOrder(row: OrderRow) {
  return {
    id: row.id,
    object: 'order' as const,
    order_no: row.order_no,
    status: row.status,
    channel: row.channel,
    buyer: {
      first_name: row.buyer_first_name,
      last_name: row.buyer_last_name,
      email: row.buyer_email,
      phone: row.buyer_phone,
    },
    currency: row.currency,
    total_minor: row.total_minor,
    etickets_sent_at: row.etickets_sent_at,
    disputed_at: row.disputed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A transaction; with `tickets`, its own tickets as `items`. */
function presentTransaction(row: OrderTransactionRow, tickets?: TicketRow[]) {
  return {
    id: row.id,
    object: 'order_transaction' as const,
    transaction_no: row.transaction_no,
    event_id: row.event_id,
    performance_id: row.performance_id,
    delivery_method: row.delivery_method,
    items_total_minor: row.items_total_minor,
    surcharges_minor: row.surcharges_minor,
    taxes_minor: row.taxes_minor,
    service_fees_minor: row.service_fees_minor,
    total_minor: row.total_minor,
    ...(tickets ? { items: tickets.filter((t) => t.order_transaction_id === row.id).map(presentTicket) } : {}),
  };
}

/** Order detail: transactions and answers always; tickets inside transactions when loaded. */
export function presentOrderDetail(detail: OrderDetail) {
  return {
    ...presentOrder(detail.order),
    transactions: detail.transactions.map((t) => presentTransaction(t, detail.tickets)),
    registration_answers: detail.answers.map(presentAnswer),
  };
}

export function presentRefund({ refund, ticketIds }: RefundResult) {
  return {
    id: refund.id,
    object: 'refund' as const,
    order_id: refund.order_id,
    mode: refund.mode,
    status: refund.status,
    amount_minor: refund.amount_minor,
    currency: refund.currency,
    ticket_ids: ticketIds,
    settled_at: refund.settled_at,
    created_at: refund.created_at,
  };
}
