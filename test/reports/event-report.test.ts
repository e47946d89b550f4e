/**
 * The event report (docs/dashboard.md, "Reports"), seeded through HTTP: two performances
 * and three ticket types; a free order, a cash order, a pay-later order settled by card,
 * an unpaid one, a cash order cancelled, refunds (cash, card pending, card failed), a
 * check-in and holds (active, released, expired). Every figure must equal the sums the
 * test makes of the GET /v1/orders/{id}?expand[]=items bodies, and the exact numbers
 * worked out by hand below; `remaining` must be what the availability endpoint says; the
 * buckets are cut in the event's zone (America/New_York), across its midnight.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { problemOf, useTestApp, type DashboardSession, type TestOrganizer } from '../helpers/app.ts';
import { createEvent, performanceIdsOf, type CreatedEvent } from '../helpers/catalog.ts';
import { BUYER } from '../helpers/orders.ts';

// 2027-03-10 in New York is EST (UTC−5): local midnight is 05:00Z.
const T1 = '2027-03-10T04:30:00.000Z'; // 23:30 on the 9th, local
const T2 = '2027-03-10T05:30:00.000Z'; // 00:30 on the 10th, local
const T3 = '2027-03-10T06:10:00.000Z';
const T4 = '2027-03-10T07:00:00.000Z';
const T5 = '2027-03-10T08:00:00.000Z';

interface Ticket {
  id: string;
  status: string;
  performance_id: string;
  ticket_type_id: string;
  unit_price_minor: number;
  total_minor: number;
}
interface OrderBody {
  id: string;
  status: string;
  created_at: string;
  total_minor: number;
  transactions: { performance_id: string; service_fees_minor: number; items: Ticket[] }[];
}

describe('the event report', () => {
  const clock = new ManualClock(new Date(Date.parse(T1) - 60_000));
  const t = useTestApp({ clock });
  let org: TestOrganizer;
  let owner: DashboardSession;
  let viewer: DashboardSession;
  let event: CreatedEvent;
  let p1: string;
  let p2: string;
  const type = {} as Record<'adult' | 'child' | 'comp', string>;
  /** Order id → how it was paid (a payment's tender, or free); absent: never paid. */
  const paidWith = new Map<string, { tender: string; at: string }>();
  /** Refunds that return money (refunded, pending): id → {at, ticket ids}. */
  const moneyBack: { at: string; ticketIds: string[] }[] = [];
  const orderIds: string[] = [];

  const sell = async (items: [string, string, number][], tender: string) => {
    const res = await t.api(org.key, 'POST', '/v1/orders', {
      items: items.map(([performance_id, ticket_type_id, quantity]) => ({ performance_id, ticket_type_id, quantity })),
      buyer: BUYER,
      tender,
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json<OrderBody>();
    orderIds.push(order.id);
    if (tender !== 'pay_later') paidWith.set(order.id, { tender, at: clock.now().toISOString() });
    return order;
  };
  const detail = async (id: string) => {
    const res = await t.api(org.readKey, 'GET', `/v1/orders/${id}?expand[]=items`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<OrderBody>();
  };
  const ticketsOf = (order: OrderBody) => order.transactions.flatMap((tx) => tx.items);

  before(async () => {
    org = await t.createOrganizer({ timezone: 'Europe/Berlin', tax_rate_bps: 1000 });
    const ownerUser = await t.createUser({ organizerId: org.id, role: 'owner', email: 'report-owner@example.com' });
    owner = await t.signIn(ownerUser.email, ownerUser.password);
    const viewerUser = await t.createUser({ organizerId: org.id, role: 'viewer', email: 'report-viewer@example.com' });
    viewer = await t.signIn(viewerUser.email, viewerUser.password);
    event = await createEvent(t, org.key, {
      timezone: 'America/New_York',
      performances: [
        { starts_at: '2027-04-01T23:00:00Z', capacity: 50, title: 'Opening night' },
        { starts_at: '2027-04-02T23:00:00Z', capacity: 30 },
      ],
      ticket_types: [
        { name: 'Adult', price_minor: 2500, quantity: null },
        { name: 'Child', price_minor: 1000, quantity: 10 },
        { name: 'Comp', price_minor: 0, quantity: null },
      ],
    });
    [p1, p2] = performanceIdsOf(event) as [string, string];
    [type.adult, type.child, type.comp] = event.ticket_types.map((tt) => tt.id) as [string, string, string];

    // T1 (23:30 local, the 9th): a free order while the fee is 0, then the fee becomes 100.
    clock.set(new Date(T1));
    await sell([[p1, type.comp, 2]], 'free');
    const fee = await t.dash(owner, 'PATCH', '/dashboard/v1/organizer', { box_office_fee_minor: 100 });
    assert.equal(fee.statusCode, 200, fee.body);
    const o2 = await sell(
      [
        [p1, type.adult, 3],
        [p2, type.child, 2],
      ],
      'cash',
    );
    // T2 (00:30 local, the 10th): two pay-later orders.
    clock.set(new Date(T2));
    const o3 = await sell([[p1, type.adult, 2]], 'pay_later');
    await sell([[p2, type.adult, 1]], 'pay_later');
    // T3: one settled by card; a cash order, cancelled.
    clock.set(new Date(T3));
    const settled = await t.dash(owner, 'POST', `/dashboard/v1/orders/${o3.id}/settle`, { tender: 'card' });
    assert.equal(settled.statusCode, 200, settled.body);
    paidWith.set(o3.id, { tender: 'card', at: T3 });
    const o5 = await sell(
      [
        [p2, type.adult, 1],
        [p2, type.child, 1],
      ],
      'cash',
    );
    const cancelled = await t.dash(owner, 'POST', `/dashboard/v1/orders/${o5.id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    // T4: refunds (cash; card pending; card failed), a check-in, holds.
    clock.set(new Date(T4));
    const refund = async (orderId: string, ticketId: string, mode: string) => {
      const res = await t.dash(owner, 'POST', `/dashboard/v1/orders/${orderId}/refund`, {
        ticket_ids: [ticketId],
        mode,
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ id: string; status: string; created_at: string; ticket_ids: string[] }>();
    };
    const o2Tickets = ticketsOf(o2);
    const o2Adults = o2Tickets.filter((tk) => tk.ticket_type_id === type.adult);
    const cash = await refund(o2.id, o2Adults[0]!.id, 'cash');
    moneyBack.push({ at: cash.created_at, ticketIds: cash.ticket_ids });
    const pending = await refund(o3.id, ticketsOf(o3)[0]!.id, 'card');
    assert.equal(pending.status, 'pending');
    moneyBack.push({ at: pending.created_at, ticketIds: pending.ticket_ids });
    const failed = await refund(o2.id, o2Tickets.find((tk) => tk.ticket_type_id === type.child)!.id, 'card');
    const settledRefund = await t.admin('POST', `/admin/v1/refunds/${failed.id}/settle`, { status: 'failed' });
    assert.equal(settledRefund.statusCode, 200, settledRefund.body);
    const checkIn = await t.api(org.key, 'POST', `/v1/tickets/${o2Adults[1]!.id}/check_in`, {});
    assert.equal(checkIn.statusCode, 200, checkIn.body);
    const hold = async (performanceId: string, body: Record<string, unknown>) => {
      const res = await t.admin('POST', `/admin/v1/performances/${performanceId}/holds`, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ id: string }>();
    };
    await hold(p1, { kind: 'allocation', quantity: 5, ticket_type_id: type.adult });
    await hold(p2, { kind: 'allocation', quantity: 3 });
    const released = await hold(p2, { kind: 'allocation', quantity: 4 });
    assert.equal((await t.admin('DELETE', `/admin/v1/holds/${released.id}`)).statusCode, 200);
    await hold(p1, { kind: 'cart', quantity: 2, expires_at: new Date(Date.parse(T4) + 60_000).toISOString() });
    clock.set(new Date(T5)); // the cart hold has expired
    // Another organizer's sales are not this report's.
    const other = await t.createOrganizer();
    const theirs = await createEvent(t, other.key);
    const sale = await t.api(other.key, 'POST', '/v1/orders', {
      items: [{ performance_id: performanceIdsOf(theirs)[0], ticket_type_id: theirs.ticket_types[0]!.id, quantity: 1 }],
      buyer: BUYER,
      tender: 'cash',
    });
    assert.equal(sale.statusCode, 201);
  });

  /** The report as the sums of the order bodies: what each figure means (docs/dashboard.md, "Reports"). */
  async function expectedFromOrders(interval: 'hour' | 'day') {
    const orders = await Promise.all(orderIds.map(detail));
    const refundedIds = new Set(moneyBack.flatMap((r) => r.ticketIds));
    const sold = (tk: Ticket) => tk.status === 'purchased' || tk.status === 'checked_in';
    const rows = orders.flatMap((order) =>
      order.transactions.flatMap((tx) =>
        tx.items.map((tk) => {
          const fee = tx.service_fees_minor / tx.items.length;
          const paid = paidWith.has(order.id);
          const back = refundedIds.has(tk.id);
          return { order, tk, fee, tax: tk.total_minor - tk.unit_price_minor - fee, paid, back };
        }),
      ),
    );
    const sum = <T>(list: T[], pick: (x: T) => number) => list.reduce((a, x) => a + pick(x), 0);
    const gross = sum(
      rows.filter((r) => r.paid),
      (r) => r.tk.total_minor,
    );
    const refunded = sum(
      rows.filter((r) => r.back),
      (r) => r.tk.total_minor,
    );
    const kept = rows.filter((r) => r.paid && !r.back);
    const perType = (p: string, ty: string) =>
      rows.filter((r) => r.tk.performance_id === p && r.tk.ticket_type_id === ty);
    const bucketOf = (at: string) => {
      const ms = Date.parse(at);
      // New York is UTC−5 on these dates: its hours are UTC hours, its days start at 05:00Z.
      return interval === 'hour'
        ? new Date(ms - (ms % 3_600_000)).toISOString()
        : new Date(ms - ((ms - 5 * 3_600_000) % 86_400_000)).toISOString();
    };
    const buckets = new Map<string, { orders: number; tickets: number; revenue_minor: number }>();
    const add = (at: string, orders: number, tickets: number, revenue: number) => {
      const b = buckets.get(bucketOf(at)) ?? { orders: 0, tickets: 0, revenue_minor: 0 };
      buckets.set(bucketOf(at), {
        orders: b.orders + orders,
        tickets: b.tickets + tickets,
        revenue_minor: b.revenue_minor + revenue,
      });
    };
    for (const order of orders) {
      if (order.status !== 'cancelled') add(order.created_at, 1, ticketsOf(order).filter(sold).length, 0);
      const paid = paidWith.get(order.id);
      if (paid) add(paid.at, 0, 0, order.total_minor);
    }
    for (const r of moneyBack)
      add(
        r.at,
        0,
        0,
        -sum(
          rows.filter((x) => r.ticketIds.includes(x.tk.id)),
          (x) => x.tk.total_minor,
        ),
      );
    const tenders = ['cash', 'card', 'bank_transfer', 'free'].flatMap((tender) => {
      const ofTender = orders.filter((o) => paidWith.get(o.id)?.tender === tender);
      return ofTender.length === 0
        ? []
        : [{ tender, orders: ofTender.length, amount_minor: sum(ofTender, (o) => o.total_minor) }];
    });
    return {
      gross,
      refunded,
      fees: sum(kept, (r) => r.fee),
      taxes: sum(kept, (r) => r.tax),
      orders: orders.filter((o) => o.status !== 'cancelled').length,
      sold: rows.filter((r) => sold(r.tk)).length,
      checked_in: rows.filter((r) => r.tk.status === 'checked_in').length,
      refundedCount: rows.filter((r) => r.tk.status === 'refunded').length,
      cancelledCount: rows.filter((r) => r.tk.status === 'cancelled').length,
      tenders,
      perType: (p: string, ty: string) => ({
        sold: perType(p, ty).filter((r) => sold(r.tk)).length,
        checked_in: perType(p, ty).filter((r) => r.tk.status === 'checked_in').length,
        refunded: perType(p, ty).filter((r) => r.tk.status === 'refunded').length,
        cancelled: perType(p, ty).filter((r) => r.tk.status === 'cancelled').length,
        revenue_minor:
          sum(
            perType(p, ty).filter((r) => r.paid),
            (r) => r.tk.total_minor,
          ) -
          sum(
            perType(p, ty).filter((r) => r.back),
            (r) => r.tk.total_minor,
          ),
      }),
      buckets: [...buckets.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([period_start, b]) => ({ period_start, ...b })),
    };
  }

  async function availabilityOf(performanceId: string) {
    const res = await t.dash(viewer, 'GET', `/dashboard/v1/performances/${performanceId}/availability`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ performance_remaining: number; ticket_types: { ticket_type_id: string; remaining: number }[] }>();
  }

  test('every figure is the sum of the order bodies, and the numbers worked out by hand', async () => {
    const res = await t.dash(viewer, 'GET', `/dashboard/v1/reports/events/${event.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const report = res.json();
    const expected = await expectedFromOrders('day');

    // By hand: O1 free 0; O2 cash 8580 (P1 3 × 2860) + 2420 (P2 2 × 1210) = 11000; O3 card
    // 5720 (2 × 2860); O4 unpaid 2860; O5 cash 4070, cancelled. Refunds: 2860 cash and
    // 2860 card pending return money; 1210 card failed returns none.
    assert.deepEqual(report.totals, {
      capacity: 80,
      sold: 7,
      remaining: 40 + 25,
      checked_in: 1,
      refunded: 3,
      cancelled: 2,
      held: 8,
      orders: 4,
      gross_minor: 20790,
      fees_minor: 700,
      taxes_minor: 1370,
      refunded_minor: 5720,
      net_minor: 15070,
    });
    // Kept (paid, no money back): O2's two P1 adults (fee 100, tax 260 each) and two P2
    // children (the failed refund's one too; 100 and 110 each), O3's other adult (100 and
    // 260), O5's two (200 and 370, cancelled but not refunded), O1's (0): fees 700, tax 1370.
    assert.deepEqual(
      [
        report.totals.gross_minor,
        report.totals.refunded_minor,
        report.totals.fees_minor,
        report.totals.taxes_minor,
        report.totals.orders,
        report.totals.sold,
        report.totals.checked_in,
        report.totals.refunded,
        report.totals.cancelled,
      ],
      [
        expected.gross,
        expected.refunded,
        expected.fees,
        expected.taxes,
        expected.orders,
        expected.sold,
        expected.checked_in,
        expected.refundedCount,
        expected.cancelledCount,
      ],
    );
    assert.deepEqual(report.by_tender, [
      { tender: 'cash', orders: 2, amount_minor: 15070 },
      { tender: 'card', orders: 1, amount_minor: 5720 },
      { tender: 'free', orders: 1, amount_minor: 0 },
    ]);
    assert.deepEqual(report.by_tender, expected.tenders);

    assert.deepEqual(
      { ...report, totals: undefined, by_tender: undefined, performances: undefined, sales_over_time: undefined },
      {
        object: 'event_report',
        event_id: event.id,
        currency: 'EUR',
        timezone: 'America/New_York',
        interval: 'day',
        generated_at: T5,
        totals: undefined,
        by_tender: undefined,
        performances: undefined,
        sales_over_time: undefined,
      },
    );

    const typeRow = (
      p: string,
      ty: 'adult' | 'child' | 'comp',
      price: number,
      cap: number | null,
      remaining: number,
      held: number,
    ) => ({
      ticket_type_id: type[ty],
      name: { adult: 'Adult', child: 'Child', comp: 'Comp' }[ty],
      price_minor: price,
      cap,
      remaining,
      held,
      ...expected.perType(p, type[ty]),
    });
    assert.deepEqual(report.performances, [
      {
        performance_id: p1,
        starts_at: '2027-04-01T23:00:00.000Z',
        title: 'Opening night',
        capacity: 50,
        sold: 5,
        remaining: 40,
        checked_in: 1,
        held: 5,
        ticket_types: [
          typeRow(p1, 'adult', 2500, null, 40, 5),
          typeRow(p1, 'child', 1000, 10, 10, 0),
          typeRow(p1, 'comp', 0, null, 40, 0),
        ],
      },
      {
        performance_id: p2,
        starts_at: '2027-04-02T23:00:00.000Z',
        title: null,
        capacity: 30,
        sold: 2,
        remaining: 25,
        checked_in: 0,
        held: 3,
        ticket_types: [
          typeRow(p2, 'adult', 2500, null, 25, 0),
          typeRow(p2, 'child', 1000, 10, 9, 0),
          typeRow(p2, 'comp', 0, null, 25, 0),
        ],
      },
    ]);
    // By hand, per type: P1 adults sold 2 + 1, one checked in, two refunded (cash, card
    // pending): revenue 5 × 2860 − 2 × 2860; P2 adults: O4 unpaid, O5's paid then
    // cancelled (2860); P2 children: O2's two (one refund failed: kept) and O5's, 3 × 1210.
    assert.deepEqual(
      report.performances.map((p: { ticket_types: { sold: number; revenue_minor: number }[] }) =>
        p.ticket_types.map((ty) => [ty.sold, ty.revenue_minor]),
      ),
      [
        [
          [3, 8580],
          [0, 0],
          [2, 0],
        ],
        [
          [1, 2860],
          [1, 3630],
          [0, 0],
        ],
      ],
    );
    // The types' revenue adds up to net; remaining is what the availability endpoint says.
    const revenues = report.performances.flatMap((p: { ticket_types: { revenue_minor: number }[] }) =>
      p.ticket_types.map((ty) => ty.revenue_minor),
    );
    assert.equal(
      revenues.reduce((a: number, b: number) => a + b, 0),
      report.totals.net_minor,
    );
    for (const p of report.performances) {
      const availability = await availabilityOf(p.performance_id);
      assert.equal(p.remaining, availability.performance_remaining);
      for (const ty of p.ticket_types) {
        assert.equal(
          ty.remaining,
          availability.ticket_types.find((a) => a.ticket_type_id === ty.ticket_type_id)!.remaining,
        );
      }
    }

    // Day buckets in New York: the 9th starts 05:00Z on the 9th, the 10th at 05:00Z on the 10th.
    assert.deepEqual(report.sales_over_time, [
      { period_start: '2027-03-09T05:00:00.000Z', orders: 2, tickets: 5, revenue_minor: 11000 },
      { period_start: '2027-03-10T05:00:00.000Z', orders: 2, tickets: 2, revenue_minor: 4070 },
    ]);
    assert.deepEqual(report.sales_over_time, expected.buckets);
  });

  test('hour buckets', async () => {
    const res = await t.dash(owner, 'GET', `/dashboard/v1/reports/events/${event.id}?interval=hour`);
    assert.equal(res.statusCode, 200, res.body);
    const report = res.json();
    assert.equal(report.interval, 'hour');
    assert.deepEqual(report.sales_over_time, [
      { period_start: '2027-03-10T04:00:00.000Z', orders: 2, tickets: 5, revenue_minor: 11000 },
      { period_start: '2027-03-10T05:00:00.000Z', orders: 2, tickets: 2, revenue_minor: 0 },
      { period_start: '2027-03-10T06:00:00.000Z', orders: 0, tickets: 0, revenue_minor: 9790 },
      { period_start: '2027-03-10T07:00:00.000Z', orders: 0, tickets: 0, revenue_minor: -5720 },
    ]);
    assert.deepEqual(report.sales_over_time, (await expectedFromOrders('hour')).buckets);
  });

  test('an event with no sales; another organizer’s event, an unknown one and a bad interval', async () => {
    const quiet = await createEvent(t, org.key, { timezone: 'Asia/Kolkata' });
    const res = await t.dash(viewer, 'GET', `/dashboard/v1/reports/events/${quiet.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const report = res.json();
    assert.deepEqual(report.totals, {
      capacity: 100,
      sold: 0,
      remaining: 100,
      checked_in: 0,
      refunded: 0,
      cancelled: 0,
      held: 0,
      orders: 0,
      gross_minor: 0,
      fees_minor: 0,
      taxes_minor: 0,
      refunded_minor: 0,
      net_minor: 0,
    });
    assert.deepEqual([report.by_tender, report.sales_over_time, report.timezone], [[], [], 'Asia/Kolkata']);

    const other = await t.createOrganizer();
    const theirs = await createEvent(t, other.key);
    const notFound = problemOf(404, 'Event not found.', 'resource_not_found');
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid']) {
      const res = await t.dash(viewer, 'GET', `/dashboard/v1/reports/events/${id}`);
      assert.deepEqual([res.statusCode, res.json()], [404, notFound], id);
    }
    const bad = await t.dash(viewer, 'GET', `/dashboard/v1/reports/events/${event.id}?interval=week`);
    assert.deepEqual(
      [bad.statusCode, bad.json()],
      [400, problemOf(400, '`interval` must be one of: hour, day.', 'parameter_invalid', 'interval')],
    );
  });

  test('a door user may not read reports', async () => {
    const door = await t.createUser({ organizerId: org.id, role: 'door', email: 'report-door@example.com' });
    const session = await t.signIn(door.email, door.password);
    const res = await t.dash(session, 'GET', `/dashboard/v1/reports/events/${event.id}`);
    assert.deepEqual([res.statusCode, res.json().code, res.json().param], [403, 'role_forbidden', 'read']);
  });
});

describe('buckets where the clock goes back, and in a zone offset by half an hour', () => {
  // New York goes back from 02:00 EDT to 01:00 EST at 06:00Z on 2027-11-07.
  const clock = new ManualClock('2027-11-07T05:30:00.000Z');
  const t = useTestApp({ clock });

  test('two local 01:30s are two hours; a day starts at local midnight', async () => {
    const org = await t.createOrganizer();
    const owner = await t.createUser({ organizerId: org.id, role: 'viewer', email: 'buckets@example.com' });
    const session = await t.signIn(owner.email, owner.password);
    const ny = await createEvent(t, org.key, { timezone: 'America/New_York' });
    const kolkata = await createEvent(t, org.key, { timezone: 'Asia/Kolkata' });
    const sell = async (event: CreatedEvent) => {
      const res = await t.api(org.key, 'POST', '/v1/orders', {
        items: [{ performance_id: performanceIdsOf(event)[0], ticket_type_id: event.ticket_types[0]!.id, quantity: 1 }],
        buyer: BUYER,
        tender: 'cash',
      });
      assert.equal(res.statusCode, 201, res.body);
    };
    await sell(ny); // 01:30 EDT
    await sell(kolkata); // 11:00 IST
    clock.set(new Date('2027-11-07T06:30:00.000Z'));
    await sell(ny); // 01:30 EST
    await sell(kolkata); // 12:00 IST
    const buckets = async (event: CreatedEvent, interval: string) => {
      const res = await t.dash(session, 'GET', `/dashboard/v1/reports/events/${event.id}?interval=${interval}`);
      assert.equal(res.statusCode, 200, res.body);
      return res
        .json()
        .sales_over_time.map((b: { period_start: string; orders: number }) => [b.period_start, b.orders]);
    };
    assert.deepEqual(await buckets(ny, 'hour'), [
      ['2027-11-07T05:00:00.000Z', 1],
      ['2027-11-07T06:00:00.000Z', 1],
    ]);
    assert.deepEqual(await buckets(ny, 'day'), [['2027-11-07T04:00:00.000Z', 2]]);
    assert.deepEqual(await buckets(kolkata, 'hour'), [
      ['2027-11-07T05:30:00.000Z', 1],
      ['2027-11-07T06:30:00.000Z', 1],
    ]);
    assert.deepEqual(await buckets(kolkata, 'day'), [['2027-11-06T18:30:00.000Z', 2]]);
  });
});
