import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createTestApp, problemOf, useTestApp } from '../helpers/app.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROBLEM = 'application/problem+json; charset=utf-8';

describe('conventions every route shares', () => {
  const t = useTestApp();
  let orgId: string;
  before(async () => {
    orgId = (await t.createOrganizer()).id;
  });

  test('every response carries x-request-id, successes and errors alike', async () => {
    const ok = await t.admin('GET', `/admin/v1/organizers/${orgId}`);
    assert.equal(ok.statusCode, 200);
    assert.match(String(ok.headers['x-request-id']), UUID_RE);
    const unauthorized = await t.inject({ method: 'GET', url: '/v1/events' });
    assert.match(String(unauthorized.headers['x-request-id']), UUID_RE);
    const missing = await t.inject({ method: 'GET', url: '/nowhere' });
    assert.match(String(missing.headers['x-request-id']), UUID_RE);
    assert.notEqual(ok.headers['x-request-id'], missing.headers['x-request-id']);
  });

  test('a well-formed incoming x-request-id is kept; a malformed one is replaced', async () => {
    const kept = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-abc.123' } });
    assert.equal(kept.headers['x-request-id'], 'client-abc.123');
    const replaced = await t.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    assert.match(String(replaced.headers['x-request-id']), UUID_RE);
  });

  test('an unknown /v1 path answers 404 Unknown API endpoint.', async () => {
    for (const url of ['/v1/nope', '/v1/events/x/y/z', '/v1']) {
      const res = await t.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.headers['content-type'], PROBLEM);
      assert.deepEqual(res.json(), problemOf(404, 'Unknown API endpoint.', 'unknown_endpoint'));
    }
    const post = await t.inject({ method: 'POST', url: '/v1/nope', payload: {} });
    assert.deepEqual(post.json(), problemOf(404, 'Unknown API endpoint.', 'unknown_endpoint'));
  });

  test('a malformed UUID in a path answers 404 like an unknown one', async () => {
    const malformed = await t.admin('GET', '/admin/v1/organizers/not-a-uuid');
    assert.equal(malformed.statusCode, 404);
    assert.deepEqual(malformed.json(), problemOf(404, 'Organizer not found.', 'resource_not_found'));
    const unknown = await t.admin('GET', '/admin/v1/organizers/6f1c1d2e-3b4a-4c5d-8e6f-708192a3b4c5');
    assert.deepEqual(unknown.json(), problemOf(404, 'Organizer not found.', 'resource_not_found'));
  });

  test('a strict body rejects an unknown key with a 400 naming it', async () => {
    const res = await t.admin('POST', '/admin/v1/organizers', { name: 'X', colour: 'red' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['content-type'], PROBLEM);
    assert.deepEqual(res.json(), problemOf(400, 'Unknown field `colour` in body.', 'parameter_unknown', 'colour'));
  });

  test('validation errors are problems that name the field', async () => {
    assert.deepEqual(
      (await t.admin('POST', '/admin/v1/organizers', {})).json(),
      problemOf(400, 'Missing required field `name` in body.', 'parameter_missing', 'name'),
    );
    assert.deepEqual(
      (await t.admin('POST', '/admin/v1/organizers', { name: 42 })).json(),
      problemOf(400, '`name` must be of type string.', 'parameter_invalid', 'name'),
    );
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/organizers/${orgId}`, { tax_rate_bps: 10001 })).json(),
      problemOf(400, '`tax_rate_bps` must be at most 10000.', 'parameter_invalid', 'tax_rate_bps'),
    );
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/organizers/${orgId}`, { box_office_fee_minor: '5' })).json(),
      problemOf(400, '`box_office_fee_minor` must be of type integer.', 'parameter_invalid', 'box_office_fee_minor'),
    );
    assert.deepEqual(
      (await t.admin('POST', '/admin/v1/organizers', { name: 'X', timezone: 'Mars/Olympus' })).json(),
      problemOf(
        400,
        '`timezone` must be an IANA time zone such as Europe/Berlin, got "Mars/Olympus".',
        'parameter_invalid',
        'timezone',
      ),
    );
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/organizers/${orgId}`, {})).json(),
      problemOf(400, 'Send at least one field to update.', 'empty_update'),
    );
  });

  test('malformed JSON answers 400', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/organizers',
      headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['content-type'], PROBLEM);
    assert.deepEqual(res.json(), problemOf(400, 'Request body is not valid JSON.', 'invalid_json'));
    assert.match(String(res.headers['x-request-id']), UUID_RE);
  });

  test('a body that is too large answers 413', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/organizers',
      headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(
      res.json(),
      problemOf(413, 'Request body is too large: at most 1048576 bytes.', 'payload_too_large'),
    );
  });

  test('a wrong content type answers 415', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/organizers',
      headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    assert.equal(res.statusCode, 415);
    assert.deepEqual(
      res.json(),
      problemOf(415, 'Unsupported content type: send the body as application/json.', 'unsupported_media_type'),
    );
  });

  test('CORS: allow-origin * and exposed headers on responses', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/nope', headers: { origin: 'https://shop.example' } });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(
      res.headers['access-control-expose-headers'],
      'x-request-id, retry-after, idempotent-replayed, ratelimit, ratelimit-policy',
    );
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
  });

  test('CORS preflight allows Authorization, Content-Type and Idempotency-Key without a key', async () => {
    const res = await t.inject({
      method: 'OPTIONS',
      url: '/v1/orders',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type, Idempotency-Key');
    assert.equal(res.headers['access-control-allow-methods'], 'GET, POST, PATCH, DELETE, OPTIONS');
  });

  test('organizer admin: create with defaults, get, patch settings', async () => {
    const created = await t.admin('POST', '/admin/v1/organizers', { name: 'Acme Live' });
    assert.equal(created.statusCode, 201);
    const body = created.json();
    assert.match(body.id, UUID_RE);
    assert.deepEqual(
      { ...body, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        object: 'organizer',
        name: 'Acme Live',
        timezone: 'UTC',
        currency: 'EUR',
        box_office_fee_minor: 0,
        tax_rate_bps: 0,
        contact_email: null,
        sender_email: null,
        default_language: null,
        ticket_paper_size: 'a4',
        currency_locked: false,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const patched = await t.admin('PATCH', `/admin/v1/organizers/${body.id}`, {
      currency: 'USD',
      box_office_fee_minor: 150,
      tax_rate_bps: 1900,
      timezone: 'Europe/Berlin',
    });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().currency, 'USD');
    assert.equal(patched.json().box_office_fee_minor, 150);
    assert.equal(patched.json().tax_rate_bps, 1900);
    assert.equal(patched.json().timezone, 'Europe/Berlin');
    assert.deepEqual((await t.admin('GET', `/admin/v1/organizers/${body.id}`)).json(), patched.json());
    assert.deepEqual(
      (await t.admin('PATCH', `/admin/v1/organizers/${body.id}`, { currency: 'XYZ' })).json(),
      problemOf(400, '`currency` must be an ISO 4217 code such as EUR, got "XYZ".', 'parameter_invalid', 'currency'),
    );
  });

  test('OpenAPI 3.1 document and the reference page are served', async () => {
    const doc = await t.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(doc.statusCode, 200);
    assert.equal(doc.json().openapi, '3.1.0');
    assert.ok(doc.json().paths['/admin/v1/organizers'].post);
    assert.ok(doc.json().paths['/admin/v1/organizers'].get);
    assert.ok(doc.json().paths['/admin/v1/organizers/{id}/api_keys'].get);
    // Relative, so "Try it out" calls whichever host and port served the page.
    assert.deepEqual(doc.json().servers, [{ url: '/', description: 'the server that serves this document' }]);
    const page = await t.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
  });

  test('health and readiness', async () => {
    assert.deepEqual((await t.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    assert.deepEqual((await t.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready' });
  });
});

describe('a server fault', () => {
  test('answers 500 with a problem that quotes the request id and leaks nothing', async () => {
    const t = await createTestApp();
    const org = await t.createOrganizer();
    await t.database.close(); // the database goes away under the running app
    const res = await t.admin('GET', `/admin/v1/organizers/${org.id}`);
    assert.equal(res.statusCode, 500);
    assert.equal(res.headers['content-type'], PROBLEM);
    const requestId = String(res.headers['x-request-id']);
    assert.deepEqual(
      res.json(),
      problemOf(500, `Internal server error. Quote request id ${requestId} to support.`, 'internal_error'),
    );
    assert.ok(!res.body.includes('at '), 'no stack trace');
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), problemOf(503, 'The database is not reachable.', 'database_unavailable'));
    await t.app.close();
  });
});
