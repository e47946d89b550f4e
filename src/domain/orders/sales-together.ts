/**
 * Group commit for sales: concurrent sales of one organizer written in one transaction
 * (docs/inventory.md, "Sales written together").
 *
 * In an on-sale rush every sale of a performance queues on that performance's lock, and
 * each pays alone for what it could share: a transaction, the lock, the inventory
 * recount, a statement per table, a commit. Here a sale without an Idempotency-Key and
 * without registration answers goes through a GroupQueue (src/lib/group-queue.ts) per
 * organizer: with nothing of its organizer in flight it is written at once, alone,
 * exactly as before (./write-sale.ts); sales that arrive meanwhile are written together
 * as soon as it ends, in rounds of one transaction each:
 *
 *  1. BEGIN; the sales' rows in ONE statement (salesInsertStatement: each order, its
 *     transactions, tickets, payment, e-mail jobs, CRM contact, `order.created` and its
 *     webhook deliveries: the rows a lone sale writes), before any lock is asked for, as
 *     a lone sale writes them;
 *  2. LAST, with the COMMIT behind it in the same message, take_inventory_for_sales_or_refuse():
 *     their performances locked once and recounted once, the sales judged one after
 *     another in arrival order exactly as if each had taken its inventory alone in that
 *     order, the counters moved by what they take. If every sale fits, that message
 *     commits them all. If any is refused, nothing is written: the refused sales get the
 *     400 a lone sale would have got at its turn, worded by the same rules
 *     (takeInventoryForSalesLast), and the others go again in a new round.
 *
 * Each sale is still its own 201 or 400. A sale never takes another down: a round that
 * fails before its inventory step (an order number already taken, an error of the
 * database while writing a sale's rows) rolls back, and its sales are written again
 * alone, so each gets the outcome it would have had alone. A failure of the last message
 * is not retried (it may have committed): each sale of the round answers it, as a lone
 * sale would.
 */
import { salesInsertStatement, salesInserted } from '../../db/repositories/orders.ts';
import { afterCommit, inTransaction, withTransaction, type Executor } from '../../db/transaction.ts';
import type { DomainError } from '../../errors/domain-error.ts';
import { GroupQueue, type Settled } from '../../lib/group-queue.ts';
import { deliveriesQueued } from '../../outbox/domain-events.ts';
import { takeInventoryForSalesLast } from '../inventory/inventory.ts';
import type { OrderDetail } from './detail.ts';
import { saleRows, writtenSale, type SalePlan } from './sale-rows.ts';
import { saleToJudge, writeSale, type Answers } from './write-sale.ts';

interface QueuedSale {
  sale: SalePlan;
  nextOrderNo: () => string;
}

/**
 * Batches of one organizer in flight at a time. One: every sale that arrives while a
 * batch is written joins the next, so batches are as large as the rush makes them, and
 * the performance lock has one writer of the organizer's sales at a time
 * (bench/README.md, "What each change bought").
 */
const MAX_RUNNING = 1;
/** Sales in one batch: bounds the statement's size and the wait of the batch's first sale. */
const MAX_BATCH = 64;

/** Per database handle (each process's pool; tests open several). */
const queues = new WeakMap<Executor, GroupQueue<QueuedSale, OrderDetail>>();

/**
 * Writes a planned sale, together with concurrent sales of its organizer when they wait
 * for one another; alone when it has registration answers or runs inside a transaction
 * of its caller (an Idempotency-Key's request transaction decides its own commit).
 */
export function writeSaleWithOthers(
  db: Executor,
  sale: SalePlan,
  answers: Answers,
  nextOrderNo: () => string,
): Promise<OrderDetail> {
  if (answers.length > 0 || inTransaction(db)) return writeSale(db, sale, answers, nextOrderNo);
  let queue = queues.get(db);
  if (queue === undefined) {
    queue = new GroupQueue((batch) => writeBatch(db, batch), { maxRunning: MAX_RUNNING, maxBatch: MAX_BATCH });
    queues.set(db, queue);
  }
  return queue.submit(sale.organizerId, { sale, nextOrderNo });
}

