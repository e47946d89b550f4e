/**
 * A sale as it will be written: the plan createOrder makes before any transaction opens
 * (src/domain/orders/create-order.ts), the rows it writes (every column given here, ids
 * included, so the 201 body is built from them, not read back), what its 201 shows once
 * written, and the sellability rule it applies early and again under the lock. Both ways
 * of writing a sale use these: alone (create-order.ts) and together with concurrent sales
 * (./sales-together.ts).
 */
import { randomUUID } from 'node:crypto';
import type { InsertedSale, NewOrder, NewSale, OrderRow, OrderTransactionRow } from '../../db/repositories/orders.ts';
import type { AnswerRow } from '../../db/repositories/questions.ts';
import { invalid } from '../../errors/domain-error.ts';
import { orderEmailJobValues } from '../../mail/jobs.ts';
import { storedDomainEvent } from '../../outbox/domain-events.ts';
import { generateSerialNo, ticketNo, transactionNo } from './numbers.ts';
import type { priceTransaction } from './pricing.ts';
import type { OrderDetail } from './detail.ts';

export type Tender = 'cash' | 'pay_later' | 'free';

/** The delivery method of every box-office transaction: tickets are e-mailed (docs/orders.md). */
const DELIVERY_METHOD = 'eticket' as const;

export interface Buyer {
  first_name: string;
  last_name: string | null;
  email: string;
  phone: string | null;
}

/** One transaction of the sale (one per performance), its tickets in request order, priced. */
interface PricedTransaction {
  performanceId: string;
  eventId: string;
  tickets: { line: PlannedLine; position: number }[];
  totals: ReturnType<typeof priceTransaction>;
}

export interface PlannedLine {
  performanceId: string;
  ticketTypeId: string;
  ticketTypeName: string;
  eventId: string;
  unitPriceMinor: number;
  quantity: number;
}

/** Everything the sale writes is decided before its transaction opens. */
export interface SalePlan {
  organizerId: string;
  orderId: string;
  status: OrderRow['status'];
  tender: Tender;
  buyer: Buyer;
  currency: string;
  /** The items in request order, as planned (step 3 takes their inventory). */
  lines: PlannedLine[];
  priced: PricedTransaction[];
  totalMinor: number;
  now: Date;
}

/**
 * Every column of the sale's rows is given here (ids too), so these are its rows. Long on
 * purpose: one literal per table, every column of a row in one place.
 */
// eslint-disable-next-line max-lines-per-function -- one row literal per table of the sale, side by side
export function saleRows(sale: SalePlan, orderNo: string): NewSale {
  const { organizerId, orderId, status, buyer, now, priced, totalMinor } = sale;
  const transactions: OrderTransactionRow[] = priced.map((p, i) => ({
    id: randomUUID(),
    organizer_id: organizerId,
    order_id: orderId,
    transaction_no: transactionNo(orderNo, i + 1),
    position: i + 1,
    event_id: p.eventId,
    performance_id: p.performanceId,
    delivery_method: DELIVERY_METHOD,
    items_total_minor: p.totals.items_total_minor,
    surcharges_minor: p.totals.surcharges_minor,
    taxes_minor: p.totals.taxes_minor,
    service_fees_minor: p.totals.service_fees_minor,
    total_minor: p.totals.total_minor,
    created_at: now,
  }));
  const order: NewOrder = {
    id: orderId,
    organizer_id: organizerId,
    order_no: orderNo,
    status,
    channel: 'box_office',
    tender: sale.tender,
    buyer_first_name: buyer.first_name,
    buyer_last_name: buyer.last_name,
    buyer_email: buyer.email,
    buyer_phone: buyer.phone,
    currency: sale.currency,
    total_minor: totalMinor,
    paid_at: status === 'placed' ? now : null,
    created_at: now,
    updated_at: now,
  };
  return {
    order,
    transactions,
    tickets: priced.flatMap((p, i) =>
      p.tickets.map((t, j) => ({
        id: randomUUID(),
        organizer_id: organizerId,
        order_id: orderId,
        order_transaction_id: transactions[i]!.id,
        order_no: orderNo,
        position: t.position,
        ticket_no: ticketNo(orderNo, t.position),
        serial_no: generateSerialNo(),
        status: 'purchased' as const,
        event_id: p.eventId,
        performance_id: p.performanceId,
        ticket_type_id: t.line.ticketTypeId,
        holder_first_name: buyer.first_name,
        holder_last_name: buyer.last_name,
        holder_email: buyer.email,
        unit_price_minor: p.totals.tickets[j]!.unitPriceMinor,
        fee_minor: p.totals.tickets[j]!.feeMinor,
        tax_minor: p.totals.tickets[j]!.taxMinor,
        total_minor: p.totals.tickets[j]!.totalMinor,
        created_at: now,
        updated_at: now,
      })),
    ),
    payment:
      sale.tender === 'cash'
        ? {
            organizer_id: organizerId,
            order_id: orderId,
            tender: 'cash',
            amount_minor: totalMinor,
            currency: sale.currency,
            created_at: now,
          }
        : null,
    emailJobs: orderEmailJobValues(order, status === 'placed' ? ['receipt', 'etickets'] : ['receipt'], now),
    contact: {
      organizerId,
      email: buyer.email,
      firstName: buyer.first_name,
      lastName: buyer.last_name,
      phone: buyer.phone,
      at: now,
    },
    event: storedDomainEvent({
      organizerId,
      type: 'order.created',
      data: {
        order_id: order.id,
        order_no: order.order_no,
        status: order.status,
        total_minor: order.total_minor,
        currency: order.currency,
        channel: 'boxOffice',
      },
      at: now,
    }),
  };
}

/** The sale as its 201 shows it, from its rows as stored. */
export function writtenSale(rows: NewSale, inserted: InsertedSale, answerRows: AnswerRow[]): OrderDetail {
  return {
    order: inserted.order,
    transactions: rows.transactions,
    answers: answerRows.sort((a, b) => a.position - b.position),
    tickets: inserted.tickets.sort((a, b) => a.position - b.position),
  };
}

/** Whether the box office may sell the performance: the rule a sale applies early and under the lock. */
export function checkSellable(
  performance: { id: string; status: string; event_status: string; box_office_sales_enabled: boolean },
  index: number,
): void {
  if (performance.status !== 'published' || performance.event_status !== 'published') {
    throw invalid(
      'not_on_sale',
      `items[${index}]: performance ${performance.id} is not published, so it cannot be sold; publish its event first.`,
    );
  }
  if (!performance.box_office_sales_enabled) {
    throw invalid('not_on_sale', `items[${index}]: performance ${performance.id} has box-office sales disabled.`);
  }
}
