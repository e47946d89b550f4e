/**
 * One rule for every list's time range (docs/validation.md, "List filters"; docs/sync.md,
 * "The parameters"): `X_lt` not later than `X_gte`, compared as instants, answers 400
 * `parameter_invalid` naming `X_lt`, on orders, tickets and the webhook delivery log (under
 * /v1 and /dashboard/v1) and the dashboard's audit log; a window that is open answers 200.
 * On both engines.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, useTestApp, type DashboardSession } from '../helpers/app.ts';
import { placeOrder, useSale } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';

/** One instant in two spellings: an equal range written with different offsets is still empty. */
const NOON_UTC = '2030-06-30T19:30:00Z';
const NOON_PLUS_2 = '2030-06-30T21:30:00+02:00';
const LATER = '2030-06-30T19:30:00.001Z';
const iso = (text: string) => new Date(text).toISOString();

const emptyRange = (field: string, gte: string, lt: string) =>
  problemOf(
    400,
    `${field}_lt (${iso(lt)}) must be later than ${field}_gte (${iso(gte)}).`,
    'parameter_invalid',
    `${field}_lt`,
  );

describe('an empty or reversed time range is a 400 naming its upper bound, on every list', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const sale = useSale(t);
  let owner: DashboardSession;
  let endpointId: string;
  let orderId: string;
  let ticketId: string;
  let deliveryId: string;
  let start: Date;

  before(async () => {
    const user = await t.createUser({ organizerId: sale.org.id, role: 'owner' });
    owner = await t.signIn(user.email, user.password);
    const endpoint = await t.api(sale.org.key, 'POST', '/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/marquee',
      event_types: ['order.created'],
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    endpointId = endpoint.json<{ id: string }>().id;
    start = t.clock.now();
    const order = await placeOrder(t, sale);
    orderId = order.id;
    ticketId = order.transactions[0].items[0].id;
    const deliveries = await t.api(sale.org.key, 'GET', `/v1/webhook_endpoints/${endpointId}/deliveries`);
    deliveryId = deliveries.json<{ data: { id: string }[] }>().data[0]!.id;
    t.clock.advance(1000);
  });

  /**
   * Each list, how it is read, the ranges it takes and an id a window around the setup must
   * hold. The dashboard serves the /v1 lists again under /dashboard/v1, with a session.
   */
  const lists = () => {
    const shared = [
      { path: '/orders', fields: ['created', 'updated'], expected: orderId },
      { path: '/tickets', fields: ['created', 'updated'], expected: ticketId },
      { path: `/webhook_endpoints/${endpointId}/deliveries`, fields: ['created'], expected: deliveryId },
    ];
    return [
      ...shared.map((list) => ({ ...list, path: `/v1${list.path}`, get: apiGet })),
      ...shared.map((list) => ({ ...list, path: `/dashboard/v1${list.path}`, get: dashGet })),
      { path: '/dashboard/v1/audit_log', fields: ['occurred'], get: dashGet, expected: endpointId },
      { path: '/dashboard/v1/audit_log/export', fields: ['occurred'], get: dashGet, expected: undefined },
    ];
  };
  function apiGet(url: string) {
    return t.api(sale.org.key, 'GET', url);
  }
  function dashGet(url: string) {
    return t.dash(owner, 'GET', url);
  }
  const query = (field: string, gte: string, lt: string) =>
    `${field}_gte=${encodeURIComponent(gte)}&${field}_lt=${encodeURIComponent(lt)}`;

  test('an equal range (also written in two offsets) and a reversed one: 400, exact problem', async () => {
    for (const list of lists()) {
      for (const field of list.fields) {
        for (const [gte, lt] of [
          [NOON_UTC, NOON_UTC],
          [NOON_UTC, NOON_PLUS_2],
          [LATER, NOON_UTC],
        ] as const) {
          const res = await list.get(`${list.path}?${query(field, gte, lt)}`);
          assert.deepEqual(
            [res.statusCode, res.json()],
            [400, emptyRange(field, gte, lt)],
            `${list.path} ${field} ${gte} ${lt}`,
          );
        }
      }
    }
  });

  test('an open window answers 200 and holds what was made in it', async () => {
    const gte = new Date(start.getTime() - 1000).toISOString();
    const lt = t.clock.now().toISOString();
    for (const list of lists()) {
      for (const field of list.fields) {
        const res = await list.get(`${list.path}?${query(field, gte, lt)}`);
        assert.equal(res.statusCode, 200, `${list.path} ${field}: ${res.body}`);
        if (list.expected !== undefined) {
          const ids = res
            .json<{ data: { id: string; target?: { id: string } }[] }>()
            .data.map((item) => item.target?.id ?? item.id);
          assert.ok(ids.includes(list.expected), `${list.path} ${field}: ${res.body}`);
        }
      }
      // An open window with no rows in it is an empty page, not an error.
      const future = await list.get(`${list.path}?${query(list.fields[0]!, NOON_UTC, LATER)}`);
      assert.equal(future.statusCode, 200, `${list.path}: ${future.body}`);
    }
  });
});
