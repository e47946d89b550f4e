/**
 * Never oversold: 100 concurrent orders at a performance of capacity 37 (PostgreSQL with a
 * pool of 30, and PGlite), the same for a per-type cap, and 20 concurrent check-ins of one
 * ticket (one 200, nineteen 409s, one ticket.checked_in).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { takeInventoryLast } from '../../src/domain/inventory/inventory.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { eventsOfType, orderBody, placeOrder, postOrder, setupSale } from '../helpers/orders.ts';

describe('concurrent sales never oversell', () => {
  // A hundred sales queue for PGlite's one connection; on a loaded machine the last of them
  // may wait longer than the default 5 s acquire timeout, and this is not what is tested.
  const t = useTestApp({ databaseOptions: { acquireTimeoutMs: 60_000 } });

  async function fire(n: number, send: () => Promise<{ statusCode: number; json(): any }>) {
    const results = await Promise.all(Array.from({ length: n }, () => send()));
    return {
      created: results.filter((r) => r.statusCode === 201),
      refused: results.filter((r) => r.statusCode === 400),
      other: results.filter((r) => r.statusCode !== 201 && r.statusCode !== 400),
    };
  }

  test('100 concurrent orders of 1 at capacity 37: exactly 37 sold, 63 refused naming the type and 0 remaining', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-03-01T19:00:00Z', capacity: 37 }],
        ticket_types: [{ name: 'Standing', price_minor: 1000 }],
      },
    });
    const { created, refused, other } = await fire(100, () => postOrder(t, sale.org.key, orderBody(sale)));
    assert.deepEqual(
      other.map((r) => r.json()),
      [],
    );
    assert.equal(created.length, 37);
    assert.equal(refused.length, 63);
    for (const r of refused) {
      assert.deepEqual(
        r.json(),
        problemOf(
          400,
          'Not enough tickets left: 1 "Standing" requested, 0 remaining for this performance.',
          'insufficient_inventory',
        ),
      );
    }
    const perf = await t.database.db
      .selectFrom('performances')
      .select(['sold_count', 'capacity'])
      .where('id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(perf, { sold_count: 37, capacity: 37 });
    const price = await t.database.db
      .selectFrom('prices')
      .select('sold_count')
      .where('performance_id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    assert.equal(price.sold_count, 37);
    const tickets = await t.database.db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('performance_id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(tickets.n), 37);
    assert.equal((await eventsOfType(t, sale.org.id, 'order.created')).length, 37);
    const availability = await t.api(sale.org.key, 'GET', `/v1/performances/${sale.performanceId}/availability`);
    assert.equal(availability.json().performance_remaining, 0);
  });

  test('per-type cap: 60 concurrent orders of 2 at a cap of 25 sell 12 orders (24 tickets), the rest see 1 remaining', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-03-02T19:00:00Z', capacity: 500 }],
        ticket_types: [
          { name: 'VIP', price_minor: 9000, quantity: 25 },
          { name: 'General', price_minor: 1000 },
        ],
      },
    });
    const { created, refused, other } = await fire(60, () => postOrder(t, sale.org.key, orderBody(sale, {}, 2)));
    assert.deepEqual(
      other.map((r) => r.json()),
      [],
    );
    assert.equal(created.length, 12);
    assert.equal(refused.length, 48);
    for (const r of refused) {
      assert.deepEqual(
        r.json(),
        problemOf(
          400,
          'Not enough tickets left: 2 "VIP" requested, 1 remaining for this performance.',
          'insufficient_inventory',
        ),
      );
    }
    const price = await t.database.db
      .selectFrom('prices')
      .select('sold_count')
      .where('ticket_type_id', '=', sale.ticketTypeId)
      .executeTakeFirstOrThrow();
    assert.equal(price.sold_count, 24);
    // The last VIP seat still sells, and the other type is untouched by the cap.
    await placeOrder(t, sale, {}, 1);
    const general = await postOrder(t, sale.org.key, {
      ...orderBody(sale),
      items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeIds[1], quantity: 50 }],
    });
    assert.equal(general.statusCode, 201);
    const perf = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    assert.equal(perf.sold_count, 75);
  });

  test('orders across two performances lock in id order and never deadlock', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [
          { starts_at: '2027-03-03T19:00:00Z', capacity: 30 },
          { starts_at: '2027-03-04T19:00:00Z', capacity: 30 },
        ],
        ticket_types: [{ name: 'General', price_minor: 1000 }],
      },
    });
    const [p1, p2] = sale.event.ticket_types[0]!.prices.map((p) => p.performance_id);
    const item = (performance_id: string) => ({ performance_id, ticket_type_id: sale.ticketTypeId, quantity: 1 });
    let flip = false;
    const { created, refused, other } = await fire(40, () => {
      flip = !flip;
      return postOrder(t, sale.org.key, {
        ...orderBody(sale),
        items: flip ? [item(p1!), item(p2!)] : [item(p2!), item(p1!)],
      });
    });
    assert.deepEqual(
      other.map((r) => r.json()),
      [],
    );
    assert.equal(created.length, 30);
    assert.equal(refused.length, 10);
    const perfs = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', 'in', [p1!, p2!])
      .execute();
    assert.deepEqual(
      perfs.map((p) => p.sold_count),
      [30, 30],
    );
  });

  test('takeInventoryLast: the locked rows carry the sellability as of the lock; a refusal there rolls the taken counters back', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-03-05T19:00:00Z', capacity: 10 }],
        ticket_types: [{ name: 'General', price_minor: 1000, quantity: 4 }],
      },
    });
    await t.database.db
      .updateTable('performances')
      .set({ box_office_sales_enabled: false })
      .where('id', '=', sale.performanceId)
      .execute();
    const lines = [{ performanceId: sale.performanceId, ticketTypeId: sale.ticketTypeId, quantity: 3 }];
    let seen: unknown;
    await assert.rejects(
      withTransaction(t.database.db, (trx) =>
        takeInventoryLast(trx, lines, t.clock.now(), {
          checkLocked: (locked) => {
            seen = locked;
            throw new Error('not sellable');
          },
        }),
      ),
      /not sellable/,
    );
    assert.deepEqual(seen, [
      { id: sale.performanceId, status: 'published', box_office_sales_enabled: false, event_status: 'published' },
    ]);
    const counters = async () => [
      (
        await t.database.db
          .selectFrom('performances')
          .select('sold_count')
          .where('id', '=', sale.performanceId)
          .executeTakeFirstOrThrow()
      ).sold_count,
      (
        await t.database.db
          .selectFrom('prices')
          .select('sold_count')
          .where('performance_id', '=', sale.performanceId)
          .executeTakeFirstOrThrow()
      ).sold_count,
    ];
    assert.deepEqual(await counters(), [0, 0]);
    // Sellable again: the same lines take 3, then 2 more do not fit the cap of 4 and move nothing.
    await t.database.db
      .updateTable('performances')
      .set({ box_office_sales_enabled: true })
      .where('id', '=', sale.performanceId)
      .execute();
    await withTransaction(t.database.db, (trx) => takeInventoryLast(trx, lines, t.clock.now()));
    assert.deepEqual(await counters(), [3, 3]);
    await assert.rejects(
      withTransaction(t.database.db, (trx) => takeInventoryLast(trx, [{ ...lines[0]!, quantity: 2 }], t.clock.now())),
      {
        name: 'DomainError',
        code: 'insufficient_inventory',
        detail: 'Not enough tickets left: 2 "General" requested, 1 remaining for this performance.',
      },
    );
    assert.deepEqual(await counters(), [3, 3]);
  });

  test(
    '20 concurrent check-ins of one ticket: one 200, nineteen 409s, one ticket.checked_in',
    { skip: !onPostgres && 'concurrency of check-in runs on PostgreSQL' },
    async () => {
      const sale = await setupSale(t);
      const order = await placeOrder(t, sale);
      const ticket = order.transactions[0].items[0];
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.api(sale.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`)),
      );
      const ok = results.filter((r) => r.statusCode === 200);
      const conflicts = results.filter((r) => r.statusCode === 409);
      assert.equal(ok.length, 1);
      assert.equal(conflicts.length, 19);
      for (const r of conflicts)
        assert.deepEqual(r.json(), problemOf(409, 'Ticket is already checked in.', 'invalid_state'));
      const events = await eventsOfType(t, sale.org.id, 'ticket.checked_in');
      assert.equal(events.length, 1);
    },
  );

  test('check-in racing the gate scanner for one ticket admits it once', async () => {
    const sale = await setupSale(t);
    const order = await placeOrder(t, sale);
    const ticket = order.transactions[0].items[0];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? t.api(sale.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`)
          : t.admin('POST', '/admin/v1/scan', { organizer_id: sale.org.id, code: ticket.serial_no }),
      ),
    );
    assert.equal(results.filter((r) => r.statusCode === 200).length, 1);
    assert.equal(results.filter((r) => r.statusCode === 409).length, 9);
    assert.equal((await eventsOfType(t, sale.org.id, 'ticket.checked_in')).length, 1);
  });
});
