/**
 * Sign-in attempts (docs/dashboard.md, "Sign-in failures"): an unknown e-mail address
 * takes as long as a wrong password (a dummy argon2id hash is checked), and attempts are
 * throttled per e-mail address and per client IP, in Redis when it is set so that every
 * instance shares the counts (the shared test runs with TEST_REDIS_URL only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { createRateLimiter } from '../../src/http/rate-limit/limiter.ts';
import {
  createTestApp,
  problemOf,
  type TestApp,
  type TestOrganizer,
  useOrganizer,
  useTestApp,
} from '../helpers/app.ts';
import { BAD_CREDENTIALS, post, PROBLEM, sessionIdsOf } from '../helpers/people.ts';

const ACCOUNT_DETAIL = (n: number) =>
  `Too many sign-in attempts: at most ${n} per minute for one e-mail address. Retry after 60 seconds.`;
const IP_DETAIL = (n: number) =>
  `Too many sign-in attempts: at most ${n} per minute from one client IP address. Retry after 60 seconds.`;

const signIn = (t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1') =>
  post(t, '/dashboard/v1/session', { email, password }, {}, remoteAddress);

function assert429(res: LightMyRequestResponse, bucket: string, limit: number, detail: string): void {
  assert.equal(res.statusCode, 429, res.body);
  assert.equal(res.headers['content-type'], PROBLEM);
  assert.equal(res.headers['retry-after'], '60');
  assert.equal(res.headers['ratelimit-policy'], `"${bucket}";q=${limit};w=60`);
  assert.match(String(res.headers['ratelimit']), new RegExp(`^"${bucket}";r=0;t=\\d+$`));
  assert.equal(res.headers['set-cookie'], undefined);
  assert.deepEqual(res.json(), problemOf(429, detail, 'rate_limited'));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

describe('an unknown e-mail takes as long as a wrong password', () => {
  const t = useTestApp({
    env: { RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '100000', RATE_LIMIT_SIGNIN_IP_PER_MIN: '100000' },
  });
  const org = useOrganizer(t);

  test('200 alternating attempts: the medians differ by less than 5 ms', async (ctx) => {
    const user = await t.createUser({ organizerId: org.id, role: 'owner' });
    // Warm both paths (the dummy hash, the first argon2 call, the prepared queries).
    for (let i = 0; i < 5; i++) {
      await signIn(t, `warm-up-${i}@example.com`, 'not the password at all');
      await signIn(t, user.email, 'not the password at all');
    }
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 200; i++) {
      const isUnknown = i % 2 === 0;
      const email = isUnknown ? `nobody-${i}@example.com` : user.email;
      const started = process.hrtime.bigint();
      const res = await signIn(t, email, `wrong password number ${i}`);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), BAD_CREDENTIALS);
      (isUnknown ? unknown : wrong).push(ms);
    }
    const [unknownMedian, wrongMedian] = [median(unknown), median(wrong)];
    ctx.diagnostic(`median unknown e-mail ${unknownMedian.toFixed(2)} ms, wrong password ${wrongMedian.toFixed(2)} ms`);
    assert.ok(
      Math.abs(unknownMedian - wrongMedian) < 5,
      `unknown ${unknownMedian.toFixed(2)} ms vs wrong password ${wrongMedian.toFixed(2)} ms`,
    );
  });
});

describe('sign-in throttling (RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN=3, RATE_LIMIT_SIGNIN_IP_PER_MIN=6)', () => {
  const t = useTestApp({
    env: { RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '3', RATE_LIMIT_SIGNIN_IP_PER_MIN: '6' },
  });
  const org = useOrganizer(t);

  test('the 4th attempt for one address → 429, even with the right password, from any IP and in any case', async () => {
    const user = await t.createUser({ organizerId: org.id, role: 'owner', email: 'throttled@example.com' });
    const ip = '198.51.100.1';
    for (let i = 0; i < 3; i++) {
      const res = await signIn(t, user.email, 'not the password at all', ip);
      assert.equal(res.statusCode, 401, `attempt ${i + 1}`);
      assert.deepEqual(res.json(), BAD_CREDENTIALS);
    }
    assert429(await signIn(t, user.email, user.password, ip), 'signin_account', 3, ACCOUNT_DETAIL(3));
    // The count is per address: another IP, another case, same answer.
    assert429(
      await signIn(t, 'THROTTLED@Example.com', user.password, '198.51.100.2'),
      'signin_account',
      3,
      ACCOUNT_DETAIL(3),
    );

    // Another address from the first IP still works, until the IP's limit (6, the 4 above included).
    const other = await t.createUser({ organizerId: org.id, role: 'owner', email: 'other@example.com' });
    const fifth = await signIn(t, other.email, other.password, ip);
    assert.equal(fifth.statusCode, 201, fifth.body);
    const sixth = await signIn(t, 'nobody@example.com', 'not the password at all', ip);
    assert.equal(sixth.statusCode, 401);
    assert429(await signIn(t, other.email, other.password, ip), 'signin_ip', 6, IP_DETAIL(6));
    // A third IP is not throttled for that other address (2 attempts of 3 so far).
    assert.equal((await signIn(t, other.email, other.password, '198.51.100.3')).statusCode, 201);
  });

  test('throttling comes before the password check: a throttled attempt creates no session', async () => {
    const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
    const ip = '198.51.100.50';
    for (let i = 0; i < 3; i++) assert.equal((await signIn(t, user.email, user.password, ip)).statusCode, 201);
    assert.equal((await sessionIdsOf(t, user.id)).length, 3);
    assert429(await signIn(t, user.email, user.password, ip), 'signin_account', 3, ACCOUNT_DETAIL(3));
    assert.equal((await sessionIdsOf(t, user.id)).length, 3);
  });
});

let prefixCounter = 0;
const uniquePrefix = () => `marquee:rl:test:signin:${process.pid}:${Date.now()}:${++prefixCounter}`;

describe(
  'sign-in throttling shared by two instances through one Redis',
  { skip: !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL' },
  () => {
    let a: TestApp;
    let b: TestApp;
    let org: TestOrganizer;
    before(async () => {
      const redisUrl = process.env.TEST_REDIS_URL!;
      const keyPrefix = uniquePrefix();
      const env = { REDIS_URL: redisUrl, RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '3', RATE_LIMIT_SIGNIN_IP_PER_MIN: '5' };
      // As in test/ratelimit/redis.test.ts: a long store timeout, so that a stall of a loaded
      // machine cannot move a count to the per-process fallback and split the shared one.
      const sharedLimiter = () =>
        createRateLimiter({
          limits: { preauth: 1_000_000, read: 1_000_000, write: 1_000_000, signin_account: 3, signin_ip: 5 },
          redisUrl,
          keyPrefix,
          storeTimeoutMs: 10_000,
          logger: pino({ level: 'silent' }),
        });
      a = await createTestApp({ env, appOptions: { rateLimiter: sharedLimiter() } });
      b = await createTestApp({ env, database: a.database, appOptions: { rateLimiter: sharedLimiter() } });
      org = await a.createOrganizer();
    });
    after(async () => {
      await b.close();
      await a.close();
    });

    test('per address: 2 on A and 1 on B, then the 4th is refused on either', async () => {
      const user = await a.createUser({ organizerId: org.id, role: 'owner' });
      assert.equal((await signIn(a, user.email, user.password, '198.51.100.101')).statusCode, 201);
      assert.equal((await signIn(a, user.email, 'not the password at all', '198.51.100.102')).statusCode, 401);
      assert.equal((await signIn(b, user.email, user.password, '198.51.100.103')).statusCode, 201);
      assert429(await signIn(b, user.email, user.password, '198.51.100.104'), 'signin_account', 3, ACCOUNT_DETAIL(3));
      assert429(await signIn(a, user.email, user.password, '198.51.100.105'), 'signin_account', 3, ACCOUNT_DETAIL(3));
    });

    test('per IP: 5 from one IP across both instances, the 6th refused', async () => {
      const ip = '198.51.100.200';
      const answers = [];
      for (let i = 0; i < 5; i++)
        answers.push((await signIn(i % 2 === 0 ? a : b, `ip-${i}@example.com`, 'not the password', ip)).statusCode);
      assert.deepEqual(answers, [401, 401, 401, 401, 401]);
      assert429(await signIn(b, 'ip-5@example.com', 'not the password', ip), 'signin_ip', 5, IP_DETAIL(5));
      assert429(await signIn(a, 'ip-6@example.com', 'not the password', ip), 'signin_ip', 5, IP_DETAIL(5));
    });
  },
);
