/**
 * POST /v1/orders: a one-shot box-office sale, one path with or without an
 * Idempotency-Key:
 *
 *  1. read, in one query, the organizer's settings, the performances, their active prices,
 *     what remains of each (the availability count, unlocked) and whether their events ask
 *     registration questions (then the questions, only if there are any); refuse (400)
 *     unsellable performances, unpriced types, a `free` tender with a non-zero total,
 *     invalid registration answers, and an order that does not fit what remains: an early
 *     refusal writes nothing and takes no lock;
 *  2. in the sale's transaction (withTransaction: its own, or the request transaction of
 *     an Idempotency-Key, which it joins), write in ONE statement the order (a taken
 *     order_no writes nothing and the sale is tried again with another), one transaction
 *     per performance with its tickets, the payment (cash), the e-mail jobs, the CRM
 *     contact and `order.created` with its webhook deliveries; then the answers (only if
 *     any);
 *  3. LAST, take inventory (src/domain/inventory, takeInventoryLast: lock the performances
 *     in id order, recount with the availability query, move the counters if all fits and
 *     each is still box-office sellable as of the lock; else a 400 naming the type and
 *     what remains, the same rule and detail as the early refusal). Only this step can
 *     accept; a refusal rolls back everything written in step 2, and the counters. When
 *     the sale owns its transaction, the COMMIT travels in the same message, so the lock
 *     every sale of a performance queues on is released inside the database
 *     (docs/inventory.md); under an Idempotency-Key the request transaction commits with
 *     the stored response.
 *
 * Steps 2 and 3 are one pipeline (sendAhead, src/db/transaction.ts): the sale's rows and
 * the inventory step are sent together, the inventory step conditional on the order
 * having gone in, so the database never waits for this process between them. A sale
 * without registration answers is then the catalog read and that pipeline; an order
 * refused early is one read (or none of its own, when it shares the catalog read of
 * concurrent sales).
 * Every column of the rows written in step 2 is given here (ids included) or starts null,
 * so the 201 body is built from them, not read back (test: GET answers the same body).
 */
