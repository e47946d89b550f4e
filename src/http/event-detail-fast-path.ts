/**
 * The event detail's fast path (docs/catalog.md, "Reading an event fast"): a
 * `GET /v1/events/{id}` whose every step is already decided in process memory is
 * answered in front of Fastify's router, with the very bytes and headers the route
 * answers a cache hit with. Everything else goes to Fastify, untouched and uncounted.
 *
 * A request is answered here only when all of these hold, each read from the state the
 * route itself reads, never a copy of it:
 * - `GET` of exactly `/v1/events/<36 characters>` (no query string, no trailing slash);
 * - the service is not draining (nor closing: app.ts then turns the path off) and an
 *   HTTP/1.1 request carries its Host;
 * - the bearer key is in the auth cache, valid, with the `read` scope;
 * - the event's serialized body is in the event-detail cache for the key's organizer (an
 *   id is cached only after the route validated it);
 * - the rate limiter decides in-process and both counts the route makes (pre-auth per
 *   client IP, read per key) would be allowed: then both are counted, and the answer
 *   carries the read bucket's headers, as the route's does.
 * A key or event the caches do not hold, a refusal (401, 403, 404, 429), shared counters
 * in Redis, or request lines in the log (Fastify writes them from `info` down) leave the
 * request to Fastify, which answers it as it always does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { cachedAuthentication, type ApiKeyCache } from '../domain/auth/api-keys.ts';
import type { Clock } from '../lib/clock.ts';
import { cachedReads } from '../metrics/registry.ts';
import { EVENT_DETAIL_CONTENT_TYPE, type EventDetailCache } from './event-detail-cache.ts';
import { bearerTokenOf, presentedKeysOf } from './plugins/api-key-auth.ts';
import { rateLimitPolicy, rateLimitState, type RateLimiter } from './rate-limit/limiter.ts';
import { conventionHeaders, requestIdOf } from './response-conventions.ts';
import type { ShutdownState } from './shutdown-state.ts';

const EVENT_PATH_PREFIX = '/v1/events/';
const EVENT_PATH_LENGTH = EVENT_PATH_PREFIX.length + 36;

interface EventDetailFastPathDeps {
  apiKeys: ApiKeyCache;
  eventDetails: EventDetailCache;
  rateLimiter: RateLimiter;
  shutdown: ShutdownState;
  clock: Clock;
  /** TRUST_PROXY: the client IP is the leftmost X-Forwarded-For address, as Fastify's request.ip. */
  trustProxy: boolean;
  /** The route's request-duration observer when metrics are served (request-metrics.ts). */
  observe?: (seconds: number) => void;
}

/**
 * Answers the request and returns true, or returns false having counted and written
 * nothing (its cache lookups drop an expired entry, as the route's own would).
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

const trustEveryProxy = () => true;

function clientIpOf(req: IncomingMessage, trustProxy: boolean): string | undefined {
  if (!trustProxy) return req.socket.remoteAddress;
  const addresses = proxyAddr.all(req, trustEveryProxy);
  return addresses[addresses.length - 1];
}

/** The fast path, or undefined where the limiter cannot decide in-process (Redis). */
export function eventDetailFastPath(deps: EventDetailFastPathDeps): FastPath | undefined {
  const consumeAllOrNone = deps.rateLimiter.consumeAllOrNone?.bind(deps.rateLimiter);
  if (consumeAllOrNone === undefined) return undefined;
  const { apiKeys, eventDetails, shutdown, clock, trustProxy, observe } = deps;
  return (req, res) => {
    const started = observe && performance.now();
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || url.length !== EVENT_PATH_LENGTH) return false;
    if (!url.startsWith(EVENT_PATH_PREFIX) || shutdown.draining) return false;
    if (req.headers.host === undefined && req.httpVersion === '1.1') return false;
    const token = bearerTokenOf(req.headers.authorization);
    if (token === undefined) return false;
    const auth = cachedAuthentication(token, clock.now(), apiKeys, presentedKeysOf(req.socket));
    if (auth?.apiKeyId == null || !auth.scopes.includes('read')) return false;
    const cached = eventDetails.get(url.slice(EVENT_PATH_PREFIX.length));
    if (cached?.organizerId !== auth.organizerId) return false;
    const ip = clientIpOf(req, trustProxy);
    if (ip === undefined) return false;
    const decisions = consumeAllOrNone([
      ['preauth', ip],
      ['read', auth.apiKeyId],
    ]);
    if (decisions === undefined) return false;
    const read = decisions[1]!;
    // The route's headers in the route's order (response-conventions.ts, plugins/rate-limit.ts).
    const headers = conventionHeaders(requestIdOf(req));
    headers.push(
      'ratelimit-policy',
      rateLimitPolicy('read', read.limit),
      'ratelimit',
      rateLimitState('read', read),
      'content-type',
      EVENT_DETAIL_CONTENT_TYPE,
      'content-length',
      String(cached.body.length),
    );
    res.writeHead(200, headers);
    res.end(cached.body);
    cachedReads.inc();
    if (observe) res.once('finish', () => observe((performance.now() - started!) / 1000));
    return true;
  };
}
