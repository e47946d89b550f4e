/**
 * Incremental sync (docs/sync.md): the time filters of GET /v1/orders and /v1/tickets at
 * their boundaries, updated_at on every kind of change, the sync order's cursor, the
 * horizon and floor, and (PostgreSQL) a poller that misses nothing while writers commit
 * out of stamp order around it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.ts';
import { useTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { placeOrder, setupSale, useSale, type Sale } from '../helpers/orders.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

describe('time filters at their boundaries (created_gte, created_lt, updated_gte, updated_lt)', () => {
  const t = useTestApp();
  const sale = useSale(t);
  let t0: number;
  let orders: any[];
  before(async () => {
    t0 = t.clock.now().getTime();
    orders = [];
    for (let i = 0; i < 3; i++) {
      orders.push(await placeOrder(t, sale));
      t.clock.advance(1000);
    }
    // The second order changes at t0 + 3 s: its updated_at moves past the third's.
    await t.admin('POST', `/admin/v1/orders/${orders[1].id}/cancel`);
    t.clock.advance(1000);
  });
  const get = (url: string) => t.api(sale.org.key, 'GET', url);
  const list = async (url: string) => {
    const res = await get(url);
    assert.equal(res.statusCode, 200, res.body);
    return ids(res.json());
  };

  test('orders: gte is inclusive, lt exclusive, both combine; newest first by default', async () => {
    const [a, b, c] = orders.map((o) => o.id);
    assert.deepEqual(await list(`/v1/orders?created_gte=${iso(t0 + 1000)}`), [c, b]);
    assert.deepEqual(await list(`/v1/orders?created_lt=${iso(t0 + 1000)}`), [a]);
    assert.deepEqual(await list(`/v1/orders?created_gte=${iso(t0 + 1000)}&created_lt=${iso(t0 + 2000)}`), [b]);
    assert.deepEqual(await list(`/v1/orders?created_gte=${iso(t0 + 1001)}`), [c]);
    assert.deepEqual(await list(`/v1/orders?created_lt=${iso(t0)}`), []);
    assert.deepEqual(await list(`/v1/orders?updated_gte=${iso(t0 + 2000)}`), [c, b]);
    assert.deepEqual(await list(`/v1/orders?updated_gte=${iso(t0 + 3000)}`), [b]);
    assert.deepEqual(await list(`/v1/orders?updated_lt=${iso(t0 + 3000)}`), [c, a]);
    assert.deepEqual(await list(`/v1/orders?updated_gte=${iso(t0)}&updated_lt=${iso(t0 + 2000)}`), [a]);
    // The same instant in another offset, and with sub-millisecond digits.
    const plus2 = new Date(t0 + 1000 + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    assert.deepEqual(await list(`/v1/orders?created_gte=${encodeURIComponent(plus2)}`), [c, b]);
    assert.deepEqual(await list(`/v1/orders?created_gte=${iso(t0 + 1000).replace('Z', '999Z')}`), [c, b]);
    // Filters combine with the others.
    assert.deepEqual(await list(`/v1/orders?updated_gte=${iso(t0)}&status=cancelled`), [b]);
  });

  test('orders: order=updated_asc sorts by (updated_at, id), least recently changed first', async () => {
    const [a, b, c] = orders.map((o) => o.id);
    assert.deepEqual(await list('/v1/orders?order=updated_asc'), [a, c, b]);
    assert.deepEqual(await list(`/v1/orders?order=updated_asc&updated_gte=${iso(t0 + 1000)}`), [c, b]);
    const body = (await get('/v1/orders?order=updated_asc&limit=1')).json();
    assert.deepEqual([ids(body), body.has_more], [[a], true]);
    assert.equal(body.data[0].updated_at, iso(t0));
  });

  test('tickets: the same filters and order', async () => {
    const ticketOf = (o: any) => o.transactions[0].items[0].id;
    const [a, b, c] = orders.map(ticketOf);
    assert.deepEqual(await list(`/v1/tickets?created_gte=${iso(t0 + 1000)}`), [c, b]);
    assert.deepEqual(await list(`/v1/tickets?created_lt=${iso(t0 + 1000)}`), [a]);
    assert.deepEqual(await list(`/v1/tickets?created_gte=${iso(t0 + 1000)}&created_lt=${iso(t0 + 2000)}`), [b]);
    assert.deepEqual(await list(`/v1/tickets?updated_gte=${iso(t0 + 3000)}`), [b]);
    assert.deepEqual(await list(`/v1/tickets?updated_lt=${iso(t0 + 3000)}`), [c, a]);
    assert.deepEqual(await list('/v1/tickets?order=updated_asc'), [a, c, b]);
    const ticket = (await get(`/v1/tickets/${b}`)).json();
    assert.deepEqual(
      [ticket.status, ticket.created_at, ticket.updated_at],
      ['cancelled', iso(t0 + 1000), iso(t0 + 3000)],
    );
  });

  test('a bad value is a 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['created_gte', 'yesterday'],
      ['created_lt', '2026-02-30T00:00:00Z'],
      ['updated_gte', '2026-06-01T12:00:00'],
      ['updated_lt', '2026-06-01T24:00:00Z'],
    ];
    for (const path of ['/v1/orders', '/v1/tickets']) {
      for (const [param, value] of cases) {
        const res = await get(`${path}?${param}=${encodeURIComponent(value)}`);
        assert.equal(res.statusCode, 400, `${path} ${param}=${value}`);
        const body = res.json();
        assert.deepEqual([body.code, body.param], ['parameter_invalid', param], res.body);
        assert.match(body.detail, new RegExp(param));
      }
      const order = (await get(`${path}?order=newest`)).json();
      assert.deepEqual([order.status, order.code, order.param], [400, 'parameter_invalid', 'order']);
    }
  });
});

describe('updated_at moves on every kind of change', () => {
  const t = useTestApp();
  const sale = useSale(t);
  const step = () => {
    t.clock.advance(1000);
    return t.clock.now().toISOString();
  };
  const get = async (url: string) => (await t.api(sale.org.key, 'GET', url)).json();

  test('orders: settle, refund, cancel; tickets: check-in, transfer, refund, cancel', async () => {
    const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
    let at = step();
    assert.equal((await t.admin('POST', `/admin/v1/orders/${unpaid.id}/settle`, {})).statusCode, 200);
    assert.equal((await get(`/v1/orders/${unpaid.id}`)).updated_at, at);

    const paid = await placeOrder(t, sale, {}, 3);
    const [first, second, third] = paid.transactions[0].items.map((i: any) => i.id);
    at = step();
    assert.equal((await t.api(sale.org.key, 'POST', `/v1/tickets/${first}/check_in`)).json().updated_at, at);
    assert.equal((await get(`/v1/tickets/${first}`)).updated_at, at);

    at = step();
    const transfer = await t.admin('POST', `/admin/v1/tickets/${second}/transfer`, {
      first_name: 'Grace',
      email: 'grace@example.test',
    });
    assert.equal(transfer.statusCode, 200, transfer.body);
    assert.equal((await get(`/v1/tickets/${second}`)).updated_at, at);

    at = step();
    const refund = await t.admin('POST', `/admin/v1/orders/${paid.id}/refund`, { ticket_ids: [third] });
    assert.equal(refund.statusCode, 201, refund.body);
    assert.deepEqual(
      [(await get(`/v1/tickets/${third}`)).updated_at, (await get(`/v1/orders/${paid.id}`)).updated_at],
      [at, at],
    );

    const other = await placeOrder(t, sale, {}, 1);
    at = step();
    assert.equal((await t.admin('POST', `/admin/v1/orders/${other.id}/cancel`)).statusCode, 200);
    assert.deepEqual(
      [
        (await get(`/v1/orders/${other.id}`)).updated_at,
        (await get(`/v1/tickets/${other.transactions[0].items[0].id}`)).updated_at,
      ],
      [at, at],
    );
    // What changed is what a poll from `at` returns, in the sync order.
    t.clock.advance(1);
    assert.deepEqual(ids(await get(`/v1/orders?order=updated_asc&updated_gte=${at}`)), [other.id]);
  });

  test('catalog: an event update; webhook endpoints: update and secret rotation', async () => {
    let at = step();
    const patched = await t.api(sale.org.key, 'PATCH', `/v1/events/${sale.event.id}`, { is_archived: true });
    assert.equal(patched.json().updated_at, at);
    assert.equal((await get(`/v1/events/${sale.event.id}`)).updated_at, at);

    const created = await t.api(sale.org.key, 'POST', '/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/hook',
      event_types: ['order.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const endpointId = created.json().id;
    at = step();
    const updated = await t.api(sale.org.key, 'PATCH', `/v1/webhook_endpoints/${endpointId}`, { description: 'x' });
    assert.equal(updated.json().updated_at, at);
    at = step();
    const rotated = await t.api(sale.org.key, 'POST', `/v1/webhook_endpoints/${endpointId}/rotate_secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal((await get(`/v1/webhook_endpoints/${endpointId}`)).updated_at, at);
  });
});

describe('the sync order and its horizon', () => {
  const t = useTestApp();
  let sale: Sale;
  before(async () => {
    sale = await setupSale(t);
  });
  const get = async (url: string) => {
    const res = await t.api(sale.org.key, 'GET', url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('the cursor is the position the client saw, even when its row has moved since', async () => {
    const t0 = t.clock.now().getTime();
    const placed = [];
    for (let i = 0; i < 4; i++) {
      placed.push(await placeOrder(t, sale));
      t.clock.advance(10);
    }
    const page1 = await get(`/v1/orders?order=updated_asc&limit=2&updated_gte=${iso(t0)}`);
    assert.deepEqual(ids(page1), [placed[0].id, placed[1].id]);
    // The last item of page 1 changes before page 2 is asked for: it moves to the end.
    assert.equal((await t.admin('POST', `/admin/v1/orders/${placed[1].id}/cancel`)).statusCode, 200);
    t.clock.advance(10);
    const last = page1.data[1];
    const page2 = await get(
      `/v1/orders?order=updated_asc&limit=2&updated_gte=${last.updated_at}&starting_after=${last.id}`,
    );
    // Without the client's position, continuing after the moved row would skip placed[2] and [3].
    assert.deepEqual(ids(page2), [placed[2].id, placed[3].id]);
    const page3 = await get(
      `/v1/orders?order=updated_asc&limit=2&updated_gte=${page2.data[1].updated_at}&starting_after=${page2.data[1].id}`,
    );
    assert.deepEqual([ids(page3), page3.has_more], [[placed[1].id], false]);
    // An unknown cursor is still refused.
    const unknown = await t.api(
      sale.org.key,
      'GET',
      `/v1/orders?order=updated_asc&updated_gte=${iso(t0)}&starting_after=00000000-0000-4000-8000-000000000000`,
    );
    assert.equal(unknown.statusCode, 400);
  });

  test('a list by time holds back what is stamped at or after its clock’s now', async () => {
    const order = await placeOrder(t, sale);
    const now = t.clock.now().toISOString();
    assert.equal(order.updated_at, now);
    assert.deepEqual(ids(await get(`/v1/orders?updated_gte=${now}`)), []);
    assert.deepEqual(ids(await get(`/v1/orders?created_gte=${now}`)), []);
    assert.deepEqual(ids(await get(`/v1/tickets?order=updated_asc&updated_gte=${now}`)), []);
    // The default list has no horizon.
    assert.equal(ids(await get('/v1/orders?limit=1'))[0], order.id);
    t.clock.advance(1);
    assert.deepEqual(ids(await get(`/v1/orders?updated_gte=${now}`)), [order.id]);
    assert.deepEqual(ids(await get(`/v1/tickets?order=updated_asc&updated_gte=${now}`)), [
      order.transactions[0].items[0].id,
    ]);
  });

  test('a stamp below a horizon already handed out is raised to it, and the 201 says so', async () => {
    const before = t.clock.now().getTime();
    t.clock.advance(5000);
    const horizon = t.clock.now().toISOString();
    await get(`/v1/orders?order=updated_asc&updated_gte=${iso(before)}`);
    // A writer whose clock is behind (another host's, or a stamp taken before the poll).
    t.clock.set(new Date(before + 1000));
    const order = await placeOrder(t, sale);
    assert.deepEqual([order.created_at, order.updated_at], [horizon, horizon]);
    assert.equal(order.transactions[0].items[0].updated_at, horizon);
    const read = await get(`/v1/orders/${order.id}?expand[]=items`);
    assert.deepEqual(read, order);
    t.clock.set(new Date(before + 6000));
  });
});

/** The app's clock follows the system clock (the interleaving needs real time to pass). */
class SystemTimeClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

