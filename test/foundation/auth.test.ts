import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';

const GENERIC_401 = problemOf(
  401,
  'A valid API key is required: send it as "Authorization: Bearer <key>".',
  'unauthorized',
);

describe('API key authentication and scopes', () => {
  const t = useTestApp();
  const org = useOrganizer(t);

  const assert401 = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="marquee-api"');
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(res.json(), GENERIC_401);
  };

  test('a missing key answers the generic 401', async () => {
    assert401(await t.inject({ method: 'GET', url: '/v1/events' }));
  });

  test('an unknown key, a malformed header and a non-Bearer scheme answer the same 401', async () => {
    assert401(await t.api('mqk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'GET', '/v1/events'));
    assert401(await t.api('not-a-key', 'GET', '/v1/events'));
    assert401(await t.inject({ method: 'GET', url: '/v1/events', headers: { authorization: `Basic ${org.key}` } }));
  });

  test('a key sent as a cookie is never read', async () => {
    assert401(
      await t.inject({
        method: 'GET',
        url: '/v1/events',
        headers: { cookie: `authorization=Bearer ${org.key}; api_key=${org.key}` },
      }),
    );
  });

  test('a revoked key answers the same 401, from the next request on', async () => {
    const created = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes: ['read'] });
    const { id, key } = created.json();
    assert.notEqual((await t.api(key, 'GET', '/v1/nothing-here')).statusCode, 401);
    const revoked = await t.admin('POST', `/admin/v1/api_keys/${id}/revoke`);
    assert.equal(revoked.statusCode, 200);
    assert.equal(revoked.json().object, 'api_key');
    assert401(await t.api(key, 'GET', '/v1/events'));
  });

  test('an expired key answers the same 401 once its expiry passes on the clock', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const created = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, {
      scopes: ['read'],
      expires_at: expiresAt,
    });
    assert.equal(created.statusCode, 201);
    const { key } = created.json();
    assert.equal((await t.api(key, 'GET', '/v1/nothing-here')).statusCode, 404);
    t.clock.advance(60_000);
    assert401(await t.api(key, 'GET', '/v1/events'));
  });

  test('keys carry the mqk_ prefix and at least 128 bits of randomness, and are stored only as a hash', async () => {
    const created = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, {
      scopes: ['read', 'write'],
      name: 'ci',
    });
    const body = created.json();
    assert.match(body.key, /^mqk_[A-Za-z0-9_-]{32}$/);
    assert.equal(Buffer.from(body.key.slice(4), 'base64url').length * 8, 192);
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'expires_at', 'id', 'key', 'object', 'scopes']);
    const row = await t.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.key_hash.length, 32);
    assert.ok(!JSON.stringify(row).includes(body.key.slice(4)), 'the raw key is not stored');
  });

  test('a valid key without the scope answers 403', async () => {
    const readOnlyWrite = await t.api(org.readKey, 'POST', '/v1/events', {});
    assert.equal(readOnlyWrite.statusCode, 403);
    assert.deepEqual(
      readOnlyWrite.json(),
      problemOf(403, 'This API key lacks the `write` scope that POST requests need.', 'forbidden_scope'),
    );
    const writeOnlyRead = await t.api(org.writeKey, 'GET', '/v1/events');
    assert.equal(writeOnlyRead.statusCode, 403);
    assert.deepEqual(
      writeOnlyRead.json(),
      problemOf(403, 'This API key lacks the `read` scope that GET requests need.', 'forbidden_scope'),
    );
  });

  test('admin API: a wrong or missing admin token answers 401', async () => {
    const missing = await t.inject({ method: 'GET', url: `/admin/v1/organizers/${org.id}` });
    assert.equal(missing.statusCode, 401);
    const wrong = await t.inject({
      method: 'GET',
      url: `/admin/v1/organizers/${org.id}`,
      headers: { authorization: `Bearer ${org.key}` },
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.headers['content-type'], 'application/problem+json; charset=utf-8');
  });

  test('admin API: api key scopes are validated', async () => {
    const bad = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes: ['admin'] });
    assert.equal(bad.statusCode, 400);
    const empty = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes: [] });
    assert.deepEqual(
      empty.json(),
      problemOf(400, '`scopes` must have at least 1 item.', 'parameter_invalid', 'scopes'),
    );
    const unknownOrg = await t.admin('POST', `/admin/v1/organizers/00000000-0000-4000-8000-000000000000/api_keys`, {
      scopes: ['read'],
    });
    assert.deepEqual(unknownOrg.json(), problemOf(404, 'Organizer not found.', 'resource_not_found'));
    const unknownKey = await t.admin('POST', `/admin/v1/api_keys/00000000-0000-4000-8000-000000000000/revoke`);
    assert.deepEqual(unknownKey.json(), problemOf(404, 'API key not found.', 'resource_not_found'));
  });
});
