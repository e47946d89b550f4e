/** GET /v1/orders/{id}/tickets.pdf: the order's PDF tickets (docs/tickets.md, "PDF tickets"). */
import { findOrder } from '../../db/repositories/orders.ts';
import type { Executor } from '../../db/transaction.ts';
import { loadOrderDocuments } from '../../documents/load.ts';
import { conflict, notFound } from '../../errors/domain-error.ts';

interface TicketsPdf {
  orderNo: string;
  pdf: Buffer;
}

/**
 * One page per ticket the buyer can still use (purchased or checked in), in the event's
 * language, on the organizer's paper size. Another organizer's order is not found; an
 * order with no such ticket left (all cancelled or refunded) is a 409 `invalid_state`.
 */
export async function orderTicketsPdf(db: Executor, organizerId: string, id: string): Promise<TicketsPdf> {
  const order = await findOrder(db, organizerId, id);
  if (!order) throw notFound('Order');
  const documents = await loadOrderDocuments(db, order);
  if (!documents) throw conflict('invalid_state', 'The order has no valid ticket left: all are cancelled or refunded.');
  // pdfkit, fontkit and the fonts load with the first PDF, not at start (docs/architecture.md, "Start-up").
  const { renderTicketsPdf } = await import('../../documents/pdf.ts');
  return { orderNo: order.order_no, pdf: await renderTicketsPdf(documents) };
}
