/**
 * Hostile but well-formed input reaches the route handlers and must get a 400 or 404
 * problem naming what was wrong, leave nothing behind, and never a 5xx: foreign id forms,
 * NUL and unpaired surrogates, invalid UTF-8, leap seconds and out-of-range instants, and
 * bodies nested deeper than any schema needs (docs/validation.md).
 */
import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp, problemOf, type TestApp } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { orderBody, setupSale, type Sale } from '../helpers/orders.ts';
import { rowCounts } from '../helpers/row-counts.ts';

const UUID_RULE = 'must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits).';
const TIME_RULE =
  'must be an RFC 3339 date-time with a time zone, such as 2030-06-30T19:30:00Z, from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (seconds 00 to 59).';
const NUL_RULE = 'must not contain the NUL character (U+0000).';
const SURROGATE_RULE = 'must be valid Unicode (it contains an unpaired surrogate).';

let t: TestApp;
let sale: Sale;

before(async () => {
  t = await createTestApp();
  sale = await setupSale(t);
});
after(() => t.close());

/** Sends a raw JSON text (so escapes such as \u0000 and \ud800 reach the parser as written). */
function sendRaw(
  method: 'POST' | 'PATCH',
  url: string,
  text: string | Buffer,
  headers: Record<string, string> = {},
  key = sale.org.key,
) {
  return t.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    payload: text,
  });
}

/** Asserts a 400/404 problem with this detail and an unchanged database. */
async function expectRefused(
  send: () => Promise<{ statusCode: number; headers: Record<string, unknown>; json(): unknown }>,
  status: number,
  detail: string,
  code: ErrorCode,
  param?: string,
) {
  const before = await rowCounts(t.database.db);
  const res = await send();
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.ok(res.headers['x-request-id']);
  assert.deepEqual(res.json(), problemOf(status, detail, code, param));
  assert.deepEqual(await rowCounts(t.database.db), before);
}

/** A JSON text with `marker` replaced by a raw JSON escape sequence. */
function withEscape(body: unknown, marker: string, escape: string): string {
  const text = JSON.stringify(body);
  assert.ok(text.includes(marker), `marker ${marker} not in body`);
  return text.replace(marker, escape);
}

