/**
 * The event detail's fast path (docs/catalog.md, "Reading an event fast"): over a real
 * loopback socket (inject() never reaches it), a cached GET /v1/events/{id} is answered
 * in front of the router with the route's own bytes, headers and counts, and every
 * request the caches cannot decide is left to the route, which answers it as before.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Client } from 'undici';
import { cachedReads, httpRequestDuration } from '../../src/metrics/registry.ts';
import { createTestApp, problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent } from '../helpers/catalog.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { exchangeUntilClosed, listenOnLoopback, type RawResponse } from '../helpers/raw-http.ts';

type Answer = RawResponse & { status: number };

/** One request on a connection of its own (`Connection: close`), read to the end. */
async function request(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const lines = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
  const answer = await exchangeUntilClosed(port, `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  return { ...answer, status: Number(answer.statusLine.split(' ')[1]) };
}

const fastReads = async () => (await cachedReads.get()).values[0]?.value ?? 0;

/** The histogram's count of GET /v1/events/:id answered 200. */
async function observedReads(): Promise<number> {
  const sample = (await httpRequestDuration.get()).values.find(
    (v) =>
      v.metricName === 'marquee_http_request_duration_seconds_count' &&
      v.labels.route === '/v1/events/:id' &&
      v.labels.status_code === 200,
  );
  return sample?.value ?? 0;
}

/** Runs `act` and returns how many requests the fast path answered meanwhile. */
async function countingFastReads(act: () => Promise<unknown>): Promise<number> {
  const before = await fastReads();
  await act();
  return (await fastReads()) - before;
}

/** An app with `env`, listening on loopback, and an organizer of it, made before the suite's tests. */
function useServedApp(env: Record<string, string>) {
  const t = useTestApp({ env });
  const org = useOrganizer(t);
  const server = { port: 0 };
  before(async () => {
    server.port = await listenOnLoopback(t.app);
  });
  return { t, org, server };
}

describe('a cached event detail, answered before routing', () => {
  const { t, org, server } = useServedApp({ METRICS_PORT: '0' });
  const other = useOrganizer(t);
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  test('is byte for byte what the route answered: status, headers in their order, body', async () => {
    const event = await createEvent(t, org.key);
    const path = `/v1/events/${event.id}`;
    const observed = await observedReads();
    let routed!: Answer;
    let fast!: Answer;
    assert.equal(await countingFastReads(async () => (routed = await request(server.port, path, auth(org.key)))), 0);
    assert.equal(await countingFastReads(async () => (fast = await request(server.port, path, auth(org.key)))), 1);
    assert.equal(fast.status, 200);
    assert.deepEqual(fast.names, routed.names);
    assert.deepEqual(fast.names, [
      'x-request-id',
      'access-control-allow-origin',
      'access-control-expose-headers',
      'ratelimit-policy',
      'ratelimit',
      'content-type',
      'content-length',
      'date',
      'connection',
    ]);
    const same = (a: Answer) => ({ ...a.headers, 'x-request-id': '', date: '', ratelimit: '' });
    assert.deepEqual(same(fast), same(routed));
    assert.equal(fast.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(fast.headers['ratelimit-policy'], '"read";q=1000000;w=60');
    assert.equal(routed.headers.ratelimit, '"read";r=999999;t=60');
    assert.equal(fast.headers.ratelimit, '"read";r=999998;t=60');
    assert.match(fast.headers['x-request-id']!, /^[0-9a-f-]{36}$/);
    assert.notEqual(fast.headers['x-request-id'], routed.headers['x-request-id']);
    assert.equal(fast.body, routed.body);
    assert.equal(JSON.parse(fast.body).id, event.id);
    // Both counted in the route's latency histogram.
    assert.equal((await observedReads()) - observed, 2);
  });

  test("keeps a caller's well-formed request id, as the route does", async () => {
    const event = await createEvent(t, org.key);
    await request(server.port, `/v1/events/${event.id}`, auth(org.key));
    let fast!: Answer;
    const headers = { ...auth(org.key), 'x-request-id': 'trace-42.a:b' };
    assert.equal(
      await countingFastReads(async () => (fast = await request(server.port, `/v1/events/${event.id}`, headers))),
      1,
    );
    assert.equal(fast.headers['x-request-id'], 'trace-42.a:b');
  });

  test('a change through the API shows at once; after its second the entry is loaded again', async () => {
    const event = await createEvent(t, org.key);
    const path = `/v1/events/${event.id}`;
    await request(server.port, path, auth(org.key));
    const patched = await t.api(org.key, 'PATCH', path, { title: 'Renamed at the door' });
    assert.equal(patched.statusCode, 200);
    let first!: Answer;
    assert.equal(await countingFastReads(async () => (first = await request(server.port, path, auth(org.key)))), 0);
    assert.equal(first.body, patched.body);
    assert.equal(await countingFastReads(() => request(server.port, path, auth(org.key))), 1);
    t.clock.advance(1000);
    assert.equal(await countingFastReads(() => request(server.port, path, auth(org.key))), 0);
  });

  test('what the caches cannot decide goes to the route: each answer is the route’s own', async () => {
    const event = await createEvent(t, org.key);
    const path = `/v1/events/${event.id}`;
    await request(server.port, path, auth(org.key)); // cached for org
    const created = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes: ['read'] });
    const revocable = created.json<{ id: string; key: string }>();
    assert.equal((await request(server.port, path, auth(revocable.key))).status, 200); // its key cached too

    const routedOnly = async (headers: Record<string, string>, url = path, method = 'GET') => {
      let answer!: Answer;
      assert.equal(await countingFastReads(async () => (answer = await request(server.port, url, headers, method))), 0);
      return answer;
    };
    // Another organizer's key: the route's 404, never the cached body.
    const foreign = await routedOnly(auth(other.key));
    assert.equal(foreign.status, 404);
    assert.deepEqual(JSON.parse(foreign.body), problemOf(404, 'Event not found.', 'resource_not_found'));
    // A key without the read scope: 403.
    const writeOnly = await routedOnly(auth(org.writeKey));
    assert.equal(writeOnly.status, 403);
    assert.equal(JSON.parse(writeOnly.body).code, 'forbidden_scope');
    // No key, an unknown key: 401.
    assert.equal((await routedOnly({})).status, 401);
    assert.equal((await routedOnly(auth('mqk_unknown'))).status, 401);
    // A key revoked through this instance: 401 at once.
    assert.equal((await t.admin('POST', `/admin/v1/api_keys/${revocable.id}/revoke`)).statusCode, 200);
    assert.equal((await routedOnly(auth(revocable.key))).status, 401);
    // A query string, a trailing slash, HEAD: the route (same body, no body).
    const withQuery = await routedOnly(auth(org.key), `${path}?expand=none`);
    assert.equal(withQuery.status, 200);
    assert.equal((await routedOnly(auth(org.key), `${path}/`)).status, 200);
    const head = await routedOnly(auth(org.key), path, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    // Draining before a shutdown: the route's answer closes the connection.
    t.app.deps.shutdown.beginDraining();
    const draining = await routedOnly({ ...auth(org.key), connection: 'keep-alive' });
    assert.equal(draining.status, 200);
    assert.equal(draining.headers.connection, 'close');
  });
});

describe('keys presented on one keep-alive connection', () => {
  const { t, org, server } = useServedApp({});
  const other = useOrganizer(t);

  test('each request is the key it presents: another key, no key, a revoked key, on the fast path and off it', async () => {
    const event = await createEvent(t, org.key);
    const path = `/v1/events/${event.id}`;
    const created = await t.admin('POST', `/admin/v1/organizers/${org.id}/api_keys`, { scopes: ['read'] });
    const revocable = created.json<{ id: string; key: string }>();
    let connections = 0;
    const countConnection = () => connections++;
    t.app.server.on('connection', countConnection);
    const client = new Client(`http://127.0.0.1:${server.port}`);
    const read = async (key: string | undefined, url = path) => {
      const res = await client.request({
        method: 'GET',
        path: url,
        headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    try {
      const fast = await countingFastReads(async () => {
        assert.equal((await read(org.key)).status, 200); // routed: loads both caches
        assert.equal((await read(org.key)).status, 200); // answered before routing
      });
      assert.equal(fast, 1);
      // Another organizer's key right after: its own 404, never the first key's event.
      assert.deepEqual(await read(other.key), {
        status: 404,
        body: problemOf(404, 'Event not found.', 'resource_not_found'),
      });
      // Through the router too: the list is the other organizer's (it has no event).
      const listed = await read(other.key, '/v1/events');
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.data, []);
      assert.equal((await read(undefined)).status, 401);
      assert.equal((await read(org.key)).status, 200);
      assert.equal((await read(revocable.key)).status, 200);
      assert.equal((await t.admin('POST', `/admin/v1/api_keys/${revocable.id}/revoke`)).statusCode, 200);
      assert.equal((await read(revocable.key)).status, 401);
      assert.equal((await read(org.key)).status, 200);
      assert.equal(connections, 1);
    } finally {
      t.app.server.off('connection', countConnection);
      await client.close();
    }
  });
});

