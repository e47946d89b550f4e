/** GET orders/tickets with filters, check-in and the gate scan, and the admin operations. */
import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { BUYER, eventsOfType, placeOrder, type Sale, setupSale, useSale } from '../helpers/orders.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('orders and tickets after the sale', () => {
  const t = useTestApp();
  const sale = useSale(t);

  const get = (url: string, key = sale.org.key) => t.api(key, 'GET', url);
  const soldCount = async (performanceId: string) =>
    (
      await t.database.db
        .selectFrom('performances')
        .select('sold_count')
        .where('id', '=', performanceId)
        .executeTakeFirstOrThrow()
    ).sold_count;

  describe('reads', () => {
    let s: Sale;
    let orders: any[];
    before(async () => {
      s = await setupSale(t, {
        event: {
          performances: [
            { starts_at: '2027-05-01T19:00:00Z', capacity: 100 },
            { starts_at: '2027-05-02T19:00:00Z', capacity: 100 },
          ],
        },
      });
      const [p1, p2] = s.event.ticket_types[0]!.prices.map((p) => p.performance_id);
      const other = await setupSale(t, { org: s.org });
      orders = [];
      orders.push(
        await placeOrder(t, s, { items: [{ performance_id: p1, ticket_type_id: s.ticketTypeId, quantity: 1 }] }),
      );
      t.clock.advance(1000);
      orders.push(
        await placeOrder(t, s, {
          tender: 'pay_later',
          buyer: { first_name: 'Bo', email: 'Bo@Example.test' },
          items: [{ performance_id: p2, ticket_type_id: s.ticketTypeId, quantity: 2 }],
        }),
      );
      t.clock.advance(1000);
      orders.push(await placeOrder(t, other));
      t.clock.advance(1000);
    });
    const get = (url: string, key = s.org.key) => t.api(key, 'GET', url);

    test('GET /v1/orders: newest first, list shape without transactions, keyset pages', async () => {
      const res = await get('/v1/orders');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(
        body.data.map((o: any) => o.id),
        [orders[2].id, orders[1].id, orders[0].id],
      );
      assert.equal(body.has_more, false);
      assert.deepEqual(Object.keys(body.data[0]), [
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
      ]);
      const page1 = (await get('/v1/orders?limit=2')).json();
      assert.deepEqual([page1.data.length, page1.has_more], [2, true]);
      const page2 = (await get(`/v1/orders?limit=2&starting_after=${page1.data[1].id}`)).json();
      assert.deepEqual(
        page2.data.map((o: any) => o.id),
        [orders[0].id],
      );
      assert.equal(page2.has_more, false);
      assert.deepEqual(
        (await get(`/v1/orders?starting_after=${UNKNOWN}`)).json(),
        problemOf(
          400,
          `starting_after \`${UNKNOWN}\` is not the id of an item in this list.`,
          'invalid_cursor',
          'starting_after',
        ),
      );
      assert.equal((await get('/v1/orders?limit=0')).statusCode, 400);
      assert.equal((await get('/v1/orders?limit=101')).statusCode, 400);
    });

    test('GET /v1/orders filters: status, email (case-insensitive), event_id, performance_id', async () => {
      const ids = async (query: string) => (await get(`/v1/orders?${query}`)).json().data.map((o: any) => o.id);
      assert.deepEqual(await ids('status=unpaid'), [orders[1].id]);
      assert.deepEqual(await ids('status=placed'), [orders[2].id, orders[0].id]);
      assert.deepEqual(await ids('email=bo@example.TEST'), [orders[1].id]);
      assert.deepEqual(await ids('email=bo@example'), []);
      assert.deepEqual(await ids(`event_id=${s.event.id}`), [orders[1].id, orders[0].id]);
      assert.deepEqual(await ids(`performance_id=${orders[1].transactions[0].performance_id}`), [orders[1].id]);
      assert.deepEqual(await ids(`event_id=${s.event.id}&status=placed`), [orders[0].id]);
      assert.deepEqual(
        (await get('/v1/orders?status=paid')).json(),
        problemOf(400, '`status` must be one of: unpaid, placed, fulfilled, cancelled.', 'parameter_invalid', 'status'),
      );
      assert.equal((await get('/v1/orders?event_id=nope')).statusCode, 400);
      assert.equal((await get('/v1/orders?color=red')).statusCode, 400);
    });

    test('GET /v1/orders/{id}: transactions and answers always, tickets only with expand[]=items', async () => {
      const plain = (await get(`/v1/orders/${orders[1].id}`)).json();
      assert.deepEqual(
        plain.transactions.map((tx: any) => 'items' in tx),
        [false],
      );
      assert.deepEqual(plain.registration_answers, []);
      const { transactions: created, ...createdOrder } = orders[1];
      const expanded = (await get(`/v1/orders/${orders[1].id}?expand[]=items`)).json();
      assert.deepEqual(expanded, { ...createdOrder, transactions: created });
      const { transactions: plainTx, ...plainOrder } = plain;
      assert.deepEqual(plainOrder, createdOrder);
      assert.deepEqual(
        plainTx,
        created.map(({ items: _, ...tx }: any) => tx),
      );
      assert.deepEqual((await get(`/v1/orders/${orders[1].id}?expand[]=refunds`)).statusCode, 400);
      assert.deepEqual(
        (await get(`/v1/orders/${UNKNOWN}`)).json(),
        problemOf(404, 'Order not found.', 'resource_not_found'),
      );
      assert.deepEqual(
        (await get('/v1/orders/not-a-uuid')).json(),
        problemOf(404, 'Order not found.', 'resource_not_found'),
      );
      const stranger = await t.createOrganizer();
      assert.deepEqual(
        (await get(`/v1/orders/${orders[0].id}`, stranger.key)).json(),
        problemOf(404, 'Order not found.', 'resource_not_found'),
      );
      assert.deepEqual((await get('/v1/orders', stranger.key)).json().data, []);
    });

    test('GET /v1/tickets with order_id, performance_id and status filters; GET /v1/tickets/{id}', async () => {
      const all = (await get('/v1/tickets')).json();
      assert.equal(all.data.length, 4);
      const byOrder = (await get(`/v1/tickets?order_id=${orders[1].id}`)).json().data;
      assert.deepEqual(
        byOrder.map((x: any) => x.id).sort(),
        orders[1].transactions[0].items.map((x: any) => x.id).sort(),
      );
      const byPerformance = (await get(`/v1/tickets?performance_id=${orders[0].transactions[0].performance_id}`)).json()
        .data;
      assert.deepEqual(byPerformance, orders[0].transactions[0].items);
      assert.equal((await get('/v1/tickets?status=checked_in')).json().data.length, 0);
      assert.equal((await get('/v1/tickets?status=used')).statusCode, 400);
      const ticket = orders[0].transactions[0].items[0];
      assert.deepEqual((await get(`/v1/tickets/${ticket.id}`)).json(), ticket);
      assert.deepEqual(
        (await get(`/v1/tickets/${UNKNOWN}`)).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      const stranger = await t.createOrganizer();
      assert.deepEqual(
        (await get(`/v1/tickets/${ticket.id}`, stranger.key)).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
    });
  });

  describe('check-in and the gate scan', () => {
    test('admits a paid ticket once; a repeat answers 409 with the exact detail; one ticket.checked_in', async () => {
      const order = await placeOrder(t, sale);
      const ticket = order.transactions[0].items[0];
      const res = await t.api(sale.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { ...ticket, status: 'checked_in', checked_in_at: t.clock.now().toISOString() });
      const again = await t.api(sale.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`);
      assert.deepEqual(again.json(), problemOf(409, 'Ticket is already checked in.', 'invalid_state'));
      const events = (await eventsOfType(t, sale.org.id, 'ticket.checked_in')).filter((e) => e.ticket_id === ticket.id);
      assert.deepEqual(events, [
        {
          ticket_id: ticket.id,
          ticket_no: ticket.ticket_no,
          order_no: order.order_no,
          event_id: sale.event.id,
          performance_id: sale.performanceId,
        },
      ]);
    });

    test('unpaid order, refunded and cancelled tickets, unknown and foreign ids', async () => {
      const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
      const id = unpaid.transactions[0].items[0].id;
      assert.deepEqual(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${id}/check_in`)).json(),
        problemOf(409, 'Ticket cannot be checked in: its order is unpaid.', 'invalid_state'),
      );
      const refunded = await placeOrder(t, sale);
      assert.equal((await t.admin('POST', `/admin/v1/orders/${refunded.id}/refund`, {})).statusCode, 201);
      assert.deepEqual(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${refunded.transactions[0].items[0].id}/check_in`)).json(),
        problemOf(409, 'Ticket cannot be checked in: it was refunded.', 'invalid_state'),
      );
      assert.equal((await t.admin('POST', `/admin/v1/orders/${unpaid.id}/cancel`)).statusCode, 200);
      assert.deepEqual(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${id}/check_in`)).json(),
        problemOf(409, 'Ticket cannot be checked in: it was cancelled.', 'invalid_state'),
      );
      assert.deepEqual(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${UNKNOWN}/check_in`)).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      assert.deepEqual(
        (await t.api(sale.org.key, 'POST', '/v1/tickets/nope/check_in')).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      const fresh = await placeOrder(t, sale);
      const stranger = await t.createOrganizer();
      assert.deepEqual(
        (await t.api(stranger.key, 'POST', `/v1/tickets/${fresh.transactions[0].items[0].id}/check_in`)).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      assert.equal(
        (await t.api(sale.org.readKey, 'POST', `/v1/tickets/${fresh.transactions[0].items[0].id}/check_in`)).statusCode,
        403,
      );
    });

    test('the gate scan admits by serial_no with the same guard; another organizer or code answers 404', async () => {
      const order = await placeOrder(t, sale);
      const ticket = order.transactions[0].items[0];
      const stranger = await t.createOrganizer();
      assert.deepEqual(
        (await t.admin('POST', '/admin/v1/scan', { organizer_id: stranger.id, code: ticket.serial_no })).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      assert.deepEqual(
        (await t.admin('POST', '/admin/v1/scan', { organizer_id: sale.org.id, code: 'NOPE' })).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      assert.deepEqual(
        (await t.admin('POST', '/admin/v1/scan', { organizer_id: sale.org.id })).json(),
        problemOf(400, 'Missing required field `code` in body.', 'parameter_missing', 'code'),
      );
      const scan = await t.admin('POST', '/admin/v1/scan', { organizer_id: sale.org.id, code: ticket.serial_no });
      assert.equal(scan.statusCode, 200);
      assert.equal(scan.json().status, 'checked_in');
      assert.deepEqual(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`)).json(),
        problemOf(409, 'Ticket is already checked in.', 'invalid_state'),
      );
      assert.deepEqual(
        (await t.admin('POST', '/admin/v1/scan', { organizer_id: sale.org.id, code: ticket.serial_no })).json(),
        problemOf(409, 'Ticket is already checked in.', 'invalid_state'),
      );
    });

    test('transfer: a new holder, transferred_at set; check-in admits the new holder; only purchased tickets transfer', async () => {
      const order = await placeOrder(t, sale);
      const ticket = order.transactions[0].items[0];
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/tickets/${ticket.id}/transfer`, { first_name: 'Cy' })).json(),
        problemOf(400, 'Missing required field `email` in body.', 'parameter_missing', 'email'),
      );
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/tickets/${ticket.id}/transfer`, { first_name: 'Cy', email: 'x' })).json(),
        problemOf(400, '`email` must be a valid email.', 'parameter_invalid', 'email'),
      );
      assert.deepEqual(
        (
          await t.admin('POST', `/admin/v1/tickets/${UNKNOWN}/transfer`, { first_name: 'Cy', email: 'cy@example.test' })
        ).json(),
        problemOf(404, 'Ticket not found.', 'resource_not_found'),
      );
      t.clock.advance(5000);
      const res = await t.admin('POST', `/admin/v1/tickets/${ticket.id}/transfer`, {
        first_name: 'Cy',
        last_name: 'Young',
        email: 'cy@example.test',
      });
      assert.equal(res.statusCode, 200);
      const now = t.clock.now().toISOString();
      assert.deepEqual(res.json(), {
        ...ticket,
        holder: { first_name: 'Cy', last_name: 'Young', email: 'cy@example.test' },
        transferred_at: now,
        updated_at: now,
      });
      const admitted = await t.api(sale.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`);
      assert.deepEqual(admitted.json().holder, { first_name: 'Cy', last_name: 'Young', email: 'cy@example.test' });
      assert.deepEqual(
        (
          await t.admin('POST', `/admin/v1/tickets/${ticket.id}/transfer`, {
            first_name: 'Di',
            email: 'di@example.test',
          })
        ).json(),
        problemOf(
          409,
          `Ticket ${ticket.ticket_no} is checked in and cannot be transferred; only a purchased ticket can.`,
          'invalid_state',
        ),
      );
    });
  });

  describe('admin operations', () => {
    test('settle: unpaid → placed with a payment row and order.paid; a second settle answers 409', async () => {
      const order = await placeOrder(t, sale, { tender: 'pay_later' }, 2);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${order.id}/settle`, { tender: 'voucher' })).json(),
        problemOf(400, '`tender` must be one of: cash, card, bank_transfer.', 'parameter_invalid', 'tender'),
      );
      t.clock.advance(1000);
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/settle`, { tender: 'card' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'placed');
      assert.equal(res.json().updated_at, t.clock.now().toISOString());
      const payments = await t.database.db
        .selectFrom('payments')
        .select(['tender', 'amount_minor'])
        .where('order_id', '=', order.id)
        .execute();
      assert.deepEqual(payments, [{ tender: 'card', amount_minor: 5000 }]);
      const paid = (await eventsOfType(t, sale.org.id, 'order.paid')).filter((e) => e.order_id === order.id);
      assert.deepEqual(paid, [
        {
          order_id: order.id,
          order_no: order.order_no,
          status: 'placed',
          amount_minor: 5000,
          total_minor: 5000,
          currency: 'EUR',
          tender: 'card',
        },
      ]);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${order.id}/settle`, {})).json(),
        problemOf(409, `Order ${order.order_no} is placed; only an unpaid order can be settled.`, 'invalid_state'),
      );
      // The e-tickets follow the payment; the ticket now checks in.
      const jobs = await t.database.db
        .selectFrom('email_jobs')
        .select('kind')
        .where('order_id', '=', order.id)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        jobs.map((j) => j.kind),
        ['receipt', 'etickets'],
      );
      assert.equal(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${order.transactions[0].items[0].id}/check_in`)).statusCode,
        200,
      );
      // Default tender is cash.
      const other = await placeOrder(t, sale, { tender: 'pay_later' });
      assert.equal((await t.admin('POST', `/admin/v1/orders/${other.id}/settle`)).statusCode, 200);
      assert.deepEqual(
        (await eventsOfType(t, sale.org.id, 'order.paid')).filter((e) => e.order_id === other.id).map((e) => e.tender),
        ['cash'],
      );
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${UNKNOWN}/settle`)).json(),
        problemOf(404, 'Order not found.', 'resource_not_found'),
      );
    });

    test('refund (cash, all tickets): tickets refunded, seats return, refund row, order.refunded', async () => {
      const s = await setupSale(t, {
        org: sale.org,
        event: { performances: [{ starts_at: '2027-06-01T19:00:00Z', capacity: 3 }] },
      });
      const order = await placeOrder(t, s, {}, 3);
      assert.equal(await soldCount(s.performanceId), 3);
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/refund`);
      assert.equal(res.statusCode, 201, res.body);
      const refund = res.json();
      const ids = order.transactions[0].items.map((i: any) => i.id);
      assert.deepEqual(refund, {
        id: refund.id,
        object: 'refund',
        order_id: order.id,
        mode: 'cash',
        status: 'refunded',
        amount_minor: 7500,
        currency: 'EUR',
        ticket_ids: ids,
        settled_at: t.clock.now().toISOString(),
        created_at: t.clock.now().toISOString(),
      });
      assert.equal(await soldCount(s.performanceId), 0);
      const tickets = (await get(`/v1/tickets?order_id=${order.id}`)).json().data;
      assert.deepEqual(
        tickets.map((x: any) => x.status),
        ['refunded', 'refunded', 'refunded'],
      );
      const events = (await eventsOfType(t, sale.org.id, 'order.refunded')).filter((e) => e.order_id === order.id);
      assert.deepEqual(events, [
        {
          order_id: order.id,
          refund_id: refund.id,
          status: 'refunded',
          refunded_items: 3,
          total_refunded_minor: 7500,
          currency: 'EUR',
          mode: 'cash',
        },
      ]);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${order.id}/refund`, {})).json(),
        problemOf(
          409,
          `Order ${order.order_no} has no refundable tickets: each is checked in, refunded or cancelled.`,
          'invalid_state',
        ),
      );
      // The seats are sellable again.
      await placeOrder(t, s, {}, 3);
    });

    test('refund (card, some tickets): pending, then settled refunded or failed with the small order.refunded', async () => {
      const order = await placeOrder(t, sale, {}, 3);
      const [a, b, c] = order.transactions[0].items;
      const bad = async (body: unknown, status: number, detail: string, code: ErrorCode, param?: string) =>
        assert.deepEqual(
          (await t.admin('POST', `/admin/v1/orders/${order.id}/refund`, body)).json(),
          problemOf(status, detail, code, param),
        );
      await bad({ mode: 'wire' }, 400, '`mode` must be one of: cash, card.', 'parameter_invalid', 'mode');
      await bad({ ticket_ids: [] }, 400, '`ticket_ids` must have at least 1 item.', 'parameter_invalid', 'ticket_ids');
      await bad(
        { ticket_ids: [a.id, a.id] },
        400,
        '`ticket_ids` lists a ticket twice.',
        'parameter_invalid',
        'ticket_ids',
      );
      await bad(
        { ticket_ids: [UNKNOWN] },
        400,
        `\`ticket_ids\`: ${UNKNOWN} is not a ticket of order ${order.order_no}.`,
        'parameter_invalid',
        'ticket_ids',
      );
      assert.equal((await t.api(sale.org.key, 'POST', `/v1/tickets/${c.id}/check_in`)).statusCode, 200);
      await bad(
        { ticket_ids: [c.id] },
        409,
        `Ticket ${c.ticket_no} is checked in and cannot be refunded.`,
        'invalid_state',
        'ticket_ids',
      );
      const before = await soldCount(sale.performanceId);
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/refund`, {
        ticket_ids: [b.id, a.id],
        mode: 'card',
      });
      assert.equal(res.statusCode, 201);
      const refund = res.json();
      assert.deepEqual(
        [refund.status, refund.amount_minor, refund.ticket_ids.sort(), refund.settled_at],
        ['pending', 5000, [a.id, b.id].sort(), null],
      );
      assert.equal(await soldCount(sale.performanceId), before - 2);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/refunds/${refund.id}/settle`, { status: 'done' })).json(),
        problemOf(400, '`status` must be one of: refunded, failed.', 'parameter_invalid', 'status'),
      );
      t.clock.advance(1000);
      const settled = await t.admin('POST', `/admin/v1/refunds/${refund.id}/settle`, { status: 'failed' });
      assert.equal(settled.statusCode, 200);
      assert.equal(settled.json().status, 'failed');
      const events = (await eventsOfType(t, sale.org.id, 'order.refunded')).filter((e) => e.order_id === order.id);
      assert.deepEqual(events, [
        {
          order_id: order.id,
          refund_id: refund.id,
          status: 'pending',
          refunded_items: 2,
          total_refunded_minor: 5000,
          currency: 'EUR',
          mode: 'card',
        },
        { order_id: order.id, refund_id: refund.id, status: 'failed' },
      ]);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/refunds/${refund.id}/settle`, { status: 'refunded' })).json(),
        problemOf(
          409,
          `Refund ${refund.id} is already failed; only a pending card refund can be settled.`,
          'invalid_state',
        ),
      );
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/refunds/${UNKNOWN}/settle`, { status: 'refunded' })).json(),
        problemOf(404, 'Refund not found.', 'resource_not_found'),
      );
      // An unpaid order cannot be refunded.
      const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${unpaid.id}/refund`, {})).json(),
        problemOf(
          409,
          `Order ${unpaid.order_no} is unpaid, so no money can be refunded; cancel it instead.`,
          'invalid_state',
        ),
      );
    });

    test('cancel: order and its tickets cancelled, seats return; twice answers 409; a checked-in ticket blocks it', async () => {
      const order = await placeOrder(t, sale, { buyer: BUYER }, 2);
      const before = await soldCount(sale.performanceId);
      const res = await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'cancelled');
      assert.deepEqual(
        res.json().transactions[0].items.map((i: any) => i.status),
        ['cancelled', 'cancelled'],
      );
      assert.equal(await soldCount(sale.performanceId), before - 2);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`)).json(),
        problemOf(409, `Order ${order.order_no} is already cancelled.`, 'invalid_state'),
      );
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${order.id}/refund`, {})).json(),
        problemOf(409, `Order ${order.order_no} is cancelled; there is nothing to refund.`, 'invalid_state'),
      );
      assert.deepEqual(
        (await t.api(sale.org.key, 'GET', `/v1/orders?status=cancelled`))
          .json()
          .data.map((o: any) => o.id)
          .includes(order.id),
        true,
      );

      const admitted = await placeOrder(t, sale, {}, 2);
      assert.equal(
        (await t.api(sale.org.key, 'POST', `/v1/tickets/${admitted.transactions[0].items[0].id}/check_in`)).statusCode,
        200,
      );
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${admitted.id}/cancel`)).json(),
        problemOf(
          409,
          `Order ${admitted.order_no} cannot be cancelled: ticket ${admitted.transactions[0].items[0].ticket_no} is checked in. Refund the other tickets instead.`,
          'invalid_state',
        ),
      );
      const tickets = (await get(`/v1/tickets?order_id=${admitted.id}`))
        .json()
        .data.map((x: any) => x.status)
        .sort();
      assert.deepEqual(tickets, ['checked_in', 'purchased']);
      assert.deepEqual(
        (await t.admin('POST', `/admin/v1/orders/${UNKNOWN}/cancel`)).json(),
        problemOf(404, 'Order not found.', 'resource_not_found'),
      );
    });
  });
});
