/**
 * The load tool: autocannon as a library, closed loop (each connection sends its next
 * request when the previous answer arrives). Every response time and status is kept so
 * p50/p95/p99 come from raw samples (autocannon's own histogram has no p95).
 */
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { latencySummary } from './stats.ts';

interface LoadOptions {
  /** One base URL per API process; autocannon assigns connections round-robin across them. */
  urls: string[];
  connections: number;
  /** Either a fixed number of requests (each connection gets its share) ... */
  amount?: number;
  /** ... or a duration in seconds. */
  durationS?: number;
  method?: 'GET' | 'POST';
  path?: string;
  headers: Record<string, string>;
  /** A fresh (path, body) per request; called exactly once per request sent. */
  next?: () => { path: string; body?: string };
  onResponse?: (status: number, body: string) => void;
}

interface LoadResult {
  requests: number;
  durationS: number;
  reqPerS: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  latencies: number[];
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const request: AutocannonRequest = {
    method: opts.method ?? 'GET',
    path: opts.path ?? '/',
    headers: opts.headers,
  };
  if (opts.next) {
    const next = opts.next;
    request.setupRequest = (req) => {
      const { path, body } = next();
      return { ...req, path, ...(body === undefined ? {} : { body }) };
    };
  }
  if (opts.onResponse) {
    const onResponse = opts.onResponse;
    request.onResponse = (status, body) => onResponse(status, body);
  }
  const started = performance.now();
  let lastResponseAt = started;
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.urls,
        connections: opts.connections,
        ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: opts.durationS ?? 10 }),
        timeout: 30,
        requests: [request],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime);
      statuses[status] = (statuses[status] ?? 0) + 1;
      lastResponseAt = performance.now();
    });
  });
  // The window ends at the last answer: with `amount`, autocannon only notices it is done
  // on its one-second tick, which would add up to a second of idle time to the rate.
  const durationS = (lastResponseAt - started) / 1000;
  const requests = latencies.length;
  return {
    requests,
    durationS,
    reqPerS: requests / durationS,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    latencies,
    ...latencySummary(latencies),
  };
}

export function countStatus(statuses: Record<string, number>, pred: (status: number) => boolean): number {
  return Object.entries(statuses).reduce((sum, [s, n]) => sum + (pred(Number(s)) ? n : 0), 0);
}
