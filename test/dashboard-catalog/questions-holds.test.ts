/**
 * Registration questions and holds on the dashboard (docs/dashboard.md, "Questions" and
 * "Holds"): the admin API's domain functions, scoped to the session's organizer. Exact
 * bodies, availability moved by holds, a taken question key refused with code and param
 * and nothing changed, another organizer's resources not found.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { createEvent, DIET_OPTIONS, performanceIdsOf } from '../helpers/catalog.ts';
import { UNTHROTTLED, UUID } from '../helpers/people.ts';

async function sessionOf(t: TestApp, organizerId: string, role = 'manager'): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role });
  return t.signIn(user.email, user.password);
}

function questionRows(t: TestApp, eventId: string) {
  return t.database.db
    .selectFrom('registration_questions')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('created_at')
    .execute();
}

function holdRows(t: TestApp, performanceId: string) {
  return t.database.db
    .selectFrom('holds')
    .selectAll()
    .where('performance_id', '=', performanceId)
    .orderBy('created_at')
    .execute();
}

describe('questions on the dashboard', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('create and update: the exact question, listed for the sale; a taken key is 409 with param key and changes nothing', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key);
    const created = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/questions`, {
      key: 'diet',
      label: 'Dietary requirements',
      type: 'select',
      options: DIET_OPTIONS,
      per_attendee: true,
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    assert.match(id, UUID);
    const now = t.clock.now().toISOString();
    const expected = {
      id,
      object: 'registration_question',
      event_id: event.id,
      key: 'diet',
      label: 'Dietary requirements',
      type: 'select',
      options: DIET_OPTIONS,
      required: false,
      per_attendee: true,
      created_at: now,
      updated_at: now,
    };
    assert.deepEqual(created.json(), expected);
    const listed = await t.dash(session, 'GET', `/dashboard/v1/events/${event.id}/questions`);
    assert.deepEqual(listed.json(), { object: 'list', data: [expected], has_more: false });

    const before = await questionRows(t, event.id);
    const taken = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/questions`, {
      key: 'diet',
      label: 'Diet again',
      type: 'text',
    });
    assert.deepEqual(
      [taken.statusCode, taken.json()],
      [409, problemOf(409, 'This event already has a question with the key "diet".', 'resource_exists', 'key')],
    );
    // The admin API answers the same.
    const admin = await t.admin('POST', `/admin/v1/events/${event.id}/questions`, {
      key: 'diet',
      label: 'Diet again',
      type: 'text',
    });
    assert.deepEqual([admin.statusCode, admin.json()], [taken.statusCode, taken.json()]);
    assert.deepEqual(await questionRows(t, event.id), before);

    t.clock.advance(1000);
    const patched = await t.dash(session, 'PATCH', `/dashboard/v1/questions/${id}`, {
      label: 'Diet',
      required: true,
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json(), {
      ...expected,
      label: 'Diet',
      required: true,
      updated_at: t.clock.now().toISOString(),
    });
    const empty = await t.dash(session, 'PATCH', `/dashboard/v1/questions/${id}`, {});
    assert.deepEqual(
      [empty.statusCode, empty.json()],
      [400, problemOf(400, 'Send at least one of `label`, `required`, `options`.', 'empty_update')],
    );
    const blank = await t.dash(session, 'PATCH', `/dashboard/v1/questions/${id}`, { label: '  ' });
    assert.deepEqual(
      [blank.statusCode, blank.json()],
      [400, problemOf(400, '`label` must not be blank.', 'parameter_invalid', 'label')],
    );
  });

  test("another organizer's event and question are not found, and stay as they were", async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key);
    const created = await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/questions`, {
      key: 'company',
      label: 'Company',
      type: 'text',
    });
    assert.equal(created.statusCode, 201);
    const before = await questionRows(t, event.id);
    const other = await t.createOrganizer();
    const stranger = await sessionOf(t, other.id, 'owner');
    const foreignCreate = await t.dash(stranger, 'POST', `/dashboard/v1/events/${event.id}/questions`, {
      key: 'mine',
      label: 'Mine',
      type: 'text',
    });
    assert.deepEqual(
      [foreignCreate.statusCode, foreignCreate.json()],
      [404, problemOf(404, 'Event not found.', 'resource_not_found')],
    );
    const foreignPatch = await t.dash(stranger, 'PATCH', `/dashboard/v1/questions/${created.json().id}`, {
      label: 'Hijacked',
    });
    assert.deepEqual(
      [foreignPatch.statusCode, foreignPatch.json()],
      [404, problemOf(404, 'Question not found.', 'resource_not_found')],
    );
    assert.deepEqual(await questionRows(t, event.id), before);
  });
});

describe('holds on the dashboard', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('create an allocation and a cart hold, list them newest first, release one: availability follows', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, {
      performances: [{ starts_at: '2027-04-01T19:00:00Z', capacity: 20 }],
      ticket_types: [{ name: 'General', price_minor: 2500, quantity: 8 }],
    });
    const [performanceId] = performanceIdsOf(event);
    const typeId = event.ticket_types[0]!.id;
    const remaining = async () =>
      (await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/availability`)).json();

    const allocation = await t.dash(session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 5,
    });
    assert.equal(allocation.statusCode, 201, allocation.body);
    const allocatedAt = t.clock.now().toISOString();
    assert.deepEqual(allocation.json(), {
      id: allocation.json().id,
      object: 'hold',
      performance_id: performanceId,
      ticket_type_id: null,
      kind: 'allocation',
      quantity: 5,
      expires_at: null,
      released_at: null,
      created_at: allocatedAt,
    });
    t.clock.advance(1000);
    const cart = await t.dash(session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'cart',
      quantity: 2,
      ticket_type_id: typeId,
    });
    assert.equal(cart.statusCode, 201, cart.body);
    assert.equal(cart.json().expires_at, new Date(t.clock.now().getTime() + 15 * 60_000).toISOString());
    assert.deepEqual(await remaining(), {
      object: 'availability',
      performance_id: performanceId,
      performance_remaining: 13,
      ticket_types: [{ ticket_type_id: typeId, remaining: 6 }],
    });

    const list = await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/holds`);
    assert.deepEqual(list.json(), { object: 'list', data: [cart.json(), allocation.json()], has_more: false });
    const page = await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/holds?limit=1`);
    assert.deepEqual(page.json(), { object: 'list', data: [cart.json()], has_more: true });
    const next = await t.dash(
      session,
      'GET',
      `/dashboard/v1/performances/${performanceId}/holds?limit=1&starting_after=${cart.json().id}`,
    );
    assert.deepEqual(next.json(), { object: 'list', data: [allocation.json()], has_more: false });

    t.clock.advance(1000);
    const released = await t.dash(session, 'DELETE', `/dashboard/v1/holds/${allocation.json().id}`);
    assert.equal(released.statusCode, 200, released.body);
    const releasedAt = t.clock.now().toISOString();
    assert.deepEqual(released.json(), { ...allocation.json(), released_at: releasedAt });
    t.clock.advance(1000);
    const again = await t.dash(session, 'DELETE', `/dashboard/v1/holds/${allocation.json().id}`);
    assert.deepEqual(again.json(), released.json(), 'a second release keeps the first time');
    assert.equal((await remaining()).performance_remaining, 18);

    // The released one leaves the default list; include_released shows every hold.
    const active = await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/holds`);
    assert.deepEqual(active.json().data, [cart.json()]);
    const all = await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/holds?include_released=true`);
    assert.deepEqual(all.json().data, [cart.json(), released.json()]);
    // An expired cart hold holds nothing: it leaves the default list too.
    t.clock.advance(15 * 60_000);
    assert.deepEqual(
      (await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/holds`)).json().data,
      [],
    );
    // The admin API lists the same.
    const admin = await t.admin('GET', `/admin/v1/performances/${performanceId}/holds?include_released=true`);
    assert.deepEqual(admin.json(), all.json());
  });

  test('more than remains is refused and holds nothing; another organizer’s performance and hold are not found', async () => {
    const session = await sessionOf(t, org.id);
    const event = await createEvent(t, org.key, {
      performances: [{ starts_at: '2027-04-02T19:00:00Z', capacity: 3 }],
    });
    const [performanceId] = performanceIdsOf(event);
    const tooMany = await t.dash(session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 4,
    });
    assert.deepEqual(
      [tooMany.statusCode, tooMany.json()],
      [400, problemOf(400, 'Cannot hold 4 seats: 3 remaining for this performance.', 'insufficient_inventory')],
    );
    assert.deepEqual(await holdRows(t, performanceId!), []);
    const hold = await t.dash(session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 1,
    });
    assert.equal(hold.statusCode, 201);
    const before = await holdRows(t, performanceId!);

    const other = await t.createOrganizer();
    const stranger = await sessionOf(t, other.id, 'owner');
    const notFound = problemOf(404, 'Performance not found.', 'resource_not_found');
    const list = await t.dash(stranger, 'GET', `/dashboard/v1/performances/${performanceId}/holds`);
    assert.deepEqual([list.statusCode, list.json()], [404, notFound]);
    const create = await t.dash(stranger, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 1,
    });
    assert.deepEqual([create.statusCode, create.json()], [404, notFound]);
    const release = await t.dash(stranger, 'DELETE', `/dashboard/v1/holds/${hold.json().id}`);
    assert.deepEqual(
      [release.statusCode, release.json()],
      [404, problemOf(404, 'Hold not found.', 'resource_not_found')],
    );
    assert.deepEqual(await holdRows(t, performanceId!), before);
    // A box-office user reads holds but cannot make one.
    const boxOffice = await sessionOf(t, org.id, 'box_office');
    assert.equal((await t.dash(boxOffice, 'GET', `/dashboard/v1/performances/${performanceId}/holds`)).statusCode, 200);
    const refused = await t.dash(boxOffice, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 1,
    });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().param, 'catalog');
  });
});
