/**
 * Shared counters (REDIS_URL): two app instances against one Redis hold one limit between
 * them; an unreachable Redis degrades to per-process limits and says so in the log, once,
 * and a Redis cut mid-run (a loopback TCP proxy) and restored brings the shared counts back.
 * Needs a Redis at TEST_REDIS_URL (default redis://127.0.0.1:6379) for the shared tests;
 * the cut test skips without TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createRateLimiter, RATE_LIMIT_STORE_MESSAGES } from '../../src/http/rate-limit/limiter.ts';
import { createTestApp, problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let prefixCounter = 0;
const uniquePrefix = () => `marquee:rl:test:http:${process.pid}:${Date.now()}:${++prefixCounter}`;

describe('two instances against one Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let org: TestOrganizer;
  before(async () => {
    const rateLimitKeyPrefix = uniquePrefix();
    const env = {
      REDIS_URL,
      RATE_LIMIT_WRITE_PER_MIN: '3',
      RATE_LIMIT_READ_PER_MIN: '4',
      RATE_LIMIT_PREAUTH_PER_MIN: '1000',
    };
    // Each instance gets its own limiter and Redis client in one namespace. The store timeout
    // is raised so that a stall of the loaded test machine cannot send a request to the
    // per-process fallback counters, which would split the shared count this test asserts.
    const sharedLimiter = () =>
      createRateLimiter({
        limits: { write: 3, read: 4, preauth: 1000, signin_account: 10, signin_ip: 30 },
        redisUrl: REDIS_URL,
        keyPrefix: rateLimitKeyPrefix,
        storeTimeoutMs: 10_000,
        logger: pino({ level: 'silent' }),
      });
    a = await createTestApp({ env, appOptions: { rateLimiter: sharedLimiter() } });
    // Same database, so the same API keys work.
    b = await createTestApp({ env, database: a.database, appOptions: { rateLimiter: sharedLimiter() } });
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
    const remaining = (res: { headers: Record<string, unknown> }) =>
      Number(/r=(\d+)/.exec(String(res.headers['ratelimit']))![1]);
    assert.equal(remaining(first), 999);
    assert.equal(remaining(await send(b)), 998);
    assert.equal(remaining(await send(a)), 997);
  });

  test('reads: 4 spread over both instances, then 429 on either', async () => {
    const res = [
      await a.api(org.readKey, 'GET', '/v1/events'),
      await b.api(org.readKey, 'GET', '/v1/events'),
      await a.api(org.readKey, 'GET', '/v1/events'),
      await b.api(org.readKey, 'GET', '/v1/events'),
    ];
    assert.deepEqual(
      res.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
    assert.equal((await a.api(org.readKey, 'GET', '/v1/events')).statusCode, 429);
    assert.equal((await b.api(org.readKey, 'GET', '/v1/events')).statusCode, 429);
  });
});

const PREAUTH_HEADERS_AT = (remaining: number) => ({ 'ratelimit-policy': '"preauth";q=3;w=60', remaining });

describe('Redis unreachable from the start', () => {
  const { lines, logger } = captureLog('info');
  let t: TestApp;
  before(async () => {
    t = await createTestApp({
      // Nothing listens on port 1: every connection attempt is refused.
      env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PREAUTH_PER_MIN: '3' },
      appOptions: { logger, rateLimitKeyPrefix: uniquePrefix() },
    });
  });
  after(() => t.close());

  test('the limits are enforced per process (pre-auth 3: the 4th answers 429 with the usual headers); one warning', async () => {
    const ip = '198.51.100.31';
    const started = performance.now();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.inject({ method: 'GET', url: '/v1/nothing', remoteAddress: ip }));
    assert.ok(performance.now() - started < 5000, 'an unreachable store does not hang requests');
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [404, 404, 404, 429],
    );
    assert.deepEqual(
      answers.map((a) => ({
        'ratelimit-policy': a.headers['ratelimit-policy'],
        remaining: Number(/^"preauth";r=(\d+);t=\d+$/.exec(String(a.headers['ratelimit']))?.[1]),
      })),
      [PREAUTH_HEADERS_AT(2), PREAUTH_HEADERS_AT(1), PREAUTH_HEADERS_AT(0), PREAUTH_HEADERS_AT(0)],
    );
    const denied = answers[3]!;
    assert.equal(denied.headers['retry-after'], '60');
    assert.deepEqual(
      denied.json(),
      problemOf(
        429,
        'Rate limit exceeded: at most 3 requests per minute from one client IP address. Retry after 60 seconds.',
        'rate_limited',
      ),
    );
    // Another client IP has its own count.
    assert.equal(
      (await t.inject({ method: 'GET', url: '/v1/nothing', remoteAddress: '198.51.100.32' })).statusCode,
      404,
    );
    const warnings = lines.filter((l) => l.msg === RATE_LIMIT_STORE_MESSAGES.unreachable);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.level, 40); // pino's warn
    assert.equal(warnings[0]!.store, 'redis');
  });
});

describe(
  'Redis cut mid-run and restored (loopback TCP proxy)',
  { skip: !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL' },
  () => {
    const logA = captureLog('info');
    const logB = captureLog('info');
    let proxy: TcpProxy;
    let a: TestApp;
    let b: TestApp;
    let org: TestOrganizer;
    before(async () => {
      proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379));
      const rateLimitKeyPrefix = uniquePrefix();
      const env = {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        RATE_LIMIT_READ_PER_MIN: '3',
        RATE_LIMIT_PREAUTH_PER_MIN: '1000',
      };
      a = await createTestApp({ env, appOptions: { logger: logA.logger, rateLimitKeyPrefix } });
      b = await createTestApp({ env, database: a.database, appOptions: { logger: logB.logger, rateLimitKeyPrefix } });
      org = await a.createOrganizer();
    });
    after(async () => {
      await b.close();
      await a.close();
      await proxy.close();
    });

    const read = async (t: TestApp) => {
      const res = await t.api(org.readKey, 'GET', '/v1/events');
      return [res.statusCode, res.headers['ratelimit']] as const;
    };
    const messages = (lines: Array<Record<string, unknown>>) =>
      lines.filter((l) => l.store === 'redis').map((l) => [l.level, l.msg]);

    /**
     * The log lines since the instances first reached Redis: on a loaded machine the first
     * connection can take longer than the store timeout (one warning, then one info), which
     * is not what this test is about.
     */
    const connectedFrom = new Map<ReturnType<typeof captureLog>, number>();
    const since = (log: ReturnType<typeof captureLog>) => log.lines.slice(connectedFrom.get(log) ?? 0);
    async function bothConnected() {
      const deadline = Date.now() + 10_000;
      for (const log of [logA, logB]) {
        while (messages(log.lines).at(-1)?.[1] === RATE_LIMIT_STORE_MESSAGES.unreachable) {
          assert.ok(Date.now() < deadline, 'both instances reach Redis');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        connectedFrom.set(log, log.lines.length);
      }
    }

    test('shared before, per-process during the cut (one warning each), shared again after (one info each)', async () => {
      await bothConnected();
      // Shared: one count across both instances.
      assert.deepEqual((await read(a))[0], 200);
      assert.match(String((await read(b))[1]), /^"read";r=1;t=\d+$/);

      await proxy.cut();
      // Each instance now counts on its own, from a fresh window: A allows 3, then 429.
      const onA = [await read(a), await read(a), await read(a), await read(a)];
      assert.deepEqual(
        onA.map(([status]) => status),
        [200, 200, 200, 429],
      );
      assert.deepEqual(
        onA.map(([, header]) => /r=(\d+)/.exec(String(header))?.[1]),
        ['2', '1', '0', '0'],
      );
      const onB = await read(b);
      assert.equal(onB[0], 200, 'B has its own per-process count');
      assert.match(String(onB[1]), /^"read";r=2;t=\d+$/);
      for (const log of [logA, logB])
        assert.deepEqual(messages(since(log)), [[40, RATE_LIMIT_STORE_MESSAGES.unreachable]]);

      await proxy.restore();
      const deadline = Date.now() + 10_000;
      while (messages(since(logA)).length < 2 || messages(since(logB)).length < 2) {
        assert.ok(Date.now() < deadline, 'both instances reconnect');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const log of [logA, logB]) {
        assert.deepEqual(messages(since(log)), [
          [40, RATE_LIMIT_STORE_MESSAGES.unreachable],
          [30, RATE_LIMIT_STORE_MESSAGES.reachable],
        ]);
      }
      // Shared again: Redis still holds the 2 counted before the cut (none of the cut's), so
      // the 3rd goes through on A and the 4th, on B, is denied.
      const third = await read(a);
      assert.equal(third[0], 200);
      assert.match(String(third[1]), /^"read";r=0;t=\d+$/);
      assert.equal((await read(b))[0], 429);
    });
  },
);
