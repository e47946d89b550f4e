import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent, eventBody, performanceIdsOf } from '../helpers/catalog.ts';
import { onPostgres } from '../helpers/database.ts';

const HOUR = 60 * 60 * 1000;

describe('POST /v1/events', () => {
  const t = useTestApp();
  const org = useOrganizer(t, { timezone: 'Europe/Berlin' });
  const orgB = useOrganizer(t);

  const post = (body: unknown, key = org.key) => t.api(key, 'POST', '/v1/events', body);
  const expect400 = async (body: unknown, detail: string, code: ErrorCode, param?: string) => {
    const res = await post(body);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(res.json(), problemOf(400, detail, code, param));
  };
  const expect201 = async (body: unknown) => {
    const res = await post(body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  };
  const x = (n: number, c = 'a') => c.repeat(n);

  describe('validation, bad input first', () => {
    test('title: 2 and 513 characters are refused, 3 and 512 accepted', async () => {
      await expect400(
        eventBody(t, { title: 'ab' }),
        '`title` must be at least 3 characters.',
        'parameter_invalid',
        'title',
      );
      await expect400(
        eventBody(t, { title: x(513) }),
        '`title` must be at most 512 characters.',
        'parameter_invalid',
        'title',
      );
      assert.equal((await expect201(eventBody(t, { title: 'abc' }))).title, 'abc');
      assert.equal((await expect201(eventBody(t, { title: x(512, 'b') }))).title, x(512, 'b'));
    });

    test('title: surrounding spaces are trimmed, and a title that is only spaces is refused', async () => {
      await expect400(
        eventBody(t, { title: '   ab   ' }),
        '`title` must be at least 3 characters, not counting surrounding spaces.',
        'parameter_invalid',
        'title',
      );
      assert.equal((await expect201(eventBody(t, { title: '  Trimmed Title  ' }))).title, 'Trimmed Title');
    });

    test('title: missing, a number or null is refused', async () => {
      const { title: _omit, ...noTitle } = eventBody(t);
      await expect400(noTitle, 'Missing required field `title` in body.', 'parameter_missing', 'title');
      await expect400(eventBody(t, { title: 12345 }), '`title` must be of type string.', 'parameter_invalid', 'title');
      await expect400(eventBody(t, { title: null }), '`title` must be of type string.', 'parameter_invalid', 'title');
    });

    test('description: 20001 characters refused, 20000 accepted; a number is refused', async () => {
      await expect400(
        eventBody(t, { description: x(20001) }),
        '`description` must be at most 20000 characters.',
        'parameter_invalid',
        'description',
      );
      const ok = await expect201(eventBody(t, { description: x(20000) }));
      assert.equal(ok.description, x(20000));
      await expect400(
        eventBody(t, { description: 5 }),
        '`description` must be of type string.',
        'parameter_invalid',
        'description',
      );
    });

    test('unknown keys are refused at every level, naming the key', async () => {
      await expect400(
        eventBody(t, { colour: 'red' }),
        'Unknown field `colour` in body.',
        'parameter_unknown',
        'colour',
      );
      await expect400(
        eventBody(t, { performances: [{ starts_at: '2026-07-01T19:00:00Z', capacity: 10, seats: 3 }] }),
        'Unknown field `performances.0.seats` in body.',
        'parameter_unknown',
        'performances.0.seats',
      );
      await expect400(
        eventBody(t, { ticket_types: [{ name: 'General', price_minor: 0, currency: 'EUR' }] }),
        'Unknown field `ticket_types.0.currency` in body.',
        'parameter_unknown',
        'ticket_types.0.currency',
      );
      await expect400(
        eventBody(t, { venue: { name: 'Hall', city: 'Berlin' } }),
        'Unknown field `venue.city` in body.',
        'parameter_unknown',
        'venue.city',
      );
    });

    test('performances: 0 and 51 refused, 1 and 50 accepted', async () => {
      const perf = (i: number) => ({
        starts_at: new Date(Date.UTC(2026, 6, 1) + i * HOUR * 24).toISOString(),
        capacity: 5,
      });
      await expect400(
        eventBody(t, { performances: [] }),
        '`performances` must have at least 1 item.',
        'parameter_invalid',
        'performances',
      );
      await expect400(
        eventBody(t, { performances: Array.from({ length: 51 }, (_, i) => perf(i)) }),
        '`performances` must have at most 50 items.',
        'parameter_invalid',
        'performances',
      );
      await expect400(
        eventBody(t, { performances: 'tomorrow' }),
        '`performances` must be of type array.',
        'parameter_invalid',
        'performances',
      );
      const one = await expect201(eventBody(t, { performances: [perf(0)] }));
      assert.equal(one.ticket_types[0].prices.length, 1);
      const fifty = await expect201(eventBody(t, { performances: Array.from({ length: 50 }, (_, i) => perf(i)) }));
      assert.equal(fifty.ticket_types[0].prices.length, 50);
    });

    test('performance capacity: 0 and 1000001 refused, 1 and 1000000 accepted; a string or a fraction is refused', async () => {
      const withCapacity = (capacity: unknown) =>
        eventBody(t, { performances: [{ starts_at: '2026-07-01T19:00:00Z', capacity }] });
      await expect400(
        withCapacity(0),
        '`performances.0.capacity` must be at least 1.',
        'parameter_invalid',
        'performances.0.capacity',
      );
      await expect400(
        withCapacity(1000001),
        '`performances.0.capacity` must be at most 1000000.',
        'parameter_invalid',
        'performances.0.capacity',
      );
      await expect400(
        withCapacity('100'),
        '`performances.0.capacity` must be of type integer.',
        'parameter_invalid',
        'performances.0.capacity',
      );
      await expect400(
        withCapacity(1.5),
        '`performances.0.capacity` must be of type integer.',
        'parameter_invalid',
        'performances.0.capacity',
      );
      for (const capacity of [1, 1000000]) {
        const event = await expect201(withCapacity(capacity));
        const perf = await t.api(org.key, 'GET', `/v1/performances/${performanceIdsOf(event)[0]}`);
        assert.equal(perf.json().capacity, capacity);
      }
    });

    test('performance starts_at: required, a timestamp; ends_at before starts_at refused', async () => {
      await expect400(
        eventBody(t, { performances: [{ capacity: 10 }] }),
        'Missing required field `performances.0.starts_at` in body.',
        'parameter_missing',
        'performances.0.starts_at',
      );
      await expect400(
        eventBody(t, { performances: [{ starts_at: 'next friday', capacity: 10 }] }),
        '`performances.0.starts_at` must be an RFC 3339 date-time with a time zone, such as 2030-06-30T19:30:00Z, from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (seconds 00 to 59).',
        'parameter_invalid',
        'performances.0.starts_at',
      );
      await expect400(
        eventBody(t, {
          performances: [
            { starts_at: '2026-07-01T19:00:00Z', capacity: 10 },
            { starts_at: '2026-07-02T19:00:00Z', ends_at: '2026-07-02T18:59:59Z', capacity: 10 },
          ],
        }),
        '`performances.1.ends_at` must not be before its `starts_at`.',
        'parameter_invalid',
        'performances.1.ends_at',
      );
    });

    test('ticket types: 0 and 21 refused, 1 and 20 accepted', async () => {
      const tt = (i: number) => ({ name: `Type ${i}`, price_minor: i });
      await expect400(
        eventBody(t, { ticket_types: [] }),
        '`ticket_types` must have at least 1 item.',
        'parameter_invalid',
        'ticket_types',
      );
      await expect400(
        eventBody(t, { ticket_types: Array.from({ length: 21 }, (_, i) => tt(i)) }),
        '`ticket_types` must have at most 20 items.',
        'parameter_invalid',
        'ticket_types',
      );
      assert.equal((await expect201(eventBody(t, { ticket_types: [tt(1)] }))).ticket_types.length, 1);
      const twenty = await expect201(eventBody(t, { ticket_types: Array.from({ length: 20 }, (_, i) => tt(i)) }));
      assert.deepEqual(
        twenty.ticket_types.map((x: { sort_order: number }) => x.sort_order),
        Array.from({ length: 20 }, (_, i) => i),
      );
    });

    test('ticket type name: 1 and 65 refused, 2 and 64 accepted; a number refused; duplicates refused', async () => {
      const withName = (name: unknown) => eventBody(t, { ticket_types: [{ name, price_minor: 100 }] });
      await expect400(
        withName('A'),
        '`ticket_types.0.name` must be at least 2 characters.',
        'parameter_invalid',
        'ticket_types.0.name',
      );
      await expect400(
        withName(x(65)),
        '`ticket_types.0.name` must be at most 64 characters.',
        'parameter_invalid',
        'ticket_types.0.name',
      );
      await expect400(
        withName(42),
        '`ticket_types.0.name` must be of type string.',
        'parameter_invalid',
        'ticket_types.0.name',
      );
      assert.equal((await expect201(withName('AB'))).ticket_types[0].name, 'AB');
      assert.equal((await expect201(withName(x(64, 'n')))).ticket_types[0].name, x(64, 'n'));
      await expect400(
        eventBody(t, {
          ticket_types: [
            { name: 'Adult', price_minor: 1 },
            { name: 'adult', price_minor: 2 },
          ],
        }),
        '`ticket_types.1.name` "adult" is used twice; ticket type names must differ.',
        'parameter_invalid',
        'ticket_types.1.name',
      );
    });

    test('price_minor: -1 and 100000001 refused, 0 and 100000000 accepted; a string refused; required', async () => {
      const withPrice = (price_minor: unknown) => eventBody(t, { ticket_types: [{ name: 'General', price_minor }] });
      await expect400(
        withPrice(-1),
        '`ticket_types.0.price_minor` must be at least 0.',
        'parameter_invalid',
        'ticket_types.0.price_minor',
      );
      await expect400(
        withPrice(100000001),
        '`ticket_types.0.price_minor` must be at most 100000000.',
        'parameter_invalid',
        'ticket_types.0.price_minor',
      );
      await expect400(
        withPrice('10'),
        '`ticket_types.0.price_minor` must be of type integer.',
        'parameter_invalid',
        'ticket_types.0.price_minor',
      );
      await expect400(
        eventBody(t, { ticket_types: [{ name: 'General' }] }),
        'Missing required field `ticket_types.0.price_minor` in body.',
        'parameter_missing',
        'ticket_types.0.price_minor',
      );
      assert.equal((await expect201(withPrice(0))).ticket_types[0].prices[0].price_minor, 0);
      assert.equal((await expect201(withPrice(100000000))).ticket_types[0].prices[0].price_minor, 100000000);
    });

    test('quantity: null or absent is uncapped, 0 is a cap, -1 and a string are refused', async () => {
      const withQuantity = (quantity: unknown) =>
        eventBody(t, { ticket_types: [{ name: 'General', price_minor: 1, quantity }] });
      await expect400(
        withQuantity(-1),
        '`ticket_types.0.quantity` must be at least 0.',
        'parameter_invalid',
        'ticket_types.0.quantity',
      );
      await expect400(
        withQuantity('5'),
        '`ticket_types.0.quantity` must be of type integer.',
        'parameter_invalid',
        'ticket_types.0.quantity',
      );
      assert.equal((await expect201(withQuantity(null))).ticket_types[0].prices[0].limited_quantity, null);
      assert.equal(
        (await expect201(eventBody(t, { ticket_types: [{ name: 'General', price_minor: 1 }] }))).ticket_types[0]
          .prices[0].limited_quantity,
        null,
      );
      assert.equal((await expect201(withQuantity(0))).ticket_types[0].prices[0].limited_quantity, 0);
      assert.equal((await expect201(withQuantity(250))).ticket_types[0].prices[0].limited_quantity, 250);
    });

    test('timezone: an unknown zone is refused; absent or null means the organizer default', async () => {
      await expect400(
        eventBody(t, { timezone: 'Mars/Olympus_Mons' }),
        '`timezone` must be an IANA time zone such as Europe/Berlin, got "Mars/Olympus_Mons".',
        'parameter_invalid',
        'timezone',
      );
      await expect400(
        eventBody(t, { timezone: 3 }),
        '`timezone` must be of type string.',
        'parameter_invalid',
        'timezone',
      );
      assert.equal((await expect201(eventBody(t))).timezone, 'Europe/Berlin');
      assert.equal((await expect201(eventBody(t, { timezone: null }))).timezone, 'Europe/Berlin');
      assert.equal((await expect201(eventBody(t, { timezone: 'America/New_York' }))).timezone, 'America/New_York');
    });

    test('publish must be a boolean', async () => {
      await expect400(
        eventBody(t, { publish: 'no' }),
        '`publish` must be of type boolean.',
        'parameter_invalid',
        'publish',
      );
    });

    test('the body must be a JSON object', async () => {
      await expect400([], 'Request body must be a JSON object.', 'invalid_json');
    });
  });

  describe('venue', () => {
    test('missing or malformed venue is refused', async () => {
      const { venue: _omit, ...noVenue } = eventBody(t);
      await expect400(noVenue, 'Missing required field `venue` in body.', 'parameter_missing', 'venue');
      await expect400(eventBody(t, { venue: 'offline' }), '`venue` must be "online".', 'parameter_invalid', 'venue');
      await expect400(
        eventBody(t, { venue: {} }),
        '`venue` must be `{"id": …}` of an existing venue, `{"name": …}`, or the string "online".',
        'parameter_invalid',
        'venue',
      );
      await expect400(
        eventBody(t, { venue: { id: '00000000-0000-4000-8000-000000000000', name: 'Both' } }),
        '`venue` must be `{"id": …}` of an existing venue, `{"name": …}`, or the string "online".',
        'parameter_invalid',
        'venue',
      );
      await expect400(
        eventBody(t, { venue: { id: 'nope' } }),
        '`venue.id` must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits).',
        'parameter_invalid',
        'venue.id',
      );
      await expect400(
        eventBody(t, { venue: { name: '   ' } }),
        '`venue.name` must not be blank.',
        'parameter_invalid',
        'venue.name',
      );
    });

    test('{name} is found case-insensitively, else created', async () => {
      const first = await expect201(eventBody(t, { venue: { name: 'Blue Note Club' } }));
      const again = await expect201(eventBody(t, { venue: { name: 'BLUE NOTE CLUB' } }));
      const other = await expect201(eventBody(t, { venue: { name: 'Red Room' } }));
      assert.equal(again.venue_id, first.venue_id);
      assert.notEqual(other.venue_id, first.venue_id);
      const row = await t.database.db
        .selectFrom('venues')
        .selectAll()
        .where('id', '=', first.venue_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.name, row.organizer_id, row.is_online], ['Blue Note Club', org.id, false]);
      // Another organizer's venue of the same name is not reused.
      const foreign = await expect201({ ...eventBody(t, { venue: { name: 'Blue Note Club' } }) });
      assert.equal(foreign.venue_id, first.venue_id);
      const b = await t.api(orgB.key, 'POST', '/v1/events', eventBody(t, { venue: { name: 'Blue Note Club' } }));
      assert.equal(b.statusCode, 201);
      assert.notEqual(b.json().venue_id, first.venue_id);
    });

    test('{id} reuses an existing venue of the organizer; an unknown or foreign id is a 400', async () => {
      const first = await expect201(eventBody(t, { venue: { name: 'Venue By Id' } }));
      const byId = await expect201(eventBody(t, { venue: { id: first.venue_id } }));
      assert.equal(byId.venue_id, first.venue_id);
      await expect400(
        eventBody(t, { venue: { id: '00000000-0000-4000-8000-000000000000' } }),
        '`venue.id` 00000000-0000-4000-8000-000000000000 is not a venue of this organizer.',
        'parameter_invalid',
        'venue.id',
      );
      const foreign = await t.api(orgB.key, 'POST', '/v1/events', eventBody(t, { venue: { id: first.venue_id } }));
      assert.equal(foreign.statusCode, 400);
      assert.deepEqual(
        foreign.json(),
        problemOf(
          400,
          `\`venue.id\` ${first.venue_id} is not a venue of this organizer.`,
          'parameter_invalid',
          'venue.id',
        ),
      );
    });

    test('"online" is the one shared Online venue of the organizer', async () => {
      const a = await expect201(eventBody(t, { venue: 'online' }));
      const b = await expect201(eventBody(t, { venue: 'online' }));
      assert.equal(a.venue_id, b.venue_id);
      const rows = await t.database.db
        .selectFrom('venues')
        .selectAll()
        .where('organizer_id', '=', org.id)
        .where('is_online', '=', true)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.name, 'Online');
      assert.equal(rows[0]!.id, a.venue_id);
      // A venue *named* Online is an ordinary named venue, not the shared one.
      const named = await expect201(eventBody(t, { venue: { name: 'Online' } }));
      assert.notEqual(named.venue_id, a.venue_id);
    });
  });

  describe('category', () => {
    test('absent or null means General; a name is found case-insensitively, else created', async () => {
      const none = await expect201(eventBody(t));
      const nul = await expect201(eventBody(t, { category_name: null }));
      const general = await expect201(eventBody(t, { category_name: 'general' }));
      assert.equal(nul.category_id, none.category_id);
      assert.equal(general.category_id, none.category_id);
      const row = await t.database.db
        .selectFrom('categories')
        .selectAll()
        .where('id', '=', none.category_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.name, row.organizer_id], ['General', org.id]);
      const jazz = await expect201(eventBody(t, { category_name: 'Jazz' }));
      const jazz2 = await expect201(eventBody(t, { category_name: 'JAZZ' }));
      assert.equal(jazz2.category_id, jazz.category_id);
      assert.notEqual(jazz.category_id, none.category_id);
      await expect400(
        eventBody(t, { category_name: '' }),
        '`category_name` must be at least 1 character.',
        'parameter_invalid',
        'category_name',
      );
      await expect400(
        eventBody(t, { category_name: '  ' }),
        '`category_name` must not be blank.',
        'parameter_invalid',
        'category_name',
      );
    });
  });

  describe('description sanitizing', () => {
    test('scripts, event handlers and javascript: URLs are removed; ordinary formatting is kept', async () => {
      const dirty =
        '<h2 onclick="steal()">Line-up</h2><p style="color:red">Doors at <b>7</b>, <i>show</i> at <em>8</em>, <strong>no</strong> re-entry.' +
        '<script>alert(document.cookie)</script></p><ul><li><a href="https://example.com/a" onmouseover="x()">site</a></li>' +
        '<li><a href="javascript:alert(1)">bad</a></li><li><a href="JaVaScRiPt:alert(1)">bad2</a></li><li><a href="mailto:box@example.com">mail</a></li></ul>' +
        '<ol><li>one</li></ol><blockquote>quote</blockquote><br><img src="x" onerror="alert(1)"><iframe src="https://evil.example"></iframe>' +
        '<h1>H1</h1><h3>H3</h3><h4>H4</h4>';
      const event = await expect201(eventBody(t, { description: dirty }));
      assert.equal(
        event.description,
        '<h2>Line-up</h2><p>Doors at <b>7</b>, <i>show</i> at <em>8</em>, <strong>no</strong> re-entry.</p>' +
          '<ul><li><a href="https://example.com/a">site</a></li><li><a>bad</a></li><li><a>bad2</a></li><li><a href="mailto:box@example.com">mail</a></li></ul>' +
          '<ol><li>one</li></ol><blockquote>quote</blockquote><br /><h1>H1</h1><h3>H3</h3><h4>H4</h4>',
      );
      assert.equal(event.translations[0].description, event.description);
      const row = await t.database.db
        .selectFrom('events')
        .select('translations')
        .where('id', '=', event.id)
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row.translations).includes('<script'));
      assert.ok(!JSON.stringify(row.translations).includes('javascript:'));
    });

    test('a description that is only unsafe markup, empty or null is stored as null', async () => {
      assert.equal((await expect201(eventBody(t, { description: '<script>alert(1)</script>' }))).description, null);
      assert.equal((await expect201(eventBody(t, { description: '' }))).description, null);
      assert.equal((await expect201(eventBody(t, { description: null }))).description, null);
    });
  });

  describe('what is created', () => {
    test('the 201 body is exactly what GET /v1/events/{id} returns next, field by field', async () => {
      const body = eventBody(t, {
        title: 'Summer Jazz Night',
        description: '<p>An <b>evening</b> of jazz.</p>',
        venue: { name: 'Harbour Stage' },
        category_name: 'Concerts',
        timezone: 'Europe/Paris',
        performances: [
          { starts_at: '2026-08-02T18:00:00.000Z', capacity: 300, title: 'Second night' },
          { starts_at: '2026-08-01T18:00:00.000Z', ends_at: '2026-08-01T22:30:00.000Z', capacity: 200 },
        ],
        ticket_types: [
          { name: 'Standing', price_minor: 3500, quantity: null },
          { name: 'Reduced', description: 'Students and seniors', price_minor: 2000, quantity: 50 },
          { name: 'Guest list', price_minor: 0 },
        ],
      });
      const res = await post(body);
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const created = res.json();
      const got = await t.api(org.key, 'GET', `/v1/events/${created.id}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), created);

      const perfs = await t.database.db
        .selectFrom('performances')
        .selectAll()
        .where('event_id', '=', created.id)
        .orderBy('starts_at')
        .execute();
      assert.equal(perfs.length, 2);
      const [first, second] = perfs as [(typeof perfs)[0], (typeof perfs)[0]];
      assert.equal(first.ends_at.toISOString(), '2026-08-01T22:30:00.000Z');
      assert.equal(second.ends_at.toISOString(), '2026-08-02T21:00:00.000Z', 'ends_at defaults to starts_at + 3 h');
      assert.deepEqual([first.title, second.title], [null, 'Second night']);
      assert.deepEqual([first.status, second.status], ['published', 'published']);
      assert.deepEqual([first.organizer_id, first.capacity, second.capacity], [org.id, 200, 300]);

      const now = t.clock.now().toISOString();
      assert.deepEqual(created, {
        id: created.id,
        object: 'event',
        title: 'Summer Jazz Night',
        description: '<p>An <b>evening</b> of jazz.</p>',
        admission_type: 'general_admission',
        image_url: null,
        contact_email: null,
        timezone: 'Europe/Paris',
        venue_id: created.venue_id,
        category_id: created.category_id,
        is_archived: false,
        translations: [{ locale: 'en', title: 'Summer Jazz Night', description: '<p>An <b>evening</b> of jazz.</p>' }],
        created_at: now,
        updated_at: now,
        ticket_types: [
          ['Standing', null, 0, 3500, null],
          ['Reduced', 'Students and seniors', 1, 2000, 50],
          ['Guest list', null, 2, 0, null],
        ].map(([name, description, sort_order, price_minor, limited_quantity], i) => ({
          id: created.ticket_types[i].id,
          object: 'ticket_type',
          name,
          description,
          sort_order,
          translations: [{ locale: 'en', name, description }],
          updated_at: now,
          // One price per performance, in schedule order.
          prices: [first, second].map((p) => ({
            performance_id: p.id,
            seat_category_key: 'general',
            price_minor,
            limited_quantity,
            is_active: true,
          })),
        })),
      });
      const venue = await t.database.db
        .selectFrom('venues')
        .select('name')
        .where('id', '=', created.venue_id)
        .executeTakeFirstOrThrow();
      assert.equal(venue.name, 'Harbour Stage');
      const prices = await t.database.db
        .selectFrom('prices')
        .selectAll()
        .where('performance_id', 'in', [first.id, second.id])
        .execute();
      assert.equal(prices.length, 6);
      assert.ok(prices.every((p) => p.organizer_id === org.id && p.sold_count === 0));
    });

    test('past dates are allowed', async () => {
      const event = await expect201(
        eventBody(t, { performances: [{ starts_at: '2001-01-01T20:00:00Z', capacity: 10 }] }),
      );
      const perf = await t.api(org.key, 'GET', `/v1/performances/${performanceIdsOf(event)[0]}`);
      assert.equal(perf.json().starts_at, '2001-01-01T20:00:00.000Z');
      assert.equal(perf.json().ends_at, '2001-01-01T23:00:00.000Z');
    });

    test('a published create writes one event.published per performance, in the same transaction', async () => {
      const event = await expect201(
        eventBody(t, {
          performances: [
            { starts_at: '2026-09-01T18:00:00Z', capacity: 5 },
            { starts_at: '2026-09-02T18:00:00Z', capacity: 5 },
            { starts_at: '2026-09-03T18:00:00Z', capacity: 5 },
          ],
        }),
      );
      const rows = await t.database.db
        .selectFrom('domain_events')
        .selectAll()
        .where((eb) => eb(eb.ref('data', '->>').key('event_id' as never), '=', event.id))
        .execute();
      assert.equal(rows.length, 3);
      assert.deepEqual(
        rows
          .map((r) => ({ organizer_id: r.organizer_id, type: r.type, data: r.data }))
          .sort((a, b) => String(a.data.performance_id).localeCompare(String(b.data.performance_id))),
        performanceIdsOf(event)
          .sort()
          .map((performance_id) => ({
            organizer_id: org.id,
            type: 'event.published',
            data: { event_id: event.id, performance_id },
          })),
      );
      assert.ok(rows.every((r) => r.created_at.toISOString() === t.clock.now().toISOString()));
    });

    test('publish: false creates a draft: event and performances draft, nothing published', async () => {
      const event = await expect201(
        eventBody(t, {
          publish: false,
          performances: [
            { starts_at: '2026-09-01T18:00:00Z', capacity: 5 },
            { starts_at: '2026-09-02T18:00:00Z', capacity: 5 },
          ],
        }),
      );
      const row = await t.database.db
        .selectFrom('events')
        .selectAll()
        .where('id', '=', event.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.status, row.published_at], ['draft', null]);
      for (const id of performanceIdsOf(event)) {
        assert.equal((await t.api(org.key, 'GET', `/v1/performances/${id}`)).json().status, 'draft');
      }
      const events = await t.database.db
        .selectFrom('domain_events')
        .select('id')
        .where((eb) => eb(eb.ref('data', '->>').key('event_id' as never), '=', event.id))
        .execute();
      assert.equal(events.length, 0);
    });

    test('a failed create leaves nothing behind (no event, performances or outbox rows)', async () => {
      const before = await t.database.db
        .selectFrom('domain_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      await expect400(
        eventBody(t, {
          venue: { name: 'Leftover Hall' },
          performances: [{ starts_at: '2026-07-01T19:00:00Z', ends_at: '2026-07-01T18:00:00Z', capacity: 1 }],
        }),
        '`performances.0.ends_at` must not be before its `starts_at`.',
        'parameter_invalid',
        'performances.0.ends_at',
      );
      const venues = await t.database.db
        .selectFrom('venues')
        .select('id')
        .where('name', '=', 'Leftover Hall')
        .execute();
      assert.equal(venues.length, 0);
      const after = await t.database.db
        .selectFrom('domain_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });
  });

  describe('duplicate titles', () => {
    test('a duplicate title in the organizer answers 409, case-insensitively; another organizer may use it', async () => {
      await expect201(eventBody(t, { title: 'Gala Evening' }));
      const dup = await post(eventBody(t, { title: 'Gala Evening' }));
      assert.equal(dup.statusCode, 409);
      assert.deepEqual(dup.json(), problemOf(409, 'An event titled "Gala Evening" already exists.', 'resource_exists'));
      const upper = await post(eventBody(t, { title: 'GALA EVENING' }));
      assert.deepEqual(
        upper.json(),
        problemOf(409, 'An event titled "GALA EVENING" already exists.', 'resource_exists'),
      );
      const other = await t.api(orgB.key, 'POST', '/v1/events', eventBody(t, { title: 'Gala Evening' }));
      assert.equal(other.statusCode, 201);
      const rows = await t.database.db
        .selectFrom('events')
        .select('id')
        .where('organizer_id', '=', org.id)
        .where('title', '=', 'Gala Evening')
        .execute();
      assert.equal(rows.length, 1);
    });

    test(`concurrent creates of one title: exactly one 201, the rest 409 (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
      for (let round = 0; round < 3; round++) {
        const title = `Race ${round}`;
        const results = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            post(
              eventBody(t, {
                title,
                venue: { name: `Race Hall ${round}` },
                category_name: `Race Cat ${round}`,
                ticket_types: [{ name: `T${i}x`, price_minor: 1 }],
              }),
            ),
          ),
        );
        assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
        for (const r of results.filter((r) => r.statusCode === 409))
          assert.deepEqual(r.json(), problemOf(409, `An event titled "${title}" already exists.`, 'resource_exists'));
        const rows = await t.database.db
          .selectFrom('events')
          .select('id')
          .where('organizer_id', '=', org.id)
          .where('title', '=', title)
          .execute();
        assert.equal(rows.length, 1);
      }
    });

    test('concurrent creates naming one new venue, category and "online" share one row each', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          post(eventBody(t, { venue: { name: 'Concurrent Hall' }, category_name: 'Concurrent Cat' })),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.statusCode),
        [201, 201, 201, 201],
      );
      assert.equal(new Set(results.map((r) => r.json().venue_id)).size, 1);
      assert.equal(new Set(results.map((r) => r.json().category_id)).size, 1);
      const orgC = await t.createOrganizer();
      const online = await Promise.all(
        Array.from({ length: 4 }, () => t.api(orgC.key, 'POST', '/v1/events', eventBody(t, { venue: 'online' }))),
      );
      assert.deepEqual(
        online.map((r) => r.statusCode),
        [201, 201, 201, 201],
      );
      assert.equal(new Set(online.map((r) => r.json().venue_id)).size, 1);
    });
  });

  test('a read-only key cannot create (403)', async () => {
    const res = await t.api(org.readKey, 'POST', '/v1/events', eventBody(t));
    assert.equal(res.statusCode, 403);
  });

  test('the createEvent factory returns the 201 body', async () => {
    const event = await createEvent(t, org.key, { title: 'Factory Made' });
    assert.equal(event.title, 'Factory Made');
    assert.equal(event.ticket_types[0]!.name, 'General');
  });
});
