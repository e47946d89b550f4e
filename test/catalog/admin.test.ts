import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, type TestOrganizer, useOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf, type CreatedEvent } from '../helpers/catalog.ts';
import { onPostgres } from '../helpers/database.ts';

const MALFORMED = ['not-a-uuid', '123'];
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const MINUTE = 60 * 1000;

describe('POST /admin/v1/events/{id}/publish', () => {
  const t = useTestApp();
  const org = useOrganizer(t);

  const publishedRows = (eventId: string) =>
    t.database.db
      .selectFrom('domain_events')
      .selectAll()
      .where('type', '=', 'event.published')
      .execute()
      .then((rows) => rows.filter((r) => r.data.event_id === eventId));

  test('unknown and malformed ids answer 404; it needs the admin token', async () => {
    for (const id of [UNKNOWN, ...MALFORMED]) {
      const res = await t.admin('POST', `/admin/v1/events/${id}/publish`);
      assert.deepEqual(
        [res.statusCode, res.json()],
        [404, problemOf(404, 'Event not found.', 'resource_not_found')],
        id,
      );
    }
    const draft = await createEvent(t, org.key, { publish: false });
    const res = await t.api(org.key, 'POST', `/admin/v1/events/${draft.id}/publish`);
    assert.equal(res.statusCode, 401);
  });

  test('a draft goes live: event and performances published, one event.published per performance', async () => {
    const draft = await createEvent(t, org.key, {
      publish: false,
      performances: [
        { starts_at: '2026-12-02T19:00:00Z', capacity: 5 },
        { starts_at: '2026-12-01T19:00:00Z', capacity: 5 },
      ],
    });
    assert.equal((await publishedRows(draft.id)).length, 0);
    t.clock.advance(60_000);
    const res = await t.admin('POST', `/admin/v1/events/${draft.id}/publish`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.updated_at, t.clock.now().toISOString());
    assert.deepEqual({ ...body, updated_at: draft.updated_at }, draft);
    assert.deepEqual((await t.api(org.key, 'GET', `/v1/events/${draft.id}`)).json(), body);

    const row = await t.database.db
      .selectFrom('events')
      .select(['status', 'published_at'])
      .where('id', '=', draft.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.status, row.published_at?.toISOString()], ['published', t.clock.now().toISOString()]);
    for (const id of performanceIdsOf(draft)) {
      const perf = (await t.api(org.key, 'GET', `/v1/performances/${id}`)).json();
      assert.deepEqual([perf.status, perf.updated_at], ['published', t.clock.now().toISOString()]);
    }
    const rows = await publishedRows(draft.id);
    assert.deepEqual(
      rows
        .map((r) => ({ organizer_id: r.organizer_id, type: r.type, data: r.data }))
        .sort((a, b) => String(a.data.performance_id).localeCompare(String(b.data.performance_id))),
      performanceIdsOf(draft)
        .sort()
        .map((performance_id) => ({
          organizer_id: org.id,
          type: 'event.published',
          data: { event_id: draft.id, performance_id },
        })),
    );
  });

  test('publishing an already published event answers 409 and emits nothing more', async () => {
    const live = await createEvent(t, org.key);
    const res = await t.admin('POST', `/admin/v1/events/${live.id}/publish`);
    assert.deepEqual(
      [res.statusCode, res.json()],
      [409, problemOf(409, 'Event is already published.', 'invalid_state')],
    );
    assert.equal((await publishedRows(live.id)).length, 1);
    const draft = await createEvent(t, org.key, { publish: false });
    assert.equal((await t.admin('POST', `/admin/v1/events/${draft.id}/publish`)).statusCode, 200);
    const again = await t.admin('POST', `/admin/v1/events/${draft.id}/publish`);
    assert.deepEqual(
      [again.statusCode, again.json()],
      [409, problemOf(409, 'Event is already published.', 'invalid_state')],
    );
    assert.equal((await publishedRows(draft.id)).length, 1);
  });

  test('concurrent publishes of one draft: one 200, one 409, events emitted once', async () => {
    const draft = await createEvent(t, org.key, {
      publish: false,
      performances: [
        { starts_at: '2026-12-02T19:00:00Z', capacity: 5 },
        { starts_at: '2026-12-03T19:00:00Z', capacity: 5 },
      ],
    });
    const results = await Promise.all([1, 2, 3].map(() => t.admin('POST', `/admin/v1/events/${draft.id}/publish`)));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409, 409]);
    assert.equal((await publishedRows(draft.id)).length, 2);
  });
});