describe('ids', () => {
  test('a urn:uuid or braced id in a path answers 404, in a query or body 400 naming the field', async () => {
    const urn = `urn:uuid:${sale.event.id}`;
    await expectRefused(
      () => t.api(sale.org.key, 'GET', `/v1/events/${urn}`),
      404,
      'Event not found.',
      'resource_not_found',
    );
    await expectRefused(
      () => t.api(sale.org.key, 'GET', `/v1/events/{${sale.event.id}}`),
      404,
      'Event not found.',
      'resource_not_found',
    );
    await expectRefused(
      () => t.api(sale.org.key, 'GET', `/v1/events?starting_after=${urn}`),
      400,
      `\`starting_after\` ${UUID_RULE}`,
      'parameter_invalid',
      'starting_after',
    );
    await expectRefused(
      () => t.api(sale.org.key, 'GET', `/v1/tickets?order_id=${urn}`),
      400,
      `\`order_id\` ${UUID_RULE}`,
      'parameter_invalid',
      'order_id',
    );
    await expectRefused(
      () => t.api(sale.org.key, 'POST', '/v1/events', eventBody(t, { venue: { id: `urn:uuid:${randomUUID()}` } })),
      400,
      `\`venue.id\` ${UUID_RULE}`,
      'parameter_invalid',
      'venue.id',
    );
    const item = { performance_id: urn, ticket_type_id: sale.ticketTypeId, quantity: 1 };
    await expectRefused(
      () => t.api(sale.org.key, 'POST', '/v1/orders', orderBody(sale, { items: [item] })),
      400,
      `\`items.0.performance_id\` ${UUID_RULE}`,
      'parameter_invalid',
      'items.0.performance_id',
    );
  });

  test('a path the router cannot decode or an over-long path segment answers a 404 problem with a request id', async () => {
    // Found by the fuzzer: Fastify answered these itself, in its own JSON and without x-request-id.
    for (const path of ['/v1/orders/%ED%A0%80', '/admin/v1/orders/%FF/refund', '/v1/events/%']) {
      const res = await t.api(sale.org.key, 'GET', path);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.headers['x-request-id']);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.deepEqual(res.json(), problemOf(404, 'Unknown API endpoint.', 'unknown_endpoint'));
    }
    await expectRefused(
      () => t.api(sale.org.key, 'POST', `/v1/tickets/${'x'.repeat(5000)}/check_in`),
      404,
      'Unknown API endpoint.',
      'unknown_endpoint',
    );
  });

  test('uppercase ids are the same ids everywhere: body, path and cursor', async () => {
    const item = {
      performance_id: sale.performanceId.toUpperCase(),
      ticket_type_id: sale.ticketTypeId.toUpperCase(),
      quantity: 1,
    };
    const created = await t.api(sale.org.key, 'POST', '/v1/orders', orderBody(sale, { items: [item] }));
    assert.equal(created.statusCode, 201, created.body);
    const order = created.json<{ id: string }>();
    const byUpper = await t.api(sale.org.key, 'GET', `/v1/orders/${order.id.toUpperCase()}`);
    assert.equal(byUpper.statusCode, 200);
    assert.equal(byUpper.body, (await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}`)).body);
    const page = await t.api(sale.org.key, 'GET', `/v1/events?limit=1&starting_after=${sale.event.id.toUpperCase()}`);
    assert.equal(page.statusCode, 200);
  });
});

describe('text that cannot be stored', () => {
  const marker = 'MARKER';
  const bodies: Array<[string, string, 'POST' | 'PATCH', () => unknown]> = [
    ['title', '/v1/events', 'POST', () => eventBody(t, { title: `Gala ${marker}` })],
    ['description', '/v1/events', 'POST', () => eventBody(t, { description: `<p>${marker}</p>` })],
    ['venue.name', '/v1/events', 'POST', () => eventBody(t, { venue: { name: marker } })],
    ['category_name', '/v1/events', 'POST', () => eventBody(t, { category_name: marker })],
    [
      'ticket_types.0.name',
      '/v1/events',
      'POST',
      () => eventBody(t, { ticket_types: [{ name: marker, price_minor: 0 }] }),
    ],
    [
      'buyer.first_name',
      '/v1/orders',
      'POST',
      () => orderBody(sale, { buyer: { first_name: marker, email: 'a@example.test' } }),
    ],
    [
      'registration_answers.0.value',
      '/v1/orders',
      'POST',
      () => orderBody(sale, { registration_answers: [{ field_key: 'diet', value: marker }] }),
    ],
    [
      'url',
      '/v1/webhook_endpoints',
      'POST',
      () => ({ url: `https://example.test/${marker}`, event_types: ['order.created'] }),
    ],
    [
      'description',
      '/v1/webhook_endpoints',
      'POST',
      () => ({ url: 'https://example.test/h', description: marker, event_types: ['order.created'] }),
    ],
    ['contact_email', `/v1/events/{event}`, 'PATCH', () => ({ contact_email: `box${marker}@example.test` })],
  ];
  for (const [field, url, method, body] of bodies) {
    test(`NUL and an unpaired surrogate in ${method} ${url} ${field} answer 400 naming it`, async () => {
      const target = url.replace('{event}', sale.event.id);
      await expectRefused(
        () => sendRaw(method, target, withEscape(body(), marker, 'a\\u0000b')),
        400,
        `\`${field}\` ${NUL_RULE}`,
        'parameter_invalid',
        field,
      );
      await expectRefused(
        () => sendRaw(method, target, withEscape(body(), marker, 'a\\ud800b')),
        400,
        `\`${field}\` ${SURROGATE_RULE}`,
        'parameter_invalid',
        field,
      );
      await expectRefused(
        () => sendRaw(method, target, withEscape(body(), marker, '\\udc00')),
        400,
        `\`${field}\` ${SURROGATE_RULE}`,
        'parameter_invalid',
        field,
      );
    });
  }

  test('an admin body is held to the same rule', async () => {
    await expectRefused(
      () =>
        t.inject({
          method: 'POST',
          url: '/admin/v1/organizers',
          headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' },
          payload: '{"name":"Org\\u0000"}',
        }),
      400,
      `\`name\` ${NUL_RULE}`,
      'parameter_invalid',
      'name',
    );
  });

  test('a NUL in a key, a __proto__ key, invalid UTF-8 bytes and a NUL in a query filter answer 400', async () => {
    await expectRefused(
      () => sendRaw('POST', '/v1/events', '{"ti\\u0000tle":"x"}'),
      400,
      `A key in the request body ${NUL_RULE}`,
      'parameter_unknown',
    );
    await expectRefused(
      () => sendRaw('POST', '/v1/events', '{"venue":{"__proto__":{"name":"x"}}}'),
      400,
      '`venue.__proto__` is not an allowed key.',
      'parameter_unknown',
      'venue.__proto__',
    );
    const invalidUtf8 = Buffer.concat([Buffer.from('{"title":"Gala '), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    await expectRefused(
      () => sendRaw('POST', '/v1/events', invalidUtf8),
      400,
      'Request body is not valid UTF-8.',
      'invalid_json',
    );
    await expectRefused(
      () => t.api(sale.org.key, 'GET', '/v1/orders?email=a%00b'),
      400,
      `Query parameter \`email\` ${NUL_RULE}`,
      'parameter_invalid',
      'email',
    );
  });
});

describe('timestamps', () => {
  const inAWeek = () => new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString();
  test('a leap second answers 400 in every timestamp field', async () => {
    const leap = '2030-06-30T23:59:60Z';
    await expectRefused(
      () =>
        t.api(sale.org.key, 'POST', '/v1/events', eventBody(t, { performances: [{ starts_at: leap, capacity: 5 }] })),
      400,
      `\`performances.0.starts_at\` ${TIME_RULE}`,
      'parameter_invalid',
      'performances.0.starts_at',
    );
    await expectRefused(
      () =>
        t.api(
          sale.org.key,
          'POST',
          '/v1/events',
          eventBody(t, { performances: [{ starts_at: inAWeek(), ends_at: leap, capacity: 5 }] }),
        ),
      400,
      `\`performances.0.ends_at\` ${TIME_RULE}`,
      'parameter_invalid',
      'performances.0.ends_at',
    );
    await expectRefused(
      () => t.admin('POST', `/admin/v1/organizers/${sale.org.id}/api_keys`, { scopes: ['read'], expires_at: leap }),
      400,
      `\`expires_at\` ${TIME_RULE}`,
      'parameter_invalid',
      'expires_at',
    );
    await expectRefused(
      () =>
        t.admin('POST', `/admin/v1/performances/${sale.performanceId}/holds`, {
          kind: 'cart',
          quantity: 1,
          expires_at: leap,
        }),
      400,
      `\`expires_at\` ${TIME_RULE}`,
      'parameter_invalid',
      'expires_at',
    );
  });

  test('instants outside 1970..9999, counting the default end, answer 400 on both engines', async () => {
    for (const startsAt of [
      '0000-01-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '1970-01-01T00:30:00+01:00',
      '2030-02-30T10:00:00Z',
      '2030-01-01T24:00:00Z',
    ]) {
      await expectRefused(
        () =>
          t.api(
            sale.org.key,
            'POST',
            '/v1/events',
            eventBody(t, { performances: [{ starts_at: startsAt, capacity: 5 }] }),
          ),
        400,
        `\`performances.0.starts_at\` ${TIME_RULE}`,
        'parameter_invalid',
        'performances.0.starts_at',
      );
    }
    await expectRefused(
      () =>
        t.api(
          sale.org.key,
          'POST',
          '/v1/events',
          eventBody(t, { performances: [{ starts_at: '9999-12-31T23:00:00Z', capacity: 5 }] }),
        ),
      400,
      '`performances.0.ends_at` (`starts_at` plus 3 hours when absent) must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z.',
      'parameter_invalid',
      'performances.0.ends_at',
    );
  });

  test('the edges of the range are stored exactly', async () => {
    const created = await t.api(
      sale.org.key,
      'POST',
      '/v1/events',
      eventBody(t, {
        performances: [
          { starts_at: '9999-12-31T20:59:59.999Z', capacity: 5 },
          { starts_at: '1970-01-01T00:00:00Z', ends_at: '1970-01-01T00:00:00.001+00:00', capacity: 5 },
        ],
      }),
    );
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ id: string }>().id;
    const performances = await t.api(sale.org.key, 'GET', `/v1/events/${id}/performances`);
    assert.equal(performances.statusCode, 200, performances.body);
    const times = performances
      .json<{ data: { starts_at: string; ends_at: string }[] }>()
      .data.map((p) => [p.starts_at, p.ends_at]);
    assert.deepEqual(times, [
      ['1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.001Z'],
      ['9999-12-31T20:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ]);
  });
});

describe('nesting', () => {
  const deep = (levels: number) => `{"title":${'['.repeat(levels)}${']'.repeat(levels)}}`;
  test('a body nested 10,000 levels answers 400 before any work, with and without an Idempotency-Key', async () => {
    const detail = 'Request body is nested too deeply: at most 32 levels of objects and arrays.';
    await expectRefused(() => sendRaw('POST', '/v1/events', deep(10_000)), 400, detail, 'invalid_json');
    await expectRefused(
      () => sendRaw('POST', '/v1/events', deep(10_000), { 'idempotency-key': randomUUID() }),
      400,
      detail,
      'invalid_json',
    );
    await expectRefused(
      () => sendRaw('POST', '/v1/orders', deep(33), { 'idempotency-key': randomUUID() }),
      400,
      detail,
      'invalid_json',
    );
    // Brackets inside strings are text, not nesting.
    const res = await t.api(sale.org.key, 'POST', '/v1/events', eventBody(t, { title: `Brackets ${'['.repeat(100)}` }));
    assert.equal(res.statusCode, 201, res.body);
  });
});
