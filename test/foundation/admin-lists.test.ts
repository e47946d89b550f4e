/**
 * The admin lists of organizers and of an organizer's API keys (docs/operations.md,
 * "Admin lists"): newest first, paginated like every list, revoked keys included, and
 * never a key or its hash; a lost key is replaced by revoking it and creating another.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useTestApp } from '../helpers/app.ts';

describe('admin lists', () => {
  const t = useTestApp();

  test('GET /admin/v1/organizers: newest first, paginated by starting_after', async () => {
    const names = ['First', 'Second', 'Third'];
    const created = [];
    for (const name of names) {
      const res = await t.admin('POST', '/admin/v1/organizers', { name });
      assert.equal(res.statusCode, 201);
      created.push(res.json());
      // Distinct created_at values keep the expected order independent of the id tie-break.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const first = await t.admin('GET', '/admin/v1/organizers?limit=2');
    assert.equal(first.statusCode, 200);
    const page1 = first.json();
    assert.deepEqual(
      page1.data.map((o: { name: string }) => o.name),
      ['Third', 'Second'],
    );
    assert.equal(page1.has_more, true);
    assert.deepEqual(page1.data[0], {
      ...created[2],
      box_office_fee_minor: 0,
      tax_rate_bps: 0,
      updated_at: page1.data[0].updated_at,
    });
    const rest = await t.admin('GET', `/admin/v1/organizers?limit=2&starting_after=${page1.data[1].id}`);
    assert.deepEqual(
      rest.json().data.map((o: { name: string }) => o.name),
      ['First'],
    );
    assert.equal(rest.json().has_more, false);

    const unknownCursor = '00000000-0000-4000-8000-000000000000';
    const bad = await t.admin('GET', `/admin/v1/organizers?starting_after=${unknownCursor}`);
    assert.deepEqual(
      [bad.statusCode, bad.json()],
      [
        400,
        problemOf(
          400,
          `starting_after \`${unknownCursor}\` is not the id of an item in this list.`,
          'invalid_cursor',
          'starting_after',
        ),
      ],
    );
    const anonymous = await t.inject({ method: 'GET', url: '/admin/v1/organizers' });
    assert.equal(anonymous.statusCode, 401);
  });

  test('GET /admin/v1/organizers/{id}/api_keys: every key, revoked ones too, never the key; a lost key is replaced', async () => {
    const org = (await t.admin('POST', '/admin/v1/organizers', { name: 'Keys' })).json();
    const make = async (body: unknown) =>
      (await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, body)).json();
    const lost = await make({ name: 'till 1', scopes: ['read', 'write'] });
    const reader = await make({ scopes: ['read'], expires_at: '2030-01-01T00:00:00Z' });

    const listed = await t.admin('GET', `/admin/v1/organizers/${org.id}/api_keys`);
    assert.equal(listed.statusCode, 200);
    for (const secret of [lost.key, reader.key])
      assert.equal(listed.body.includes(secret), false, 'no key in the list');
    assert.deepEqual(listed.json(), {
      object: 'list',
      has_more: false,
      data: [
        {
          id: reader.id,
          object: 'api_key',
          name: null,
          key_preview: reader.key.slice(0, 10),
          scopes: ['read'],
          expires_at: '2030-01-01T00:00:00.000Z',
          revoked_at: null,
          last_used_at: null,
          created_by: null,
          created_at: reader.created_at,
        },
        {
          id: lost.id,
          object: 'api_key',
          name: 'till 1',
          key_preview: lost.key.slice(0, 10),
          scopes: ['read', 'write'],
          expires_at: null,
          revoked_at: null,
          last_used_at: null,
          created_by: null,
          created_at: lost.created_at,
        },
      ],
    });

    // The recipe: find the lost key by its name or preview, revoke it, create a new one.
    assert.equal((await t.admin('POST', `/admin/v1/api_keys/${lost.id}/revoke`)).statusCode, 200);
    const replacement = await make({ name: 'till 1', scopes: ['read', 'write'] });
    assert.equal((await t.api(lost.key, 'GET', '/v1/events')).statusCode, 401);
    assert.equal((await t.api(replacement.key, 'GET', '/v1/events')).statusCode, 200);
    const after = (await t.admin('GET', `/admin/v1/organizers/${org.id}/api_keys?limit=2`)).json();
    assert.deepEqual(
      after.data.map((k: { id: string }) => k.id),
      [replacement.id, reader.id],
    );
    assert.equal(after.has_more, true);
    const last = (await t.admin('GET', `/admin/v1/organizers/${org.id}/api_keys?starting_after=${reader.id}`)).json();
    assert.equal(last.data.length, 1);
    assert.equal(last.data[0].id, lost.id);
    assert.match(last.data[0].revoked_at, /^\d{4}-\d\d-\d\dT/);

    const unknown = await t.admin('GET', '/admin/v1/organizers/00000000-0000-4000-8000-000000000000/api_keys');
    assert.deepEqual(
      [unknown.statusCode, unknown.json()],
      [404, problemOf(404, 'Organizer not found.', 'resource_not_found')],
    );
    // Another organizer's key is no cursor of this list.
    const other = await t.createOrganizer();
    const otherKeys = (await t.admin('GET', `/admin/v1/organizers/${other.id}/api_keys`)).json();
    const foreign = await t.admin(
      'GET',
      `/admin/v1/organizers/${org.id}/api_keys?starting_after=${otherKeys.data[0].id}`,
    );
    assert.equal(foreign.statusCode, 400);
  });
});
