/**
 * The least a read that follows the API's rules can do on Fastify, for the reads scenario:
 * in its own process, answering GET /v1/events/:id with the same bytes (body and
 * content-type) Marquee answered, and doing per request what every Marquee read must:
 * a pino logger (at warn, as the bench runs Marquee) with a child per request, a random
 * UUID request id, the request id and CORS headers, a per-IP and a per-key fixed-window
 * count with the RateLimit headers of the key's bucket, the bearer key's SHA-256 (the
 * one-shot hash the auth cache is keyed by) looked up in a Map, and the path's id
 * validated as a UUID. All of it in one hook, with no database, cache expiry, audit or
 * idempotency layer: what Marquee could reach if its own code cost nothing.
 * argv: <file with the body> <content-type> <the API key>. Prints "listening <port>".
 *
 * LEAN_WITHOUT (comma-separated) leaves rules out, to price each one (../instructions.ts):
 * `logging` (no logger), `request-id` (a fixed id instead of a random UUID), `headers`
 * (none of the five headers), `rate-limit` (no counting), `key-hash` (the key's hash
 * taken once at start, not per request), `id-validation` (no params schema).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pino from 'pino';
import { apiKeyCacheKey } from '../../src/domain/auth/api-keys.ts';
import { bearerToken } from '../../src/http/plugins/api-key-auth.ts';
import { FixedWindowCounters } from '../../src/http/rate-limit/fixed-window.ts';
import { EXPOSED_HEADERS_VALUE } from '../../src/http/response-conventions.ts';

const body = readFileSync(process.argv[2]!);
const contentType = process.argv[3] ?? 'application/json; charset=utf-8';
const keyHash = apiKeyCacheKey(process.argv[4] ?? '');
const LIMIT = 10_000_000;
const WINDOW_MS = 60_000;

// The project's own pieces where a read uses them: the in-process counters (Marquee without
// Redis), the key's hash as the auth cache looks it up, the bearer token's parsing, the
// exposed headers.
const counters = new FixedWindowCounters(WINDOW_MS);

const keys = new Map([[keyHash, { organizerId: randomUUID(), scopes: ['read', 'write'] }]]);
const without = new Set((process.env.LEAN_WITHOUT ?? '').split(',').filter(Boolean));
const headers = !without.has('headers');
const rateLimit = !without.has('rate-limit');
const hashKey = without.has('key-hash') ? () => keyHash : apiKeyCacheKey;
const noWindow = { count: 0, msLeft: WINDOW_MS };

const app = Fastify({
  ...(without.has('logging') ? { logger: false } : { loggerInstance: pino({ level: 'warn' }) }),
  genReqId: without.has('request-id') ? () => '00000000-0000-4000-8000-000000000000' : () => randomUUID(),
});
app.addHook('onRequest', (request, reply, done) => {
  if (headers) {
    reply.header('x-request-id', request.id);
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', EXPOSED_HEADERS_VALUE);
  }
  const now = Date.now();
  if (rateLimit && counters.hit(request.ip, now).count > LIMIT) return done(new Error('rate limited'));
  const token = bearerToken(request);
  const auth = token === undefined ? undefined : keys.get(hashKey(token));
  if (auth === undefined || !auth.scopes.includes('read')) return done(new Error('unauthorized'));
  const window = rateLimit ? counters.hit(auth.organizerId, now) : noWindow;
  if (headers) {
    reply.header('ratelimit-policy', `"read";q=${LIMIT};w=60`);
    reply.header('ratelimit', `"read";r=${LIMIT - window.count};t=${Math.ceil(window.msLeft / 1000)}`);
  }
  done();
});
const params = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
const routeSchema = without.has('id-validation') ? {} : { schema: { params } };
app.get('/v1/events/:id', routeSchema, (_request, reply) => {
  reply.type(contentType).send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${new URL(address).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
