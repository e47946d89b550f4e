/** What an order read or change returns: the rows the HTTP layer presents (docs/orders.md). */
import type { OrderRow, OrderTransactionRow, RefundRow } from '../../db/repositories/orders.ts';
import { findTransactionsOfOrders } from '../../db/repositories/orders.ts';
import type { AnswerRow } from '../../db/repositories/questions.ts';
import { findAnswersOfOrder } from '../../db/repositories/questions.ts';
import { findTicketsOfOrders, type TicketRow } from '../../db/repositories/tickets.ts';
import type { Executor } from '../../db/transaction.ts';

export interface OrderDetail {
  order: OrderRow;
  transactions: OrderTransactionRow[];
  /** In position order. */
  answers: AnswerRow[];
  /** Only when asked for (`expand[]=items`, and on a sale). */
  tickets?: TicketRow[];
}

export interface RefundResult {
  refund: RefundRow;
  ticketIds: string[];
}

/** Transactions and answers always; tickets when asked. */
export async function loadOrderDetail(db: Executor, order: OrderRow, opts: { items: boolean }): Promise<OrderDetail> {
  const [transactions, answers, tickets] = await Promise.all([
    findTransactionsOfOrders(db, [order.id]),
    findAnswersOfOrder(db, order.id),
    opts.items ? findTicketsOfOrders(db, [order.id]) : Promise.resolve(undefined),
  ]);
  return { order, transactions, answers, ...(tickets ? { tickets } : {}) };
}