/**
 * Rounds of the batch in one transaction each: a round that refuses some sales answers
 * them and writes the others again without them (each round judges afresh); a round that
 * cannot reach its inventory step (an order number already taken, an error of the
 * database while writing the rows) leaves its sales to be written alone.
 */
async function writeBatch(db: Executor, batch: QueuedSale[]): Promise<Settled<OrderDetail>[]> {
  const outcomes = new Map<QueuedSale, Settled<OrderDetail>>();
  let pending = batch;
  while (pending.length > 1) {
    const round = await writeRound(db, pending);
    if (round === undefined) break;
    if ('settled' in round) {
      pending.forEach((queued, i) => outcomes.set(queued, round.settled[i]!));
      pending = [];
    } else {
      pending.forEach((queued, i) => {
        const refusal = round.refusals[i];
        if (refusal !== undefined) outcomes.set(queued, { ok: false, error: refusal });
      });
      pending = pending.filter((_, i) => round.refusals[i] === undefined);
    }
  }
  await Promise.all(
    pending.map(async (queued) =>
      outcomes.set(queued, await settled(writeSale(db, queued.sale, [], queued.nextOrderNo))),
    ),
  );
  return batch.map((queued) => outcomes.get(queued)!);
}

type Round =
  /** Every sale's outcome: all committed, or all failed with the failure of the last message. */
  | { settled: Settled<OrderDetail>[] }
  /** Some were refused (nothing was written): each sale's 400, or undefined when it fits. */
  | { refusals: Array<DomainError | undefined> }
  /** Rolled back before the inventory step: the sales are still to be written. */
  | undefined;

/** Ends a round whose inventory step refused some of its sales: withTransaction rolls it back. */
class RefusedRound extends Error {
  constructor(readonly refusals: Array<DomainError | undefined>) {
    super('a sale of the round was refused');
  }
}

/**
 * One round, in withTransaction: the sales' rows in one statement (awaited: an order
 * number already taken must stop the round before inventory is taken); then their
 * inventory with the COMMIT behind it in one message (takeInventoryForSalesLast), so the
 * lock is held only inside the database, as for a lone sale. The rows go in before the
 * lock is asked for, as a lone sale's do, so every writer takes its locks in one order.
 */
async function writeRound(db: Executor, pending: QueuedSale[]): Promise<Round> {
  const rows = pending.map(({ sale, nextOrderNo }) => saleRows(sale, nextOrderNo()));
  const latest = new Date(Math.max(...pending.map(({ sale }) => sale.now.getTime())));
  let lastMessageSent = false;
  try {
    return await withTransaction(db, async (trx) => {
      const inserted = salesInserted(rows, (await salesInsertStatement(rows).execute(trx)).rows);
      if (inserted.sales.some((sale) => sale === undefined)) throw new Error('an order number was already taken');
      afterCommit(trx, () => deliveriesQueued(inserted.queuedDeliveries));
      lastMessageSent = true;
      const refusals = await takeInventoryForSalesLast(
        trx,
        pending.map(({ sale }) => saleToJudge(sale)),
        latest,
      );
      if (refusals !== undefined) throw new RefusedRound(refusals);
      return {
        settled: rows.map((saleRows, i) => ({ ok: true, value: writtenSale(saleRows, inserted.sales[i]!, []) })),
      };
    });
  } catch (err) {
    if (err instanceof RefusedRound) return { refusals: err.refusals };
    // Before the last message nothing is committed: the sales are written again, alone.
    if (!lastMessageSent) return undefined;
    return { settled: pending.map(() => ({ ok: false, error: err })) };
  }
}

function settled<R>(promise: Promise<R>): Promise<Settled<R>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}
