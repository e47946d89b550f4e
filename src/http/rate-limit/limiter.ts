/**
 * Rate-limiting engine (docs/rate-limits.md).
 *
 * Fixed one-minute windows per bucket and key. Counters live in process memory
 * (./fixed-window.ts, synchronous), or in Redis (rate-limiter-flexible) when a URL is
 * given so several API instances share one count per key.
 * A Redis outage degrades the limits, never disables them: while Redis is not ready, fails
 * a command or is slower than the command timeout, every bucket (pre-auth included) is
 * counted by per-process counters, the same ones the memory limiter uses, so each instance
 * enforces the limits on its own; the shared counts resume when Redis answers again. The
 * outage is logged once when it starts and once when it ends (docs/rate-limits.md).
 *
 * This module only decides; the HTTP wiring (which bucket, which key, the 429 body)
 * lives with the Fastify hooks.
 */
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { connectFailFastRedis } from '../../lib/fail-fast-redis.ts';
import { FixedWindowCounters } from './fixed-window.ts';

/**
 * `preauth` per client IP, `read`/`write` per API key or signed-in user, and the two
 * sign-in buckets of the dashboard: per e-mail address and per client IP (docs/dashboard.md).
 */
export type RateLimitBucket = 'preauth' | 'read' | 'write' | 'signin_account' | 'signin_ip';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window, never below 0. */
  remaining: number;
  /** Whole seconds until the current window ends, 0..60. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** The decision at once (in-process counters) or once the shared store answered (Redis). */
  consume(bucket: RateLimitBucket, key: string): RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Only where decisions are synchronous (the in-process counters): counts every hit if
   * every one would be allowed and returns their decisions, else counts none and returns
   * undefined. For a caller that hands a request it cannot answer to a path that counts it.
   */
  consumeAllOrNone?(hits: readonly RateLimitHit[]): RateLimitDecision[] | undefined;
  close(): Promise<void>;
}

/** One count: a bucket and the key counted in it. */
type RateLimitHit = readonly [bucket: RateLimitBucket, key: string];

interface RateLimiterOptions {
  limits: Record<RateLimitBucket, number>;
  /** Unset: in-process counters. Set: counters shared through this Redis. */
  redisUrl?: string;
  logger: { warn(obj: object, msg: string): void; info?(...a: unknown[]): void };
  /** Namespace of the Redis keys; default 'marquee:rl'. */
  keyPrefix?: string;
  /**
   * How long a request waits for Redis (the first connection, then each command) before it
   * is counted in-process; default 500 ms. Tests on a loaded machine raise it.
   */
  storeTimeoutMs?: number;
}

const RATE_LIMIT_WINDOW_SECONDS = 60;

const BUCKETS: readonly RateLimitBucket[] = ['preauth', 'read', 'write', 'signin_account', 'signin_ip'];

/**
 * A slow Redis must not slow requests down: past this, the request is counted in-process.
 * The first requests wait as long for the initial connection.
 */
const DEFAULT_STORE_TIMEOUT_MS = 500;
/**
 * During an outage on a connection that still looks open (no reply, no reset), at most one
 * request per this interval tries Redis; the others are counted in-process at once.
 */
const OUTAGE_PROBE_INTERVAL_MS = 1_000;

export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  for (const bucket of BUCKETS) {
    const limit = opts.limits[bucket];
    if (!Number.isInteger(limit) || limit < 1) {
      throw new Error(`rate limit for bucket "${bucket}" must be a positive integer, got ${limit}`);
    }
  }
  const keyPrefix = opts.keyPrefix ?? 'marquee:rl';
  return opts.redisUrl ? createRedisRateLimiter(opts, opts.redisUrl, keyPrefix) : createMemoryRateLimiter(opts);
}

function createMemoryRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const counters = perBucket(opts.limits, () => new FixedWindowCounters(RATE_LIMIT_WINDOW_SECONDS * 1000));
  // Synchronous: nothing to await, and the memory store cannot fail.
  const consume = (bucket: RateLimitBucket, key: string, now = Date.now()): RateLimitDecision => {
    const limit = opts.limits[bucket];
    const { count, msLeft } = forBucket(counters, bucket).hit(key, now);
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: toResetSeconds(msLeft),
    };
  };
  return {
    consume,
    consumeAllOrNone(hits) {
      const now = Date.now();
      for (const [bucket, key] of hits)
        if (forBucket(counters, bucket).peek(key, now) > opts.limits[bucket]) return undefined;
      return hits.map(([bucket, key]) => consume(bucket, key, now));
    },
    close: async () => {},
  };
}

function createRedisRateLimiter(opts: RateLimiterOptions, redisUrl: string, keyPrefix: string): RateLimiter {
  const storeTimeoutMs = opts.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const { client, firstConnection } = connectFailFastRedis(redisUrl, 'marquee-rate-limit', storeTimeoutMs);
  const health = storeHealth(opts.logger);
  // Per-process counters for every bucket while Redis is away (insuranceLimiter of
  // rate-limiter-flexible would do the same, but hides the store error we log the outage by).
  const perProcess = createMemoryRateLimiter(opts);
  let closed = false;
  // Without an 'error' listener ioredis prints every failed reconnect to stderr.
  client.on('error', (err: Error) => {
    if (!closed) health.unreachable(err);
  });
  // A successful consume also counts as recovery; 'ready' logs it even before the next request.
  client.on('ready', () => health.reachable());

  // One client shared by the three buckets; each bucket has its own key namespace.
  const limiters = perBucket(
    opts.limits,
    (bucket, points) =>
      new RateLimiterRedis({
        storeClient: client,
        points,
        duration: RATE_LIMIT_WINDOW_SECONDS,
        keyPrefix: `${keyPrefix}:${bucket}`,
        // Fail fast (to the per-process counters) while reconnecting, not on a half-open client.
        rejectIfRedisNotReady: true,
      }),
  );

  return {
    async consume(bucket, key) {
      const limiter = forBucket(limiters, bucket);
      const limit = opts.limits[bucket];
      await firstConnection;
      if (client.status !== 'ready') {
        // Disconnected or reconnecting: ioredis's 'error' may not have come yet.
        if (!closed) health.unreachable(new Error(`redis connection is ${client.status}`));
        return perProcess.consume(bucket, key);
      }
      if (!health.mayTry()) return perProcess.consume(bucket, key);
      try {
        const decision = await consumeOne(limiter, limit, key);
        health.reachable();
        return decision;
      } catch (storeError) {
        if (!closed) health.unreachable(storeError);
        return perProcess.consume(bucket, key);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (client.status === 'ready') {
        await client.quit().catch(() => client.disconnect());
      } else {
        // Not connected: quit() would fail; disconnect() also stops the reconnect loop.
        client.disconnect();
      }
    },
  };
}

/**
 * Consumes one point in Redis. Resolves with the decision for both outcomes; rejects only
 * with a store error. rate-limiter-flexible rejects with a RateLimiterRes when the limit
 * is exceeded and with an Error when the store fails; only the first is a denial.
 *
 * A denied request still increments the counter, but the window does not move: Redis
 * sets the TTL only when the key is created (blockDuration stays 0, so nothing prolongs
 * it either), as the in-process counters do.
 */
async function consumeOne(limiter: RateLimiterAbstract, limit: number, key: string): Promise<RateLimitDecision> {
  try {
    const res = await limiter.consume(key);
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: toResetSeconds(res.msBeforeNext),
    };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { allowed: false, limit, remaining: 0, resetSeconds: toResetSeconds(rejection.msBeforeNext) };
    }
    throw rejection;
  }
}

