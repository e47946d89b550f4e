import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { FixedWindowCounters } from '../../src/http/rate-limit/fixed-window.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import {
  createRateLimiter,
  RATE_LIMIT_STORE_MESSAGES,
  rateLimitHeaders,
  type RateLimitBucket,
  type RateLimiter,
} from '../../src/http/rate-limit/limiter.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITS = { preauth: 5, read: 3, write: 2, signin_account: 4, signin_ip: 6 };
const BUCKETS: RateLimitBucket[] = ['preauth', 'read', 'write', 'signin_account', 'signin_ip'];

/** A unique Redis namespace per test, so runs never see each other's counters. */
let prefixCounter = 0;
function uniqueKeyPrefix(): string {
  return `marquee:rl:test:${process.pid}:${Date.now()}:${++prefixCounter}`;
}

function captureLogger() {
  const warns: Array<{ obj: object; msg: string }> = [];
  const infos: unknown[][] = [];
  return {
    warns,
    infos,
    logger: {
      warn: (obj: object, msg: string) => void warns.push({ obj, msg }),
      info: (...a: unknown[]) => void infos.push(a),
    },
  };
}

async function isReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port || 6379) });
  socket.setTimeout(500, () => socket.destroy(new Error('timeout')));
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

async function timed<T>(work: T | Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

test('memory: each bucket allows exactly its limit, counting remaining down, then denies', async () => {
  const limiter = createRateLimiter({ limits: LIMITS, logger: captureLogger().logger });
  try {
    for (const bucket of BUCKETS) {
      const limit = LIMITS[bucket];
      for (let i = 1; i <= limit; i++) {
        const decision = await limiter.consume(bucket, 'client-1');
        assert.equal(decision.allowed, true, `${bucket} request ${i}`);
        assert.equal(decision.limit, limit);
        assert.equal(decision.remaining, limit - i);
        assert.ok(decision.resetSeconds > 0 && decision.resetSeconds <= 60);
      }
      for (let i = 0; i < 3; i++) {
        const denied = await limiter.consume(bucket, 'client-1');
        assert.equal(denied.allowed, false, `${bucket} over the limit`);
        assert.equal(denied.remaining, 0, 'remaining never goes below 0');
        assert.equal(denied.limit, limit);
      }
    }
  } finally {
    await limiter.close();
  }
});

test('memory: keys are counted independently', async () => {
  const limiter = createRateLimiter({ limits: LIMITS, logger: captureLogger().logger });
  await limiter.consume('write', 'key-a');
  await limiter.consume('write', 'key-a');
  assert.equal((await limiter.consume('write', 'key-a')).allowed, false);

  const other = await limiter.consume('write', 'key-b');
  assert.equal(other.allowed, true);
  assert.equal(other.remaining, LIMITS.write - 1);
  await limiter.close();
});

test('memory: buckets are counted independently for the same key', async () => {
  const limiter = createRateLimiter({ limits: LIMITS, logger: captureLogger().logger });
  await limiter.consume('write', 'key');
  await limiter.consume('write', 'key');
  assert.equal((await limiter.consume('write', 'key')).allowed, false);

  const read = await limiter.consume('read', 'key');
  assert.deepEqual([read.allowed, read.remaining], [true, LIMITS.read - 1]);
  const preauth = await limiter.consume('preauth', 'key');
  assert.deepEqual([preauth.allowed, preauth.remaining], [true, LIMITS.preauth - 1]);
  await limiter.close();
});

test('memory: denied requests do not move the fixed window', async (t) => {
  t.mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_700_000_000_000 });
  const limiter = createRateLimiter({ limits: LIMITS, logger: captureLogger().logger });

  assert.equal((await limiter.consume('write', 'k')).resetSeconds, 60);
  await limiter.consume('write', 'k');
  t.mock.timers.tick(30_000);
  const denied = await limiter.consume('write', 'k');
  assert.deepEqual(denied, { allowed: false, limit: 2, remaining: 0, resetSeconds: 30 });
  t.mock.timers.tick(29_000);
  assert.equal((await limiter.consume('write', 'k')).resetSeconds, 1, 'still the window that began at t=0');

  // 60 s after the first request a fresh window starts, despite the denials inside it.
  t.mock.timers.tick(1_000);
  const fresh = await limiter.consume('write', 'k');
  assert.deepEqual(fresh, { allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
  await limiter.close();
});

test('memory store: decides synchronously, and forgets keys whose window is over', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 });
  const limiter = createRateLimiter({ limits: LIMITS, logger: captureLogger().logger });
  const decision = limiter.consume('read', 'a');
  assert.ok(!(decision instanceof Promise), 'no promise from the in-process counters');
  assert.deepEqual(decision, { allowed: true, limit: LIMITS.read, remaining: LIMITS.read - 1, resetSeconds: 60 });

  const counters = new FixedWindowCounters(60_000);
  counters.hit('a');
  counters.hit('b');
  assert.equal(counters.size, 2);
  t.mock.timers.tick(30_000);
  assert.deepEqual(counters.hit('a'), { count: 2, msLeft: 30_000 });
  t.mock.timers.tick(30_000);
  // One window later both windows are over: the next hit sweeps them, then starts a's anew.
  assert.deepEqual(counters.hit('a'), { count: 1, msLeft: 60_000 });
  assert.equal(counters.size, 1, 'b was swept');
});

