/**
 * Shared counters (operations.md: REDIS_URL): two app instances against one Redis hold
 * one limit between them; an unreachable Redis fails open and says so in the log.
 * Needs a Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379) for the shared test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let prefixCounter = 0;
const uniquePrefix = () => `marquee:rl:test:http:${process.pid}:${Date.now()}:${++prefixCounter}`;

describe('two instances against one Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let org: TestOrganizer;
  before(async () => {
    const rateLimitKeyPrefix = uniquePrefix();
    const env = { REDIS_URL, RATE_LIMIT_WRITE_PER_MIN: '3', RATE_LIMIT_READ_PER_MIN: '4', RATE_LIMIT_PREAUTH_PER_MIN: '1000' };
    a = await createTestApp({ env, appOptions: { rateLimitKeyPrefix } });
    // Same database (so the same API keys work), same Redis namespace, separate limiter and client.
    b = await createTestApp({ env, database: a.database, appOptions: { rateLimitKeyPrefix } });
    org = await a.createOrganizer();
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  test('the write limit holds across instances: 2 on A + 1 on B, then both answer 429', async () => {
    assert.equal((await a.api(org.key, 'POST', '/v1/events', eventBody(a))).statusCode, 201);
    assert.equal((await a.api(org.key, 'POST', '/v1/events', eventBody(a))).statusCode, 201);
    const third = await b.api(org.key, 'POST', '/v1/events', eventBody(b));
    assert.equal(third.statusCode, 201);
    assert.match(String(third.headers['ratelimit']), /^"write";r=0;t=\d+$/);
    const onB = await b.api(org.key, 'POST', '/v1/events', eventBody(b));
    assert.equal(onB.statusCode, 429);
    assert.equal(onB.headers['retry-after'], '60');
    assert.equal((await a.api(org.key, 'POST', '/v1/events', eventBody(a))).statusCode, 429);
  });

  test('the pre-auth count is shared too (per client IP)', async () => {
    const ip = '198.51.100.200';
    const send = (t: TestApp) => t.inject({ method: 'GET', url: '/v1/nothing', remoteAddress: ip });
    const first = await send(a);
    assert.equal(first.headers['ratelimit'] !== undefined, true);
    const remaining = (res: { headers: Record<string, unknown> }) => Number(/r=(\d+)/.exec(String(res.headers['ratelimit']))![1]);
    assert.equal(remaining(first), 999);
    assert.equal(remaining(await send(b)), 998);
    assert.equal(remaining(await send(a)), 997);
  });

  test('reads: 4 spread over both instances, then 429 on either', async () => {
    const res = [await a.api(org.readKey, 'GET', '/v1/events'), await b.api(org.readKey, 'GET', '/v1/events'),
      await a.api(org.readKey, 'GET', '/v1/events'), await b.api(org.readKey, 'GET', '/v1/events')];
    assert.deepEqual(res.map((r) => r.statusCode), [200, 200, 200, 200]);
    assert.equal((await a.api(org.readKey, 'GET', '/v1/events')).statusCode, 429);
    assert.equal((await b.api(org.readKey, 'GET', '/v1/events')).statusCode, 429);
  });
});

describe('Redis unreachable', () => {
  const lines: Array<Record<string, unknown>> = [];
  let t: TestApp;
  before(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    t = await createTestApp({
      // Nothing listens on port 1: every connection attempt is refused.
      env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_WRITE_PER_MIN: '1', RATE_LIMIT_READ_PER_MIN: '1', RATE_LIMIT_PREAUTH_PER_MIN: '1' },
      appOptions: { logger, rateLimitKeyPrefix: uniquePrefix() },
    });
  });
  after(() => t.close());

  test('requests keep being served (fail open, limits of 1 not enforced) and a warning is logged once', async () => {
    const org = await t.createOrganizer(); // 4 admin calls over a pre-auth limit of 1
    const started = performance.now();
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.api(org.key, 'GET', '/v1/events')).statusCode, 200);
      assert.equal((await t.api(org.key, 'POST', '/v1/events', eventBody(t))).statusCode, 201);
    }
    assert.ok(performance.now() - started < 5000, 'failing open does not hang requests');
    const warnings = lines.filter((l) => l.msg === 'rate limit store unreachable, failing open');
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.level, 40); // pino's warn
    assert.equal(warnings[0]!.store, 'redis');
  });
});
