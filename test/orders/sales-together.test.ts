/**
 * Sales written together (src/domain/orders/sales-together.ts, docs/inventory.md): concurrent
 * sales of one organizer share a transaction when they wait for one another; each is still
 * its own 201 or 400, writes exactly the rows a lone sale writes (order, tickets, payment,
 * e-mail jobs, contact, order.created and its webhook deliveries), and a sale that fails
 * never takes another down.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createOrder } from '../../src/domain/orders/create-order.ts';
import { useTestApp } from '../helpers/app.ts';
import { BUYER, countRows, orderBody, postOrder, setupSale, soldCount, type Sale } from '../helpers/orders.ts';

const CONCURRENT = 12;

describe('sales written together', () => {
  const t = useTestApp();

  async function saleOf(capacity: number): Promise<Sale> {
    return setupSale(t, { event: { performances: [{ starts_at: '2031-05-01T19:00:00Z', capacity }] } });
  }

  /** How many transactions wrote the organizer's orders (rows one transaction wrote share its xmin). */
  async function writingTransactions(organizerId: string): Promise<number> {
    const row = await sql<{ n: number }>`
      SELECT count(DISTINCT xmin::text)::int AS n FROM orders WHERE organizer_id = ${organizerId}::uuid`
      .execute(t.database.db)
      .then((r) => r.rows[0]!);
    return row.n;
  }

  test('concurrent sales share transactions; each is its own 201 or 400 with its own rows', async () => {
    const sale = await saleOf(10);
    await sql`
      INSERT INTO webhook_endpoints (organizer_id, url, event_types, secret)
      VALUES (${sale.org.id}::uuid, 'https://hooks.example.test/created', ARRAY['order.created'], 'whsec_test'),
             (${sale.org.id}::uuid, 'https://hooks.example.test/paid', ARRAY['order.paid'], 'whsec_test')
    `.execute(t.database.db);
    // Three buyers, so the batch's contacts are counted per buyer; one without a phone.
    const buyers = [
      BUYER,
      { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test', phone: '+1 555 0100' },
      { first_name: 'Alan', email: 'alan@example.test' },
    ];
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        postOrder(t, sale.org.key, orderBody(sale, { buyer: buyers[i % buyers.length] })),
      ),
    );
    const created = answers.filter((res) => res.statusCode === 201);
    const refused = answers.filter((res) => res.statusCode !== 201);
    assert.equal(created.length, 10);
    assert.equal(refused.length, 2);
    for (const res of refused) {
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'insufficient_inventory');
      assert.equal(
        res.json().detail,
        'Not enough tickets left: 1 "General" requested, 0 remaining for this performance.',
      );
    }
    assert.ok(
      (await writingTransactions(sale.org.id)) < created.length,
      'some of the sales were written by one transaction',
    );
    // Each 201 is the order as stored: GET answers the same body.
    for (const res of created) {
      const body = res.json();
      const read = await t.api(sale.org.key, 'GET', `/v1/orders/${body.id}?expand[]=items`);
      assert.deepEqual(read.json(), body);
      assert.equal(body.transactions[0].items.length, 1);
    }
    assert.equal(new Set(created.map((res) => res.json().order_no)).size, 10, 'every order its own number');
    assert.equal(await soldCount(t, sale), 10);
    assert.equal(await countRows(t, 'tickets', sale.org.id), 10);
    assert.equal(await countRows(t, 'payments', sale.org.id), 10);
    assert.equal(await countRows(t, 'email_jobs', sale.org.id), 20, 'a receipt and the e-tickets per cash order');
    const events = await sql<{ order_id: string; deliveries: number; url: string }>`
      SELECT e.data->>'order_id' AS order_id, count(d.id)::int AS deliveries, min(w.url) AS url
      FROM domain_events e
      LEFT JOIN webhook_deliveries d ON d.event_id = e.id
      LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE e.organizer_id = ${sale.org.id}::uuid AND e.type = 'order.created'
      GROUP BY 1 ORDER BY 1
    `.execute(t.database.db);
    assert.deepEqual(
      events.rows,
      created
        .map((res) => res.json().id as string)
        .sort()
        .map((id) => ({ order_id: id, deliveries: 1, url: 'https://hooks.example.test/created' })),
      'one order.created per order, delivered to the subscribed endpoint only',
    );
    const contacts = await t.database.db
      .selectFrom('contacts')
      .select(['email', 'first_name', 'last_name', 'phone', 'orders_count'])
      .where('organizer_id', '=', sale.org.id)
      .orderBy('email')
      .execute();
    const ordersOf = (email: string) => created.filter((res) => res.json().buyer.email === email).length;
    assert.deepEqual(
      contacts,
      [
        {
          email: 'ada@example.test',
          first_name: 'Ada',
          last_name: 'Lovelace',
          phone: BUYER.phone,
          orders_count: ordersOf('ada@example.test'),
        },
        {
          email: 'alan@example.test',
          first_name: 'Alan',
          last_name: null,
          phone: null,
          orders_count: ordersOf('alan@example.test'),
        },
        {
          email: 'grace@example.test',
          first_name: 'Grace',
          last_name: 'Hopper',
          phone: '+1 555 0100',
          orders_count: ordersOf('grace@example.test'),
        },
      ].filter((c) => c.orders_count > 0),
    );
  });

  test('sales with an Idempotency-Key are each written in their own request transaction', async () => {
    const sale = await saleOf(20);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        postOrder(t, sale.org.key, orderBody(sale), { 'Idempotency-Key': `together-${sale.org.id}-${i}` }),
      ),
    );
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [201, 201, 201, 201, 201, 201],
    );
    assert.equal(await writingTransactions(sale.org.id), 6);
    assert.equal(await soldCount(t, sale), 6);
  });

  test('a sale that fails in a shared transaction takes no other sale down', async () => {
    const sale = await saleOf(50);
    // A fault of the database for one buyer's order only.
    await sql`
      CREATE FUNCTION refuse_poisoned_order() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.buyer_email = 'poison@example.test' THEN RAISE EXCEPTION 'poisoned order'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poisoned_order BEFORE INSERT ON orders
        FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_order();
    `.execute(t.database.db);
    try {
      const poisoned = { first_name: 'Pat', email: 'poison@example.test' };
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          postOrder(t, sale.org.key, orderBody(sale, i === 5 ? { buyer: poisoned } : {}, 2)),
        ),
      );
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        Array.from({ length: CONCURRENT }, (_, i) => (i === 5 ? 500 : 201)),
      );
      assert.equal(answers[5]!.json().code, 'internal_error');
      assert.equal(await soldCount(t, sale), 2 * (CONCURRENT - 1), 'the failed sale took nothing');
      assert.equal(await countRows(t, 'tickets', sale.org.id), 2 * (CONCURRENT - 1));
    } finally {
      await sql`DROP TRIGGER refuse_poisoned_order ON orders; DROP FUNCTION refuse_poisoned_order()`.execute(
        t.database.db,
      );
    }
  });

  test('an order number already taken: the sales are written again, and every one sells', async () => {
    const sale = await saleOf(50);
    const first = await postOrder(t, sale.org.key, orderBody(sale));
    assert.equal(first.statusCode, 201);
    const taken = first.json().order_no as string;
    // Every sale draws the taken number first, then a free one.
    let drawn = 0;
    const nextOrderNo = () => (drawn++ % 2 === 0 ? taken : `T${String(drawn).padStart(7, '0')}`);
    const input = {
      items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 1 }],
      buyer: BUYER,
      tender: 'cash' as const,
    };
    const details = await Promise.all(
      Array.from({ length: 6 }, () => createOrder(t.database.db, sale.org.id, input, t.clock.now(), nextOrderNo)),
    );
    const numbers = details.map((d) => d.order.order_no);
    assert.equal(new Set([taken, ...numbers]).size, 7, `distinct numbers: ${numbers.join(', ')}`);
    assert.equal(await soldCount(t, sale), 7);
    assert.equal(await countRows(t, 'tickets', sale.org.id), 7);
  });
});
