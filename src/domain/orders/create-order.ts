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
 * Steps 2 and 3 of a sale alone are one pipeline (./write-sale.ts). Concurrent sales of
 * one organizer without an Idempotency-Key or registration answers are written together
 * when they wait for one another: one lock, one recount judging them in arrival order,
 * one statement for their rows, one commit, each still its own 201 or 400
 * (./sales-together.ts). An order refused early is one read (or none of its own, when it
 * shares the catalog read of concurrent sales). Every column of the rows is given by
 * ./sale-rows.ts (ids included) or starts null, so the 201 body is built from them, not
 * read back (test: GET answers the same body).
 */
import { randomUUID } from 'node:crypto';
import { findSaleCatalog } from '../../db/repositories/orders.ts';
import { findQuestionsOfEvents } from '../../db/repositories/questions.ts';
import type { Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import { FreshReadCoalescer } from '../../lib/fresh-read-coalescer.ts';
import { refuseIfShort } from '../inventory/inventory.ts';
import { resolveAnswers, type AnswerInput } from '../questions/questions.ts';
import { generateOrderNo } from './numbers.ts';
import { priceTransaction } from './pricing.ts';
import { checkSellable, type Buyer, type PlannedLine, type SalePlan, type Tender } from './sale-rows.ts';
import { writeSaleWithOthers } from './sales-together.ts';

interface CreateOrderInput {
  items: { performance_id: string; ticket_type_id: string; quantity: number }[];
  buyer: { first_name: string; last_name?: string; email: string; phone?: string };
  tender: Tender;
  registration_answers?: AnswerInput[];
}

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
  return writeSaleWithOthers(db, sale, answers, nextOrderNo);
}

function normalizedBuyer(input: CreateOrderInput['buyer']): Buyer {
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

interface SalePerformance {
  id: string;
  event_id: string;
  status: string;
  event_status: string;
  box_office_sales_enabled: boolean;
}