describe('a poller misses nothing while writers commit out of stamp order', { skip: !onPostgres }, () => {
  const t = useTestApp({ clock: new SystemTimeClock() });
  const sale = useSale(t, { event: { performances: [{ starts_at: '2030-01-01T19:00:00Z', capacity: 100000 }] } });

  interface Cursor {
    updated_at: string;
    id: string;
  }
  /** One pass of the documented recipe: pages of `limit` from the cursor until has_more is false. */
  async function pollOnce(app: TestApp, path: string, cursor: Cursor | undefined, seen: Map<string, string>) {
    let at = cursor;
    for (;;) {
      const query = at
        ? `order=updated_asc&limit=3&updated_gte=${at.updated_at}&starting_after=${at.id}`
        : `order=updated_asc&limit=3&updated_gte=1970-01-01T00:00:00Z`;
      const res = await app.api(sale.org.key, 'GET', `${path}?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      for (const item of body.data) {
        if (at) assert.ok(item.updated_at > at.updated_at || (item.updated_at === at.updated_at && item.id > at.id));
        seen.set(item.id, item.updated_at);
        at = { updated_at: item.updated_at, id: item.id };
      }
      if (!body.has_more) return at;
    }
  }
  /** The naive poller a horizon prevents: the same cursor, straight from the table. */
  async function naivePoll(table: 'orders' | 'tickets', cursor: Cursor | undefined, seen: Map<string, string>) {
    const rows = await sql<{ id: string; updated_at: Date }>`
      SELECT id, updated_at FROM ${sql.table(table)}
      WHERE organizer_id = ${sale.org.id}
        AND (updated_at, id) > (${cursor ? cursor.updated_at : '1970-01-01T00:00:00Z'}::timestamptz, ${cursor ? cursor.id : '00000000-0000-0000-0000-000000000000'}::uuid)
      ORDER BY updated_at, id`.execute(t.database.db);
    let at = cursor;
    for (const row of rows.rows) {
      seen.set(row.id, row.updated_at.toISOString());
      at = { updated_at: row.updated_at.toISOString(), id: row.id };
    }
    return at;
  }
  async function finalState(table: 'orders' | 'tickets') {
    const rows = await sql<{ id: string; updated_at: Date }>`
      SELECT id, updated_at FROM ${sql.table(table)} WHERE organizer_id = ${sale.org.id}`.execute(t.database.db);
    return new Map(rows.rows.map((row) => [row.id, row.updated_at.toISOString()]));
  }
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Resolves once `condition` holds, checking every 10 ms; false after `ms`. */
  async function waitFor(condition: () => boolean, ms = 10_000): Promise<boolean> {
    const until = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > until) return false;
      await sleep(10);
    }
    return true;
  }

  test('held and late-stamped transactions, concurrent sales, check-ins, refunds, cancels', async () => {
    // Some history first, and the tickets the held and the late transaction will change.
    const early = await placeOrder(t, sale, {}, 2);
    const heldTicket = early.transactions[0].items[0].id;
    const lateTicket = early.transactions[0].items[1].id;
    await sleep(5);

    const tables = ['orders', 'tickets'] as const;
    const seen = { orders: new Map<string, string>(), tickets: new Map<string, string>() };
    const naiveSeen = { orders: new Map<string, string>(), tickets: new Map<string, string>() };
    const cursors: Record<'orders' | 'tickets', Cursor | undefined> = { orders: undefined, tickets: undefined };
    const naiveCursors: Record<'orders' | 'tickets', Cursor | undefined> = { orders: undefined, tickets: undefined };
    const after = (cursor: Cursor | undefined, at: Date) =>
      cursor !== undefined && cursor.updated_at > at.toISOString();

    // 1. A transaction stamps and writes a ticket, then stays open while others commit.
    const held = new pg.Client({ connectionString: t.database.url });
    await held.connect();
    const heldStamp = new Date();
    await held.query('BEGIN');
    await held.query(`UPDATE tickets SET holder_first_name = 'Held', updated_at = $1 WHERE id = $2`, [
      heldStamp,
      heldTicket,
    ]);

    let running = true;
    let sales = 0;
    const errors: unknown[] = [];
    const writer = async (n: number) => {
      for (let i = n; running; i += 4) {
        try {
          const order = await placeOrder(t, sale, { tender: i % 3 === 0 ? 'pay_later' : 'cash' }, 1 + (i % 2));
          sales++;
          const ticket = order.transactions[0].items[0].id;
          if (i % 3 === 0) await t.admin('POST', `/admin/v1/orders/${order.id}/settle`, {});
          else if (i % 4 === 1) await t.api(sale.org.key, 'POST', `/v1/tickets/${ticket}/check_in`);
          else if (i % 4 === 2) await t.admin('POST', `/admin/v1/orders/${order.id}/refund`, {});
          else await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`);
        } catch (err) {
          errors.push([n, err]);
        }
        await sleep(5);
      }
    };
    const loop = async (pass: () => Promise<void>) => {
      while (running) {
        try {
          await pass();
        } catch (err) {
          errors.push(err);
        }
        await sleep(5);
      }
    };
    const workers = [
      writer(1),
      writer(2),
      ...tables.map((table) =>
        loop(async () => {
          cursors[table] = await pollOnce(t, `/v1/${table}`, cursors[table], seen[table]);
        }),
      ),
      ...tables.map((table) =>
        loop(async () => {
          naiveCursors[table] = await naivePoll(table, naiveCursors[table], naiveSeen[table]);
        }),
      ),
    ];
    const observed: Record<string, boolean> = {};
    try {
      // Rows stamped after the held one commit; the naive poller goes past it, the API's
      // poller stays before it while it is open.
      observed.naivePassedHeld = await waitFor(() => after(naiveCursors.tickets, heldStamp));
      await sleep(300);
      observed.apiHeldBack = !after(cursors.tickets, heldStamp) && !after(cursors.orders, heldStamp);
      await held.query('COMMIT');
      observed.apiPassedHeld = await waitFor(() => after(cursors.tickets, heldStamp));

      // 2. A stamp taken now and written only once the poller has moved past it (a
      //    request that took its time before its transaction began).
      const lateStamp = new Date();
      observed.apiPassedLate = await waitFor(() => after(cursors.tickets, lateStamp));
      const late = await held.query(
        `UPDATE tickets SET holder_first_name = 'Late', updated_at = $1 WHERE id = $2 RETURNING updated_at`,
        [lateStamp, lateTicket],
      );
      observed.lateRaised = late.rows[0].updated_at.getTime() > lateStamp.getTime();
      observed.enoughSales = await waitFor(() => sales >= 30, 60_000);
    } finally {
      running = false;
      await Promise.all(workers);
      await held.end();
    }
    assert.deepEqual(errors, []);

    await sleep(5);
    for (const table of tables) {
      await pollOnce(t, `/v1/${table}`, cursors[table], seen[table]);
      await naivePoll(table, naiveCursors[table], naiveSeen[table]);
    }
    const orders = await finalState('orders');
    const tickets = await finalState('tickets');
    assert.deepEqual(seen.orders, orders);
    assert.deepEqual(seen.tickets, tickets);
    assert.deepEqual(observed, {
      naivePassedHeld: true,
      apiHeldBack: true,
      apiPassedHeld: true,
      apiPassedLate: true,
      lateRaised: true,
      enoughSales: true,
    });
    // The naive poller skipped the held change: the scenario is real.
    assert.notEqual(naiveSeen.tickets.get(heldTicket), tickets.get(heldTicket));
  });
});
