/**
 * Rate limits on the HTTP side (spec: Limits; operations.md section 2; docs/rate-limits.md).
 *
 * Two hooks over the engine of ../rate-limit/limiter.ts:
 * - preauthRateLimit: a root onRequest hook, before any authentication, counting every
 *   request per client IP (request.ip, which honours TRUST_PROXY): valid or not, /v1,
 *   /admin/v1, the docs and unknown paths alike. Only the health probes are exempt.
 * - apiKeyRateLimit: an onRequest hook of the /v1 scope, after apiKeyAuth, counting per
 *   API key id (never the secret) in the read bucket (GET, HEAD) or the write bucket
 *   (POST, PATCH, DELETE). The admin API has no per-key limit.
 *
 * Both stamp the `ratelimit-policy`/`ratelimit` headers of their bucket on the response
 * (the per-key bucket replaces the pre-auth one on authenticated /v1 responses), and an
 * exceeded limit throws a 429 problem with `retry-after: 60` from onRequest, so the
 * request never reaches validation, the idempotency layer or the handler.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { rateLimitHeaders, type RateLimitBucket } from '../rate-limit/limiter.ts';

/** Liveness/readiness probes come from the load balancer every few seconds: never counted. */
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz']);

const DENIAL_DETAIL: Record<RateLimitBucket, (limit: number) => string> = {
  preauth: (limit) => `Rate limit exceeded: at most ${limit} requests per minute from one client IP address. Retry after 60 seconds.`,
  read: (limit) => `Rate limit exceeded: at most ${limit} read requests (GET) per minute per API key. Retry after 60 seconds.`,
  write: (limit) =>
    `Rate limit exceeded: at most ${limit} write requests (POST, PATCH, DELETE) per minute per API key. Retry after 60 seconds.`,
};

export function bucketOf(method: string): RateLimitBucket {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

async function enforce(request: FastifyRequest, reply: FastifyReply, bucket: RateLimitBucket, key: string): Promise<void> {
  const decision = await request.server.deps.rateLimiter.consume(bucket, key);
  const headers = rateLimitHeaders(bucket, decision);
  if (!decision.allowed) {
    request.log.info({ bucket, limit: decision.limit }, 'rate limit exceeded');
    // The error handler sends the problem with these headers (retry-after: 60 included).
    throw new ApiError(429, DENIAL_DETAIL[bucket](decision.limit), headers);
  }
  reply.headers(headers);
}

/** Root onRequest hook: every request, per client IP. */
export async function preauthRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.routeOptions.url !== undefined && EXEMPT_ROUTES.has(request.routeOptions.url)) return;
  await enforce(request, reply, 'preauth', request.ip);
}

/** /v1 onRequest hook, after apiKeyAuth: per API key id, read or write bucket. */
export async function apiKeyRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const auth = request.auth;
  if (!auth) return; // apiKeyAuth throws before us; nothing to count a key against.
  await enforce(request, reply, bucketOf(request.method), auth.apiKeyId);
}
