/**
 * Rate limits on the HTTP side (docs/rate-limits.md; settings in README, Configuration).
 *
 * Two hooks over the engine of ../rate-limit/limiter.ts:
 * - preauthRateLimit: a root onRequest hook, before any authentication, counting every
 *   request per client IP (request.ip, which honours TRUST_PROXY): valid or not, /v1,
 *   /admin/v1, the docs and unknown paths alike. Only the health probes are exempt.
 * - callerRateLimit: an onRequest hook of the /v1 scope, after apiKeyAuth (and of the
 *   /dashboard/v1 scope, after the session's checks, per signed-in user), counting per
 *   API key id (never the secret) in the read bucket (GET, HEAD) or the write bucket
 *   (POST, PATCH, DELETE). The admin API has no per-key limit.
 *
 * Both stamp the `ratelimit-policy`/`ratelimit` headers of their bucket on the response
 * (the per-key bucket replaces the pre-auth one on authenticated /v1 responses), and an
 * exceeded limit throws a 429 problem with `retry-after: 60` from onRequest, so the
 * request never reaches validation, the idempotency layer or the handler.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import { rateLimitRefusals } from '../../metrics/registry.ts';
import { ApiError } from '../errors.ts';
import {
  rateLimitHeaders,
  type RateLimitBucket,
  type RateLimitDecision,
  type RateLimiter,
} from '../rate-limit/limiter.ts';

/** Liveness/readiness probes come from the load balancer every few seconds: never counted. */
const EXEMPT_PATHS = new Set(['/healthz', '/readyz']);

const DENIAL_DETAIL: Record<RateLimitBucket, (limit: number) => string> = {
  preauth: (limit) =>
    `Rate limit exceeded: at most ${limit} requests per minute from one client IP address. Retry after 60 seconds.`,
  read: (limit) =>
    `Rate limit exceeded: at most ${limit} read requests (GET) per minute per API key. Retry after 60 seconds.`,
  write: (limit) =>
    `Rate limit exceeded: at most ${limit} write requests (POST, PATCH, DELETE) per minute per API key. Retry after 60 seconds.`,
  signin_account: (limit) =>
    `Too many sign-in attempts: at most ${limit} per minute for one e-mail address. Retry after 60 seconds.`,
  signin_ip: (limit) =>
    `Too many sign-in attempts: at most ${limit} per minute from one client IP address. Retry after 60 seconds.`,
};

/** The 429 detail of a sign-in bucket (docs/dashboard.md, "Sign-in failures"). */
export function signInDenialDetail(bucket: RateLimitBucket, limit: number): string {
  return DENIAL_DETAIL[bucket](limit);
}

function bucketOf(method: string): RateLimitBucket {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/**
 * Counts the request and stamps the bucket's headers, or fails it with the 429. A
 * callback hook rather than an async one: with in-process counters the decision is
 * synchronous, and the request goes on without a promise or a microtask turn.
 */
function enforce(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateLimitBucket,
  key: string,
  done: HookHandlerDoneFunction,
): void {
  const decision = limiter.consume(bucket, key);
  if (decision instanceof Promise) decision.then((d) => apply(request, reply, bucket, d, done), done);
  else apply(request, reply, bucket, decision, done);
}

function apply(
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateLimitBucket,
  decision: RateLimitDecision,
  done: HookHandlerDoneFunction,
): void {
  const headers = rateLimitHeaders(bucket, decision);
  if (!decision.allowed) {
    request.log.info({ bucket, limit: decision.limit }, 'rate limit exceeded');
    rateLimitRefusals.inc({ bucket });
    // The error handler sends the problem with these headers (retry-after: 60 included).
    done(new ApiError('rate_limited', DENIAL_DETAIL[bucket](decision.limit), headers));
    return;
  }
  reply.headers(headers);
  done();
}

/** The root onRequest hook: every request, per client IP. */
export function preauthRateLimit(limiter: RateLimiter): onRequestHookHandler {
  return (request, reply, done) => {
    // CORS preflights (the API's only OPTIONS requests) are not counted, nor are the probes.
    if (request.method === 'OPTIONS' || isProbe(request.url)) return done();
    enforce(limiter, request, reply, 'preauth', request.ip, done);
  };
}

/** The /v1 and /dashboard/v1 onRequest hook, after authentication: per API key id or user, read or write bucket. */
export function callerRateLimit(limiter: RateLimiter): onRequestHookHandler {
  return (request, reply, done) => {
    const auth = request.auth;
    if (!auth) return done(); // Authentication fails before us; nothing to count a key against.
    enforce(limiter, request, reply, bucketOf(request.method), auth.apiKeyId ?? `user:${auth.userId}`, done);
  };
}

/** The health probes, by path (query string ignored); cheaper than the routeOptions getter. */
function isProbe(url: string): boolean {
  const query = url.indexOf('?');
  return EXEMPT_PATHS.has(query === -1 ? url : url.slice(0, query));
}
