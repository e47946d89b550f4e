/**
 * An order that cannot fit what remains is refused before the sale writes anything: one
 * statement (the catalog read), no row, the same 400 detail as the refusal under the lock;
 * and an oversubscribed rush, whose refusals are mostly early ones, still sells exactly
 * the capacity and the capped type's cap (docs/inventory.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { takeInventoryLast } from '../../src/domain/inventory/inventory.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { CountingPlugin } from '../helpers/counting-plugin.ts';
import { eventsOfType, orderBody, placeOrder, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { rowCounts } from '../helpers/row-counts.ts';

describe('early refusal', () => {
  const t = useTestApp();

  /** The 400 the sale's locked check gives for these items, from the inventory step itself (rolled back). */
  async function lockedRefusal(sale: Sale, items: { ticket_type_id: string; quantity: number }[]): Promise<string> {
    const lines = items.map((i) => ({
      performanceId: sale.performanceId,
      ticketTypeId: i.ticket_type_id,
      quantity: i.quantity,
    }));
    let detail = '';
    await assert.rejects(
      withTransaction(t.database.db, (trx) => takeInventoryLast(trx, lines, t.clock.now())),
      (err: { code: string; detail: string }) => {
        assert.equal(err.code, 'insufficient_inventory');
        detail = err.detail;
        return true;
      },
    );
    return detail;
  }

  /** POSTs with the app's database handle counting statements; the answer and the count. */
  async function countedPost(sale: Sale, body: unknown) {
    const counter = new CountingPlugin();
    const db = t.app.deps.db;
    t.app.deps.db = t.database.db.withPlugin(counter);
    try {
      const res = await postOrder(t, sale.org.key, body);
      return { res, statements: counter.queries };
    } finally {
      t.app.deps.db = db;
    }
  }

  test("an order that does not fit runs one statement, writes no row, and answers the locked check's 400", async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-04-01T19:00:00Z', capacity: 5 }],
        ticket_types: [{ name: 'General', price_minor: 1000 }],
      },
    });
    await placeOrder(t, sale, {}, 3);
    // Ids are uuids and order numbers random, so no sequence numbers a sale; the one sequence,
    // the sync horizon's floor, moves only with time-filtered list reads (docs/sync.md).
    const sequences = await sql<{
      name: string;
    }>`SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = 'public'`.execute(
      t.database.db,
    );
    assert.deepEqual(
      sequences.rows.map((r) => r.name),
      ['sync_horizon_floor'],
    );
    const floor = () =>
      sql<{ v: string }>`SELECT last_value::text AS v FROM sync_horizon_floor`
        .execute(t.database.db)
        .then((r) => r.rows[0]!.v);
    const floorBefore = await floor();
    const before = await rowCounts(t.database.db);

    const { res, statements } = await countedPost(sale, orderBody(sale, {}, 3));
    const detail = 'Not enough tickets left: 3 "General" requested, 2 remaining for this performance.';
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), problemOf(400, detail, 'insufficient_inventory'));
    assert.equal(statements, 1, 'only the catalog read: no BEGIN, no insert, no take_inventory()');
    assert.deepEqual(await rowCounts(t.database.db), before);
    assert.equal(await floor(), floorBefore);
    assert.equal(await lockedRefusal(sale, [{ ticket_type_id: sale.ticketTypeId, quantity: 3 }]), detail);

    // What fits is still sold, through the whole path.
    const fits = await countedPost(sale, orderBody(sale, {}, 2));
    assert.equal(fits.res.statusCode, 201);
    assert.equal(
      fits.statements,
      5,
      "catalog, BEGIN, the sale's rows with order.created, take_inventory_or_refuse() with the COMMIT, the audit log entry",
    );
  });

  test('a capped type and a performance-wide shortfall: the early detail is the locked one, types in display order', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-04-02T19:00:00Z', capacity: 10 }],
        ticket_types: [
          { name: 'Stalls', price_minor: 3000 },
          { name: 'Balcony', price_minor: 2000 },
          { name: 'Box', price_minor: 9000, quantity: 2 },
        ],
      },
    });
    const [stalls, balcony, box] = sale.ticketTypeIds as [string, string, string];
    const cases = [
      {
        items: [{ ticket_type_id: box, quantity: 3 }],
        detail: 'Not enough tickets left: 3 "Box" requested, 2 remaining for this performance.',
      },
      // Each type fits alone; together they exceed the performance. Asked Balcony first, named in display order.
      {
        items: [
          { ticket_type_id: balcony, quantity: 6 },
          { ticket_type_id: stalls, quantity: 5 },
        ],
        detail:
          'Not enough tickets left: 11 tickets of "Stalls", "Balcony" requested, 10 remaining for this performance.',
      },
    ];
    const before = await rowCounts(t.database.db);
    for (const c of cases) {
      const body = orderBody(sale, { items: c.items.map((i) => ({ performance_id: sale.performanceId, ...i })) });
      const { res, statements } = await countedPost(sale, body);
      assert.deepEqual(
        [res.statusCode, res.json(), statements],
        [400, problemOf(400, c.detail, 'insufficient_inventory'), 1],
      );
      assert.equal(await lockedRefusal(sale, c.items), c.detail);
    }
    assert.deepEqual(await rowCounts(t.database.db), before);
  });

  test('concurrent sales of one performance share their catalog read, each read starting after its sale asked', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-04-04T19:00:00Z', capacity: 3 }],
        ticket_types: [{ name: 'General', price_minor: 1000 }],
      },
    });
    await placeOrder(t, sale, {}, 3);
    const counter = new CountingPlugin();
    const db = t.app.deps.db;
    t.app.deps.db = t.database.db.withPlugin(counter);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => postOrder(t, sale.org.key, orderBody(sale, {}, 1))),
      );
      const detail = 'Not enough tickets left: 1 "General" requested, 0 remaining for this performance.';
      for (const res of answers) assert.deepEqual(res.json(), problemOf(400, detail, 'insufficient_inventory'));
      // At least one read ran while others asked, so they waited for a later one together.
      assert.ok(counter.queries < 20, `${counter.queries} catalog reads for 20 concurrent refusals`);
      assert.ok(counter.queries >= 2, `${counter.queries} catalog reads: the first cannot answer later callers`);
    } finally {
      t.app.deps.db = db;
    }
  });

  test('oversubscribed rush: 24 buyers keep trying until each has seen "0 remaining" three times; exactly capacity and cap sold', async () => {
    const capacity = 60;
    const cap = 12;
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-04-03T19:00:00Z', capacity }],
        ticket_types: [
          { name: 'General', price_minor: 1000 },
          { name: 'Front Row', price_minor: 5000, quantity: cap },
        ],
      },
    });
    const [general, frontRow] = sale.ticketTypeIds as [string, string];
    const statuses = new Map<number, number>();
    const badDetails: string[] = [];
    let requested = 0;
    await Promise.all(
      Array.from({ length: 24 }, async (_, client) => {
        let soldOutSeen = 0;
        for (let n = 0; soldOutSeen < 3; n++) {
          // Three of four requests want the capped type, which sells out early.
          const type = (client + n) % 4 === 0 ? general : frontRow;
          const quantity = 1 + ((client * 7 + n * 3) % 3);
          requested += quantity;
          const res = await postOrder(
            t,
            sale.org.key,
            orderBody(sale, { items: [{ performance_id: sale.performanceId, ticket_type_id: type, quantity }] }),
          );
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          if (res.statusCode !== 400) continue;
          assert.equal(res.json().code, 'insufficient_inventory');
          const detail = res.json().detail as string;
          const name = type === general ? 'General' : 'Front Row';
          const match = new RegExp(
            `^Not enough tickets left: ${quantity} "${name}" requested, (\\d+) remaining for this performance\\.$`,
          ).exec(detail);
          if (!match || Number(match[1]) >= quantity) badDetails.push(detail);
          if (type === general && match?.[1] === '0') soldOutSeen++;
        }
      }),
    );
    assert.deepEqual(badDetails, []);
    assert.deepEqual([...statuses.keys()].sort(), [201, 400]);
    assert.ok(requested >= 3 * capacity, `demand ${requested} tickets for ${capacity}`);
    const sold = await t.database.db
      .selectFrom('tickets')
      .select(['ticket_type_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('performance_id', '=', sale.performanceId)
      .groupBy('ticket_type_id')
      .execute();
    assert.deepEqual(Object.fromEntries(sold.map((r) => [r.ticket_type_id, Number(r.n)])), {
      [general]: capacity - cap,
      [frontRow]: cap,
    });
    const perf = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    const price = await t.database.db
      .selectFrom('prices')
      .select('sold_count')
      .where('ticket_type_id', '=', frontRow)
      .executeTakeFirstOrThrow();
    assert.deepEqual([perf.sold_count, price.sold_count], [capacity, cap]);
    assert.equal((await eventsOfType(t, sale.org.id, 'order.created')).length, statuses.get(201));
    const orders = await t.database.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organizer_id', '=', sale.org.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(orders.n), statuses.get(201));
  });
});