describe('the fast path counts both rate limits as the route does', () => {
  const { t, org, server } = useServedApp({ RATE_LIMIT_READ_PER_MIN: '3', RATE_LIMIT_PREAUTH_PER_MIN: '1000' });

  test('the read bucket: the answers count down, the limit is refused by the route with its 429', async () => {
    const event = await createEvent(t, org.key);
    const path = `/v1/events/${event.id}`;
    const answers: Answer[] = [];
    const fast = await countingFastReads(async () => {
      for (let i = 0; i < 4; i++)
        answers.push(await request(server.port, path, { authorization: `Bearer ${org.key}` }));
    });
    assert.deepEqual(
      answers.map((a) => [a.status, a.headers.ratelimit]),
      [
        [200, '"read";r=2;t=60'],
        [200, '"read";r=1;t=60'],
        [200, '"read";r=0;t=60'],
        [429, '"read";r=0;t=60'],
      ],
    );
    assert.equal(fast, 2);
    assert.equal(answers[3]!.headers['retry-after'], '60');
    assert.deepEqual(
      JSON.parse(answers[3]!.body),
      problemOf(
        429,
        'Rate limit exceeded: at most 3 read requests (GET) per minute per API key. Retry after 60 seconds.',
        'rate_limited',
      ),
    );
  });
});

