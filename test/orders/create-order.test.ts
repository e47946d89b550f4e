/** POST /v1/orders: every rule of docs/orders.md and the OpenAPI document, bad input first. */
import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { insertSale } from '../../src/db/repositories/orders.ts';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { BUYER, eventsOfType, orderBody, placeOrder, postOrder, setupSale, useSale } from '../helpers/orders.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('POST /v1/orders', () => {
  const t = useTestApp();
  const sale = useSale(t);

  const expect400 = async (body: unknown, detail: string, code: ErrorCode, param?: string) => {
    const res = await postOrder(t, sale.org.key, body);
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json(), problemOf(400, detail, code, param));
  };

  test('strict body: unknown keys at every level answer 400 naming the key', async () => {
    await expect400(
      { ...orderBody(sale), coupon: 'X' },
      'Unknown field `coupon` in body.',
      'parameter_unknown',
      'coupon',
    );
    await expect400(
      {
        ...orderBody(sale),
        items: [{ performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 1, seat: 'A1' }],
      },
      'Unknown field `items.0.seat` in body.',
      'parameter_unknown',
      'items.0.seat',
    );
    await expect400(
      { ...orderBody(sale), buyer: { ...BUYER, age: 3 } },
      'Unknown field `buyer.age` in body.',
      'parameter_unknown',
      'buyer.age',
    );
    await expect400(
      { ...orderBody(sale), registration_answers: [{ field_key: 'x', value: 'y', extra: 1 }] },
      'Unknown field `registration_answers.0.extra` in body.',
      'parameter_unknown',
      'registration_answers.0.extra',
    );
  });

  test('items: required, 1 to 20, quantity an integer 1 to 50', async () => {
    const { items: _, ...noItems } = orderBody(sale);
    await expect400(noItems, 'Missing required field `items` in body.', 'parameter_missing', 'items');
    await expect400(
      { ...orderBody(sale), items: [] },
      '`items` must have at least 1 item.',
      'parameter_invalid',
      'items',
    );
    const item = { performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 1 };
    await expect400(
      { ...orderBody(sale), items: Array.from({ length: 21 }, () => item) },
      '`items` must have at most 20 items.',
      'parameter_invalid',
      'items',
    );
    await expect400(
      { ...orderBody(sale), items: [{ ...item, quantity: 0 }] },
      '`items.0.quantity` must be at least 1.',
      'parameter_invalid',
      'items.0.quantity',
    );
    await expect400(
      { ...orderBody(sale), items: [{ ...item, quantity: 51 }] },
      '`items.0.quantity` must be at most 50.',
      'parameter_invalid',
      'items.0.quantity',
    );
    await expect400(
      { ...orderBody(sale), items: [{ ...item, quantity: '1' }] },
      '`items.0.quantity` must be of type integer.',
      'parameter_invalid',
      'items.0.quantity',
    );
    await expect400(
      { ...orderBody(sale), items: [{ ...item, quantity: 1.5 }] },
      '`items.0.quantity` must be of type integer.',
      'parameter_invalid',
      'items.0.quantity',
    );
    await expect400(
      { ...orderBody(sale), items: [{ ...item, performance_id: 'nope' }] },
      '`items.0.performance_id` must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits).',
      'parameter_invalid',
      'items.0.performance_id',
    );
    const { quantity: __, ...noQuantity } = item;
    await expect400(
      { ...orderBody(sale), items: [noQuantity] },
      'Missing required field `items.0.quantity` in body.',
      'parameter_missing',
      'items.0.quantity',
    );
  });

  test('20 items and quantity 50 are accepted', async () => {
    const item = { performance_id: sale.performanceId, ticket_type_id: sale.ticketTypeId, quantity: 1 };
    const many = await postOrder(t, sale.org.key, {
      ...orderBody(sale),
      items: Array.from({ length: 20 }, () => item),
    });
    assert.equal(many.statusCode, 201, many.body);
    assert.equal(many.json().transactions[0].items.length, 20);
    const big = await setupSale(t, { org: sale.org });
    const fifty = await postOrder(t, sale.org.key, orderBody(big, {}, 50));
    assert.equal(fifty.statusCode, 201, fifty.body);
    assert.equal(fifty.json().transactions[0].items.length, 50);
  });

  test('buyer: first_name and a valid email required', async () => {
    const { buyer: _, ...noBuyer } = orderBody(sale);
    await expect400(noBuyer, 'Missing required field `buyer` in body.', 'parameter_missing', 'buyer');
    await expect400(
      { ...orderBody(sale), buyer: { email: 'a@example.test' } },
      'Missing required field `buyer.first_name` in body.',
      'parameter_missing',
      'buyer.first_name',
    );
    await expect400(
      { ...orderBody(sale), buyer: { first_name: 'A' } },
      'Missing required field `buyer.email` in body.',
      'parameter_missing',
      'buyer.email',
    );
    await expect400(
      { ...orderBody(sale), buyer: { first_name: 'A', email: 'not-an-email' } },
      '`buyer.email` must be a valid email.',
      'parameter_invalid',
      'buyer.email',
    );
    await expect400(
      { ...orderBody(sale), buyer: { first_name: '', email: 'a@example.test' } },
      '`buyer.first_name` must be at least 1 character.',
      'parameter_invalid',
      'buyer.first_name',
    );
    await expect400(
      { ...orderBody(sale), buyer: { first_name: '   ', email: 'a@example.test' } },
      '`buyer.first_name` must not be blank.',
      'parameter_invalid',
      'buyer.first_name',
    );
    await expect400(
      { ...orderBody(sale), buyer: { first_name: 'A', email: 3 } },
      '`buyer.email` must be of type string.',
      'parameter_invalid',
      'buyer.email',
    );
  });

  test('tender: cash, pay_later or free', async () => {
    const { tender: _, ...noTender } = orderBody(sale);
    await expect400(noTender, 'Missing required field `tender` in body.', 'parameter_missing', 'tender');
    await expect400(
      { ...orderBody(sale), tender: 'card' },
      '`tender` must be one of: cash, pay_later, free.',
      'parameter_invalid',
      'tender',
    );
  });

  test("a performance that is unknown, another organizer's, a draft, or not box-office sellable answers 400 naming it", async () => {
    await expect400(
      { ...orderBody(sale), items: [{ performance_id: UNKNOWN, ticket_type_id: sale.ticketTypeId, quantity: 1 }] },
      `items[0].performance_id ${UNKNOWN} is not a performance of this organizer.`,
      'parameter_invalid',
      'items.0.performance_id',
    );
    const other = await setupSale(t);
    await expect400(
      orderBody(other),
      `items[0].performance_id ${other.performanceId} is not a performance of this organizer.`,
      'parameter_invalid',
      'items.0.performance_id',
    );

    const draft = await setupSale(t, { org: sale.org, event: { publish: false } });
    await expect400(
      orderBody(draft),
      `items[0]: performance ${draft.performanceId} is not published, so it cannot be sold; publish its event first.`,
      'not_on_sale',
    );

    const closed = await setupSale(t, { org: sale.org });
    await t.database.db
      .updateTable('performances')
      .set({ box_office_sales_enabled: false })
      .where('id', '=', closed.performanceId)
      .execute();
    await expect400(
      orderBody(closed),
      `items[0]: performance ${closed.performanceId} has box-office sales disabled.`,
      'not_on_sale',
    );
    const sold = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', 'in', [draft.performanceId, closed.performanceId])
      .execute();
    assert.deepEqual(
      sold.map((p) => p.sold_count),
      [0, 0],
    );
  });

  test('a ticket type without an active price on the performance answers 400', async () => {
    const inactive = await setupSale(t, { org: sale.org });
    await t.database.db
      .updateTable('prices')
      .set({ is_active: false })
      .where('performance_id', '=', inactive.performanceId)
      .execute();
    await expect400(
      orderBody(inactive),
      `items[0].ticket_type_id ${inactive.ticketTypeId} has no active price on performance ${inactive.performanceId}, so it is not on sale there.`,
      'not_on_sale',
      'items.0.ticket_type_id',
    );
    // A ticket type of another event is not priced on this performance either.
    const other = await setupSale(t, { org: sale.org });
    await expect400(
      {
        ...orderBody(sale),
        items: [{ performance_id: sale.performanceId, ticket_type_id: other.ticketTypeId, quantity: 1 }],
      },
      `items[0].ticket_type_id ${other.ticketTypeId} has no active price on performance ${sale.performanceId}, so it is not on sale there.`,
      'not_on_sale',
      'items.0.ticket_type_id',
    );
  });

  test('asking for more than remains answers 400 naming the type and the remainder; holds count', async () => {
    const small = await setupSale(t, {
      org: sale.org,
      event: {
        performances: [{ starts_at: '2027-01-01T19:00:00Z', capacity: 5 }],
        ticket_types: [{ name: 'Balcony', price_minor: 1000 }],
      },
    });
    await expect400(
      orderBody(small, {}, 6),
      'Not enough tickets left: 6 "Balcony" requested, 5 remaining for this performance.',
      'insufficient_inventory',
    );
    // Two lines of one type add up.
    const line = { performance_id: small.performanceId, ticket_type_id: small.ticketTypeId, quantity: 3 };
    await expect400(
      { ...orderBody(small), items: [line, line] },
      'Not enough tickets left: 6 "Balcony" requested, 5 remaining for this performance.',
      'insufficient_inventory',
    );
    const hold = await t.admin('POST', `/admin/v1/performances/${small.performanceId}/holds`, {
      kind: 'allocation',
      quantity: 2,
    });
    assert.equal(hold.statusCode, 201, hold.body);
    await expect400(
      orderBody(small, {}, 4),
      'Not enough tickets left: 4 "Balcony" requested, 3 remaining for this performance.',
      'insufficient_inventory',
    );
    await placeOrder(t, small, {}, 3);
    await expect400(
      orderBody(small),
      'Not enough tickets left: 1 "Balcony" requested, 0 remaining for this performance.',
      'insufficient_inventory',
    );
    const perf = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', '=', small.performanceId)
      .executeTakeFirstOrThrow();
    assert.equal(perf.sold_count, 3);
  });

  test('tender free: 400 unless the whole priced total, fee and tax included, is 0', async () => {
    await expect400(
      orderBody(sale, { tender: 'free' }),
      'tender "free" needs a total of exactly 0, but this order totals 2500 (EUR minor units, fees and taxes included); use cash or pay_later.',
      'parameter_invalid',
      'tender',
    );
    const freeEvent = { ticket_types: [{ name: 'Guest list', price_minor: 0 }] };
    const withFee = await setupSale(t, { settings: { box_office_fee_minor: 100 }, event: freeEvent });
    const res = await postOrder(t, withFee.org.key, orderBody(withFee, { tender: 'free' }));
    assert.deepEqual(
      res.json(),
      problemOf(
        400,
        'tender "free" needs a total of exactly 0, but this order totals 100 (EUR minor units, fees and taxes included); use cash or pay_later.',
        'parameter_invalid',
        'tender',
      ),
    );

    const free = await setupSale(t, { org: sale.org, event: freeEvent });
    const order = await placeOrder(t, free, { tender: 'free' }, 2);
    assert.equal(order.status, 'placed');
    assert.equal(order.total_minor, 0);
    assert.equal(order.transactions[0].items[0].is_free, true);
    const payments = await t.database.db.selectFrom('payments').selectAll().where('order_id', '=', order.id).execute();
    assert.deepEqual(payments, []);
  });

  test('cash: placed with a payment row of the total; pay_later: unpaid without one', async () => {
    const cash = await placeOrder(t, sale, {}, 2);
    assert.equal(cash.status, 'placed');
    const payments = await t.database.db
      .selectFrom('payments')
      .select(['tender', 'amount_minor', 'currency'])
      .where('order_id', '=', cash.id)
      .execute();
    assert.deepEqual(payments, [{ tender: 'cash', amount_minor: 5000, currency: 'EUR' }]);
    const later = await placeOrder(t, sale, { tender: 'pay_later' });
    assert.equal(later.status, 'unpaid');
    assert.deepEqual(
      await t.database.db.selectFrom('payments').selectAll().where('order_id', '=', later.id).execute(),
      [],
    );
  });

  test('the 201: the full order with transactions, their tickets (items) and registration_answers', async () => {
    const res = await postOrder(t, sale.org.key, orderBody(sale, {}, 2));
    assert.equal(res.statusCode, 201);
    const order = res.json();
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(order), [
      'id',
      'object',
      'order_no',
      'status',
      'channel',
      'buyer',
      'currency',
      'total_minor',
      'etickets_sent_at',
      'disputed_at',
      'created_at',
      'updated_at',
      'transactions',
      'registration_answers',
    ]);
    const now = t.clock.now().toISOString();
    assert.match(order.order_no, /^[2-9A-HJKMNP-TV-Z]{8}$/);
    assert.deepEqual(
      { ...order, id: 'x', order_no: 'x', transactions: [] },
      {
        id: 'x',
        object: 'order',
        order_no: 'x',
        status: 'placed',
        channel: 'box_office',
        buyer: BUYER,
        currency: 'EUR',
        total_minor: 5000,
        etickets_sent_at: null,
        disputed_at: null,
        created_at: now,
        updated_at: now,
        transactions: [],
        registration_answers: [],
      },
    );
    const [tx] = order.transactions;
    assert.deepEqual(
      { ...tx, id: 'x', items: [] },
      {
        id: 'x',
        object: 'order_transaction',
        transaction_no: `${order.order_no}-T1`,
        event_id: sale.event.id,
        performance_id: sale.performanceId,
        delivery_method: 'eticket',
        items_total_minor: 5000,
        surcharges_minor: 0,
        taxes_minor: 0,
        service_fees_minor: 0,
        total_minor: 5000,
        items: [],
      },
    );
    assert.equal(tx.items.length, 2);
    tx.items.forEach((ticket: any, i: number) => {
      assert.match(ticket.serial_no, /^[A-Z2-7]{32}$/);
      assert.deepEqual(
        { ...ticket, id: 'x', serial_no: 'x' },
        {
          id: 'x',
          object: 'ticket',
          ticket_no: `${order.order_no}-00${i + 1}`,
          serial_no: 'x',
          status: 'purchased',
          performance_id: sale.performanceId,
          ticket_type_id: sale.ticketTypeId,
          holder: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
          is_free: false,
          unit_price_minor: 2500,
          total_minor: 2500,
          checked_in_at: null,
          transferred_at: null,
          order_id: order.id,
          order_no: order.order_no,
          created_at: now,
          updated_at: now,
        },
      );
    });
    assert.notEqual(tx.items[0].serial_no, tx.items[1].serial_no);
  });

  test('the 201 is what the database holds: GET answers the same body, for any buyer text and both tenders', async () => {
    // The sale's rows travel as array parameters: quotes, commas, braces, backslashes, the
    // word NULL and non-ASCII must arrive unchanged; missing last name and phone stay null.
    const buyers = [
      {
        first_name: 'Zoë "Z", {1}',
        last_name: "O'Brien \\ NULL",
        email: "o'brien+{x}@example.test",
        phone: '+1 (555) 010-0000, ext. "7"',
      },
      { first_name: 'NULL', email: 'plain@example.test' },
    ];
    for (const [i, buyer] of buyers.entries()) {
      const res = await postOrder(
        t,
        sale.org.key,
        orderBody(sale, { buyer, tender: i === 0 ? 'cash' : 'pay_later' }, 3),
      );
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      assert.deepEqual(created.buyer, { last_name: null, phone: null, ...buyer });
      assert.deepEqual(
        created.transactions[0].items.map((ticket: any) => ticket.holder),
        Array(3).fill({ first_name: buyer.first_name, last_name: buyer.last_name ?? null, email: buyer.email }),
      );
      const read = await t.api(sale.org.key, 'GET', `/v1/orders/${created.id}?expand[]=items`);
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), created);
    }
  });

  test('fee per ticket and tax on items plus fees, rounded half up per transaction; one transaction per performance', async () => {
    const taxed = await setupSale(t, {
      settings: { box_office_fee_minor: 50, tax_rate_bps: 1000 },
      event: {
        performances: [
          { starts_at: '2027-02-01T19:00:00Z', capacity: 100 },
          { starts_at: '2027-02-02T19:00:00Z', capacity: 100 },
        ],
        ticket_types: [
          { name: 'Adult', price_minor: 1005 },
          { name: 'Child', price_minor: 500 },
        ],
      },
    });
    const [p1, p2] = taxed.event.ticket_types[0]!.prices.map((p) => p.performance_id);
    const [adult, child] = taxed.ticketTypeIds;
    const order = await placeOrder(t, taxed, {
      items: [
        { performance_id: p1, ticket_type_id: adult, quantity: 1 },
        { performance_id: p2, ticket_type_id: child, quantity: 3 },
        { performance_id: p1, ticket_type_id: child, quantity: 1 },
      ],
    });
    // p1: items 1005 + 500 = 1505, fees 2 × 50 = 100, tax 10% of 1605 = 160.5 → 161, total 1766.
    // p2: items 1500, fees 150, tax 165, total 1815.
    const totals = order.transactions.map((tx: any) => [
      tx.performance_id,
      tx.items_total_minor,
      tx.surcharges_minor,
      tx.taxes_minor,
      tx.service_fees_minor,
      tx.total_minor,
      tx.transaction_no,
    ]);
    assert.deepEqual(totals, [
      [p1, 1505, 0, 161, 100, 1766, `${order.order_no}-T1`],
      [p2, 1500, 0, 165, 150, 1815, `${order.order_no}-T2`],
    ]);
    assert.equal(order.total_minor, 1766 + 1815);
    // Tickets carry price + fee + a tax share; they add up to their transaction exactly.
    for (const tx of order.transactions) {
      assert.equal(
        tx.items.reduce((sum: number, ticket: any) => sum + ticket.total_minor, 0),
        tx.total_minor,
      );
    }
    // Positions follow the request: items in order, quantities expanded.
    assert.deepEqual(
      order.transactions.flatMap((tx: any) => tx.items.map((i: any) => i.ticket_no.slice(-3))),
      ['001', '005', '002', '003', '004'],
    );
    assert.deepEqual(
      order.transactions[0].items.map((i: any) => [i.unit_price_minor, i.total_minor]),
      [
        [1005, 1161],
        [500, 605],
      ],
    );
  });

  test('order.created in the same transaction; e-mail jobs and the CRM contact', async () => {
    const org = await setupSale(t);
    const cash = await placeOrder(t, org, { buyer: { ...BUYER, email: 'Grace@Example.test' } });
    t.clock.advance(1000);
    const later = await placeOrder(t, org, {
      tender: 'pay_later',
      buyer: { first_name: 'Grace', email: 'grace@example.TEST' },
    });
    assert.deepEqual(await eventsOfType(t, org.org.id, 'order.created'), [
      {
        order_id: cash.id,
        order_no: cash.order_no,
        status: 'placed',
        total_minor: 2500,
        currency: 'EUR',
        channel: 'boxOffice',
      },
      {
        order_id: later.id,
        order_no: later.order_no,
        status: 'unpaid',
        total_minor: 2500,
        currency: 'EUR',
        channel: 'boxOffice',
      },
    ]);
    const jobs = await t.database.db
      .selectFrom('email_jobs')
      .select(['order_id', 'kind', 'recipient', 'subject', 'status', 'attempts'])
      .where('organizer_id', '=', org.org.id)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(jobs, [
      {
        order_id: cash.id,
        kind: 'receipt',
        recipient: 'Grace@Example.test',
        subject: `Your receipt for order ${cash.order_no}`,
        status: 'pending',
        attempts: 0,
      },
      {
        order_id: cash.id,
        kind: 'etickets',
        recipient: 'Grace@Example.test',
        subject: `Your tickets for order ${cash.order_no}`,
        status: 'pending',
        attempts: 0,
      },
      {
        order_id: later.id,
        kind: 'receipt',
        recipient: 'grace@example.TEST',
        subject: `Your receipt for order ${later.order_no}`,
        status: 'pending',
        attempts: 0,
      },
    ]);
    const contacts = await t.database.db
      .selectFrom('contacts')
      .select(['email', 'first_name', 'last_name', 'phone', 'orders_count'])
      .where('organizer_id', '=', org.org.id)
      .execute();
    assert.deepEqual(contacts, [
      {
        email: 'grace@example.TEST',
        first_name: 'Grace',
        last_name: 'Lovelace',
        phone: '+44 20 7946 0000',
        orders_count: 2,
      },
    ]);
  });

  test('an order number already taken writes nothing: no order, transaction, ticket, payment, e-mail job, contact change or event', async () => {
    const org = await setupSale(t);
    const first = await placeOrder(t, org);
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          (
            ['orders', 'order_transactions', 'tickets', 'payments', 'email_jobs', 'contacts', 'domain_events'] as const
          ).map(async (table) => {
            const row = await t.database.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('organizer_id', '=', org.org.id)
              .executeTakeFirstOrThrow();
            return [table, Number(row.n)];
          }),
        ),
      );
    const before = await counts();
    assert.deepEqual(before, {
      orders: 1,
      order_transactions: 1,
      tickets: 1,
      payments: 1,
      email_jobs: 2,
      contacts: 1,
      domain_events: 2, // event.published, order.created
    });
    const now = t.clock.now();
    const orderId = randomUUID();
    const transactionId = randomUUID();
    const inserted = await insertSale(t.database.db, {
      order: {
        id: orderId,
        organizer_id: org.org.id,
        order_no: first.order_no,
        status: 'placed',
        channel: 'box_office',
        tender: 'cash',
        buyer_first_name: 'Other',
        buyer_last_name: null,
        buyer_email: 'ada@example.test',
        buyer_phone: null,
        currency: 'EUR',
        total_minor: 2500,
        paid_at: now,
        created_at: now,
        updated_at: now,
      },
      transactions: [
        {
          id: transactionId,
          organizer_id: org.org.id,
          order_id: orderId,
          transaction_no: `${first.order_no}-T9`,
          position: 1,
          event_id: org.event.id,
          performance_id: org.performanceId,
          delivery_method: 'eticket',
          items_total_minor: 2500,
          surcharges_minor: 0,
          taxes_minor: 0,
          service_fees_minor: 0,
          total_minor: 2500,
          created_at: now,
        },
      ],
      tickets: [
        {
          id: randomUUID(),
          organizer_id: org.org.id,
          order_id: orderId,
          order_transaction_id: transactionId,
          order_no: first.order_no,
          position: 1,
          ticket_no: `${first.order_no}-009`,
          serial_no: 'A'.repeat(32),
          status: 'purchased',
          event_id: org.event.id,
          performance_id: org.performanceId,
          ticket_type_id: org.ticketTypeId,
          holder_first_name: 'Other',
          holder_last_name: null,
          holder_email: 'ada@example.test',
          unit_price_minor: 2500,
          fee_minor: 0,
          tax_minor: 0,
          total_minor: 2500,
          created_at: now,
          updated_at: now,
        },
      ],
      payment: {
        organizer_id: org.org.id,
        order_id: orderId,
        tender: 'cash',
        amount_minor: 2500,
        currency: 'EUR',
        created_at: now,
      },
      emailJobs: [
        {
          organizer_id: org.org.id,
          order_id: orderId,
          kind: 'receipt',
          recipient: 'ada@example.test',
          subject: 'x',
          max_attempts: 6,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        },
      ],
      contact: {
        organizerId: org.org.id,
        email: 'ada@example.test',
        firstName: 'Other',
        lastName: null,
        phone: null,
        at: now,
      },
      event: {
        organizerId: org.org.id,
        type: 'order.created',
        data: JSON.stringify({ order_id: orderId }),
        at: now,
        fanOut: true,
      },
    });
    assert.equal(inserted, undefined);
    assert.deepEqual(await counts(), before);
    const contact = await t.database.db
      .selectFrom('contacts')
      .select(['first_name', 'orders_count'])
      .where('organizer_id', '=', org.org.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(contact, { first_name: 'Ada', orders_count: 1 });
  });

  test('a refused order leaves nothing behind', async () => {
    const before = await t.database.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await expect400(
      orderBody(sale, { tender: 'free' }),
      'tender "free" needs a total of exactly 0, but this order totals 2500 (EUR minor units, fees and taxes included); use cash or pay_later.',
      'parameter_invalid',
      'tender',
    );
    const after = await t.database.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  test('scopes: a read-only key answers 403, no key 401', async () => {
    const res = await postOrder(t, sale.org.readKey, orderBody(sale));
    assert.equal(res.statusCode, 403);
    const anonymous = await t.inject({ method: 'POST', url: '/v1/orders', payload: orderBody(sale) });
    assert.equal(anonymous.statusCode, 401);
  });
});
