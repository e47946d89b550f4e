import type { ErrorCode } from '../../src/errors/codes.ts';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import { problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { createWebhookTestApp } from './helpers.ts';

const URL_OK = 'https://hooks.test.localhost/marquee';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ENDPOINT_KEYS = [
  'created_at',
  'description',
  'disabled_reason',
  'event_types',
  'id',
  'object',
  'secret_preview',
  'status',
  'updated_at',
  'url',
];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('webhook endpoint management', () => {
  let t: TestApp;
  let a: TestOrganizer;
  let b: TestOrganizer;
  before(async () => {
    t = await createWebhookTestApp();
    a = await t.createOrganizer();
    b = await t.createOrganizer();
  });
  after(() => t.close());

  const create = (body: unknown, key = a.key) => t.api(key, 'POST', '/v1/webhook_endpoints', body);
  async function created(body: Record<string, unknown> = {}) {
    const res = await create({ url: URL_OK, event_types: ['order.created'], ...body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  test('create answers 201 with the endpoint and the raw secret, shown only there', async () => {
    const res = await create({
      url: URL_OK,
      description: 'CRM sync',
      event_types: ['order.created', 'ticket.checked_in'],
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.secret, SECRET);
    assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 32);
    assert.equal(body.secret_preview, `whsec_${body.secret.slice(6, 10)}…${body.secret.slice(-5, -1)}`);
    const now = t.clock.now().toISOString();
    assert.deepEqual(body, {
      id: body.id,
      object: 'webhook_endpoint',
      url: URL_OK,
      description: 'CRM sync',
      event_types: ['order.created', 'ticket.checked_in'],
      status: 'enabled',
      disabled_reason: null,
      secret_preview: body.secret_preview,
      secret: body.secret,
      created_at: now,
      updated_at: now,
    });
    const read = await t.api(a.key, 'GET', `/v1/webhook_endpoints/${body.id}`);
    assert.equal(read.statusCode, 200);
    const { secret: _secret, ...withoutSecret } = body;
    assert.deepEqual(read.json(), withoutSecret);
    assert.deepEqual(Object.keys(read.json()).sort(), ENDPOINT_KEYS);
    // Description is optional and defaults to null.
    assert.equal((await created()).description, null);
  });

  test('create rejects bad input with 400 naming the problem, before anything is stored', async () => {
    const before = await t.database.db.selectFrom('webhook_endpoints').select('id').execute();
    const cases: Array<[unknown, string, ErrorCode, string | undefined]> = [
      [{ event_types: ['order.created'] }, 'Missing required field `url` in body.', 'parameter_missing', 'url'],
      [{ url: URL_OK }, 'Missing required field `event_types` in body.', 'parameter_missing', 'event_types'],
      [
        { url: URL_OK, event_types: ['order.created'], secret: 'whsec_x' },
        'Unknown field `secret` in body.',
        'parameter_unknown',
        'secret',
      ],
      [
        { url: URL_OK, event_types: ['order.created'], status: 'enabled' },
        'Unknown field `status` in body.',
        'parameter_unknown',
        'status',
      ],
      [{ url: 42, event_types: ['order.created'] }, '`url` must be of type string.', 'parameter_invalid', 'url'],
      [
        { url: URL_OK, event_types: 'order.created' },
        '`event_types` must be of type array.',
        'parameter_invalid',
        'event_types',
      ],
      [
        { url: URL_OK, event_types: [] },
        '`event_types` must have at least 1 item.',
        'parameter_invalid',
        'event_types',
      ],
      [
        { url: URL_OK, event_types: ['order.shipped'] },
        '`event_types.0` must be one of: order.created, order.paid, order.refunded, ticket.issued, ticket.checked_in, event.published, event.updated.',
        'parameter_invalid',
        'event_types.0',
      ],
      [
        { url: URL_OK, event_types: ['test.ping'] },
        '`event_types.0` must be one of: order.created, order.paid, order.refunded, ticket.issued, ticket.checked_in, event.published, event.updated.',
        'parameter_invalid',
        'event_types.0',
      ],
      [
        { url: URL_OK, event_types: ['order.created', 'order.created'] },
        '`event_types` must NOT have duplicate items (items ## 1 and 0 are identical).',
        'parameter_invalid',
        'event_types',
      ],
      [
        { url: URL_OK, event_types: ['order.created'], description: 'x'.repeat(501) },
        '`description` must be at most 500 characters.',
        'parameter_invalid',
        'description',
      ],
      [
        { url: `https://hooks.test.localhost/${'a'.repeat(2049 - 29)}`, event_types: ['order.created'] },
        '`url` must be at most 2048 characters.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'http://hooks.test.localhost/x', event_types: ['order.created'] },
        'Webhook URL must use https.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'not a url', event_types: ['order.created'] },
        'Webhook URL is not a valid URL.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://user:pass@hooks.test.localhost/x', event_types: ['order.created'] },
        'Webhook URL must not contain a user name or password.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://user@hooks.test.localhost/x', event_types: ['order.created'] },
        'Webhook URL must not contain a user name or password.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://10.0.0.1/x', event_types: ['order.created'] },
        'Webhook URL host 10.0.0.1 is a private address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://169.254.169.254/latest', event_types: ['order.created'] },
        'Webhook URL host 169.254.169.254 is a link-local address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://0xa9fea9fe/latest', event_types: ['order.created'] },
        'Webhook URL host 169.254.169.254 is a link-local address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://[fd00::1]/x', event_types: ['order.created'] },
        'Webhook URL host [fd00::1] is a unique local (private) address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://private.test/x', event_types: ['order.created'] },
        'Webhook URL host private.test resolves to 10.1.2.3, a private address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://metadata.test/x', event_types: ['order.created'] },
        'Webhook URL host metadata.test resolves to 169.254.169.254, a link-local address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://cgnat.test/x', event_types: ['order.created'] },
        'Webhook URL host cgnat.test resolves to 100.64.0.1, a carrier-grade NAT address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://mapped.test/x', event_types: ['order.created'] },
        'Webhook URL host mapped.test resolves to ::ffff:192.168.1.1, an IPv4-mapped IPv6 address embedding a private address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://mixed.test/x', event_types: ['order.created'] },
        'Webhook URL host mixed.test resolves to 192.168.0.10, a private address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        { url: 'https://nowhere.test/x', event_types: ['order.created'] },
        'Webhook URL host could not be resolved.',
        'parameter_invalid',
        'url',
      ],
    ];
    for (const [body, detail, code, param] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(res.json(), problemOf(400, detail, code, param), JSON.stringify(body));
    }
    assert.equal((await t.database.db.selectFrom('webhook_endpoints').select('id').execute()).length, before.length);
  });

  test('a URL of exactly 2048 characters is accepted', async () => {
    const url = `https://hooks.test.localhost/${'a'.repeat(2048 - 29)}`;
    assert.equal(url.length, 2048);
    assert.equal((await created({ url })).url, url);
  });

  test('every subscribable type is accepted at once', async () => {
    const all = [
      'order.created',
      'order.paid',
      'order.refunded',
      'ticket.issued',
      'ticket.checked_in',
      'event.published',
      'event.updated',
    ];
    assert.deepEqual((await created({ event_types: all })).event_types, all);
  });

  test('scopes: creating needs write, reading needs read', async () => {
    const denied = await create({ url: URL_OK, event_types: ['order.created'] }, a.readKey);
    assert.equal(denied.statusCode, 403);
    assert.equal((await t.api(a.writeKey, 'GET', '/v1/webhook_endpoints')).statusCode, 403);
    assert.equal((await t.api(a.readKey, 'GET', '/v1/webhook_endpoints')).statusCode, 200);
  });

  test("list: newest first, paginated, only the organizer's own, never the secret", async () => {
    const c = await t.createOrganizer();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      const res = await create({ url: URL_OK, event_types: ['order.paid'] }, c.key);
      ids.push(res.json().id);
    }
    const first = await t.api(c.key, 'GET', '/v1/webhook_endpoints?limit=2');
    assert.equal(first.statusCode, 200);
    const page1 = first.json();
    assert.equal(page1.object, 'list');
    assert.equal(page1.has_more, true);
    assert.deepEqual(
      page1.data.map((e: { id: string }) => e.id),
      [ids[2], ids[1]],
    );
    assert.deepEqual(Object.keys(page1.data[0]).sort(), ENDPOINT_KEYS);
    const page2 = (await t.api(c.key, 'GET', `/v1/webhook_endpoints?limit=2&starting_after=${ids[1]}`)).json();
    assert.deepEqual(page2, { object: 'list', data: [page2.data[0]], has_more: false });
    assert.equal(page2.data[0].id, ids[0]);
    // Another organizer's id is not a cursor of this list.
    const foreign = await t.api(b.key, 'GET', `/v1/webhook_endpoints?starting_after=${ids[0]}`);
    assert.equal(foreign.statusCode, 400);
    assert.deepEqual(
      foreign.json(),
      problemOf(
        400,
        `starting_after \`${ids[0]}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ),
    );
    assert.equal((await t.api(c.key, 'GET', '/v1/webhook_endpoints?limit=0')).statusCode, 400);
    assert.equal((await t.api(c.key, 'GET', '/v1/webhook_endpoints?limit=101')).statusCode, 400);
  });

  test('PATCH updates each field; description null clears; url is re-vetted', async () => {
    const ep = await created({ description: 'first' });
    t.clock.advance(5000);
    const patch = (body: unknown) => t.api(a.key, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, body);

    const res = await patch({
      url: 'https://localhost/new',
      description: null,
      event_types: ['event.updated', 'event.published'],
    });
    assert.equal(res.statusCode, 200);
    const { secret: _secret, ...shown } = ep;
    assert.deepEqual(res.json(), {
      ...shown,
      url: 'https://localhost/new',
      description: null,
      event_types: ['event.updated', 'event.published'],
      updated_at: t.clock.now().toISOString(),
    });

    const bad = await patch({ url: 'https://private.test/x' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      bad.json(),
      problemOf(
        400,
        'Webhook URL host private.test resolves to 10.1.2.3, a private address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ),
    );
    assert.deepEqual(
      (await patch({ url: 'http://localhost/x' })).json(),
      problemOf(400, 'Webhook URL must use https.', 'parameter_invalid', 'url'),
    );
    assert.equal((await t.api(a.key, 'GET', `/v1/webhook_endpoints/${ep.id}`)).json().url, 'https://localhost/new');

    assert.equal((await patch({ description: 'again' })).json().description, 'again');
  });

  test('PATCH rejects an empty body, unknown keys, auto_disabled and bad event types', async () => {
    const ep = await created();
    const patch = (body: unknown) => t.api(a.key, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, body);
    const cases: Array<[unknown, string, ErrorCode, string | undefined]> = [
      [{}, 'Send at least one of `url`, `description`, `event_types`, `status` to update.', 'empty_update', undefined],
      [{ status: 'auto_disabled' }, '`status` must be one of: enabled, disabled.', 'parameter_invalid', 'status'],
      [{ status: 'paused' }, '`status` must be one of: enabled, disabled.', 'parameter_invalid', 'status'],
      [{ disabled_reason: 'x' }, 'Unknown field `disabled_reason` in body.', 'parameter_unknown', 'disabled_reason'],
      [{ secret: 'whsec_AAAA' }, 'Unknown field `secret` in body.', 'parameter_unknown', 'secret'],
      [{ event_types: [] }, '`event_types` must have at least 1 item.', 'parameter_invalid', 'event_types'],
      [
        { event_types: ['nope'] },
        '`event_types.0` must be one of: order.created, order.paid, order.refunded, ticket.issued, ticket.checked_in, event.published, event.updated.',
        'parameter_invalid',
        'event_types.0',
      ],
      [{ url: null }, '`url` must be of type string.', 'parameter_invalid', 'url'],
    ];
    for (const [body, detail, code, param] of cases) {
      const res = await patch(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(res.json(), problemOf(400, detail, code, param), JSON.stringify(body));
    }
  });

  test('PATCH status toggles; re-enabling an auto-disabled endpoint clears disabled_reason', async () => {
    const ep = await created();
    const patch = (body: unknown) => t.api(a.key, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, body);
    const disabled = (await patch({ status: 'disabled' })).json();
    assert.equal(disabled.status, 'disabled');
    assert.equal(disabled.disabled_reason, null);
    assert.equal((await patch({ status: 'enabled' })).json().status, 'enabled');

    await t.database.db
      .updateTable('webhook_endpoints')
      .set({ status: 'auto_disabled', disabled_reason: 'Endpoint answered 410 Gone on 2026-01-01T00:00:00.000Z.' })
      .where('id', '=', ep.id)
      .execute();
    // A manual disable keeps the service's reason.
    const manual = (await patch({ status: 'disabled' })).json();
    assert.deepEqual(
      [manual.status, manual.disabled_reason],
      ['disabled', 'Endpoint answered 410 Gone on 2026-01-01T00:00:00.000Z.'],
    );
    await t.database.db
      .updateTable('webhook_endpoints')
      .set({ status: 'auto_disabled' })
      .where('id', '=', ep.id)
      .execute();
    const reenabled = (await patch({ status: 'enabled' })).json();
    assert.deepEqual([reenabled.status, reenabled.disabled_reason], ['enabled', null]);
    const row = await t.database.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', ep.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.reenabled_at, t.clock.now());
  });

  test('rotate_secret returns a new raw secret and stores it', async () => {
    const ep = await created();
    t.clock.advance(1000);
    const res = await t.api(a.key, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.match(body.secret, SECRET);
    assert.notEqual(body.secret, ep.secret);
    assert.notEqual(body.secret_preview, ep.secret_preview);
    assert.equal(body.updated_at, t.clock.now().toISOString());
    const row = await t.database.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', ep.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret, body.secret);
    assert.equal((await t.api(a.readKey, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`)).statusCode, 403);
  });

  test('DELETE removes the endpoint and its delivery log, not the domain events', async () => {
    const ep = await created();
    const other = await created();
    const eventId = await emitDomainEvent(t.database.db, {
      organizerId: a.id,
      type: 'order.created',
      data: { order_id: 'x' },
      at: t.clock.now(),
    });
    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('event_id', '=', eventId)
      .execute();
    assert.ok(deliveries.some((d) => d.endpoint_id === ep.id) && deliveries.some((d) => d.endpoint_id === other.id));

    const res = await t.api(a.key, 'DELETE', `/v1/webhook_endpoints/${ep.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { id: ep.id, object: 'webhook_endpoint', deleted: true });
    assert.deepEqual(
      (await t.api(a.key, 'GET', `/v1/webhook_endpoints/${ep.id}`)).json(),
      problemOf(404, 'Webhook endpoint not found.', 'resource_not_found'),
    );
    assert.equal((await t.api(a.key, 'DELETE', `/v1/webhook_endpoints/${ep.id}`)).statusCode, 404);
    const left = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('endpoint_id')
      .where('event_id', '=', eventId)
      .execute();
    assert.ok(left.every((d) => d.endpoint_id !== ep.id));
    assert.ok(left.some((d) => d.endpoint_id === other.id));
    assert.ok(
      await t.database.db.selectFrom('domain_events').select('id').where('id', '=', eventId).executeTakeFirst(),
    );
  });

  test("tenancy: another organizer's ids and malformed ids answer 404 everywhere", async () => {
    const ep = await created();
    const eventId = await emitDomainEvent(t.database.db, {
      organizerId: a.id,
      type: 'order.created',
      data: {},
      at: t.clock.now(),
    });
    const delivery = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', eventId)
      .where('endpoint_id', '=', ep.id)
      .executeTakeFirstOrThrow();
    const notFound = problemOf(404, 'Webhook endpoint not found.', 'resource_not_found');
    for (const id of [ep.id, UNKNOWN_ID, 'not-a-uuid']) {
      assert.deepEqual((await t.api(b.key, 'GET', `/v1/webhook_endpoints/${id}`)).json(), notFound);
      assert.deepEqual(
        (await t.api(b.key, 'PATCH', `/v1/webhook_endpoints/${id}`, { description: 'x' })).json(),
        notFound,
      );
      assert.deepEqual((await t.api(b.key, 'DELETE', `/v1/webhook_endpoints/${id}`)).json(), notFound);
      assert.deepEqual((await t.api(b.key, 'POST', `/v1/webhook_endpoints/${id}/rotate_secret`)).json(), notFound);
      assert.deepEqual((await t.api(b.key, 'GET', `/v1/webhook_endpoints/${id}/deliveries`)).json(), notFound);
    }
    for (const id of [delivery.id, UNKNOWN_ID, 'nope']) {
      const res = await t.api(b.key, 'POST', `/v1/webhook_deliveries/${id}/redeliver`);
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), problemOf(404, 'Webhook delivery not found.', 'resource_not_found'));
    }
    assert.equal((await t.api(b.key, 'GET', '/v1/webhook_endpoints')).json().data.length, 0);
    // Nothing of A's changed.
    const still = (await t.api(a.key, 'GET', `/v1/webhook_endpoints/${ep.id}`)).json();
    assert.equal(still.description, null);
    assert.equal(still.secret_preview, ep.secret_preview);
  });
});

describe('webhook URL vetting without WEBHOOK_ALLOW_LOOPBACK', () => {
  let t: TestApp;
  let a: TestOrganizer;
  before(async () => {
    t = await createWebhookTestApp({ env: { WEBHOOK_ALLOW_LOOPBACK: 'false' } });
    a = await t.createOrganizer();
  });
  after(() => t.close());

  test('loopback targets are rejected at create and at PATCH', async () => {
    const cases: Array<[string, string, ErrorCode, string | undefined]> = [
      [
        'https://hooks.test.localhost/x',
        'Webhook URL host hooks.test.localhost resolves to 127.0.0.1, a loopback address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        'https://127.0.0.1/x',
        'Webhook URL host 127.0.0.1 is a loopback address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        'https://2130706433/x',
        'Webhook URL host 127.0.0.1 is a loopback address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
      [
        'https://[::1]/x',
        'Webhook URL host [::1] is a loopback address; only public addresses are allowed.',
        'parameter_invalid',
        'url',
      ],
    ];
    for (const [url, detail, code, param] of cases) {
      const res = await t.api(a.key, 'POST', '/v1/webhook_endpoints', { url, event_types: ['order.created'] });
      assert.equal(res.statusCode, 400, url);
      assert.deepEqual(res.json(), problemOf(400, detail, code, param));
    }
    assert.equal((await t.database.db.selectFrom('webhook_endpoints').select('id').execute()).length, 0);
  });
});
