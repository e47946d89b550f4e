/**
 * Request counts and latencies for the metrics endpoint (docs/operations.md, "Metrics"),
 * labelled with the route's pattern (`/v1/orders/:id`), never the raw URL, so the series
 * stay few whatever clients send. Each route gets an onResponse hook of its own (through
 * onRoute) that knows its pattern, so a request pays for the observation only: no
 * `request.routeOptions` object, no label object (the labelled series are looked up per
 * method and status once and kept). Requests that match no route are counted by the 404
 * handler under the route `unmatched`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { httpRequestDuration } from '../metrics/registry.ts';
import { hooksOf } from './route-hooks.ts';

/** The route label of requests no route matched (the 404 handler). */
const UNMATCHED_ROUTE = 'unmatched';

type Observe = (seconds: number) => void;

/** The series of one route: per method, per status code, created on first use. */
function seriesOf(route: string): (method: string, status: number) => Observe {
  const byMethod = new Map<string, Map<number, Observe>>();
  return (method, status) => {
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map<number, Observe>()));
    let observe = byStatus.get(status);
    if (observe === undefined) {
      const child = httpRequestDuration.labels({ route, method, status_code: status });
      observe = (seconds) => child.observe(seconds);
      byStatus.set(status, observe);
    }
    return observe;
  };
}

/** Registers the per-route hooks: call before any route is added. */
export function recordRequestMetrics(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const series = seriesOf(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      series(request.method, reply.statusCode)(reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = [...hooksOf(route.onResponse), hook];
  });
}

/** The observer of one route, method and status, for requests answered outside Fastify's hooks. */
export function routeObserver(route: string, method: string, status: number): Observe {
  return seriesOf(route)(method, status);
}

const unmatched = seriesOf(UNMATCHED_ROUTE);

/**
 * Counts a request no route matched, timed from its 404 handler (the caller) to the end
 * of its answer: Fastify times a request only where a route has onResponse hooks or
 * Fastify has a logger (src/http/request-logger.ts), and the 404 handler has neither.
 */
export function recordUnmatched(request: FastifyRequest, reply: FastifyReply): void {
  const started = performance.now();
  reply.raw.once('finish', () => unmatched(request.method, reply.statusCode)((performance.now() - started) / 1000));
}
