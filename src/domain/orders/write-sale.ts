/**
 * Steps 2 and 3 of a sale written alone (the steps: src/domain/orders/create-order.ts),
 * in the sale's transaction (withTransaction: its own, or the request transaction of an
 * Idempotency-Key, which it joins): its rows (salesInsertStatement) and then, LAST,
 * take_inventory_or_refuse(), sent as one pipeline (sendAhead, src/db/transaction.ts), the
 * inventory step conditional on the order having gone in, so the database never waits for
 * this process between them. When the sale owns its transaction the COMMIT travels in the
 * same message as the inventory step, so the performance lock is released inside the
 * database (docs/inventory.md); under an Idempotency-Key the request transaction commits
 * with the stored response. A refusal rolls back everything the sale wrote.
 */
import { orderWritten, salesInsertStatement, salesInserted, type NewSale } from '../../db/repositories/orders.ts';
import { answersInsert, type AnswerRow } from '../../db/repositories/questions.ts';
import { afterCommit, sendAhead, withTransaction, type Executor } from '../../db/transaction.ts';
import { deliveriesQueued } from '../../outbox/domain-events.ts';
import { takeInventoryLast, type SaleToJudge } from '../inventory/inventory.ts';
import type { resolveAnswers } from '../questions/questions.ts';
import type { OrderDetail } from './detail.ts';
import { checkSellable, saleRows, writtenSale, type SalePlan } from './sale-rows.ts';

export type Answers = ReturnType<typeof resolveAnswers>;

/** A taken order_no is tried again with another this many times in all. */
const ORDER_NO_ATTEMPTS = 8;

/** A taken order_no (rare) writes nothing, takes nothing, and is tried again with another. */
export async function writeSale(
  db: Executor,
  sale: SalePlan,
  answers: Answers,
  nextOrderNo: () => string,
): Promise<OrderDetail> {
  for (let attempt = 0; attempt < ORDER_NO_ATTEMPTS; attempt++) {
    const rows = saleRows(sale, nextOrderNo());
    const written = await withTransaction(db, (trx) => writeSaleRows(trx, sale, rows, answers));
    if (written !== undefined) return written;
  }
  throw new Error(`no free order number after ${ORDER_NO_ATTEMPTS} attempts`);
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
): Promise<OrderDetail | undefined> {
  const inserting = sendAhead(trx, salesInsertStatement([rows])).then((answer) => {
    const { sales, queuedDeliveries } = salesInserted([rows], answer.rows);
    afterCommit(trx, () => deliveriesQueued(queuedDeliveries));
    return sales[0];
  });
  let answerRows: AnswerRow[] = [];
  if (answers.length > 0) {
    if ((await inserting) === undefined) return undefined;
    answerRows = (await sendAhead(trx, answersStatement(trx, sale, answers, rows))).rows;
  }
  const [inserted] = await Promise.all([
    inserting,
    takeInventoryLast(trx, sale.lines, sale.now, {
      checkLocked: saleToJudge(sale).checkLocked,
      onlyIf: orderWritten(sale.orderId),
    }),
  ]);
  return inserted === undefined ? undefined : writtenSale(rows, inserted, answerRows);
}

/**
 * Step 3's judgement of a sale: its lines, and the re-check of each item's performance as
 * sellable as of the lock, with the early check's rule and detail.
 */
export function saleToJudge(sale: SalePlan): SaleToJudge {
  return {
    lines: sale.lines,
    checkLocked: (locked) =>
      sale.lines.forEach((line, index) =>
        checkSellable(
          locked.find((p) => p.id === line.performanceId)!,
          index,
        ),
      ),
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
