/**
 * Steady traffic through a load balancer while API processes restart one by one (docs/
 * deploy.md, "Rolling restarts behind a load balancer"): `clients` keep-alive clients
 * sharing `ratePerS` requests a second, each request one of event reads, order list pages
 * and orders with an `Idempotency-Key`. A client whose order fails at the transport level
 * sends it again with the same key, as docs/idempotency.md asks, until it is answered; a
 * retry that finds the first attempt still running (409 in flight) waits and asks again.
 * What it records is what the rolling-restart test and bench scenario assert and report.
 */
import { Pool } from 'undici';

export interface LoadTarget {
  url: string;
  apiKey: string;
  eventId: string;
  performanceId: string;
  ticketTypeId: string;
}

/** The final answer to one order key. */
interface OrderAnswer {
  status: number;
  orderId: string | undefined;
  /** Tickets the 201 carried (its transactions' items). */
  tickets: number;
  /** True when the final answer was a replay of the key's stored response. */
  replayed: boolean;
  /** Attempts it took (1 = answered at once). */
  attempts: number;
}

interface LoadReport {
  /** Requests sent, retries included. */
  requests: number;
  /** Errors below HTTP: refused, reset, closed before the response. */
  transportErrors: number;
  /** Answers with a 5xx status. */
  serverErrors: number;
  /** Other answers than 200 (reads) and 201 (orders), 5xx and the in-flight 409 excepted. */
  unexpected: number;
  /** Orders retried after the in-flight 409 of their first attempt. */
  inFlightAnswers: number;
  /** The first few failures, for the assertion message. */
  failures: string[];
  /** Every order key and its final answer; a key missing from `answers` was never answered. */
  keys: string[];
  answers: Map<string, OrderAnswer>;
  latenciesMs: number[];
  seconds: number;
}

interface Load {
  stop(): Promise<LoadReport>;
}

const ATTEMPTS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startLoad(target: LoadTarget, opts: { clients: number; ratePerS: number }): Load {
  const pool = new Pool(target.url, { connections: opts.clients, pipelining: 1 });
  const report: LoadReport = {
    requests: 0,
    transportErrors: 0,
    serverErrors: 0,
    unexpected: 0,
    inFlightAnswers: 0,
    failures: [],
    keys: [],
    answers: new Map(),
    latenciesMs: [],
    seconds: 0,
  };
  const failed = (what: string) => {
    if (report.failures.length < 10) report.failures.push(what);
  };
  const headers = { authorization: `Bearer ${target.apiKey}` };

  /** One request; undefined after a transport error (counted). */
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown, key?: string) => {
    report.requests++;
    const started = performance.now();
    try {
      const res = await pool.request({
        method,
        path,
        headers:
          body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'idempotency-key': key! },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.body.text();
      report.latenciesMs.push(performance.now() - started);
      if (res.statusCode >= 500) {
        report.serverErrors++;
        failed(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
      }
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      report.transportErrors++;
      failed(
        `${method} ${path}: ${err instanceof Error ? `${err.name} ${(err as { code?: string }).code ?? ''} ${err.message}` : String(err)}`,
      );
      return undefined;
    }
  };

  const read = async (path: string) => {
    const res = await send('GET', path);
    if (res && res.status !== 200 && res.status < 500) {
      report.unexpected++;
      failed(`GET ${path}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  };

  const order = async (key: string, quantity: number) => {
    report.keys.push(key);
    const body = {
      items: [{ performance_id: target.performanceId, ticket_type_id: target.ticketTypeId, quantity }],
      buyer: { first_name: 'Rolling', email: `${key}@example.test` },
      tender: 'cash',
    };
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const res = await send('POST', '/v1/orders', body, key);
      if (res === undefined) {
        await sleep(50);
        continue;
      }
      if (res.status === 409 && res.text.includes('idempotency_key_in_flight')) {
        report.inFlightAnswers++;
        await sleep(100);
        continue;
      }
      const json =
        res.status === 201
          ? (JSON.parse(res.text) as { id: string; transactions: { items?: unknown[] }[] })
          : undefined;
      if (res.status !== 201 && res.status < 500) {
        report.unexpected++;
        failed(`POST /v1/orders ${key}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      report.answers.set(key, {
        status: res.status,
        orderId: json?.id,
        tickets: json ? json.transactions.reduce((sum, t) => sum + (t.items?.length ?? 0), 0) : 0,
        replayed: res.headers['idempotent-replayed'] === 'true',
        attempts: attempt,
      });
      return;
    }
  };

  let stopping = false;
  const intervalMs = (1000 * opts.clients) / opts.ratePerS;
  const started = performance.now();
  const client = async (id: number) => {
    // Spread the clients over one interval, so the rate is steady rather than in bursts.
    let next = started + (intervalMs * id) / opts.clients;
    for (let n = 0; !stopping; n++) {
      const now = performance.now();
      if (next > now) await sleep(next - now);
      // Behind schedule (a slow answer): carry on from now rather than burst to catch up.
      next = Math.max(next, performance.now() - intervalMs) + intervalMs;
      if (stopping) break;
      // Three event reads, an order page and an order in every five requests.
      switch ((id + n) % 5) {
        case 0:
        case 1:
        case 2:
          await read(`/v1/events/${target.eventId}`);
          break;
        case 3:
          await read(`/v1/orders?limit=${5 + (n % 3) * 5}`);
          break;
        default:
          await order(`rolling-${id}-${n}`, 1 + (n % 3));
      }
    }
  };
  const clients = Array.from({ length: opts.clients }, (_, id) => client(id));

  return {
    async stop() {
      stopping = true;
      await Promise.all(clients);
      report.seconds = (performance.now() - started) / 1000;
      await pool.close();
      return report;
    },
  };
}
