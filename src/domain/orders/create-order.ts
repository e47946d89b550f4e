/**
 * POST /v1/orders: a one-shot box-office sale, in one transaction:
 *
 *  1. read the performances, active prices, organizer settings and questions; refuse
 *     (400) unsellable performances, unpriced types, a `free` tender with a non-zero
 *     total, and invalid registration answers, before any lock is taken;
 *  2. take inventory (src/domain/inventory: lock performances in id order, recount with
 *     the availability query, 400 naming the type and what remains, move the counters)
 *     and re-check under that lock that each performance is still box-office sellable;
 *  3. write the order (order_no retried on collision), one transaction per performance,
 *     the tickets, the answers, the payment (cash), `order.created`, the e-mail jobs and
 *     the CRM contact. Everything commits together or not at all.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { findOrganizer } from '../../db/repositories/organizers.ts';
import {
  findActivePrices,
  findPerformancesForSale,
  insertOrderUnlessNumberTaken,
  insertPayment,
  insertTransactions,
  upsertContact,
  type OrderRow,
} from '../../db/repositories/orders.ts';
import { findQuestionsOfEvents, insertAnswers } from '../../db/repositories/questions.ts';
import { insertTickets } from '../../db/repositories/tickets.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { badRequest } from '../../http/errors.ts';
import { emitDomainEvent } from '../../outbox/emit.ts';
import { lockPerformances, takeInventory } from '../inventory/inventory.ts';
import { enqueueOrderEmails } from '../mail/email-jobs.ts';
import { resolveAnswers, type AnswerInput } from '../questions/questions.ts';
import { generateOrderNo, generateSerialNo, ticketNo, transactionNo } from './numbers.ts';
import { priceTransaction } from './pricing.ts';
import { loadOrderDetail } from './present.ts';

export type Tender = 'cash' | 'pay_later' | 'free';

export interface CreateOrderInput {
  items: { performance_id: string; ticket_type_id: string; quantity: number }[];
  buyer: { first_name: string; last_name?: string; email: string; phone?: string };
  tender: Tender;
  registration_answers?: AnswerInput[];
}

/** The delivery method of every box-office transaction: tickets are e-mailed (docs/orders.md). */
export const DELIVERY_METHOD = 'eticket' as const;
const ORDER_NO_ATTEMPTS = 8;

interface PlannedLine {
  performanceId: string;
  ticketTypeId: string;
  ticketTypeName: string;
  eventId: string;
  unitPriceMinor: number;
  quantity: number;
}