test('memory: consumeAllOrNone counts every hit when all would pass, and none when one would not', () => {
  const limiter = createRateLimiter({ limits: LIMITS, logger: captureLogger().logger });
  const both = [
    ['preauth', '10.0.0.1'],
    ['read', 'key-1'],
  ] as const;
  // read allows 3: two together, then the third read alone takes the last one.
  for (const remaining of [2, 1])
    assert.deepEqual(
      limiter.consumeAllOrNone!(both)?.map((d) => [d.allowed, d.remaining]),
      [
        [true, LIMITS.preauth - (3 - remaining)],
        [true, remaining],
      ],
    );
  assert.equal((limiter.consume('read', 'key-1') as { remaining: number }).remaining, 0);
  // The read would be refused: nothing is counted, the pre-auth count included.
  assert.equal(limiter.consumeAllOrNone!(both), undefined);
  const preauth = limiter.consume('preauth', '10.0.0.1') as { allowed: boolean; remaining: number };
  assert.deepEqual([preauth.allowed, preauth.remaining], [true, LIMITS.preauth - 3]);
});

test('redis: no consumeAllOrNone, its decisions are a round trip away', async () => {
  const limiter = createRateLimiter({
    limits: LIMITS,
    redisUrl: REDIS_URL,
    keyPrefix: uniqueKeyPrefix(),
    logger: captureLogger().logger,
  });
  try {
    assert.equal('consumeAllOrNone' in limiter, false);
  } finally {
    await limiter.close();
  }
});

test('createRateLimiter rejects a limit that is not a positive integer', () => {
  const logger = captureLogger().logger;
  assert.throws(
    () => createRateLimiter({ limits: { ...LIMITS, read: 0 }, logger }),
    /"read" must be a positive integer/,
  );
  assert.throws(() => createRateLimiter({ limits: { ...LIMITS, write: 1.5 }, logger }), /"write"/);
});

test('rateLimitHeaders: exact draft-10 structured fields', () => {
  assert.deepEqual(rateLimitHeaders('read', { allowed: true, limit: 300, remaining: 299, resetSeconds: 60 }), {
    'ratelimit-policy': '"read";q=300;w=60',
    ratelimit: '"read";r=299;t=60',
  });
  assert.deepEqual(rateLimitHeaders('write', { allowed: false, limit: 60, remaining: 0, resetSeconds: 17 }), {
    'ratelimit-policy': '"write";q=60;w=60',
    ratelimit: '"write";r=0;t=17',
    'retry-after': '60',
  });
  assert.deepEqual(
    rateLimitHeaders('preauth', { allowed: true, limit: 600, remaining: 0, resetSeconds: 3 }),
    {
      'ratelimit-policy': '"preauth";q=600;w=60',
      ratelimit: '"preauth";r=0;t=3',
    },
    'the request that uses the last unit is allowed: no retry-after',
  );
});

