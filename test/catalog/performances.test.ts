import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, type TestOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf, type CreatedEvent } from '../helpers/catalog.ts';

const MALFORMED = ['not-a-uuid', '123', '00000000-0000-0000-0000-00000000000g'];
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const MINUTE = 60 * 1000;

describe('performances', () => {
  const t = useTestApp();
  let org: TestOrganizer;
  let orgB: TestOrganizer;
  let event: CreatedEvent;
  const starts = [
    '2026-10-05T19:00:00.000Z',
    '2026-10-01T19:00:00.000Z',
    '2026-10-03T19:00:00.000Z',
    '2026-10-02T19:00:00.000Z',
    '2026-10-04T19:00:00.000Z',
  ];
  before(async () => {
    org = await t.createOrganizer();
    orgB = await t.createOrganizer();
    event = await createEvent(t, org.key, {
      performances: starts.map((starts_at, i) => ({
        starts_at,
        capacity: 10 + i,
        ...(i === 0 ? { title: 'Closing night' } : {}),
      })),
    });
  });

  test('GET /v1/events/{id}/performances: limit 0/101 and a cursor outside this event are refused', async () => {
    const other = await createEvent(t, org.key);
    for (const [query, detail, code, param] of [
      ['limit=0', '`limit` must be at least 1.', 'parameter_invalid', 'limit'],
      ['limit=101', '`limit` must be at most 100.', 'parameter_invalid', 'limit'],
      [
        `starting_after=${UNKNOWN}`,
        `starting_after \`${UNKNOWN}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ],
      [
        `starting_after=${performanceIdsOf(other)[0]}`,
        `starting_after \`${performanceIdsOf(other)[0]}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ],
    ] as const) {
      const res = await t.api(org.key, 'GET', `/v1/events/${event.id}/performances?${query}`);
      assert.deepEqual([res.statusCode, res.json()], [400, problemOf(400, detail, code, param)], query);
    }
  });

  test('GET /v1/events/{id}/performances: unknown, malformed or foreign event answers 404, never an empty list', async () => {
    for (const id of [UNKNOWN, ...MALFORMED]) {
      const res = await t.api(org.key, 'GET', `/v1/events/${id}/performances`);
      assert.deepEqual(
        [res.statusCode, res.json()],
        [404, problemOf(404, 'Event not found.', 'resource_not_found')],
        id,
      );
    }
    const foreign = await t.api(orgB.key, 'GET', `/v1/events/${event.id}/performances`);
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Event not found.', 'resource_not_found')],
    );
  });

  test('GET /v1/events/{id}/performances: soonest first, paginated', async () => {
    const all = (await t.api(org.key, 'GET', `/v1/events/${event.id}/performances`)).json();
    assert.equal(all.has_more, false);
    assert.deepEqual(
      all.data.map((p: { starts_at: string }) => p.starts_at),
      [...starts].sort(),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const res = (
        await t.api(
          org.key,
          'GET',
          `/v1/events/${event.id}/performances?limit=2${cursor ? `&starting_after=${cursor}` : ''}`,
        )
      ).json();
      seen.push(...res.data.map((p: { id: string }) => p.id));
      assert.equal(res.has_more, page < 2);
      cursor = res.data.at(-1)?.id;
    }
    assert.deepEqual(
      seen,
      all.data.map((p: { id: string }) => p.id),
    );
    // The event detail lists prices in the same schedule order.
    assert.deepEqual(performanceIdsOf(event), seen);
  });

  test('GET /v1/performances/{id}: the performance, field by field', async () => {
    const rows = await t.database.db.selectFrom('performances').selectAll().where('event_id', '=', event.id).execute();
    const closing = rows.find((r) => r.title === 'Closing night')!;
    const res = await t.api(org.key, 'GET', `/v1/performances/${closing.id}`);
    assert.equal(res.statusCode, 200);
    const now = t.clock.now().toISOString();
    assert.deepEqual(res.json(), {
      id: closing.id,
      object: 'performance',
      event_id: event.id,
      status: 'published',
      title: 'Closing night',
      starts_at: '2026-10-05T19:00:00.000Z',
      ends_at: '2026-10-05T22:00:00.000Z',
      capacity: 10,
      online_sales_enabled: true,
      box_office_sales_enabled: true,
      translations: [{ locale: 'en', title: 'Closing night' }],
      created_at: now,
      updated_at: now,
    });
    const untitled = rows.find((r) => r.title === null)!;
    const body = (await t.api(org.key, 'GET', `/v1/performances/${untitled.id}`)).json();
    assert.deepEqual([body.title, body.translations], [null, []]);
    const listed = (await t.api(org.key, 'GET', `/v1/events/${event.id}/performances`)).json().data;
    assert.deepEqual(
      listed.find((p: { id: string }) => p.id === closing.id),
      res.json(),
    );
  });

  test('GET /v1/performances/{id} and its availability: unknown, malformed and foreign ids answer 404', async () => {
    const pid = performanceIdsOf(event)[0];
    for (const suffix of ['', '/availability']) {
      for (const id of [UNKNOWN, ...MALFORMED]) {
        const res = await t.api(org.key, 'GET', `/v1/performances/${id}${suffix}`);
        assert.deepEqual(
          [res.statusCode, res.json()],
          [404, problemOf(404, 'Performance not found.', 'resource_not_found')],
          `${id}${suffix}`,
        );
      }
      const foreign = await t.api(orgB.key, 'GET', `/v1/performances/${pid}${suffix}`);
      assert.deepEqual(
        [foreign.statusCode, foreign.json()],
        [404, problemOf(404, 'Performance not found.', 'resource_not_found')],
      );
    }
  });

  describe('availability', () => {
    let ev: CreatedEvent;
    let pid: string;
    let adult: string;
    let vip: string;
    const availability = async () => {
      const res = await t.api(org.key, 'GET', `/v1/performances/${pid}/availability`);
      assert.equal(res.statusCode, 200);
      return res.json();
    };
    const expectRemaining = async (perf: number, adultLeft: number, vipLeft: number | undefined) => {
      assert.deepEqual(await availability(), {
        object: 'availability',
        performance_id: pid,
        performance_remaining: perf,
        ticket_types: [
          { ticket_type_id: adult, remaining: adultLeft },
          ...(vipLeft === undefined ? [] : [{ ticket_type_id: vip, remaining: vipLeft }]),
        ],
      });
    };
    const hold = async (body: Record<string, unknown>) => {
      const res = await t.admin('POST', `/admin/v1/performances/${pid}/holds`, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    };

    before(async () => {
      ev = await createEvent(t, org.key, {
        performances: [{ starts_at: '2026-11-01T19:00:00Z', capacity: 10 }],
        ticket_types: [
          { name: 'Adult', price_minor: 3000 },
          { name: 'VIP', price_minor: 9000, quantity: 3 },
        ],
      });
      pid = performanceIdsOf(ev)[0]!;
      [adult, vip] = ev.ticket_types.map((tt) => tt.id) as [string, string];
    });

    test('fresh: capacity overall; an uncapped type gets the performance remainder, a capped one the smaller of both', async () => {
      await expectRemaining(10, 10, 3);
    });

    test('allocations, cart holds and sales reduce it; cart holds expire on their own; released holds return', async () => {
      const allocation = await hold({ kind: 'allocation', quantity: 4 });
      await expectRemaining(6, 6, 3);
      const cart = await hold({ kind: 'cart', quantity: 2, ticket_type_id: vip });
      await expectRemaining(4, 4, 1);
      t.clock.advance(15 * MINUTE - 1);
      await expectRemaining(4, 4, 1);
      t.clock.advance(1);
      await expectRemaining(6, 6, 3);
      assert.equal(cart.expires_at, t.clock.now().toISOString());
      assert.equal((await t.admin('DELETE', `/admin/v1/holds/${allocation.id}`)).statusCode, 200);
      await expectRemaining(10, 10, 3);
      // Sales are counted from the counters order placement moves.
      await t.database.db.updateTable('performances').set({ sold_count: 7 }).where('id', '=', pid).execute();
      await t.database.db
        .updateTable('prices')
        .set({ sold_count: 2 })
        .where('performance_id', '=', pid)
        .where('ticket_type_id', '=', vip)
        .execute();
      await expectRemaining(3, 3, 1);
      await t.database.db.updateTable('performances').set({ sold_count: 10 }).where('id', '=', pid).execute();
      await expectRemaining(0, 0, 0);
      await t.database.db.updateTable('performances').set({ sold_count: 0 }).where('id', '=', pid).execute();
      await t.database.db.updateTable('prices').set({ sold_count: 0 }).where('performance_id', '=', pid).execute();
      await expectRemaining(10, 10, 3);
    });

    test('never below 0: holds beyond a type cap leave 0 for that type, not a negative', async () => {
      // Lower the cap under an existing hold (as a dashboard edit could).
      const h = await hold({ kind: 'allocation', quantity: 3, ticket_type_id: vip });
      await expectRemaining(7, 7, 0);
      await t.database.db
        .updateTable('prices')
        .set({ limited_quantity: 1 })
        .where('performance_id', '=', pid)
        .where('ticket_type_id', '=', vip)
        .execute();
      await expectRemaining(7, 7, 0);
      await t.database.db
        .updateTable('prices')
        .set({ limited_quantity: 3 })
        .where('performance_id', '=', pid)
        .where('ticket_type_id', '=', vip)
        .execute();
      await t.admin('DELETE', `/admin/v1/holds/${h.id}`);
      await expectRemaining(10, 10, 3);
    });

    test('a type without an active price on the performance is absent', async () => {
      await t.database.db
        .updateTable('prices')
        .set({ is_active: false })
        .where('performance_id', '=', pid)
        .where('ticket_type_id', '=', vip)
        .execute();
      await expectRemaining(10, 10, undefined);
      await t.database.db
        .updateTable('prices')
        .set({ is_active: true })
        .where('performance_id', '=', pid)
        .where('ticket_type_id', '=', vip)
        .execute();
      await expectRemaining(10, 10, 3);
    });

    test('a draft performance has availability too', async () => {
      const draft = await createEvent(t, org.key, {
        publish: false,
        performances: [{ starts_at: '2026-11-01T19:00:00Z', capacity: 7 }],
      });
      const res = await t.api(org.key, 'GET', `/v1/performances/${performanceIdsOf(draft)[0]}/availability`);
      assert.deepEqual(res.json(), {
        object: 'availability',
        performance_id: performanceIdsOf(draft)[0],
        performance_remaining: 7,
        ticket_types: [{ ticket_type_id: draft.ticket_types[0]!.id, remaining: 7 }],
      });
    });
  });
});