describe('admin holds', () => {
  const t = useTestApp();
  let org: TestOrganizer;
  let event: CreatedEvent;
  let pid: string;
  let adult: string;
  let vip: string;
  before(async () => {
    org = await t.createOrganizer();
    event = await createEvent(t, org.key, {
      performances: [{ starts_at: '2026-11-01T19:00:00Z', capacity: 10 }],
      ticket_types: [
        { name: 'Adult', price_minor: 3000 },
        { name: 'VIP', price_minor: 9000, quantity: 3 },
      ],
    });
    pid = performanceIdsOf(event)[0]!;
    [adult, vip] = event.ticket_types.map((tt) => tt.id) as [string, string];
  });

  const createHold = (body: unknown, id = pid) => t.admin('POST', `/admin/v1/performances/${id}/holds`, body);
  const expect400 = async (body: unknown, detail: string, code: ErrorCode, param?: string) => {
    const res = await createHold(body);
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json(), problemOf(400, detail, code, param));
  };
  const remaining = async () =>
    (await t.api(org.key, 'GET', `/v1/performances/${pid}/availability`)).json().performance_remaining;

  test('bad input is refused: kind, quantity, unknown keys, expires_at rules, ticket type without a price', async () => {
    await expect400({ quantity: 1 }, 'Missing required field `kind` in body.', 'parameter_missing', 'kind');
    await expect400(
      { kind: 'forever', quantity: 1 },
      '`kind` must be one of: cart, allocation.',
      'parameter_invalid',
      'kind',
    );
    await expect400({ kind: 'cart' }, 'Missing required field `quantity` in body.', 'parameter_missing', 'quantity');
    await expect400({ kind: 'cart', quantity: 0 }, '`quantity` must be at least 1.', 'parameter_invalid', 'quantity');
    await expect400(
      { kind: 'cart', quantity: '2' },
      '`quantity` must be of type integer.',
      'parameter_invalid',
      'quantity',
    );
    await expect400(
      { kind: 'cart', quantity: 1, note: 'x' },
      'Unknown field `note` in body.',
      'parameter_unknown',
      'note',
    );
    await expect400(
      { kind: 'allocation', quantity: 1, expires_at: '2030-01-01T00:00:00Z' },
      '`expires_at` is for cart holds only; a hold allocation does not expire.',
      'parameter_invalid',
      'expires_at',
    );
    await expect400(
      { kind: 'cart', quantity: 1, expires_at: t.clock.now().toISOString() },
      '`expires_at` must be in the future.',
      'parameter_invalid',
      'expires_at',
    );
    await expect400(
      { kind: 'cart', quantity: 1, expires_at: 'soon' },
      '`expires_at` must be an RFC 3339 date-time with a time zone, such as 2030-06-30T19:30:00Z, from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (seconds 00 to 59).',
      'parameter_invalid',
      'expires_at',
    );
    await expect400(
      { kind: 'cart', quantity: 1, ticket_type_id: 'abc' },
      '`ticket_type_id` must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits).',
      'parameter_invalid',
      'ticket_type_id',
    );
    await expect400(
      { kind: 'cart', quantity: 1, ticket_type_id: UNKNOWN },
      `Ticket type ${UNKNOWN} has no active price on performance ${pid}.`,
      'not_on_sale',
    );
    const other = await createEvent(t, org.key);
    await expect400(
      { kind: 'cart', quantity: 1, ticket_type_id: other.ticket_types[0]!.id },
      `Ticket type ${other.ticket_types[0]!.id} has no active price on performance ${pid}.`,
      'not_on_sale',
    );
    assert.equal(await remaining(), 10);
  });

  test('unknown and malformed performance ids answer 404', async () => {
    for (const id of [UNKNOWN, ...MALFORMED]) {
      const res = await createHold({ kind: 'cart', quantity: 1 }, id);
      assert.deepEqual(
        [res.statusCode, res.json()],
        [404, problemOf(404, 'Performance not found.', 'resource_not_found')],
        id,
      );
    }
    for (const id of [UNKNOWN, ...MALFORMED]) {
      const res = await t.admin('DELETE', `/admin/v1/holds/${id}`);
      assert.deepEqual(
        [res.statusCode, res.json()],
        [404, problemOf(404, 'Hold not found.', 'resource_not_found')],
        id,
      );
    }
  });

  test('a cart hold: 201 with the hold, default expiry now + 15 minutes from the clock', async () => {
    const res = await createHold({ kind: 'cart', quantity: 2, ticket_type_id: adult });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    const now = t.clock.now();
    assert.deepEqual(body, {
      id: body.id,
      object: 'hold',
      performance_id: pid,
      ticket_type_id: adult,
      kind: 'cart',
      quantity: 2,
      expires_at: new Date(now.getTime() + 15 * MINUTE).toISOString(),
      released_at: null,
      created_at: now.toISOString(),
    });
    const row = await t.database.db.selectFrom('holds').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.equal(row.organizer_id, org.id);
    assert.equal(await remaining(), 8);
    t.clock.advance(15 * MINUTE);
    assert.equal(await remaining(), 10, 'the cart hold expired on its own');
  });

  test('a cart hold with an explicit expiry, and an allocation (no expiry, no ticket type)', async () => {
    const expires = new Date(t.clock.now().getTime() + 2 * MINUTE).toISOString();
    const cart = (await createHold({ kind: 'cart', quantity: 1, expires_at: expires })).json();
    assert.deepEqual([cart.expires_at, cart.ticket_type_id], [expires, null]);
    const allocation = await createHold({ kind: 'allocation', quantity: 3, ticket_type_id: null });
    assert.equal(allocation.statusCode, 201);
    assert.deepEqual(
      [allocation.json().kind, allocation.json().expires_at, allocation.json().ticket_type_id],
      ['allocation', null, null],
    );
    assert.equal(await remaining(), 6);
    t.clock.advance(2 * MINUTE);
    assert.equal(await remaining(), 7);
    t.clock.advance(365 * 24 * 60 * MINUTE);
    assert.equal(await remaining(), 7, 'an allocation never expires');
    await t.admin('DELETE', `/admin/v1/holds/${allocation.json().id}`);
    assert.equal(await remaining(), 10);
  });

  test('a hold larger than what remains is refused, naming what remains; exactly what remains is accepted', async () => {
    await expect400(
      { kind: 'allocation', quantity: 11 },
      'Cannot hold 11 seats: 10 remaining for this performance.',
      'insufficient_inventory',
    );
    await expect400(
      { kind: 'cart', quantity: 4, ticket_type_id: vip },
      'Cannot hold 4 "VIP" tickets: 3 remaining for this performance.',
      'insufficient_inventory',
    );
    const vipHold = (await createHold({ kind: 'cart', quantity: 3, ticket_type_id: vip })).json();
    await expect400(
      { kind: 'cart', quantity: 1, ticket_type_id: vip },
      'Cannot hold 1 "VIP" ticket: 0 remaining for this performance.',
      'insufficient_inventory',
    );
    const rest = await createHold({ kind: 'allocation', quantity: 7 });
    assert.equal(rest.statusCode, 201);
    await expect400(
      { kind: 'cart', quantity: 1, ticket_type_id: adult },
      'Cannot hold 1 "Adult" ticket: 0 remaining for this performance.',
      'insufficient_inventory',
    );
    await expect400(
      { kind: 'cart', quantity: 1 },
      'Cannot hold 1 seat: 0 remaining for this performance.',
      'insufficient_inventory',
    );
    await t.admin('DELETE', `/admin/v1/holds/${vipHold.id}`);
    await t.admin('DELETE', `/admin/v1/holds/${rest.json().id}`);
    assert.equal(await remaining(), 10);
  });

  test('DELETE releases a hold; releasing it again answers 200 with the first released_at', async () => {
    const hold = (await createHold({ kind: 'allocation', quantity: 4 })).json();
    assert.equal(await remaining(), 6);
    const released = await t.admin('DELETE', `/admin/v1/holds/${hold.id}`);
    assert.equal(released.statusCode, 200);
    assert.deepEqual(released.json(), { ...hold, released_at: t.clock.now().toISOString() });
    assert.equal(await remaining(), 10);
    const firstRelease = t.clock.now().toISOString();
    t.clock.advance(MINUTE);
    const again = await t.admin('DELETE', `/admin/v1/holds/${hold.id}`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().released_at, firstRelease);
    assert.equal(await remaining(), 10);
  });

  test(`concurrent holds serialize on the performance lock and never exceed what remains (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const ev = await createEvent(t, org.key, { performances: [{ starts_at: '2026-11-01T19:00:00Z', capacity: 10 }] });
    const target = performanceIdsOf(ev)[0]!;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => createHold({ kind: 'allocation', quantity: 3 }, target)),
    );
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [201, 201, 201, 400, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.statusCode === 400))
      assert.deepEqual(
        r.json(),
        problemOf(400, 'Cannot hold 3 seats: 1 remaining for this performance.', 'insufficient_inventory'),
      );
    const avail = (await t.api(org.key, 'GET', `/v1/performances/${target}/availability`)).json();
    assert.equal(avail.performance_remaining, 1);
  });
});
