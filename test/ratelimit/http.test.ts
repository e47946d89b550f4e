/**
 * Rate limits over HTTP (docs/rate-limits.md): pre-auth per client IP, read and write
 * per API key, 429 with retry-after: 60 and no work done, draft-10 RateLimit headers.
 * Counters are in-process here; test/ratelimit/redis.test.ts covers the shared store.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import {
  ADMIN_TOKEN,
  DASHBOARD_ORIGIN,
  type Method,
  problemOf,
  type TestApp,
  type TestOrganizer,
  useOrganizer,
  useTestApp,
} from '../helpers/app.ts';
import { createEvent, eventBody } from '../helpers/catalog.ts';

const PROBLEM = 'application/problem+json; charset=utf-8';
const PREAUTH_DETAIL = (n: number) =>
  `Rate limit exceeded: at most ${n} requests per minute from one client IP address. Retry after 60 seconds.`;
const READ_DETAIL = (n: number) =>
  `Rate limit exceeded: at most ${n} read requests (GET) per minute per API key. Retry after 60 seconds.`;
const WRITE_DETAIL = (n: number) =>
  `Rate limit exceeded: at most ${n} write requests (POST, PATCH, DELETE) per minute per API key. Retry after 60 seconds.`;

/** `t` is whole seconds to the end of the window: 60 right after it opened, never above. */
function assertHeaders(res: LightMyRequestResponse, bucket: string, limit: number, remaining: number) {
  assert.equal(res.headers['ratelimit-policy'], `"${bucket}";q=${limit};w=60`);
  const value = String(res.headers['ratelimit']);
  const match = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(value);
  assert.ok(match, `ratelimit header ${value}`);
  assert.equal(match[1], bucket);
  assert.equal(Number(match[2]), remaining);
  assert.ok(Number(match[3]) >= 55 && Number(match[3]) <= 60, `t=${match[3]}`);
}

function assert429(res: LightMyRequestResponse, bucket: string, limit: number, detail: string) {
  assert.equal(res.statusCode, 429);
  assert.equal(res.headers['content-type'], PROBLEM);
  assert.equal(res.headers['retry-after'], '60');
  assert.equal(res.headers['access-control-allow-origin'], '*');
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  assertHeaders(res, bucket, limit, 0);
  assert.deepEqual(JSON.parse(res.body), problemOf(429, detail, 'rate_limited'));
}

