/**
 * Accepted text comes back code point for code point (docs/validation.md): the 201 body,
 * the next GET and an idempotent replay agree with what was sent, for emoji, combining
 * marks, right-to-left text and 4-byte characters, up to the maximum lengths counted in
 * code points.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { orderBody, setupSale, type Sale } from '../helpers/orders.ts';

let t: TestApp;
let sale: Sale;

before(async () => {
  t = await createTestApp();
  sale = await setupSale(t);
});
after(() => t.close());

const MIXED = 'Gala 🎭 café (e\u0301) مرحبا بالعالم 𝄞 👩‍👩‍👧 ‏עברית‏';

/** `count` code points: the 4-byte 🎭 repeated, so the UTF-16 length is twice the count. */
const astral = (count: number) => '🎭'.repeat(count);

/** POSTs with an Idempotency-Key, then replays: both bodies must be the same bytes. */
async function createAndReplay(url: string, body: unknown) {
  const headers = { 'idempotency-key': randomUUID() };
  const created = await t.api(sale.org.key, 'POST', url, body, headers);
  assert.equal(created.statusCode, 201, created.body);
  const replay = await t.api(sale.org.key, 'POST', url, body, headers);
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(replay.body, created.body);
  return created.json<Record<string, unknown> & { id: string }>();
}

describe('strings round-trip exactly', () => {
  test('event fields at their maximum lengths in code points', async () => {
    const title = astral(512);
    assert.equal(title.length, 1024);
    const body = eventBody(t, {
      title,
      category_name: `${MIXED} ${astral(100 - [...MIXED].length - 1)}`,
      venue: { name: MIXED },
      performances: [{ starts_at: '2031-03-30T19:30:00Z', capacity: 10, title: MIXED }],
      ticket_types: [{ name: astral(64), description: MIXED, price_minor: 100 }],
    });
    const created = await createAndReplay('/v1/events', body);
    assert.equal(created.title, title);
    const ticketType = (created.ticket_types as { name: string; description: string }[])[0]!;
    assert.equal(ticketType.name, astral(64));
    assert.equal(ticketType.description, MIXED);
    const fetched = await t.api(sale.org.key, 'GET', `/v1/events/${created.id}`);
    assert.equal(fetched.statusCode, 200);
    assert.deepEqual(fetched.json(), created);
    const performances = await t.api(sale.org.key, 'GET', `/v1/events/${created.id}/performances`);
    assert.equal(performances.json<{ data: { title: string }[] }>().data[0]!.title, MIXED);
  });

  test('one code point over a maximum is refused', async () => {
    const res = await t.api(sale.org.key, 'POST', '/v1/events', eventBody(t, { title: astral(513) }));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<{ detail: string }>().detail, '`title` must be at most 512 characters.');
    assert.equal(res.json<{ code: string }>().code, 'parameter_invalid');
  });

  test('PATCHed text and order text come back as sent', async () => {
    const patched = await t.api(sale.org.key, 'PATCH', `/v1/events/${sale.event.id}`, { title: MIXED });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<{ title: string }>().title, MIXED);
    const fetched = await t.api(sale.org.key, 'GET', `/v1/events/${sale.event.id}`);
    assert.equal(fetched.body, patched.body);

    const order = await createAndReplay(
      '/v1/orders',
      orderBody(sale, {
        buyer: { first_name: MIXED, last_name: astral(100), email: 'ada@example.test', phone: '+44 𝟘𝟙' },
      }),
    );
    const detail = await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}`);
    assert.equal(detail.statusCode, 200);
    const expected = { first_name: MIXED, last_name: astral(100), email: 'ada@example.test', phone: '+44 𝟘𝟙' };
    assert.deepEqual(order.buyer, expected);
    assert.deepEqual(detail.json<{ buyer: unknown }>().buyer, expected);
  });

  test('a webhook endpoint description', async () => {
    const created = await createAndReplay('/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/hooks',
      description: MIXED,
      event_types: ['order.created'],
    });
    assert.equal(created.description, MIXED);
    const fetched = await t.api(sale.org.key, 'GET', `/v1/webhook_endpoints/${created.id}`);
    assert.equal(fetched.json<{ description: string }>().description, MIXED);
  });
});