describe('behind a proxy (TRUST_PROXY), the pre-auth count is per forwarded client address', () => {
  // The set-up's requests (inject) count against 127.0.0.1, not against the addresses below.
  const { t, org, server } = useServedApp({ TRUST_PROXY: 'true', RATE_LIMIT_PREAUTH_PER_MIN: '10' });

  test('ten reads per address pass, the eleventh is refused; another address still passes, fast', async () => {
    const event = await createEvent(t, org.key);
    const from = (address: string) =>
      request(server.port, `/v1/events/${event.id}`, {
        authorization: `Bearer ${org.key}`,
        'x-forwarded-for': `${address}, 10.9.9.9`,
      });
    const answers: Answer[] = [];
    const fast = await countingFastReads(async () => {
      for (let i = 0; i < 11; i++) answers.push(await from('203.0.113.7'));
      answers.push(await from('198.51.100.4'));
    });
    assert.deepEqual(
      answers.map((a) => a.status),
      [...Array<number>(10).fill(200), 429, 200],
    );
    assert.equal(
      JSON.parse(answers[10]!.body).detail,
      'Rate limit exceeded: at most 10 requests per minute from one client IP address. Retry after 60 seconds.',
    );
    // The first read loaded the detail; the other nine of the first address and the last were answered before routing.
    assert.equal(fast, 10);
  });
});

describe('where the fast path stays off', () => {
  test('counters shared in Redis: every read is routed, and answered', async () => {
    const t = await createTestApp({
      env: { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' },
      appOptions: { rateLimitKeyPrefix: `marquee:rl:test:fast:${process.pid}:${Date.now()}` },
    });
    try {
      const org = await t.createOrganizer();
      const event = await createEvent(t, org.key);
      const port = await listenOnLoopback(t.app);
      const statuses: number[] = [];
      const fast = await countingFastReads(async () => {
        for (let i = 0; i < 3; i++)
          statuses.push((await request(port, `/v1/events/${event.id}`, { authorization: `Bearer ${org.key}` })).status);
      });
      assert.deepEqual(statuses, [200, 200, 200]);
      assert.equal(fast, 0);
    } finally {
      await t.close();
    }
  });

  test('LOG_LEVEL=info: every read is routed, and logged', async () => {
    const log = captureLog('info');
    const t = await createTestApp({ appOptions: { logger: log.logger } });
    try {
      const org = await t.createOrganizer();
      const event = await createEvent(t, org.key);
      const port = await listenOnLoopback(t.app);
      const fast = await countingFastReads(async () => {
        for (let i = 0; i < 3; i++)
          await request(port, `/v1/events/${event.id}`, { authorization: `Bearer ${org.key}` });
      });
      assert.equal(fast, 0);
      const completed = log
        .withMessage('request completed')
        .filter((l) => (l.res as { statusCode: number }).statusCode === 200);
      assert.equal(completed.length, 3);
    } finally {
      await t.close();
    }
  });
});
