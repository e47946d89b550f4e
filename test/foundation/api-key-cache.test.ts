/**
 * The in-process API-key lookup cache (docs/architecture.md, Decisions): a key's row is
 * cached by its hash for 2 s; revocation and organizer-settings changes made through this
 * instance apply from the next request; a change this instance did not make (SQL here,
 * another instance in production) applies within 2 s; expiry is checked on every request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashApiKey, LastPresentedKey } from '../../src/domain/auth/api-keys.ts';
import { useOrganizer, useTestApp } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';

describe('API key lookup cache', () => {
  const t = useTestApp();
  const org = useOrganizer(t);

  const newKey = async (body: Record<string, unknown> = { scopes: ['read', 'write'] }) => {
    const res = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, body);
    assert.equal(res.statusCode, 201);
    return res.json<{ id: string; key: string }>();
  };
  const status = async (key: string) => (await t.api(key, 'GET', '/v1/events')).statusCode;
  const revokeInSql = (id: string) =>
    t.database.db.updateTable('api_keys').set({ revoked_at: t.clock.now() }).where('id', '=', id).execute();

  test('a revocation this instance did not make applies within 2 s (cached until then)', async () => {
    const { id, key } = await newKey();
    assert.equal(await status(key), 200);
    await revokeInSql(id);
    assert.equal(await status(key), 200);
    t.clock.advance(1999);
    assert.equal(await status(key), 200);
    t.clock.advance(1);
    assert.equal(await status(key), 401);
    t.clock.advance(5000);
    assert.equal(await status(key), 401, 'the revoked row, cached or not, keeps answering 401');
  });

  test('a revocation through the admin API applies from the next request on, even while cached', async () => {
    const { id, key } = await newKey();
    assert.equal(await status(key), 200);
    assert.equal(await status(key), 200);
    assert.equal((await t.admin('POST', `/admin/v1/api_keys/${id}/revoke`)).statusCode, 200);
    assert.equal(await status(key), 401);
    // Revoking one key leaves the organizer's other cached keys alone.
    assert.equal(await status(org.key), 200);
  });

  test('expiry is checked on every request against the clock, from the cached row', async () => {
    const { key } = await newKey({
      scopes: ['read'],
      expires_at: new Date(t.clock.now().getTime() + 1500).toISOString(),
    });
    assert.equal(await status(key), 200);
    t.clock.advance(1499);
    assert.equal(await status(key), 200, 'cached and not yet expired');
    t.clock.advance(1);
    assert.equal(await status(key), 401, 'expired while its cache entry is still fresh');
  });

  test('an organizer settings PATCH applies to its cached keys from the next request', async () => {
    const key = org.key;
    const create = async () => {
      const res = await t.api(key, 'POST', '/v1/events', eventBody(t));
      assert.equal(res.statusCode, 201);
      return res.json().timezone as string;
    };
    assert.equal(await create(), 'UTC');
    const patched = await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, { timezone: 'Europe/Berlin' });
    assert.equal(patched.statusCode, 200);
    assert.equal(await create(), 'Europe/Berlin');
  });

  test('the cache is keyed by the SHA-256 of the key, never the key; unknown keys are not cached', async () => {
    const { key } = await newKey();
    const cache = t.app.deps.caches.apiKeys;
    assert.equal(await status(key), 200);
    assert.notEqual(cache.get(hashApiKey(key).toString('base64')), undefined);
    assert.equal(cache.get(key), undefined);
    const size = cache.size;
    for (let i = 0; i < 5; i++) assert.equal(await status(`mqk_unknown${i}AAAAAAAAAAAAAAAAAAAAAAAAAAA`), 401);
    assert.equal(cache.size, size);
  });
});

describe("a connection's last presented key", () => {
  test('gives each key its own SHA-256, whichever key came before it', () => {
    const memo = new LastPresentedKey();
    const first = 'mqk_' + 'a'.repeat(32);
    const second = 'mqk_' + 'a'.repeat(31) + 'b';
    const sha256 = (key: string) => hashApiKey(key).toString('base64');
    for (const key of [first, first, second, second, first, 'mqk_short', first])
      assert.equal(memo.cacheKeyOf(key), sha256(key), key);
  });
});
