/**
 * The process's Prometheus instruments (docs/operations.md, "Metrics"): one registry per
 * process, the counters and the histogram that the layers increment where things happen.
 * This module imports nothing of the project, so every layer may use it (webhooks, mail,
 * HTTP); the gauges read at scrape time are in ./collectors.ts, the listener in
 * ./server.ts.
 *
 * Counters count from the start of the process: Prometheus's rate() and increase() take
 * restarts in their stride, and several processes are summed by the query.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

/**
 * Latency buckets in seconds: a cached read answers well under a millisecond, a sale in a
 * few, a request waiting on the pool up to DATABASE_ACQUIRE_TIMEOUT (5 s).
 */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Requests by route pattern (never the raw URL), method and status; its `_count` is the request count. */
export const httpRequestDuration = new Histogram({
  name: 'marquee_http_request_duration_seconds',
  help: 'HTTP requests answered, by route pattern, method and status code: latency in seconds (the _count is the request count).',
  labelNames: ['route', 'method', 'status_code'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Event details answered in front of the router (src/http/event-detail-fast-path.ts); also in the histogram. */
export const cachedReads = new Counter({
  name: 'marquee_http_fast_reads_total',
  help: 'GET /v1/events/{id} answered from the in-process caches before routing (docs/catalog.md); they are counted in marquee_http_request_duration_seconds too.',
  registers: [registry],
});

/** By the delivery status an attempt left (docs/webhooks.md), or lease_lost. */
export const webhookDeliveries = new Counter({
  name: 'marquee_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: success, failed (retried later or the endpoint answered 410), exhausted (no retry left), lease_lost (not recorded: the lease ran out and another worker retries).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** By the outcome of one e-mail job's attempt (docs/orders.md, "E-mail"). */
export const emailSends = new Counter({
  name: 'marquee_email_sends_total',
  help: 'E-mail job attempts by outcome: sent, retry (failed, tried again later), failed (no attempt left), skipped (nothing left to send).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'marquee_rate_limit_refusals_total',
  help: 'Requests refused with 429 by a rate limit, by bucket: preauth (per client IP), read or write (per API key).',
  labelNames: ['bucket'] as const,
  registers: [registry],
});

export const idempotencyReplays = new Counter({
  name: 'marquee_idempotency_replays_total',
  help: 'Idempotent requests answered with the stored response of an earlier one (idempotent-replayed: true).',
  registers: [registry],
});

export const idempotencyConflicts = new Counter({
  name: 'marquee_idempotency_conflicts_total',
  help: 'Idempotent requests refused with 409, by error code: idempotency_key_reused, idempotency_key_in_flight, idempotency_key_lease_lost.',
  labelNames: ['code'] as const,
  registers: [registry],
});

let defaultsCollected = false;

/**
 * Node's own metrics (event-loop delay `nodejs_eventloop_lag_*`, heap, GC, handles, CPU),
 * from the first scrape listener on: they cost a timer and an event-loop delay histogram,
 * so a process that serves no metrics does not collect them.
 */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry });
}