export async function createOrder(db: Executor, organizerId: string, input: CreateOrderInput, now: Date) {
  const buyer = {
    first_name: input.buyer.first_name.trim(),
    last_name: input.buyer.last_name?.trim() || null,
    email: input.buyer.email.trim(),
    phone: input.buyer.phone?.trim() || null,
  };
  if (buyer.first_name === '') throw badRequest('`buyer.first_name` must not be blank.');

  return withTransaction(db, async (trx) => {
    const performanceIds = [...new Set(input.items.map((item) => item.performance_id))];
    const organizer = await findOrganizer(trx, organizerId);
    if (!organizer) throw new Error(`organizer ${organizerId} vanished`);
    const performances = new Map((await findPerformancesForSale(trx, organizerId, performanceIds)).map((p) => [p.id, p]));
    const prices = await findActivePrices(trx, organizerId, performanceIds);

    // 1. Every item: a sellable performance and an active price on it.
    const lines: PlannedLine[] = input.items.map((item, index) => {
      const performance = performances.get(item.performance_id);
      if (!performance) throw badRequest(`items[${index}].performance_id ${item.performance_id} is not a performance of this organizer.`);
      checkSellable(performance, index);
      const price = prices.find((p) => p.performance_id === item.performance_id && p.ticket_type_id === item.ticket_type_id);
      if (!price) {
        throw badRequest(`items[${index}].ticket_type_id ${item.ticket_type_id} has no active price on performance ${item.performance_id}, so it is not on sale there.`);
      }
      return {
        performanceId: item.performance_id,
        ticketTypeId: item.ticket_type_id,
        ticketTypeName: price.ticket_type_name,
        eventId: performance.event_id,
        unitPriceMinor: price.price_minor,
        quantity: item.quantity,
      };
    });

    // Tickets in request order, quantities expanded: position 1..N (what answers' ticket_no names).
    const planned = lines.flatMap((line) => Array.from({ length: line.quantity }, () => line)).map((line, i) => ({ line, position: i + 1 }));

    // One transaction per performance, in order of first appearance.
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
      totals: priceTransaction(tickets.map((t) => t.line.unitPriceMinor), organizer.box_office_fee_minor, organizer.tax_rate_bps),
    }));
    const totalMinor = priced.reduce((sum, p) => sum + p.totals.total_minor, 0);
    if (input.tender === 'free' && totalMinor !== 0) {
      throw badRequest(`tender "free" needs a total of exactly 0, but this order totals ${totalMinor} (${organizer.currency} minor units, fees and taxes included); use cash or pay_later.`);
    }

    // Registration answers against the questions of the order's events.
    const eventIds = [...new Set(lines.map((line) => line.eventId))];
    const questions = await findQuestionsOfEvents(trx, organizerId, eventIds);
    const answers = resolveAnswers(questions, input.registration_answers ?? [], planned.map((t) => ({ position: t.position, eventId: t.line.eventId })));

    // 2. Inventory, atomically; the lock also freezes each performance's sellability.
    await lockPerformances(trx, performanceIds);
    const locked = await findPerformancesForSale(trx, organizerId, performanceIds);
    input.items.forEach((item, index) => checkSellable(locked.find((p) => p.id === item.performance_id)!, index));
    await takeInventory(trx, lines.map((l) => ({ performanceId: l.performanceId, ticketTypeId: l.ticketTypeId, quantity: l.quantity })), now);

    // 3. The order and everything it carries.
    const status: OrderRow['status'] = input.tender === 'pay_later' ? 'unpaid' : 'placed';
    const order = await insertOrder(trx, {
      organizer_id: organizerId,
      status,
      channel: 'box_office',
      tender: input.tender,
      buyer_first_name: buyer.first_name,
      buyer_last_name: buyer.last_name,
      buyer_email: buyer.email,
      buyer_phone: buyer.phone,
      currency: organizer.currency,
      total_minor: totalMinor,
      paid_at: status === 'placed' ? now : null,
      created_at: now,
      updated_at: now,
    });

    const transactions = await insertTransactions(trx, priced.map((p, i) => ({
      organizer_id: organizerId,
      order_id: order.id,
      transaction_no: transactionNo(order.order_no, i + 1),
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
    })));

    const transactionOf = new Map(transactions.map((t) => [t.performance_id, t]));
    const ticketValues = priced.flatMap((p) => p.tickets.map((t, j) => ({
      organizer_id: organizerId,
      order_id: order.id,
      order_transaction_id: transactionOf.get(p.performanceId)!.id,
      order_no: order.order_no,
      position: t.position,
      ticket_no: ticketNo(order.order_no, t.position),
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
    })));
    // Batches keep each INSERT far below PostgreSQL's 65535 bind parameters.
    const tickets = [];
    for (let i = 0; i < ticketValues.length; i += 500) tickets.push(...(await insertTickets(trx, ticketValues.slice(i, i + 500))));
    const byPosition = new Map(tickets.map((t) => [t.position, t]));

    if (answers.length > 0) {
      await insertAnswers(trx, answers.map((a, i) => {
        const ticket = a.ticketPosition === null ? undefined : byPosition.get(a.ticketPosition)!;
        return {
          organizer_id: organizerId,
          order_id: order.id,
          question_id: a.question.id,
          position: i + 1,
          key: a.question.key,
          label: a.question.label,
          ticket_id: ticket?.id ?? null,
          ticket_no: ticket?.ticket_no ?? null,
          value: JSON.stringify(a.value),
          value_labels: a.valueLabels === null ? null : JSON.stringify(a.valueLabels),
          created_at: now,
        };
      }));
    }

    if (input.tender === 'cash') {
      await insertPayment(trx, { organizer_id: organizerId, order_id: order.id, tender: 'cash', amount_minor: totalMinor, currency: order.currency, created_at: now });
    }

    await emitDomainEvent(trx, {
      organizerId,
      type: 'order.created',
      data: { order_id: order.id, order_no: order.order_no, status: order.status, total_minor: order.total_minor, currency: order.currency, channel: 'boxOffice' },
      at: now,
    });
    await enqueueOrderEmails(trx, order, status === 'placed' ? ['receipt', 'etickets'] : ['receipt'], now);
    await upsertContact(trx, { organizerId, email: buyer.email, firstName: buyer.first_name, lastName: buyer.last_name, phone: buyer.phone, at: now });

    return loadOrderDetail(trx, order, { items: true });
  });
}

function checkSellable(performance: { id: string; status: string; event_status: string; box_office_sales_enabled: boolean }, index: number): void {
  if (performance.status !== 'published' || performance.event_status !== 'published') {
    throw badRequest(`items[${index}]: performance ${performance.id} is not published, so it cannot be sold; publish its event first.`);
  }
  if (!performance.box_office_sales_enabled) {
    throw badRequest(`items[${index}]: performance ${performance.id} has box-office sales disabled.`);
  }
}

/** Inserts the order under a fresh random order_no, retrying the rare collision. */
async function insertOrder(trx: Transaction<Database>, values: Omit<Parameters<typeof insertOrderUnlessNumberTaken>[1], 'order_no'>) {
  for (let attempt = 0; attempt < ORDER_NO_ATTEMPTS; attempt++) {
    const row = await insertOrderUnlessNumberTaken(trx, { ...values, order_no: generateOrderNo() });
    if (row) return row;
  }
  throw new Error(`no free order number after ${ORDER_NO_ATTEMPTS} attempts`);
}
