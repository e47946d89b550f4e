/**
 * The least a read that follows the API's rules can do on Fastify, for the reads scenario:
 * in its own process, answering GET /v1/events/:id with the same bytes (body and
 * content-type) Marquee answered, and doing per request what every Marquee read must:
 * a pino logger (at warn, as the bench runs Marquee) with a child per request, a random
 * UUID request id, the request id and CORS headers, a per-IP and a per-key fixed-window
 * count with the RateLimit headers of the key's bucket, the bearer key's SHA-256 looked
 * up in a Map, and the path's id validated as a UUID. All of it in one hook, with no
 * database, cache expiry, audit or idempotency layer: what Marquee could reach if its own
 * code cost nothing. argv: <file with the body> <content-type> <the API key>. Prints
 * "listening <port>".
 */
import { hash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pino from 'pino';

const body = readFileSync(process.argv[2]!);
const contentType = process.argv[3] ?? 'application/json; charset=utf-8';
const keyHash = hash('sha256', process.argv[4] ?? '', 'base64');
const LIMIT = 10_000_000;
const WINDOW_MS = 60_000;
const EXPOSED = 'x-request-id, retry-after, idempotent-replayed, ratelimit, ratelimit-policy';

const windows = new Map<string, { endsAt: number; count: number }>();
function hit(key: string, now: number): { endsAt: number; count: number } {
  let window = windows.get(key);
  if (window === undefined || window.endsAt <= now) windows.set(key, (window = { endsAt: now + WINDOW_MS, count: 0 }));
  window.count++;
  return window;
}

const keys = new Map([[keyHash, { organizerId: randomUUID(), scopes: ['read', 'write'] }]]);
const app = Fastify({ loggerInstance: pino({ level: 'warn' }), genReqId: () => randomUUID() });
app.addHook('onRequest', (request, reply, done) => {
  reply.header('x-request-id', request.id);
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', EXPOSED);
  const now = Date.now();
  if (hit(request.ip, now).count > LIMIT) return done(new Error('rate limited'));
  const token = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
  const auth = token === undefined ? undefined : keys.get(hash('sha256', token, 'base64'));
  if (auth === undefined || !auth.scopes.includes('read')) return done(new Error('unauthorized'));
  const window = hit(auth.organizerId, now);
  reply.header('ratelimit-policy', `"read";q=${LIMIT};w=60`);
  reply.header('ratelimit', `"read";r=${LIMIT - window.count};t=${Math.ceil((window.endsAt - now) / 1000)}`);
  done();
});
const params = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
app.get('/v1/events/:id', { schema: { params } }, (_request, reply) => {
  reply.type(contentType).send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${new URL(address).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
