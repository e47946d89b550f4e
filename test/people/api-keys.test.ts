/**
 * Developer settings (docs/dashboard.md, "Developer settings"): an owner creates, lists
 * and revokes the organizer's API keys on the dashboard API. A key made there works on
 * /v1 as any key does, records who made it, and answers the API's generic 401 from the
 * request after its revocation or expiry. Another organizer's key is out of reach.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';
import { UNTHROTTLED, UUID } from '../helpers/people.ts';

/** What /v1 answers a key it does not accept (docs/errors.md, `unauthorized`). */
const V1_UNAUTHORIZED = problemOf(
  401,
  'A valid API key is required: send it as "Authorization: Bearer <key>".',
  'unauthorized',
);

describe('developer settings', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('an owner creates a key that works on /v1, sees who made it, and revokes it', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner', name: 'Olive Owner' });
    const session = await t.signIn(owner.email, owner.password);
    const created = await t.dash(session, 'POST', '/dashboard/v1/api_keys', {
      name: 'Box office till',
      scopes: ['write', 'read'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json();
    assert.match(key.key, /^mqk_[\w-]{32}$/);
    assert.match(key.id, UUID);
    assert.deepEqual(key, {
      id: key.id,
      object: 'api_key',
      key: key.key,
      scopes: ['read', 'write'],
      expires_at: null,
      // Stamped by the database's clock (the admin API's keys are too), not the test's.
      created_at: key.created_at,
    });
    assert.ok(Math.abs(Date.parse(key.created_at) - Date.now()) < 60_000);
    const firstUse = t.clock.now().toISOString();
    assert.equal((await t.api(key.key, 'GET', '/v1/events')).statusCode, 200);

    const listed = await t.dash(session, 'GET', '/dashboard/v1/api_keys?limit=100');
    assert.equal(listed.statusCode, 200);
    const row = (listed.json().data as { id: string }[]).find((k) => k.id === key.id);
    assert.deepEqual(row, {
      id: key.id,
      object: 'api_key',
      name: 'Box office till',
      key_preview: key.key.slice(0, 10),
      scopes: ['read', 'write'],
      expires_at: null,
      revoked_at: null,
      last_used_at: firstUse,
      created_by: { id: owner.id, name: 'Olive Owner', email: owner.email },
      created_at: key.created_at,
    });
    // The test organizer's keys came from the admin API: no person made them.
    const adminMade = (listed.json().data as { id: string; created_by: unknown }[]).filter((k) => k.id !== key.id);
    assert.equal(adminMade.length, 3);
    assert.ok(adminMade.every((k) => k.created_by === null));
    // The admin list shows the same creator.
    const adminList = await t.admin('GET', `/admin/v1/organizers/${org.id}/api_keys?limit=100`);
    assert.deepEqual(
      (adminList.json().data as { id: string }[]).find((k) => k.id === key.id),
      row,
    );

    // Uses are recorded to the minute (and a key is read again once its 2 s in the lookup
    // cache are over): 59 s later nothing moves, 61 s later it does.
    const lastUsed = async () =>
      (
        (await t.dash(session, 'GET', '/dashboard/v1/api_keys?limit=100')).json().data as {
          id: string;
          last_used_at: string | null;
        }[]
      ).find((k) => k.id === key.id)!.last_used_at;
    t.clock.advance(59_000);
    assert.equal((await t.api(key.key, 'GET', '/v1/events')).statusCode, 200);
    assert.equal(await lastUsed(), firstUse);
    t.clock.advance(2_000);
    assert.equal((await t.api(key.key, 'GET', '/v1/events')).statusCode, 200);
    assert.equal(await lastUsed(), t.clock.now().toISOString());

    t.clock.advance(1000);
    const revoked = await t.dash(session, 'POST', `/dashboard/v1/api_keys/${key.id}/revoke`);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.deepEqual(revoked.json(), { id: key.id, object: 'api_key', revoked_at: t.clock.now().toISOString() });
    const refused = await t.api(key.key, 'GET', '/v1/events');
    assert.deepEqual([refused.statusCode, refused.json()], [401, V1_UNAUTHORIZED]);
  });

  test('a key with an expiry answers 401 from that instant', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const created = await t.dash(session, 'POST', '/dashboard/v1/api_keys', {
      scopes: ['read'],
      expires_at: expiresAt,
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().expires_at, expiresAt);
    assert.equal((await t.api(created.json().key, 'GET', '/v1/events')).statusCode, 200);
    t.clock.advance(60_000);
    const refused = await t.api(created.json().key, 'GET', '/v1/events');
    assert.deepEqual([refused.statusCode, refused.json()], [401, V1_UNAUTHORIZED]);
  });

  test("another organizer's key is not found; a manager may not reach the settings", async () => {
    const other = await t.createOrganizer();
    const otherOwner = await t.createUser({ organizerId: other.id, role: 'owner' });
    const otherSession = await t.signIn(otherOwner.email, otherOwner.password);
    const theirs = await t.dash(otherSession, 'POST', '/dashboard/v1/api_keys', { scopes: ['read'] });
    assert.equal(theirs.statusCode, 201);

    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const reach = await t.dash(session, 'POST', `/dashboard/v1/api_keys/${theirs.json().id}/revoke`);
    assert.deepEqual(
      [reach.statusCode, reach.json()],
      [404, problemOf(404, 'API key not found.', 'resource_not_found')],
    );
    assert.equal((await t.api(theirs.json().key, 'GET', '/v1/events')).statusCode, 200, 'still works');
    const listed = await t.dash(session, 'GET', '/dashboard/v1/api_keys?limit=100');
    assert.ok(!(listed.json().data as { id: string }[]).some((k) => k.id === theirs.json().id));

    const manager = await t.createUser({ organizerId: org.id, role: 'manager' });
    const managed = await t.signIn(manager.email, manager.password);
    const refused = await t.dash(managed, 'POST', '/dashboard/v1/api_keys', { scopes: ['read'] });
    assert.deepEqual(
      [refused.statusCode, refused.json()],
      [
        403,
        problemOf(
          403,
          'Your role (manager) does not include the `api_keys` permission this operation needs. An owner can change your role.',
          'role_forbidden',
          'api_keys',
        ),
      ],
    );
  });

  test('bad input is a 400 naming the field, and creates nothing', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const before = (await t.dash(session, 'GET', '/dashboard/v1/api_keys?limit=100')).json().data.length as number;
    for (const [body, param] of [
      [{ scopes: [] }, 'scopes'],
      [{ scopes: ['admin'] }, 'scopes.0'],
      [{ scopes: ['read'], name: 'x'.repeat(201) }, 'name'],
      [{ scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at'],
    ] as const) {
      const res = await t.dash(session, 'POST', '/dashboard/v1/api_keys', body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().param, param, res.body);
    }
    assert.equal((await t.dash(session, 'GET', '/dashboard/v1/api_keys?limit=100')).json().data.length, before);
  });
});
