/**
 * The cap on webhook endpoints per organizer (docs/webhooks.md, "Fair delivery"):
 * WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZER endpoints at most, a 400 that says what to do
 * beyond it, deleted endpoints not counted, and concurrent creates never past the cap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { problemOf, type TestApp } from '../helpers/app.ts';
import { createWebhookTestApp } from './helpers.ts';

const CAP = 3;
const URL_OK = 'https://hooks.test.localhost/marquee';
const FULL = `An organizer may have at most ${CAP} webhook endpoints; delete one (DELETE /v1/webhook_endpoints/{id}) before creating another.`;

describe('webhook endpoints per organizer', () => {
  let t: TestApp;
  before(async () => {
    t = await createWebhookTestApp({ env: { WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZER: String(CAP) } });
  });
  after(() => t.close());

  const create = (key: string) =>
    t.api(key, 'POST', '/v1/webhook_endpoints', { url: URL_OK, event_types: ['order.created'] });
  const countOf = async (organizerId: string) =>
    Number(
      (
        await t.database.db
          .selectFrom('webhook_endpoints')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('organizer_id', '=', organizerId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('the cap holds per organizer, and a deleted endpoint makes room', async () => {
    const org = await t.createOrganizer();
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const res = await create(org.key);
      assert.equal(res.statusCode, 201, res.body);
      ids.push(res.json<{ id: string }>().id);
    }
    const refused = await create(org.key);
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.deepEqual(refused.json(), problemOf(400, FULL, 'limit_reached'));
    assert.equal(await countOf(org.id), CAP);

    const other = await t.createOrganizer();
    assert.equal((await create(other.key)).statusCode, 201, 'another organizer has its own cap');

    assert.equal((await t.api(org.key, 'DELETE', `/v1/webhook_endpoints/${ids[0]!}`)).statusCode, 200);
    assert.equal((await create(org.key)).statusCode, 201, 'a deleted endpoint no longer counts');
    assert.equal((await create(org.key)).statusCode, 400);
  });

  test('concurrent creates never pass the cap', async () => {
    const org = await t.createOrganizer();
    const results = await Promise.all(Array.from({ length: 12 }, () => create(org.key)));
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [...Array<number>(CAP).fill(201), ...Array<number>(12 - CAP).fill(400)]);
    for (const r of results.filter((r) => r.statusCode === 400))
      assert.deepEqual(r.json(), problemOf(400, FULL, 'limit_reached'));
    assert.equal(await countOf(org.id), CAP);
  });
});