/** A request from a given client address (inject's default is 127.0.0.1, shared by setup calls). */
function from(
  t: TestApp,
  ip: string,
  method: Method,
  url: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return t.inject({
    method,
    url,
    remoteAddress: ip,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function countEvents(t: TestApp, organizerId: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organizer_id', '=', organizerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('pre-auth limit per client IP', () => {
  const t = useTestApp({ env: { RATE_LIMIT_PREAUTH_PER_MIN: '4' } });
  let org: TestOrganizer;
  before(async () => {
    org = await t.createOrganizer(); // 4 admin calls from 127.0.0.1; the tests use other addresses
  });

  test('exactly N requests of any kind pass, counting down, then 429 with retry-after: 60', async () => {
    const ip = '203.0.113.1';
    const responses = [
      await from(t, ip, 'GET', '/v1/events', org.key), // valid
      await from(t, ip, 'GET', '/v1/events'), // 401: no key
      await from(t, ip, 'GET', '/v1/no-such-thing'), // unknown path
      await from(t, ip, 'GET', `/admin/v1/organizers/${org.id}`, ADMIN_TOKEN), // admin API
    ];
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [200, 401, 404, 200],
    );
    // Authenticated /v1 responses carry the per-key bucket; the others carry the pre-auth one.
    assertHeaders(responses[0]!, 'read', 1_000_000, 999_999);
    responses.slice(1).forEach((res, i) => assertHeaders(res, 'preauth', 4, 2 - i));

    for (const [method, url, key] of [
      ['GET', '/v1/events', org.key],
      ['POST', '/v1/events', org.key],
      ['GET', '/v1/events', undefined],
      ['GET', '/admin/v1/organizers/' + org.id, ADMIN_TOKEN],
      ['GET', '/docs', undefined],
    ] as const) {
      assert429(
        await from(t, ip, method, url, key, method === 'POST' ? eventBody(t) : undefined),
        'preauth',
        4,
        PREAUTH_DETAIL(4),
      );
    }

    // CORS preflights are answered by the CORS layer before the limiter (documented).
    const preflight = await from(t, ip, 'OPTIONS', '/v1/events', undefined, undefined, {
      origin: 'https://box-office.example',
      'access-control-request-method': 'POST',
    });
    assert.equal(preflight.statusCode, 204);
  });

  test('invalid requests (401s) count too: they exhaust the limit for the valid ones', async () => {
    const ip = '203.0.113.2';
    for (let i = 0; i < 4; i++) {
      const res = await from(t, ip, 'GET', '/v1/events', 'mqk_not-a-real-key');
      assert.equal(res.statusCode, 401);
      assertHeaders(res, 'preauth', 4, 3 - i);
    }
    assert429(await from(t, ip, 'GET', '/v1/events', org.key), 'preauth', 4, PREAUTH_DETAIL(4));
  });

  test('a 429 does no work: a POST that would create an event creates nothing', async () => {
    const ip = '203.0.113.3';
    for (let i = 0; i < 4; i++) assert.equal((await from(t, ip, 'GET', '/v1/nothing')).statusCode, 404);
    const before = await countEvents(t, org.id);
    assert429(await from(t, ip, 'POST', '/v1/events', org.key, eventBody(t)), 'preauth', 4, PREAUTH_DETAIL(4));
    assert.equal(await countEvents(t, org.id), before);
  });

  test('each client IP has its own count', async () => {
    for (let i = 0; i < 4; i++) assert.equal((await from(t, '203.0.113.4', 'GET', '/v1/nothing')).statusCode, 404);
    assert.equal((await from(t, '203.0.113.4', 'GET', '/v1/nothing')).statusCode, 429);
    const other = await from(t, '203.0.113.5', 'GET', '/v1/nothing');
    assert.equal(other.statusCode, 404);
    assertHeaders(other, 'preauth', 4, 3);
  });

  test('without TRUST_PROXY, x-forwarded-for is ignored: a spoofed header does not evade the limit', async () => {
    for (let i = 0; i < 4; i++) {
      await from(t, '203.0.113.6', 'GET', '/v1/nothing', undefined, undefined, {
        'x-forwarded-for': `198.51.100.${i}`,
      });
    }
    const res = await from(t, '203.0.113.6', 'GET', '/v1/nothing', undefined, undefined, {
      'x-forwarded-for': '198.51.100.99',
    });
    assert.equal(res.statusCode, 429);
  });

  test('health probes are neither counted nor limited', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < 10; i++) {
      const healthz = await from(t, ip, 'GET', '/healthz');
      assert.equal(healthz.statusCode, 200);
      assert.equal(healthz.headers['ratelimit'], undefined);
      assert.equal((await from(t, ip, 'GET', '/readyz')).statusCode, 200);
    }
    assertHeaders(await from(t, ip, 'GET', '/v1/nothing'), 'preauth', 4, 3);
  });
});

