/**
 * The CSV exports' rows (docs/exports.md): what an export covers (an event of the
 * organizer, optionally one of its performances), its registration questions, and the
 * rows themselves as an async generator of keyset batches. The generator reads the next
 * batch only when its consumer asks for it, so a slow reader holds one batch in memory
 * and a consumer that stops (a client that hung up) stops the reads. Rows only: the HTTP
 * layer turns them into CSV.
 */
import { findPerformance } from '../../db/repositories/catalog.ts';
import {
  answersOfOrders,
  orderExportBatch,
  ticketExportBatch,
  type ExportAnswerRow,
  type ExportScope,
  type OrderExportRow,
  type TicketExportRow,
} from '../../db/repositories/exports.ts';
import { findQuestionsOfEvents, type QuestionRow } from '../../db/repositories/questions.ts';
import type { Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import { requireEvent } from '../catalog/events.ts';

/** Rows read per statement. */
export const EXPORT_BATCH_SIZE = 1000;

/** An answer's value: text, or the option keys of a multi-select. */
export type AnswerValue = string | string[];

export interface ExportPlan {
  scope: ExportScope;
  event: { id: string; title: string };
  performance?: { id: string; starts_at: Date };
  /** The event's questions, in the order they were added. */
  questions: QuestionRow[];
}

/** What an export covers; 404 for an event that is not the organizer's, 400 for a performance not of that event. */
export async function planExport(
  db: Executor,
  organizerId: string,
  eventId: string,
  performanceId: string | undefined,
): Promise<ExportPlan> {
  const event = await requireEvent(db, organizerId, eventId);
  let performance: ExportPlan['performance'];
  if (performanceId !== undefined) {
    const row = await findPerformance(db, organizerId, performanceId);
    if (row?.event_id !== eventId) {
      throw invalid(
        'parameter_invalid',
        `performance_id \`${performanceId}\` is not a performance of this event.`,
        'performance_id',
      );
    }
    performance = { id: row.id, starts_at: row.starts_at };
  }
  // In the order they were added; questions added at the same instant by key.
  const questions = (await findQuestionsOfEvents(db, organizerId, [eventId])).sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return {
    scope: { organizerId, eventId, ...(performanceId === undefined ? {} : { performanceId }) },
    event: { id: event.id, title: event.title },
    ...(performance === undefined ? {} : { performance }),
    questions,
  };
}

interface ExportOptions {
  batchSize?: number;
}

/** An order transaction row with the order's answers to the once-per-order questions, by key. */
export type OrderExport = OrderExportRow & { answers: ReadonlyMap<string, AnswerValue> };

/** A ticket row with its answers by key: its own (per attendee), else its order's (once per order). */
export type TicketExport = TicketExportRow & { answers: ReadonlyMap<string, AnswerValue> };

/** The once-per-order questions: the orders export has a column for each. */
export function orderQuestions(plan: ExportPlan): QuestionRow[] {
  return plan.questions.filter((q) => !q.per_attendee);
}

/** The order rows of the export, oldest order first, one batch at a time (the last may be empty). */
export async function* exportOrderBatches(
  db: Executor,
  plan: ExportPlan,
  opts: ExportOptions = {},
): AsyncGenerator<OrderExport[]> {
  const batchSize = opts.batchSize ?? EXPORT_BATCH_SIZE;
  const keys = orderQuestions(plan).map((q) => q.key);
  let after: string | undefined;
  for (;;) {
    const rows = await orderExportBatch(db, plan.scope, after, batchSize);
    const orderIds = [...new Set(rows.map((r) => r.order_id))];
    const answers = indexAnswers(await answersOfOrders(db, orderIds, keys));
    yield rows.map((row) => ({ ...row, answers: answers.get(row.order_id)?.get(null) ?? NO_ANSWERS }));
    if (orderIds.length < batchSize) return;
    after = orderIds.at(-1);
  }
}

/** The ticket rows of the export, oldest first, an order's tickets in order, one batch at a time (the last may be empty). */
export async function* exportTicketBatches(
  db: Executor,
  plan: ExportPlan,
  opts: ExportOptions = {},
): AsyncGenerator<TicketExport[]> {
  const batchSize = opts.batchSize ?? EXPORT_BATCH_SIZE;
  const keys = plan.questions.map((q) => q.key);
  let after: string | undefined;
  for (;;) {
    const rows = await ticketExportBatch(db, plan.scope, after, batchSize);
    const answers = indexAnswers(await answersOfOrders(db, [...new Set(rows.map((r) => r.order_id))], keys));
    yield rows.map((row) => {
      const ofOrder = answers.get(row.order_id);
      const own = ofOrder?.get(row.id);
      const shared = ofOrder?.get(null);
      return { ...row, answers: own === undefined ? (shared ?? NO_ANSWERS) : new Map([...(shared ?? []), ...own]) };
    });
    if (rows.length < batchSize) return;
    after = rows.at(-1)?.id;
  }
}

const NO_ANSWERS: ReadonlyMap<string, AnswerValue> = new Map();

/** order id → ticket id (null: once per order) → key → value. */
function indexAnswers(rows: ExportAnswerRow[]) {
  const byOrder = new Map<string, Map<string | null, Map<string, AnswerValue>>>();
  for (const a of rows) {
    let byTicket = byOrder.get(a.order_id);
    if (!byTicket) byOrder.set(a.order_id, (byTicket = new Map<string | null, Map<string, AnswerValue>>()));
    let byKey = byTicket.get(a.ticket_id);
    if (!byKey) byTicket.set(a.ticket_id, (byKey = new Map<string, AnswerValue>()));
    byKey.set(a.key, a.value);
  }
  return byOrder;
}
