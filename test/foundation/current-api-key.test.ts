/**
 * GET /v1/api_key (docs/console.md, "Scopes"): the calling key, its scopes and its
 * organizer, for any valid key whatever its scopes; the usual 401 for a missing, unknown,
 * revoked or expired key. Never the key itself nor its hash.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useOrganizer, useTestApp } from '../helpers/app.ts';

describe('GET /v1/api_key', () => {
  const t = useTestApp();
  const org = useOrganizer(t, { name: 'Lighthouse Jazz Club', currency: 'JPY', timezone: 'Asia/Tokyo' });

  test('each key answers its own scopes and its organizer', async () => {
    const listed = (await t.admin('GET', `/admin/v1/organizers/${org.id}/api_keys?limit=10`)).json().data;
    for (const [key, scopes] of [
      [org.key, ['read', 'write']],
      [org.readKey, ['read']],
      [org.writeKey, ['write']],
    ] as const) {
      const res = await t.api(key, 'GET', '/v1/api_key');
      assert.equal(res.statusCode, 200, res.body);
      const row = listed.find((k: { key_preview: string }) => key.startsWith(k.key_preview));
      assert.deepEqual(res.json(), {
        id: row.id,
        object: 'api_key',
        name: null,
        key_preview: key.slice(0, 10),
        scopes,
        expires_at: null,
        created_at: row.created_at,
        organizer: { id: org.id, name: 'Lighthouse Jazz Club', currency: 'JPY', timezone: 'Asia/Tokyo' },
      });
    }
  });

  test('a revoked or unknown key gets the generic 401', async () => {
    const created = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes: ['read'] });
    const { id, key } = created.json();
    assert.equal((await t.api(key, 'GET', '/v1/api_key')).statusCode, 200);
    assert.equal((await t.admin('POST', `/admin/v1/api_keys/${id}/revoke`)).statusCode, 200);
    for (const refused of [key, 'mqk_unknown0000000000000000000000000000']) {
      const res = await t.api(refused, 'GET', '/v1/api_key');
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="marquee-api"');
      assert.equal(res.json().code, 'unauthorized');
    }
  });
});