test('redis: two limiters with separate clients share one count per key', async (t) => {
  if (!(await isReachable(REDIS_URL))) {
    t.skip(`redis not reachable at ${REDIS_URL}`);
    return;
  }
  const keyPrefix = uniqueKeyPrefix();
  const logA = captureLogger();
  const logB = captureLogger();
  const limits = { ...LIMITS, write: 5 };
  const a = createRateLimiter({ limits, redisUrl: REDIS_URL, keyPrefix, logger: logA.logger });
  const b = createRateLimiter({ limits, redisUrl: REDIS_URL, keyPrefix, logger: logB.logger });
  try {
    const remaining: number[] = [];
    for (const limiter of [a, a, a, b, b]) {
      const decision = await limiter.consume('write', 'shared-key');
      assert.equal(decision.allowed, true);
      remaining.push(decision.remaining);
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0], 'one counter across both instances');

    for (const limiter of [a, b]) {
      const denied = await limiter.consume('write', 'shared-key');
      assert.equal(denied.allowed, false);
      assert.equal(denied.remaining, 0);
      assert.ok(denied.resetSeconds > 0 && denied.resetSeconds <= 60);
    }
    // Other buckets and keys are untouched by the exhausted one.
    assert.equal((await b.consume('read', 'shared-key')).remaining, LIMITS.read - 1);
    assert.equal((await a.consume('write', 'other-key')).remaining, limits.write - 1);
    assert.deepEqual([logA.warns, logB.warns], [[], []], 'a healthy store logs no warning');
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('redis unreachable: every bucket is enforced per process, one warning for the whole outage, no hang', async () => {
  const { warns, logger } = captureLogger();
  const limiter = createRateLimiter({
    limits: LIMITS,
    redisUrl: 'redis://127.0.0.1:1',
    keyPrefix: uniqueKeyPrefix(),
    logger,
  });
  try {
    for (const bucket of BUCKETS) {
      const limit = LIMITS[bucket];
      for (let i = 1; i <= limit + 2; i++) {
        const { value, ms } = await timed(limiter.consume(bucket, 'k'));
        assert.deepEqual(
          [value.allowed, value.limit, value.remaining],
          [i <= limit, limit, Math.max(0, limit - i)],
          `${bucket} request ${i}`,
        );
        assert.ok(value.resetSeconds > 0 && value.resetSeconds <= 60);
        assert.ok(ms < 1_000, `consume took ${ms.toFixed(0)} ms`);
      }
    }
    // Let a few background reconnect attempts fail too: still one warning.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await limiter.consume('read', 'k');
    assert.equal(warns.length, 1, JSON.stringify(warns.map((w) => w.msg)));
    assert.equal(warns[0]?.msg, RATE_LIMIT_STORE_MESSAGES.unreachable);
  } finally {
    await limiter.close();
  }
});

test('redis outage and recovery: per-process counts during it, warn once when it starts, info once when it ends, shared counts after', async (t) => {
  if (!(await isReachable(REDIS_URL))) {
    t.skip(`redis not reachable at ${REDIS_URL}`);
    return;
  }
  const proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379));
  const { warns, infos, logger } = captureLogger();
  const limiter: RateLimiter = createRateLimiter({
    limits: LIMITS,
    redisUrl: `redis://127.0.0.1:${proxy.port}`,
    keyPrefix: uniqueKeyPrefix(),
    logger,
  });
  try {
    assert.equal((await limiter.consume('read', 'k')).remaining, LIMITS.read - 1, 'counted in redis');

    await proxy.cut();
    // The per-process window of 'k' starts fresh: the read limit (3) holds, then denies.
    const during: Array<[boolean, number]> = [];
    for (let i = 0; i < LIMITS.read + 2; i++) {
      const { value, ms } = await timed(limiter.consume('read', 'k'));
      during.push([value.allowed, value.remaining]);
      assert.ok(ms < 1_000, `consume took ${ms.toFixed(0)} ms`);
    }
    assert.deepEqual(during, [
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ]);
    assert.equal(warns.length, 1);
    assert.equal(warns[0]?.msg, RATE_LIMIT_STORE_MESSAGES.unreachable);

    await proxy.restore();
    // ioredis reconnects in the background; its 'ready' logs the recovery.
    const deadline = Date.now() + 5_000;
    while (infos.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // Shared counts again: the request made before the outage counted, the ones during it did not.
    const decision = await limiter.consume('read', 'k');
    assert.deepEqual([decision.allowed, decision.remaining], [true, LIMITS.read - 2]);
    assert.equal(warns.length, 1, 'still a single warning');
    assert.equal(infos.length, 1, 'one recovery message');
    assert.equal(infos[0]?.[1], RATE_LIMIT_STORE_MESSAGES.reachable);
  } finally {
    await limiter.close();
    await proxy.close();
  }
});
