/**
 * Rate limits on the HTTP side (docs/rate-limits.md; settings in README, Configuration).
 *
 * Two hooks over the engine of ../rate-limit/limiter.ts:
 * - registerPreauthRateLimit: a root onRequest hook, before any authentication, counting every
 *   request per client IP (request.ip, which honours TRUST_PROXY): valid or not, /v1,
 *   /admin/v1, the docs and unknown paths alike. Only the health probes are exempt.
 * - callerRateLimit: an onRequest hook of the /v1 scope, after apiKeyAuth (and of the
 *   /dashboard/v1 scope, after the session's checks, per signed-in user), counting per
 *   API key id (never the secret) in the read bucket (GET, HEAD) or the write bucket
 *   (POST, PATCH, DELETE). The admin API has no per-key limit.
 *
 * A response carries the `ratelimit-policy`/`ratelimit` headers of one bucket, stamped
 * once: the per-caller bucket's where a caller was counted, else the pre-auth bucket's.
 * Scopes whose routes count per caller say so with limitsPerCaller(); there the pre-auth
 * hook only keeps its decision, and the caller hook stamps its own, or, when the request
 * fails before it (no key, a wrong scope, no session), stampPendingPreauthLimit() does
 * from the error handler. An exceeded limit throws a 429 problem with `retry-after: 60`
 * from onRequest, so the request never reaches validation, the idempotency layer or the
 * handler.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import { rateLimitRefusals } from '../../metrics/registry.ts';
import { ApiError } from '../errors.ts';
import {
  rateLimitHeaders,
  rateLimitPolicy,
  rateLimitState,
  type RateLimitBucket,
  type RateLimitDecision,
  type RateLimiter,
} from '../rate-limit/limiter.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set (true) on the requests of a scope whose routes count per caller: see limitsPerCaller. */
    readonly limitedPerCaller?: true;
    /** The pre-auth decision not stamped yet (a per-caller scope's request before its caller hook). */
    pendingPreauthLimit: RateLimitDecision | undefined;
  }
}

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

/**
 * Counts the request, then passes the allowed decision on (to stamp it, or keep it), or
 * fails the request with the 429. A callback hook rather than an async one: with
 * in-process counters the decision is synchronous, and the request goes on without a
 * promise or a microtask turn.
 */
function enforce(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateLimitBucket,
  key: string,
  allowed: (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => void,
  done: HookHandlerDoneFunction,
): void {
  const decision = limiter.consume(bucket, key);
  if (decision instanceof Promise) decision.then((d) => settle(request, reply, bucket, d, allowed, done), done);
  else settle(request, reply, bucket, decision, allowed, done);
}

function settle(
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateLimitBucket,
  decision: RateLimitDecision,
  allowed: (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => void,
  done: HookHandlerDoneFunction,
): void {
  if (!decision.allowed) {
    request.log.info({ bucket, limit: decision.limit }, 'rate limit exceeded');
    rateLimitRefusals.inc({ bucket });
    // The error handler sends the problem with these headers (retry-after: 60 included).
    done(new ApiError('rate_limited', DENIAL_DETAIL[bucket](decision.limit), rateLimitHeaders(bucket, decision)));
    return;
  }
  allowed(request, reply, decision);
  done();
}

/** The two headers of an allowed request's bucket. */
function stamp(reply: FastifyReply, bucket: RateLimitBucket, decision: RateLimitDecision): void {
  reply.header('ratelimit-policy', rateLimitPolicy(bucket, decision.limit));
  reply.header('ratelimit', rateLimitState(bucket, decision));
}

function stampOrKeepPreauth(request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision): void {
  if (request.limitedPerCaller) request.pendingPreauthLimit = decision;
  else stamp(reply, 'preauth', decision);
}

function stampCaller(bucket: RateLimitBucket) {
  return (_request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => stamp(reply, bucket, decision);
}
const stampRead = stampCaller('read');
const stampWrite = stampCaller('write');

/**
 * The root onRequest hook: every request, per client IP. Registers the request field it
 * keeps a per-caller scope's decision in.
 */
export function registerPreauthRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.decorateRequest('pendingPreauthLimit', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    // CORS preflights (the API's only OPTIONS requests) are not counted, nor are the probes.
    if (request.method === 'OPTIONS' || isProbe(request.url)) return done();
    enforce(limiter, request, reply, 'preauth', request.ip, stampOrKeepPreauth, done);
  });
}

/**
 * Marks a scope whose every route runs callerRateLimit: the pre-auth decision of its
 * requests waits for the caller's bucket instead of being stamped and then overwritten.
 * A request decoration is per scope (Fastify encapsulates them), so the root hook reads
 * it from the request's own prototype, with no route lookup.
 */
export function limitsPerCaller(scope: FastifyInstance): void {
  scope.decorateRequest('limitedPerCaller', true);
}

/**
 * The pre-auth headers of a request answered before its caller was counted (the error
 * handler calls it; a no-op once anything was stamped).
 */
export function stampPendingPreauthLimit(request: FastifyRequest, reply: FastifyReply): void {
  const pending = request.pendingPreauthLimit;
  if (pending === undefined) return;
  request.pendingPreauthLimit = undefined;
  stamp(reply, 'preauth', pending);
}

/** The /v1 and /dashboard/v1 onRequest hook, after authentication: per API key id or user, read or write bucket. */
export function callerRateLimit(limiter: RateLimiter): onRequestHookHandler {
  return (request, reply, done) => {
    const auth = request.auth;
    if (!auth) {
      // Nothing to count a caller against (a public route of the scope): the pre-auth bucket answers.
      stampPendingPreauthLimit(request, reply);
      return done();
    }
    request.pendingPreauthLimit = undefined;
    const key = auth.apiKeyId ?? `user:${auth.userId}`;
    if (request.method === 'GET' || request.method === 'HEAD')
      enforce(limiter, request, reply, 'read', key, stampRead, done);
    else enforce(limiter, request, reply, 'write', key, stampWrite, done);
  };
}

/** The health probes, by path (query string ignored); cheaper than the routeOptions getter. */
function isProbe(url: string): boolean {
  const query = url.indexOf('?');
  return EXEMPT_PATHS.has(query === -1 ? url : url.slice(0, query));
}
