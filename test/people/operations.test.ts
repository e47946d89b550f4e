/**
 * The dashboard's own operations on the organizer's resources (docs/dashboard.md, "Box
 * office and catalog operations"): the webhook test button, publishing a draft and
 * settling a pay-later order, each scoped to the session's organizer. On PostgreSQL, twenty
 * settles of one order at once give exactly one order.paid.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf } from '../helpers/catalog.ts';
import { eventsOfType, placeOrder, setupSale } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';

const ON_POSTGRES = process.env.TEST_DATABASE_URL !== undefined;

async function ownerSession(t: TestApp, organizerId: string): Promise<DashboardSession> {
  const owner = await t.createUser({ organizerId, role: 'owner' });
  return t.signIn(owner.email, owner.password);
}

describe("the dashboard's own operations", () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('the test button: one test.ping to that endpoint, even disabled; data is {message, endpoint_id}', async () => {
    const session = await ownerSession(t, org.id);
    const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/hook',
      event_types: ['order.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const endpointId = created.json().id as string;
    const disabled = await t.api(org.key, 'PATCH', `/v1/webhook_endpoints/${endpointId}`, { status: 'disabled' });
    assert.equal(disabled.statusCode, 200, disabled.body);

    const res = await t.dash(session, 'POST', `/dashboard/v1/webhook_endpoints/${endpointId}/test`);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().endpoint_id, endpointId);
    assert.equal(res.json().event_type, 'test.ping');
    const pings = await eventsOfType(t, org.id, 'test.ping');
    assert.equal(pings.length, 1);
    assert.deepEqual(Object.keys(pings[0]!).sort(), ['endpoint_id', 'message']);
    assert.equal(pings[0]!.endpoint_id, endpointId);

    const other = await t.createOrganizer();
    const stranger = await ownerSession(t, other.id);
    const foreign = await t.dash(stranger, 'POST', `/dashboard/v1/webhook_endpoints/${endpointId}/test`);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Webhook endpoint not found.', 'resource_not_found')],
    );
    assert.equal((await eventsOfType(t, org.id, 'test.ping')).length, 1);
  });

  test('publish: one event.published per performance, once; a second publish changes nothing and says so', async () => {
    const session = await ownerSession(t, org.id);
    const draft = await createEvent(t, org.key, {
      publish: false,
      performances: [
        { starts_at: '2027-03-02T19:00:00Z', capacity: 5 },
        { starts_at: '2027-03-01T19:00:00Z', capacity: 5 },
      ],
    });
    const published = () =>
      eventsOfType(t, org.id, 'event.published').then((rows) => rows.filter((r) => r.event_id === draft.id));
    const res = await t.dash(session, 'POST', `/dashboard/v1/events/${draft.id}/publish`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      (await published()).map((r) => r.performance_id).sort(),
      [...performanceIdsOf(draft)].sort(),
      'one event.published per performance',
    );
    const listed = await t.api(org.key, 'GET', `/v1/events?status=draft`);
    assert.ok(!(listed.json().data as { id: string }[]).some((e) => e.id === draft.id), 'no longer a draft');
    const again = await t.dash(session, 'POST', `/dashboard/v1/events/${draft.id}/publish`);
    assert.deepEqual(
      [again.statusCode, again.json()],
      [409, problemOf(409, 'Event is already published.', 'invalid_state')],
    );
    assert.equal((await published()).length, 2);

    const other = await t.createOrganizer();
    const theirs = await createEvent(t, other.key, { publish: false });
    const foreign = await t.dash(session, 'POST', `/dashboard/v1/events/${theirs.id}/publish`);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Event not found.', 'resource_not_found')],
    );
  });

  test('settle: unpaid → placed and order.paid once; a second settle answers 409; not across organizers', async () => {
    const sale = await setupSale(t, { org });
    const session = await ownerSession(t, org.id);
    const order = await placeOrder(t, sale, { tender: 'pay_later' }, 2);
    t.clock.advance(1000);
    const res = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/settle`, { tender: 'card' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'placed');
    const paid = (await eventsOfType(t, org.id, 'order.paid')).filter((e) => e.order_id === order.id);
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
    const again = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/settle`);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'invalid_state');

    const other = await t.createOrganizer();
    const stranger = await ownerSession(t, other.id);
    const second = await placeOrder(t, sale, { tender: 'pay_later' });
    const foreign = await t.dash(stranger, 'POST', `/dashboard/v1/orders/${second.id}/settle`);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Order not found.', 'resource_not_found')],
    );
    const still = await t.api(org.key, 'GET', `/v1/orders/${second.id}`);
    assert.equal(still.json().status, 'unpaid');
  });

  test('refund, cancel and transfer: their webhooks, seats back on sale, and not across organizers', async () => {
    const sale = await setupSale(t, { org });
    const session = await ownerSession(t, org.id);
    const remaining = async () =>
      (await t.api(org.key, 'GET', `/v1/performances/${sale.performanceId}/availability`)).json()
        .performance_remaining as number;
    const start = await remaining();
    const order = await placeOrder(t, sale, {}, 3);
    assert.equal(await remaining(), start - 3);

    const tickets = (await t.api(org.key, 'GET', `/v1/tickets?order_id=${order.id}`)).json().data as { id: string }[];
    const refund = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/refund`, {
      ticket_ids: [tickets[0]!.id],
    });
    assert.equal(refund.statusCode, 201, refund.body);
    assert.equal(await remaining(), start - 2, 'the refunded seat is back on sale');
    const refunded = (await eventsOfType(t, org.id, 'order.refunded')).filter((e) => e.order_id === order.id);
    assert.deepEqual(refunded, [
      {
        order_id: order.id,
        refund_id: refund.json().id,
        status: 'refunded',
        refunded_items: 1,
        total_refunded_minor: 2500,
        currency: 'EUR',
        mode: 'cash',
      },
    ]);

    const moved = await t.dash(session, 'POST', `/dashboard/v1/tickets/${tickets[1]!.id}/transfer`, {
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.test',
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().holder.first_name, 'Grace');

    const cancelled = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/cancel`);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json().status, 'cancelled');
    assert.equal(await remaining(), start, 'every seat is back on sale');

    const other = await t.createOrganizer();
    const stranger = await ownerSession(t, other.id);
    const next = await placeOrder(t, sale);
    const nextTicket = (await t.api(org.key, 'GET', `/v1/tickets?order_id=${next.id}`)).json().data[0].id as string;
    for (const [url, body, what] of [
      [`/dashboard/v1/orders/${next.id}/refund`, {}, 'Order'],
      [`/dashboard/v1/orders/${next.id}/cancel`, undefined, 'Order'],
      [`/dashboard/v1/tickets/${nextTicket}/transfer`, { first_name: 'Mallory', email: 'm@example.test' }, 'Ticket'],
    ] as const) {
      const res = await t.dash(stranger, 'POST', url, body);
      assert.deepEqual(
        [res.statusCode, res.json()],
        [404, problemOf(404, `${what} not found.`, 'resource_not_found')],
        url,
      );
    }
    assert.equal((await t.api(org.key, 'GET', `/v1/orders/${next.id}`)).json().status, 'placed');
  });

  test('twenty settles of one order at once: exactly one 200 and one order.paid', { skip: !ON_POSTGRES }, async () => {
    const sale = await setupSale(t, { org });
    const session = await ownerSession(t, org.id);
    const order = await placeOrder(t, sale, { tender: 'pay_later' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/settle`)),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, ...Array<number>(19).fill(409)]);
    assert.deepEqual(
      answers.filter((a) => a.statusCode === 409).map((a) => a.json().code),
      Array<string>(19).fill('invalid_state'),
    );
    assert.equal((await eventsOfType(t, org.id, 'order.paid')).filter((e) => e.order_id === order.id).length, 1);
  });
});
