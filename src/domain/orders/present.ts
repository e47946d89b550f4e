/** The public shapes of an order and its transactions (schemas Order and OrderTransaction of the OpenAPI document). */
import type { OrderRow, OrderTransactionRow } from '../../db/repositories/orders.ts';
import { findTransactionsOfOrders } from '../../db/repositories/orders.ts';
import { findAnswersOfOrder } from '../../db/repositories/questions.ts';
import { findTicketsOfOrders, type TicketRow } from '../../db/repositories/tickets.ts';
import type { Executor } from '../../db/transaction.ts';
import { presentAnswer } from '../questions/questions.ts';
import { presentTicket } from '../tickets/present.ts';

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

export function presentTransaction(row: OrderTransactionRow, tickets?: TicketRow[]) {
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

/** Order detail: transactions and answers always; tickets inside transactions when asked. */
export async function loadOrderDetail(db: Executor, order: OrderRow, opts: { items: boolean }) {
  const [transactions, answers, tickets] = await Promise.all([
    findTransactionsOfOrders(db, [order.id]),
    findAnswersOfOrder(db, order.id),
    opts.items ? findTicketsOfOrders(db, [order.id]) : Promise.resolve(undefined),
  ]);
  return {
    ...presentOrder(order),
    transactions: transactions.map((t) => presentTransaction(t, tickets)),
    registration_answers: answers.map(presentAnswer),
  };
}