import { randomUUID } from 'node:crypto';
import {
  findSaleCatalog,
  orderWritten,
  saleInsertStatement,
  saleInserted,
  type InsertedSale,
  type NewOrder,
  type NewSale,
  type OrderRow,
  type OrderTransactionRow,
} from '../../db/repositories/orders.ts';
import { answersInsert, findQuestionsOfEvents, type AnswerRow } from '../../db/repositories/questions.ts';
import { afterCommit, sendAhead, withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import { FreshReadCoalescer } from '../../lib/fresh-read-coalescer.ts';
import { deliveriesQueued, storedDomainEvent } from '../../outbox/domain-events.ts';
import { refuseIfShort, takeInventoryLast } from '../inventory/inventory.ts';
import { orderEmailJobValues } from '../../mail/jobs.ts';
import { resolveAnswers, type AnswerInput } from '../questions/questions.ts';
import { generateOrderNo, generateSerialNo, ticketNo, transactionNo } from './numbers.ts';
import { priceTransaction } from './pricing.ts';
import type { OrderDetail } from './detail.ts';

type Tender = 'cash' | 'pay_later' | 'free';

interface CreateOrderInput {
  items: { performance_id: string; ticket_type_id: string; quantity: number }[];
  buyer: { first_name: string; last_name?: string; email: string; phone?: string };
  tender: Tender;
  registration_answers?: AnswerInput[];
}

/** The delivery method of every box-office transaction: tickets are e-mailed (docs/orders.md). */
const DELIVERY_METHOD = 'eticket' as const;
const ORDER_NO_ATTEMPTS = 8;

type SaleCatalog = Awaited<ReturnType<typeof findSaleCatalog>>;
/** Per database handle: concurrent sales of the same performances share their first read. */
const catalogReads = new WeakMap<Executor, FreshReadCoalescer<Date, SaleCatalog>>();

/**
 * Step 1's read. Concurrent sales of the same organizer and performances on the same
 * handle share one read that starts after each of them asked
 * (src/lib/fresh-read-coalescer.ts), so each is as fresh as a read of its own, at the
 * clock of the latest of them; in an on-sale rush that is one query per round trip
 * instead of one per request (docs/inventory.md, "Why the early refusal is safe"). A
 * request transaction is a handle of its own, so its read is its own.
 */
function readSaleCatalog(db: Executor, organizerId: string, performanceIds: string[], now: Date) {
  let reads = catalogReads.get(db);
  if (reads === undefined) {
    reads = new FreshReadCoalescer();
    catalogReads.set(db, reads);
  }
  const key = `${organizerId} ${[...performanceIds].sort().join(' ')}`;
  return reads.read(key, now, (nows) =>
    findSaleCatalog(db, organizerId, performanceIds, new Date(Math.max(...nows.map((at) => at.getTime())))),
  );
}

interface PlannedLine {
  performanceId: string;
  ticketTypeId: string;
  ticketTypeName: string;
  eventId: string;
  unitPriceMinor: number;
  quantity: number;
}

/** `nextOrderNo` draws the order numbers (random, docs/orders.md); tests give a taken one. */
export async function createOrder(
  db: Executor,
  organizerId: string,
  input: CreateOrderInput,
  now: Date,
  nextOrderNo: () => string = generateOrderNo,
) {
  const buyer = normalizedBuyer(input.buyer);
  const performanceIds = [...new Set(input.items.map((item) => item.performance_id))];
  const catalog = await readSaleCatalog(db, organizerId, performanceIds, now);
  const organizer = catalog[0];
  if (!organizer) throw new Error(`organizer ${organizerId} vanished`);

  // 1. Every item on a sellable performance at an active price; the money; the answers.
  const lines = planLines(catalog, input.items);
  const { planned, priced, totalMinor } = priceSale(lines, organizer);
  if (input.tender === 'free' && totalMinor !== 0) {
    throw invalid(
      'parameter_invalid',
      `tender "free" needs a total of exactly 0, but this order totals ${totalMinor} (${organizer.currency} minor units, fees and taxes included); use cash or pay_later.`,
      'tender',
    );
  }
  // Registration answers against the questions of the order's events (read only if any).
  const questions = catalog.some((row) => row.has_questions)
    ? await findQuestionsOfEvents(db, organizerId, [...new Set(lines.map((line) => line.eventId))])
    : [];
  const answers = resolveAnswers(
    questions,
    input.registration_answers ?? [],
    planned.map((t) => ({ position: t.position, eventId: t.line.eventId })),
  );
  // Refuse early what cannot fit the counts read with the catalog (no lock, nothing
  // written): correct as of that read, and the same rule and detail as under the lock.
  refuseIfShort(lines, remainingCounts(catalog));

  const sale: SalePlan = {
    organizerId,
    orderId: randomUUID(),
    status: input.tender === 'pay_later' ? 'unpaid' : 'placed',
    tender: input.tender,
    buyer,
    currency: organizer.currency,
    lines,
    priced,
    totalMinor,
    now,
  };
  return writeSale(db, sale, answers, nextOrderNo);
}

type Answers = ReturnType<typeof resolveAnswers>;

/**
 * Steps 2 and 3, in the sale's transaction. A taken order_no (rare) writes nothing, takes
 * nothing, and is tried again with another.
 */
async function writeSale(
  db: Executor,
  sale: SalePlan,
  answers: Answers,
  nextOrderNo: () => string,
): Promise<OrderDetail> {
  for (let attempt = 0; attempt < ORDER_NO_ATTEMPTS; attempt++) {
    const rows = saleRows(sale, nextOrderNo());
    const written = await withTransaction(db, async (trx) => {
      const inserted = await writeSaleRows(trx, sale, rows, answers);
      if (inserted) afterCommit(trx, () => deliveriesQueued(inserted.queuedDeliveries));
      return inserted;
    });
    if (written !== undefined) return written.detail;
  }
  throw new Error(`no free order number after ${ORDER_NO_ATTEMPTS} attempts`);
}

/** A sale as written: what the 201 shows, and how many webhook deliveries it queued. */
interface WrittenSale {
  detail: OrderDetail;
  queuedDeliveries: number;
}

/**
 * Steps 2 and 3 as a pipeline: the sale's rows and the inventory step are sent together,
 * so the database goes from one to the other without waiting for this process. The
 * inventory step takes anything only if the order went in (its `onlyIf`); else nothing
 * is written and the result is undefined. Answers name the sale's tickets, so a sale with
 * answers sends them, and the inventory step after them, once its rows are known to be in.
 */
async function writeSaleRows(
  trx: Executor,
  sale: SalePlan,
  rows: NewSale,
  answers: Answers,
): Promise<WrittenSale | undefined> {
  const inserting = sendAhead(trx, saleInsertStatement(rows)).then((answer) => saleInserted(rows, answer.rows));
  let answerRows: AnswerRow[] = [];
  if (answers.length > 0) {
    if ((await inserting) === undefined) return undefined;
    answerRows = (await sendAhead(trx, answersStatement(trx, sale, answers, rows))).rows;
  }
  const [inserted] = await Promise.all([inserting, takeSaleInventory(trx, sale)]);
  return inserted === undefined ? undefined : writtenSale(rows, inserted, answerRows);
}

/**
 * Step 3: the sale's inventory, taken only if its order went in; each item's performance
 * is re-checked as sellable as of the lock, with the early check's rule and detail.
 */
function takeSaleInventory(trx: Executor, sale: SalePlan): Promise<void> {
  return takeInventoryLast(trx, sale.lines, sale.now, {
    checkLocked: (locked) =>
      sale.lines.forEach((line, index) =>
        checkSellable(
          locked.find((p) => p.id === line.performanceId)!,
          index,
        ),
      ),
    onlyIf: orderWritten(sale.orderId),
  });
}

function writtenSale(rows: NewSale, inserted: InsertedSale, answerRows: AnswerRow[]): WrittenSale {
  return {
    detail: {
      order: inserted.order,
      transactions: rows.transactions,
      answers: answerRows.sort((a, b) => a.position - b.position),
      tickets: inserted.tickets.sort((a, b) => a.position - b.position),
    },
    queuedDeliveries: inserted.queuedDeliveries,
  };
}

type Buyer = ReturnType<typeof normalizedBuyer>;

function normalizedBuyer(input: CreateOrderInput['buyer']) {
  const buyer = {
    first_name: input.first_name.trim(),
    last_name: input.last_name?.trim() || null,
    email: input.email.trim(),
    phone: input.phone?.trim() || null,
  };
  if (buyer.first_name === '')
    throw invalid('parameter_invalid', '`buyer.first_name` must not be blank.', 'buyer.first_name');
  return buyer;
}

/** Step 1 for each item: a performance of this organizer, sellable, with an active price of the type. */
function planLines(catalog: SaleCatalog, items: CreateOrderInput['items']): PlannedLine[] {
  const performances = new Map<string, SalePerformance>();
  for (const row of catalog) {
    if (row.performance_id === null || performances.has(row.performance_id)) continue;
    performances.set(row.performance_id, {
      id: row.performance_id,
      event_id: row.event_id!,
      status: row.status!,
      event_status: row.event_status!,
      box_office_sales_enabled: row.box_office_sales_enabled!,
    });
  }
  const prices = catalog.filter((row) => row.ticket_type_id !== null);
  return items.map((item, index) => {
    const performance = performances.get(item.performance_id);
    if (!performance)
      throw invalid(
        'parameter_invalid',
        `items[${index}].performance_id ${item.performance_id} is not a performance of this organizer.`,
        `items.${index}.performance_id`,
      );
    checkSellable(performance, index);
    const price = prices.find(
      (p) => p.performance_id === item.performance_id && p.ticket_type_id === item.ticket_type_id,
    );
    if (!price) {
      throw invalid(
        'not_on_sale',
        `items[${index}].ticket_type_id ${item.ticket_type_id} has no active price on performance ${item.performance_id}, so it is not on sale there.`,
        `items.${index}.ticket_type_id`,
      );
    }
    return {
      performanceId: item.performance_id,
      ticketTypeId: item.ticket_type_id,
      ticketTypeName: price.ticket_type_name!,
      eventId: performance.event_id,
      unitPriceMinor: price.price_minor!,
      quantity: item.quantity,
    };
  });
}

/**
 * The tickets in request order, quantities expanded (position 1..N, what answers'
 * ticket_no names), grouped into one transaction per performance in order of first
 * appearance, each priced with the organizer's fee and tax.
 */
function priceSale(lines: PlannedLine[], organizer: { box_office_fee_minor: number; tax_rate_bps: number }) {
  const planned = lines
    .flatMap((line) => Array.from({ length: line.quantity }, () => line))
    .map((line, i) => ({ line, position: i + 1 }));
  const groups = new Map<string, typeof planned>();
  for (const ticket of planned) {
    const group = groups.get(ticket.line.performanceId) ?? [];
    group.push(ticket);
    groups.set(ticket.line.performanceId, group);
  }
  const priced = [...groups].map(([performanceId, tickets]) => ({
    performanceId,
    eventId: tickets[0]!.line.eventId,
    tickets,
    totals: priceTransaction(
      tickets.map((t) => t.line.unitPriceMinor),
      organizer.box_office_fee_minor,
      organizer.tax_rate_bps,
    ),
  }));
  const totalMinor = priced.reduce((sum, p) => sum + p.totals.total_minor, 0);
  return { planned, priced, totalMinor };
}

/** What remains of each priced type, as the catalog read counted it (unlocked). */
function remainingCounts(catalog: SaleCatalog) {
  return catalog.flatMap((row) =>
    row.ticket_type_id === null
      ? []
      : [
          {
            performance_id: row.performance_id!,
            performance_remaining: row.performance_remaining!,
            ticket_type_id: row.ticket_type_id,
            ticket_type_name: row.ticket_type_name,
            sort_order: row.sort_order,
            type_remaining: row.type_remaining,
          },
        ],
  );
}

/** Everything the sale writes is decided before its transaction opens. */
interface SalePlan {
  organizerId: string;
  orderId: string;
  status: OrderRow['status'];
  tender: Tender;
  buyer: Buyer;
  currency: string;
  /** The items in request order, as planned (step 3 takes their inventory). */
  lines: PlannedLine[];
  priced: ReturnType<typeof priceSale>['priced'];
  totalMinor: number;
  now: Date;
}

/**
 * Every column of the sale's rows is given here (ids too), so these are its rows. Long on
 * purpose: one literal per table, every column of a row in one place.
 */
// eslint-disable-next-line max-lines-per-function -- one row literal per table of the sale, side by side
function saleRows(sale: SalePlan, orderNo: string): NewSale {
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

/** The registration answers, each tied to its ticket when it is asked per attendee. */
function answersStatement(db: Executor, sale: SalePlan, answers: Answers, rows: NewSale) {
  const byPosition = new Map(rows.tickets.map((t) => [t.position, t]));
  return answersInsert(
    db,
    answers.map((a, i) => {
      const ticket = a.ticketPosition === null ? undefined : byPosition.get(a.ticketPosition)!;
      return {
        organizer_id: sale.organizerId,
        order_id: sale.orderId,
        question_id: a.question.id,
        position: i + 1,
        key: a.question.key,
        label: a.question.label,
        ticket_id: ticket?.id ?? null,
        ticket_no: ticket?.ticket_no ?? null,
        value: JSON.stringify(a.value),
        value_labels: a.valueLabels === null ? null : JSON.stringify(a.valueLabels),
        created_at: sale.now,
      };
    }),
  );
}

interface SalePerformance {
  id: string;
  event_id: string;
  status: string;
  event_status: string;
  box_office_sales_enabled: boolean;
}

function checkSellable(
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
