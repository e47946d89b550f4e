/**
 * The dashboard's addPerformances and addTicketTypes (docs/dashboard.md, "Add performances
 * and ticket types"; docs/catalog.md, "Adding to an event"): every new performance priced
 * with every type and every new type on every performance, the webhooks, the limits
 * counted on the whole event, the cached detail dropped at once, refusals that add
 * nothing, and (on PostgreSQL) two additions at once that cannot pass a limit together.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf, type CreatedEvent } from '../helpers/catalog.ts';
import { eventsOfType } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';

const ON_POSTGRES = process.env.TEST_DATABASE_URL !== undefined;

async function sessionOf(t: TestApp, organizerId: string, role = 'manager'): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role });
  return t.signIn(user.email, user.password);
}

/** What the event's rows are: performances (schedule order) and prices, read in SQL. */
async function catalogRows(t: TestApp, eventId: string) {
  const performances = await t.database.db
    .selectFrom('performances')
    .select(['id', 'status', 'capacity', 'title', 'starts_at', 'ends_at'])
    .where('event_id', '=', eventId)
    .orderBy('starts_at')
    .orderBy('id')
    .execute();
  const types = await t.database.db
    .selectFrom('ticket_types')
    .select(['id', 'name', 'sort_order'])
    .where('event_id', '=', eventId)
    .orderBy('sort_order')
    .execute();
  const prices = await t.database.db
    .selectFrom('prices')
    .innerJoin('ticket_types', 'ticket_types.id', 'prices.ticket_type_id')
    .select(['prices.ticket_type_id', 'prices.performance_id', 'prices.price_minor', 'prices.limited_quantity'])
    .where('ticket_types.event_id', '=', eventId)
    .orderBy('prices.ticket_type_id')
    .orderBy('prices.performance_id')
    .execute();
  return { performances, types, prices: prices.map((p) => ({ ...p, price_minor: Number(p.price_minor) })) };
}

type EventData = { event_id?: string; performance_id?: string };
/** Sorted by performance id: events of one instant come back in no set order (their ids are random). */
const byPerformance = <T extends EventData>(rows: T[]) =>
  [...rows].sort((a, b) => (a.performance_id ?? '').localeCompare(b.performance_id ?? ''));
/** The domain events of one event. */
const ofEvent = (rows: unknown[], eventId: string) =>
  byPerformance((rows as EventData[]).filter((r) => r.event_id === eventId));

