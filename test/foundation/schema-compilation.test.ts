/**
 * When the routes' validators and serializers are compiled (docs/architecture.md,
 * "Start-up"): at first use by default, as each route is added on request. Built the
 * second way, the app compiles every schema of every route, so a schema that cannot
 * compile fails this file; and both apps, on one database, answer the same requests with
 * the same bytes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createEvent, eventBody } from '../helpers/catalog.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('schema compilation: at first use and as each route is added', () => {
  let database: TestDatabase;
  let firstUse: TestApp;
  let routeAdded: TestApp;
  let key: string;

  before(async () => {
    database = await createTestDatabase();
    firstUse = await createTestApp({ database });
    routeAdded = await createTestApp({ database, appOptions: { compileSchemas: 'route-added' } });
    key = (await firstUse.createOrganizer()).key;
  });
  after(async () => {
    await firstUse?.close();
    await routeAdded?.close();
    await database?.close();
  });

  const answers = async (app: TestApp, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.api(key, method, url, body);
    return { status: res.statusCode, type: res.headers['content-type'], body: res.body };
  };

  test('invalid path parameters, query strings and bodies answer the same problem', async () => {
    // A malformed id is an unknown resource (404); the rest are 400s.
    const requests: Array<[number, 'GET' | 'POST', string, unknown?]> = [
      [404, 'GET', '/v1/events/not-a-uuid'],
      [400, 'GET', '/v1/events?limit=abc'],
      [400, 'GET', '/v1/events?limit=0'],
      [400, 'POST', '/v1/events', {}],
      [400, 'POST', '/v1/events', { ...eventBody(firstUse), title: 5 }],
      [400, 'POST', '/v1/events', { ...eventBody(firstUse), surprise: true }],
    ];
    for (const [status, method, url, body] of requests) {
      // The app that compiles at first use answers first, so each request is its compilation.
      const lazily = await answers(firstUse, method, url, body);
      assert.equal(lazily.status, status, `${method} ${url}`);
      assert.equal(lazily.type, 'application/problem+json; charset=utf-8');
      assert.deepEqual(lazily, await answers(routeAdded, method, url, body), `${method} ${url}`);
    }
  });

  test('a query string is coerced the same way: limit=1 lists one event', async () => {
    await createEvent(firstUse, key);
    await createEvent(firstUse, key);
    const lazily = await answers(firstUse, 'GET', '/v1/events?limit=1');
    assert.equal(lazily.status, 200);
    assert.equal((JSON.parse(lazily.body) as { data: unknown[] }).data.length, 1);
    assert.deepEqual(lazily, await answers(routeAdded, 'GET', '/v1/events?limit=1'));
  });

  test('a response is serialized to the same bytes', async () => {
    const event = await createEvent(routeAdded, key);
    const lazily = await answers(firstUse, 'GET', `/v1/events/${event.id}`);
    assert.equal(lazily.status, 200);
    assert.equal((JSON.parse(lazily.body) as { id: string }).id, event.id);
    assert.deepEqual(lazily, await answers(routeAdded, 'GET', `/v1/events/${event.id}`));
  });
});