describe('pre-auth limit behind a proxy (TRUST_PROXY=true)', () => {
  const t = useTestApp({ env: { RATE_LIMIT_PREAUTH_PER_MIN: '2', TRUST_PROXY: 'true' } });

  test('the client IP comes from x-forwarded-for: clients behind one balancer are counted apart', async () => {
    const balancer = '10.0.0.1';
    const xff = (client: string) => ({ 'x-forwarded-for': client });
    for (let i = 0; i < 2; i++)
      assert.equal(
        (await from(t, balancer, 'GET', '/v1/x', undefined, undefined, xff('198.51.100.1'))).statusCode,
        404,
      );
    assert429(
      await from(t, balancer, 'GET', '/v1/x', undefined, undefined, xff('198.51.100.1')),
      'preauth',
      2,
      PREAUTH_DETAIL(2),
    );
    const other = await from(t, balancer, 'GET', '/v1/x', undefined, undefined, xff('198.51.100.2'));
    assert.equal(other.statusCode, 404);
    assertHeaders(other, 'preauth', 2, 1);
  });
});

describe("each response carries one bucket: the caller's where it was counted, else the pre-auth one", () => {
  const t = useTestApp({
    env: { RATE_LIMIT_PREAUTH_PER_MIN: '50', RATE_LIMIT_READ_PER_MIN: '20', RATE_LIMIT_WRITE_PER_MIN: '20' },
  });
  let org: TestOrganizer;
  before(async () => {
    org = await t.createOrganizer();
  });

  test('/v1: an error after the key was counted keeps its bucket; one before it, or outside the keyed routes, the pre-auth one', async () => {
    const ip = '203.0.113.20';
    const missing = '00000000-0000-4000-8000-000000000000';
    const cases: Array<[Method, string, string | undefined, unknown, number, string, number]> = [
      ['GET', '/v1/events', org.readKey, undefined, 200, 'read', 19],
      // The key lacks `write`: refused before its bucket is counted.
      ['POST', '/v1/events', org.readKey, eventBody(t), 403, 'preauth', 48],
      // Counted, then the handler's 404 and the validation's 400: the key's buckets.
      ['GET', `/v1/events/${missing}`, org.readKey, undefined, 404, 'read', 18],
      ['POST', '/v1/events', org.writeKey, {}, 400, 'write', 19],
      ['GET', '/v1/events', 'mqk_not-a-real-key', undefined, 401, 'preauth', 45],
      // Under /v1 but outside the keyed routes: the API's document, a door's pairing claim.
      ['GET', '/v1/openapi.json', undefined, undefined, 200, 'preauth', 44],
      ['POST', '/v1/device_claims', undefined, {}, 400, 'preauth', 43],
      ['GET', '/v1/no-such-thing', org.readKey, undefined, 404, 'preauth', 42],
    ];
    for (const [method, url, key, body, status, bucket, remaining] of cases) {
      const res = await from(t, ip, method, url, key, body);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body.slice(0, 200)}`);
      if (bucket === 'preauth') assertHeaders(res, 'preauth', 50, remaining);
      else assertHeaders(res, bucket, 20, remaining);
    }
  });

  test("/dashboard/v1: a signed-in person's requests carry the read or write bucket; refused ones the pre-auth one", async () => {
    const ip = '203.0.113.21';
    const user = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(user.email, user.password);
    const dashboard = (method: Method, url: string, headers: Record<string, string>, body?: unknown) =>
      from(t, ip, method, url, undefined, body, { origin: DASHBOARD_ORIGIN, ...headers });
    const signedIn = { cookie: session.cookie };

    const members = await dashboard('GET', '/dashboard/v1/members', signedIn);
    assert.equal(members.statusCode, 200);
    assertHeaders(members, 'read', 20, 19);
    // Without the CSRF token: refused before the person's write bucket is counted.
    const unguarded = await dashboard('POST', '/dashboard/v1/members', signedIn, {
      email: 'a@example.com',
      role: 'viewer',
    });
    assert.equal(unguarded.statusCode, 403);
    assertHeaders(unguarded, 'preauth', 50, 48);
    const signedOut = await dashboard('GET', '/dashboard/v1/members', {});
    assert.equal(signedOut.statusCode, 401);
    assertHeaders(signedOut, 'preauth', 50, 47);
    const document = await dashboard('GET', '/dashboard/v1/openapi.json', {});
    assert.equal(document.statusCode, 200);
    assertHeaders(document, 'preauth', 50, 46);
  });
});

describe('per-key read and write limits', () => {
  const t = useTestApp({ env: { RATE_LIMIT_READ_PER_MIN: '3', RATE_LIMIT_WRITE_PER_MIN: '3' } });
  let org: TestOrganizer;
  let otherOrg: TestOrganizer;
  let eventId: string;
  before(async () => {
    org = await t.createOrganizer();
    otherOrg = await t.createOrganizer();
    eventId = (await createEvent(t, org.writeKey)).id; // one write of org.writeKey
  });

  async function freshKey(o: TestOrganizer, scopes = ['read', 'write']): Promise<string> {
    const res = await t.admin('POST', `/admin/v1/organizers/${o.id}/api_keys`, { scopes });
    return res.json().key as string;
  }

  test('read: exactly 3 GETs (HEAD counted as a read) per key, then 429; the bucket headers count down', async () => {
    const key = await freshKey(org);
    const first = await t.api(key, 'GET', '/v1/events');
    assert.equal(first.statusCode, 200);
    assertHeaders(first, 'read', 3, 2);
    const second = await t.api(key, 'GET', `/v1/events/${eventId}`);
    assert.equal(second.statusCode, 200);
    assertHeaders(second, 'read', 3, 1);
    const third = await t.inject({ method: 'HEAD', url: '/v1/events', headers: { authorization: `Bearer ${key}` } });
    assert.equal(third.statusCode, 200);
    assertHeaders(third, 'read', 3, 0);
    assert429(await t.api(key, 'GET', '/v1/events'), 'read', 3, READ_DETAIL(3));
    assert429(await t.api(key, 'GET', `/v1/events/${eventId}`), 'read', 3, READ_DETAIL(3));
  });

  test('write: POST, PATCH and DELETE share exactly 3 per key, then 429 and nothing is created', async () => {
    const key = await freshKey(org);
    const created = await t.api(key, 'POST', '/v1/events', eventBody(t));
    assert.equal(created.statusCode, 201);
    assertHeaders(created, 'write', 3, 2);
    const patched = await t.api(key, 'PATCH', `/v1/events/${eventId}`, { description: 'Doors at 7' });
    assert.equal(patched.statusCode, 200);
    assertHeaders(patched, 'write', 3, 1);
    const deleted = await t.api(key, 'DELETE', '/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000');
    assert.equal(deleted.statusCode, 404);
    assertHeaders(deleted, 'write', 3, 0);

    const before = await countEvents(t, org.id);
    const body = eventBody(t);
    assert429(await t.api(key, 'POST', '/v1/events', body), 'write', 3, WRITE_DETAIL(3));
    assert429(
      await t.api(key, 'PATCH', `/v1/events/${eventId}`, { description: 'changed' }),
      'write',
      3,
      WRITE_DETAIL(3),
    );
    assert.equal(await countEvents(t, org.id), before, 'the rate-limited POST created nothing');
    const event = await t.api(org.readKey, 'GET', `/v1/events/${eventId}`);
    assert.equal(event.json().description, 'Doors at 7', 'the rate-limited PATCH changed nothing');
    assert429(
      await t.api(key, 'DELETE', '/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000'),
      'write',
      3,
      WRITE_DETAIL(3),
    );
    const titles = await t.database.db
      .selectFrom('events')
      .select('title')
      .where('title', '=', body.title as string)
      .execute();
    assert.deepEqual(titles, []);
  });

  test('invalid writes (400) count toward the write limit', async () => {
    const key = await freshKey(org);
    for (let i = 0; i < 3; i++) assert.equal((await t.api(key, 'POST', '/v1/events', {})).statusCode, 400);
    assert429(await t.api(key, 'POST', '/v1/events', eventBody(t)), 'write', 3, WRITE_DETAIL(3));
  });

  test('read and write buckets are independent', async () => {
    const key = await freshKey(org);
    for (let i = 0; i < 3; i++) assert.equal((await t.api(key, 'GET', '/v1/events')).statusCode, 200);
    assert.equal((await t.api(key, 'GET', '/v1/events')).statusCode, 429);
    const write = await t.api(key, 'POST', '/v1/events', eventBody(t));
    assert.equal(write.statusCode, 201);
    assertHeaders(write, 'write', 3, 2);

    const key2 = await freshKey(org);
    for (let i = 0; i < 3; i++) assert.equal((await t.api(key2, 'POST', '/v1/events', {})).statusCode, 400);
    assert.equal((await t.api(key2, 'POST', '/v1/events', {})).statusCode, 429);
    const read = await t.api(key2, 'GET', '/v1/events');
    assert.equal(read.statusCode, 200);
    assertHeaders(read, 'read', 3, 2);
  });

  test('each API key has its own count, in the same organizer and across organizers', async () => {
    const exhausted = await freshKey(org);
    for (let i = 0; i < 3; i++) await t.api(exhausted, 'GET', '/v1/events');
    assert.equal((await t.api(exhausted, 'GET', '/v1/events')).statusCode, 429);
    const sameOrg = await t.api(await freshKey(org), 'GET', '/v1/events');
    assert.equal(sameOrg.statusCode, 200);
    assertHeaders(sameOrg, 'read', 3, 2);
    const otherOrgRes = await t.api(await freshKey(otherOrg), 'GET', '/v1/events');
    assert.equal(otherOrgRes.statusCode, 200);
    assertHeaders(otherOrgRes, 'read', 3, 2);
  });

  test('the count is per key id, not per token text: the limit does not reset with a new connection or header form', async () => {
    const key = await freshKey(org);
    for (let i = 0; i < 3; i++) await t.api(key, 'GET', '/v1/events');
    const res = await t.inject({
      method: 'GET',
      url: '/v1/events',
      remoteAddress: '198.51.100.77',
      headers: { authorization: `bearer  ${key}` },
    });
    assert.equal(res.statusCode, 429);
  });

  test('a 403 (key without the scope) is answered before the per-key count and carries the pre-auth headers', async () => {
    const readOnly = await freshKey(org, ['read']);
    const res = await t.api(readOnly, 'POST', '/v1/events', eventBody(t));
    assert.equal(res.statusCode, 403);
    assert.equal(res.headers['ratelimit-policy'], '"preauth";q=1000000;w=60');
    assertHeaders(await t.api(readOnly, 'GET', '/v1/events'), 'read', 3, 2);
  });

  test('the admin API is not limited per key', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await t.admin('GET', `/admin/v1/organizers/${org.id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-policy'], '"preauth";q=1000000;w=60');
    }
    for (let i = 0; i < 5; i++)
      assert.equal(
        (await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, { name: `Renamed ${i}` })).statusCode,
        200,
      );
  });
});

describe('rate limits and idempotency', () => {
  const t = useTestApp({ env: { RATE_LIMIT_WRITE_PER_MIN: '2' } });
  const org = useOrganizer(t);

  test('a rate-limited request claims no idempotency key; replays count as writes', async () => {
    const body = eventBody(t);
    const first = await t.api(org.key, 'POST', '/v1/events', body, { 'idempotency-key': 'rl-1' });
    assert.equal(first.statusCode, 201);
    const replay = await t.api(org.key, 'POST', '/v1/events', body, { 'idempotency-key': 'rl-1' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assertHeaders(replay, 'write', 2, 0);
    assert429(
      await t.api(org.key, 'POST', '/v1/events', eventBody(t), { 'idempotency-key': 'rl-2' }),
      'write',
      2,
      WRITE_DETAIL(2),
    );
    const keys = await t.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('organizer_id', '=', org.id)
      .execute();
    assert.deepEqual(keys, [{ key: 'rl-1' }]);
  });
});
