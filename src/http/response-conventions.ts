/**
 * The headers every response carries, errors included: the request id and the two
 * static CORS headers (any origin, no credentials). Set by the root onRequest hook, by
 * the routing-error handler (which runs before any hook), and written by hand on the raw
 * responses to requests Node's HTTP parser refused (client-errors.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Headers browser callers may read (the OpenAPI document, CORS), plus the rate-limit pacing headers. */
export const EXPOSED_HEADERS_VALUE = [
  'x-request-id',
  'retry-after',
  'idempotent-replayed',
  'ratelimit',
  'ratelimit-policy',
].join(', ');

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's well-formed request id (so it can correlate), else mints one. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}

/**
 * The conventional headers as a flat list (name, value, name, value…), the form Node's
 * `writeHead` takes without walking an object's keys.
 */
export function conventionHeaders(requestId: string): string[] {
  return [
    'x-request-id',
    requestId,
    'access-control-allow-origin',
    '*',
    'access-control-expose-headers',
    EXPOSED_HEADERS_VALUE,
  ];
}

export function setResponseConventions(reply: FastifyReply, requestId: string): void {
  reply.header('x-request-id', requestId);
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', EXPOSED_HEADERS_VALUE);
}