describe('the dashboard adds performances and ticket types to an event', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('performances on a published event: priced with every type, live at once, one event.published each and one event.updated', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, {
      performances: [{ starts_at: '2027-05-01T19:00:00Z', capacity: 100 }],
      ticket_types: [
        { name: 'General', price_minor: 2500, quantity: null },
        { name: 'Reduced', price_minor: 1500, quantity: 10 },
      ],
    });
    const [first] = performanceIdsOf(event);
    // The detail is cached now: the addition must drop it.
    assert.equal((await t.dash(session, 'GET', `/dashboard/v1/events/${event.id}`)).statusCode, 200);
    t.clock.advance(60_000);
    const res = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, {
      performances: [
        { starts_at: '2027-05-03T19:00:00Z', capacity: 50, title: ' Matinee ' },
        { starts_at: '2027-05-02T19:00:00Z', ends_at: '2027-05-02T21:30:00Z', capacity: 80 },
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    const detail = res.json<CreatedEvent>();
    const rows = await catalogRows(t, event.id);
    assert.deepEqual(
      rows.performances.map((p) => [p.status, p.capacity, p.title, p.starts_at.toISOString(), p.ends_at.toISOString()]),
      [
        ['published', 100, null, '2027-05-01T19:00:00.000Z', '2027-05-01T22:00:00.000Z'],
        ['published', 80, null, '2027-05-02T19:00:00.000Z', '2027-05-02T21:30:00.000Z'],
        ['published', 50, 'Matinee', '2027-05-03T19:00:00.000Z', '2027-05-03T22:00:00.000Z'],
      ],
    );
    const [, second, third] = rows.performances.map((p) => p.id);
    // Every type on every performance, each at its price and cap, in schedule order.
    assert.deepEqual(
      detail.ticket_types.map((tt) => [
        tt.name,
        tt.prices.map((p) => [p.performance_id, p.price_minor, p.limited_quantity]),
      ]),
      [
        [
          'General',
          [
            [first, 2500, null],
            [second, 2500, null],
            [third, 2500, null],
          ],
        ],
        [
          'Reduced',
          [
            [first, 1500, 10],
            [second, 1500, 10],
            [third, 1500, 10],
          ],
        ],
      ],
    );
    assert.equal(detail.updated_at, t.clock.now().toISOString());
    assert.deepEqual(
      ofEvent(await eventsOfType(t, org.id, 'event.published'), event.id),
      byPerformance([first, second, third].map((performance_id) => ({ event_id: event.id, performance_id }))),
    );
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.updated'), event.id), [{ event_id: event.id }]);
    // The next GET shows the addition at once, the same bytes as the 201.
    const after = await t.dash(session, 'GET', `/dashboard/v1/events/${event.id}`);
    assert.equal(after.body, res.body);
    assert.equal((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).body, res.body);
    // The new performances sell.
    const availability = await t.api(org.key, 'GET', `/v1/performances/${third}/availability`);
    assert.deepEqual(availability.json(), {
      object: 'availability',
      performance_id: third,
      performance_remaining: 50,
      ticket_types: [
        { ticket_type_id: detail.ticket_types[0]!.id, remaining: 50 },
        { ticket_type_id: detail.ticket_types[1]!.id, remaining: 10 },
      ],
    });
  });

  test('performances on a draft stay drafts, no event.published until the publish, which then names them', async () => {
    const session = await sessionOf(t, org.id);
    const draft = await createEvent(t, org.key, {
      publish: false,
      performances: [{ starts_at: '2027-06-01T19:00:00Z', capacity: 10 }],
    });
    const res = await t.dash(session, 'POST', `/dashboard/v1/events/${draft.id}/performances`, {
      performances: [{ starts_at: '2027-06-02T19:00:00Z', capacity: 20 }],
    });
    assert.equal(res.statusCode, 201, res.body);
    const rows = await catalogRows(t, draft.id);
    assert.deepEqual(
      rows.performances.map((p) => p.status),
      ['draft', 'draft'],
    );
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.published'), draft.id), []);
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.updated'), draft.id), [{ event_id: draft.id }]);
    const published = await t.dash(session, 'POST', `/dashboard/v1/events/${draft.id}/publish`);
    assert.equal(published.statusCode, 200, published.body);
    assert.deepEqual(
      ofEvent(await eventsOfType(t, org.id, 'event.published'), draft.id),
      byPerformance(rows.performances.map((p) => ({ event_id: draft.id, performance_id: p.id }))),
    );
  });

  test('ticket types: each priced on every performance at its price and cap, after the existing ones; one event.updated', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, {
      performances: [
        { starts_at: '2027-07-02T19:00:00Z', capacity: 30 },
        { starts_at: '2027-07-01T19:00:00Z', capacity: 30 },
      ],
    });
    const [p1, p2] = performanceIdsOf(event);
    await t.api(org.key, 'GET', `/v1/events/${event.id}`); // cached
    t.clock.advance(1000);
    const res = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/ticket_types`, {
      ticket_types: [
        { name: ' VIP ', description: ' Front rows ', price_minor: 9900, quantity: 5 },
        { name: 'Child', price_minor: 0 },
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    const detail = res.json<CreatedEvent>();
    const now = t.clock.now().toISOString();
    assert.deepEqual(
      detail.ticket_types.map((tt) => ({ ...tt, id: '-' })),
      [
        event.ticket_types[0]!,
        {
          id: '-',
          object: 'ticket_type',
          name: 'VIP',
          description: 'Front rows',
          sort_order: 1,
          translations: [{ locale: 'en', name: 'VIP', description: 'Front rows' }],
          updated_at: now,
          prices: [p1, p2].map((performance_id) => ({
            performance_id,
            seat_category_key: 'general',
            price_minor: 9900,
            limited_quantity: 5,
            is_active: true,
          })),
        },
        {
          id: '-',
          object: 'ticket_type',
          name: 'Child',
          description: null,
          sort_order: 2,
          translations: [{ locale: 'en', name: 'Child', description: null }],
          updated_at: now,
          prices: [p1, p2].map((performance_id) => ({
            performance_id,
            seat_category_key: 'general',
            price_minor: 0,
            limited_quantity: null,
            is_active: true,
          })),
        },
      ].map((tt) => ({ ...tt, id: '-' })),
    );
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.updated'), event.id), [{ event_id: event.id }]);
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.published'), event.id).length, 2, 'none new');
    assert.equal((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).body, res.body);
    // A performance added later is priced with the added types too.
    const more = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, {
      performances: [{ starts_at: '2027-07-03T19:00:00Z', capacity: 30 }],
    });
    assert.deepEqual(
      more.json<CreatedEvent>().ticket_types.map((tt) => tt.prices.map((p) => [p.price_minor, p.limited_quantity])),
      [
        [
          [2500, null],
          [2500, null],
          [2500, null],
        ],
        [
          [9900, 5],
          [9900, 5],
          [9900, 5],
        ],
        [
          [0, null],
          [0, null],
          [0, null],
        ],
      ],
    );
  });

  test('the limits count the whole event, and the refusal says how many remain and adds nothing', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, {
      performances: Array.from({ length: 48 }, (_, i) => ({
        starts_at: new Date(Date.UTC(2027, 8, 1 + i, 19)).toISOString(),
        capacity: 10,
      })),
      ticket_types: Array.from({ length: 20 }, (_, i) => ({ name: `Type ${i}`, price_minor: 100 * i })),
    });
    const before = await catalogRows(t, event.id);
    const three = Array.from({ length: 3 }, (_, i) => ({
      starts_at: new Date(Date.UTC(2028, 0, 1 + i, 19)).toISOString(),
      capacity: 5,
    }));
    const tooMany = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, {
      performances: three,
    });
    assert.deepEqual(
      [tooMany.statusCode, tooMany.json()],
      [
        400,
        problemOf(
          400,
          'An event has at most 50 performances; this one has 48, so at most 2 more can be added (3 sent).',
          'limit_reached',
          'performances',
        ),
      ],
    );
    const noType = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/ticket_types`, {
      ticket_types: [{ name: 'One more', price_minor: 100 }],
    });
    assert.deepEqual(
      [noType.statusCode, noType.json()],
      [
        400,
        problemOf(
          400,
          'An event has at most 20 ticket types; this one has 20, so none can be added (1 sent).',
          'limit_reached',
          'ticket_types',
        ),
      ],
    );
    assert.deepEqual(await catalogRows(t, event.id), before);
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.updated'), event.id), []);
    // Exactly up to the limit is fine.
    const two = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, {
      performances: three.slice(0, 2),
    });
    assert.equal(two.statusCode, 201, two.body);
    assert.equal((await catalogRows(t, event.id)).performances.length, 50);
    assert.equal((await catalogRows(t, event.id)).prices.length, 50 * 20);
  });

  test('bad items answer 400 naming the item, as POST /v1/events does, and add nothing', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, { ticket_types: [{ name: 'General', price_minor: 2500 }] });
    const before = await catalogRows(t, event.id);
    const url = (what: string) => `/dashboard/v1/events/${event.id}/${what}`;
    const cases: [string, unknown, ReturnType<typeof problemOf>][] = [
      [
        'performances',
        { performances: [{ starts_at: '2027-01-02T19:00:00Z', ends_at: '2027-01-02T18:00:00Z', capacity: 5 }] },
        problemOf(
          400,
          '`performances.0.ends_at` must not be before its `starts_at`.',
          'parameter_invalid',
          'performances.0.ends_at',
        ),
      ],
      [
        'ticket_types',
        { ticket_types: [{ name: ' general ', price_minor: 100 }] },
        problemOf(
          400,
          '`ticket_types.0.name` "general" is already a ticket type of this event; ticket type names must differ.',
          'parameter_invalid',
          'ticket_types.0.name',
        ),
      ],
      [
        'ticket_types',
        {
          ticket_types: [
            { name: 'Senior', price_minor: 100 },
            { name: 'SENIOR', price_minor: 100 },
          ],
        },
        problemOf(
          400,
          '`ticket_types.1.name` "SENIOR" is used twice; ticket type names must differ.',
          'parameter_invalid',
          'ticket_types.1.name',
        ),
      ],
    ];
    for (const [what, body, problem] of cases) {
      const res = await t.dash(session, 'POST', url(what), body);
      assert.deepEqual([res.statusCode, res.json()], [400, problem], JSON.stringify(body));
    }
    for (const body of [{ performances: [] }, { performances: [{ starts_at: '2027-01-02T19:00:00Z', capacity: 0 }] }]) {
      const res = await t.dash(session, 'POST', url('performances'), body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'parameter_invalid');
      assert.match(res.json().param as string, /^performances/);
    }
    const unknown = await t.dash(session, 'POST', url('ticket_types'), {
      ticket_types: [{ name: 'Balcony', price_minor: 100, seats: 3 }],
    });
    assert.deepEqual(
      [unknown.statusCode, unknown.json()],
      [
        400,
        problemOf(400, 'Unknown field `ticket_types.0.seats` in body.', 'parameter_unknown', 'ticket_types.0.seats'),
      ],
    );
    assert.deepEqual(await catalogRows(t, event.id), before);
    assert.deepEqual(ofEvent(await eventsOfType(t, org.id, 'event.updated'), event.id), []);
  });

  test('an archived event answers 409 and gains nothing; another organizer’s event is not found', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key);
    const archived = await t.dash(session, 'PATCH', `/dashboard/v1/events/${event.id}`, { is_archived: true });
    assert.equal(archived.statusCode, 200, archived.body);
    const before = await catalogRows(t, event.id);
    const performance = { starts_at: '2027-02-01T19:00:00Z', capacity: 5 };
    const res = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, {
      performances: [performance],
    });
    assert.deepEqual(
      [res.statusCode, res.json()],
      [
        409,
        problemOf(
          409,
          'Event is archived, so no performances can be added; unarchive it first (PATCH is_archived false).',
          'invalid_state',
        ),
      ],
    );
    const types = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/ticket_types`, {
      ticket_types: [{ name: 'Late', price_minor: 100 }],
    });
    assert.equal(types.statusCode, 409);
    assert.equal(
      types.json().detail,
      'Event is archived, so no ticket types can be added; unarchive it first (PATCH is_archived false).',
    );
    assert.deepEqual(await catalogRows(t, event.id), before);

    const other = await t.createOrganizer();
    const stranger = await sessionOf(t, other.id, 'owner');
    const mine = await createEvent(t, org.key);
    const mineBefore = await catalogRows(t, mine.id);
    for (const [what, body] of [
      ['performances', { performances: [performance] }],
      ['ticket_types', { ticket_types: [{ name: 'Stolen', price_minor: 1 }] }],
    ] as const) {
      const foreign = await t.dash(stranger, 'POST', `/dashboard/v1/events/${mine.id}/${what}`, body);
      assert.deepEqual(
        [foreign.statusCode, foreign.json()],
        [404, problemOf(404, 'Event not found.', 'resource_not_found')],
      );
    }
    assert.deepEqual(await catalogRows(t, mine.id), mineBefore);
  });

  test('two additions at once cannot pass the limit together', { skip: !ON_POSTGRES }, async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, {
      performances: Array.from({ length: 40 }, (_, i) => ({
        starts_at: new Date(Date.UTC(2029, 0, 1 + i, 19)).toISOString(),
        capacity: 10,
      })),
      ticket_types: Array.from({ length: 14 }, (_, i) => ({ name: `Type ${i}`, price_minor: 100 })),
    });
    for (let round = 0; round < 5; round++) {
      const performances = (offset: number) =>
        Array.from({ length: 6 }, (_, i) => ({
          starts_at: new Date(Date.UTC(2030 + round, offset, 1 + i, 19)).toISOString(),
          capacity: 5,
        }));
      const types = (prefix: string) =>
        Array.from({ length: 4 }, (_, i) => ({ name: `${prefix} ${round}.${i}`, price_minor: 100 }));
      const answers = await Promise.all([
        t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, { performances: performances(0) }),
        t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/performances`, { performances: performances(1) }),
        t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/ticket_types`, { ticket_types: types('A') }),
        t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/ticket_types`, { ticket_types: types('B') }),
      ]);
      const rows = await catalogRows(t, event.id);
      assert.ok(rows.performances.length <= 50, `round ${round}: ${rows.performances.length} performances`);
      assert.ok(rows.types.length <= 20, `round ${round}: ${rows.types.length} ticket types`);
      assert.equal(rows.prices.length, rows.performances.length * rows.types.length);
      if (round === 0) {
        // 40 + 6 fits, a second 6 does not; 14 + 4 fits, a second 4 does not.
        assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 201, 400, 400]);
        assert.deepEqual(
          answers
            .filter((a) => a.statusCode === 400)
            .map((a) => [a.json().code, a.json().param])
            .sort(),
          [
            ['limit_reached', 'performances'],
            ['limit_reached', 'ticket_types'],
          ],
        );
        assert.equal(rows.performances.length, 46);
        assert.equal(rows.types.length, 18);
      }
    }
  });
});