function toResetSeconds(msBeforeNext: number): number {
  return Math.min(RATE_LIMIT_WINDOW_SECONDS, Math.max(0, Math.ceil(msBeforeNext / 1000)));
}

/**
 * Whether Redis is in use, and the outage log: once when it starts and once when it ends,
 * not per request. During an outage, mayTry() lets one request per probe interval try
 * Redis (a silent connection would otherwise cost every request the command timeout).
 */
function storeHealth(logger: RateLimiterOptions['logger']) {
  let isReachable = true;
  let nextProbeAt = 0;
  return {
    mayTry(): boolean {
      if (isReachable) return true;
      const now = Date.now();
      if (now < nextProbeAt) return false;
      nextProbeAt = now + OUTAGE_PROBE_INTERVAL_MS;
      return true;
    },
    unreachable(err: unknown) {
      nextProbeAt = Date.now() + OUTAGE_PROBE_INTERVAL_MS;
      if (!isReachable) return;
      isReachable = false;
      logger.warn({ err, store: 'redis' }, RATE_LIMIT_STORE_MESSAGES.unreachable);
    },
    reachable() {
      if (isReachable) return;
      isReachable = true;
      logger.info?.({ store: 'redis' }, RATE_LIMIT_STORE_MESSAGES.reachable);
    },
  };
}

/** The two log lines of a rate-limit store outage (operators alert on them). */
export const RATE_LIMIT_STORE_MESSAGES = {
  unreachable: 'rate limit store unreachable; enforcing per-process limits',
  reachable: 'rate limit store reachable again; enforcing shared limits',
} as const;

function perBucket<T>(
  limits: Record<RateLimitBucket, number>,
  build: (bucket: RateLimitBucket, points: number) => T,
): Record<RateLimitBucket, T> {
  return Object.fromEntries(BUCKETS.map((bucket) => [bucket, build(bucket, limits[bucket])])) as Record<
    RateLimitBucket,
    T
  >;
}

function forBucket<T>(perBucketValues: Record<RateLimitBucket, T>, bucket: RateLimitBucket): T {
  // Guards plain-JS callers: an unknown bucket is a programming error, not a store outage.
  if (!Object.hasOwn(perBucketValues, bucket)) throw new Error(`unknown rate limit bucket "${bucket}"`);
  return perBucketValues[bucket];
}

/**
 * Response headers for a decision, in the structured-field form of
 * draft-ietf-httpapi-ratelimit-headers-10 (September 2025), sections 3 and 4:
 *   ratelimit-policy: "<bucket>";q=<limit>;w=<window>
 *   ratelimit:        "<bucket>";r=<remaining>;t=<reset seconds>
 * plus `retry-after: 60` on a denial (docs/rate-limits.md: "an exceeded limit answers 429 with
 * retry-after: 60"). Retry-After equals the window, so it is never earlier than t,
 * as the draft (section 6) asks. Names are lower case, as Fastify stores them.
 */
export function rateLimitHeaders(
  bucket: RateLimitBucket,
  decision: RateLimitDecision,
  windowSeconds: number = RATE_LIMIT_WINDOW_SECONDS,
): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': rateLimitPolicy(bucket, decision.limit, windowSeconds),
    ratelimit: rateLimitState(bucket, decision),
  };
  if (!decision.allowed) headers['retry-after'] = String(windowSeconds);
  return headers;
}

/** The `ratelimit-policy` value: the bucket, its limit and its window. */
export function rateLimitPolicy(
  bucket: RateLimitBucket,
  limit: number,
  windowSeconds: number = RATE_LIMIT_WINDOW_SECONDS,
): string {
  return `"${bucket}";q=${limit};w=${windowSeconds}`;
}

/** The `ratelimit` value: what is left of the current window and when it ends. */
export function rateLimitState(bucket: RateLimitBucket, decision: RateLimitDecision): string {
  return `"${bucket}";r=${decision.remaining};t=${decision.resetSeconds}`;
}
