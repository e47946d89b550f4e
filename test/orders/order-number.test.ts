/**
 * A taken order number (docs/orders.md, "Numbers"): the sale writes nothing, takes no
 * inventory, and is made again with another number, whether it runs as a pipeline in a
 * transaction of its own (the inventory step is sent before the sale's rows are known to
 * be in, and runs only if they are) or inside a caller's transaction (an Idempotency-Key
 * request), with and without registration answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { withTransaction } from '../../src/db/transaction.ts';
import { createOrder } from '../../src/domain/orders/create-order.ts';
import { useTestApp } from '../helpers/app.ts';
import { addQuestions, COMPANY_AND_DIET_QUESTIONS } from '../helpers/catalog.ts';
import { BUYER, setupSale, type Sale } from '../helpers/orders.ts';

describe('a taken order number', () => {
  const t = useTestApp();

  /** Draws the given numbers in turn, then fails (no sale should need more). */
  const numbers = (...drawn: string[]) => {
    const left = [...drawn];
    return () => left.shift() ?? assert.fail('more order numbers were drawn than given');
  };

  const input = (sale: Sale, quantity: number, answers?: unknown[]) => ({
    items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity }],
    buyer: BUYER,
    tender: 'cash' as const,
    ...(answers ? { registration_answers: answers as never } : {}),
  });

  /** What the sales of `sale` left in the database. */
  async function stored(sale: Sale) {
    const { rows } = await sql<{
      order_nos: string[];
      tickets: number;
      sold: number;
      payments: number;
      email_jobs: number;
      events: number;
      answers: number;
    }>`
      SELECT (SELECT array_agg(order_no ORDER BY order_no) FROM orders WHERE organizer_id = ${sale.org.id}) AS order_nos,
             (SELECT count(*)::int FROM tickets WHERE organizer_id = ${sale.org.id}) AS tickets,
             (SELECT sold_count FROM performances WHERE id = ${sale.performanceId}) AS sold,
             (SELECT count(*)::int FROM payments WHERE organizer_id = ${sale.org.id}) AS payments,
             (SELECT count(*)::int FROM email_jobs WHERE organizer_id = ${sale.org.id}) AS email_jobs,
             (SELECT count(*)::int FROM domain_events WHERE organizer_id = ${sale.org.id} AND type = 'order.created') AS events,
             (SELECT count(*)::int FROM registration_answers WHERE organizer_id = ${sale.org.id}) AS answers
    `.execute(t.database.db);
    return rows[0];
  }

  /** What two cash sales, numbered TAKEN234 and FREE5678, leave: each written and counted once. */
  const twoSales = ({ tickets, answers }: { tickets: number; answers: number }) => ({
    order_nos: ['FREE5678', 'TAKEN234'],
    tickets,
    sold: tickets,
    payments: 2,
    email_jobs: 4,
    events: 2,
    answers,
  });

  for (const where of ['in a transaction of its own', "inside a caller's transaction"] as const) {
    test(`${where}: drawn again, written and counted once`, async () => {
      const sale = await setupSale(t);
      const now = t.clock.now();
      const sell = (quantity: number, draw: () => string) =>
        where === 'in a transaction of its own'
          ? createOrder(t.database.db, sale.org.id, input(sale, quantity), now, draw)
          : withTransaction(t.database.db, (trx) => createOrder(trx, sale.org.id, input(sale, quantity), now, draw));
      const first = await sell(1, numbers('TAKEN234'));
      const second = await sell(3, numbers('TAKEN234', 'FREE5678'));
      assert.equal(first.order.order_no, 'TAKEN234');
      assert.equal(second.order.order_no, 'FREE5678');
      assert.deepEqual(
        second.tickets?.map((ticket) => ticket.ticket_no),
        ['FREE5678-001', 'FREE5678-002', 'FREE5678-003'],
      );
      assert.deepEqual(await stored(sale), twoSales({ tickets: 4, answers: 0 }));
    });
  }

  test('with registration answers: the answers go with the order that went in', async () => {
    const sale = await setupSale(t);
    await addQuestions(t, sale.event.id, COMPANY_AND_DIET_QUESTIONS);
    const now = t.clock.now();
    const answers = [
      { field_key: 'company', value: 'Analytical Engines Ltd' },
      { field_key: 'dietary', ticket_no: 1, value: 'vegan' },
      { field_key: 'dietary', ticket_no: 2, value: 'none' },
    ];
    await createOrder(t.database.db, sale.org.id, input(sale, 1, answers.slice(0, 2)), now, numbers('TAKEN234'));
    const second = await createOrder(
      t.database.db,
      sale.org.id,
      input(sale, 2, answers),
      now,
      numbers('TAKEN234', 'FREE5678'),
    );
    assert.equal(second.order.order_no, 'FREE5678');
    assert.deepEqual(
      second.answers.map((a) => [a.key, a.ticket_no, a.order_id]),
      [
        ['company', null, second.order.id],
        ['dietary', 'FREE5678-001', second.order.id],
        ['dietary', 'FREE5678-002', second.order.id],
      ],
    );
    assert.deepEqual(await stored(sale), twoSales({ tickets: 3, answers: 5 }));
  });
});
