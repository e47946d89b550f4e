/**
 * Rolling restarts with no failed request (docs/deploy.md, "Rolling restarts behind a load
 * balancer"; docs/operations.md, "Shutdown: the drain period"): two API processes on one
 * PostgreSQL database behind HAProxy under steady load (64 keep-alive clients, about 300
 * requests a second: event reads, order pages and orders with an Idempotency-Key), each
 * process in turn stopped with SIGTERM and started again on its port. While the first
 * drains, /readyz on it answers 503 and the rest is served with `Connection: close`. Not
 * one request fails, and the orders in the database are exactly those the clients were
 * told about.
 *
 * The processes run from the sources `npm test` compiled in place (plain Node: the
 * cheapest start). PostgreSQL only: the embedded database is one process's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { Client } from 'undici';
import { SHUTTING_DOWN_DETAIL } from '../../src/http/shutdown-state.ts';
import { problemOf } from '../helpers/app.ts';
import { createEmptyPostgresDatabase, onPostgres } from '../helpers/database.ts';
import { startHaproxy } from '../helpers/haproxy.ts';
import { closedPort } from '../helpers/ports.ts';
import { percentile } from '../../bench/lib/stats.ts';
import { startLoad, type LoadTarget } from '../helpers/rolling-load.ts';
import { FROM_COMPILED_SOURCES, launch } from '../helpers/service-process.ts';

const ADMIN_TOKEN = 'rolling-restart-admin-token-0123456789';
const HIGH_LIMIT = '1000000';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A fresh PostgreSQL database for the processes (DATA_DIR stays empty: ADMIN_TOKEN is set). */
async function databaseEnv(): Promise<{ DATA_DIR: string; DATABASE_URL: string }> {
  const database = await createEmptyPostgresDatabase();
  cleanups.push(() => database.drop());
  return { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'marquee-rolling-')), DATABASE_URL: database.url };
}

async function call(base: string, token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** An organizer, a read and write key, and an event with one performance on sale. */
async function setUpSale(base: string): Promise<Omit<LoadTarget, 'url'>> {
  const organizer = await call(base, ADMIN_TOKEN, 'POST', '/admin/v1/organizers', {
    name: 'Rolling Restarts',
    currency: 'EUR',
    timezone: 'UTC',
  });
  const key = await call(base, ADMIN_TOKEN, 'POST', `/admin/v1/organizers/${String(organizer.id)}/api_keys`, {
    name: 'load',
    scopes: ['read', 'write'],
  });
  const apiKey = String(key.key);
  const event = (await call(base, apiKey, 'POST', '/v1/events', {
    title: 'Rolling Restart Night',
    venue: { name: 'Main Hall' },
    performances: [{ starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(), capacity: 100_000 }],
    ticket_types: [{ name: 'General', price_minor: 2500, quantity: null }],
  })) as { id: string; ticket_types: { id: string; prices: { performance_id: string }[] }[] };
  return {
    apiKey,
    eventId: event.id,
    performanceId: event.ticket_types[0]!.prices[0]!.performance_id,
    ticketTypeId: event.ticket_types[0]!.id,
  };
}

/** Resolves once GET /readyz on the port answers 200 (the balancer's view, without it). */
async function readyOn(port: number, exit: Promise<unknown>, timeoutMs = 30_000): Promise<void> {
  let exited = false;
  void exit.then(() => (exited = true));
  const until = Date.now() + timeoutMs;
  for (;;) {
    assert.equal(exited, false, `the process on port ${port} exited before it was ready`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    assert.ok(Date.now() < until, `nothing ready on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A draining process, asked directly on a keep-alive connection: /readyz answers 503
 * `shutting_down` once the signal is handled, while /healthz and the API still answer 200,
 * each with `Connection: close`.
 */
async function drainSeenDirectly(port: number, sale: Omit<LoadTarget, 'url'>): Promise<void> {
  const client = new Client(`http://127.0.0.1:${port}`);
  const get = async (url: string) => {
    const res = await client.request({ method: 'GET', path: url, headers: { authorization: `Bearer ${sale.apiKey}` } });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
  try {
    // Until the process handles SIGTERM, /readyz still answers 200 on a kept-alive connection.
    let ready = await get('/readyz');
    for (let polls = 0; ready.status === 200 && polls < 100; polls++) {
      assert.equal(ready.headers.connection, 'keep-alive');
      await new Promise((resolve) => setTimeout(resolve, 10));
      ready = await get('/readyz');
    }
    assert.equal(ready.status, 503);
    assert.equal(ready.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(ready.headers.connection, 'close');
    assert.deepEqual(JSON.parse(ready.body), problemOf(503, SHUTTING_DOWN_DETAIL, 'shutting_down'));
    // Liveness and the API itself still answer: the balancer, not the process, moves the traffic.
    const health = await get('/healthz');
    assert.deepEqual([health.status, health.headers.connection, health.body], [200, 'close', '{"status":"ok"}']);
    const event = await get(`/v1/events/${sale.eventId}`);
    assert.deepEqual([event.status, event.headers.connection], [200, 'close']);
  } finally {
    await client.close();
  }
}

describe('rolling restarts', { skip: !onPostgres && 'needs TEST_DATABASE_URL' }, () => {
  test(
    'two API processes behind HAProxy, each restarted in turn under load: no request fails, no order lost or doubled',
    { timeout: 60_000 },
    async (t) => {
      const database = await databaseEnv();
      const ports = [await closedPort(), await closedPort()];
      const env = (port: number) => ({
        ...database,
        ADMIN_TOKEN,
        ROLE: 'api',
        HOST: '127.0.0.1',
        PORT: String(port),
        // Ten health-check intervals: the balancer takes the process out well within it,
        // even on a machine busy with the load and with another test file.
        SHUTDOWN_DRAIN_PERIOD: '2s',
        // No request log lines: the load would make them most of these processes' work.
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PREAUTH_PER_MIN: HIGH_LIMIT,
        RATE_LIMIT_READ_PER_MIN: HIGH_LIMIT,
        RATE_LIMIT_WRITE_PER_MIN: HIGH_LIMIT,
        // Behind a balancer every connection comes from its address (docs/deploy.md).
        HTTP_MAX_CONNECTIONS_PER_IP: '0',
      });
      const processes = ports.map((port) => launch(env(port), FROM_COMPILED_SOURCES));
      await Promise.all(processes.map((p, i) => readyOn(ports[i]!, p.exit)));
      const sale = await setUpSale(`http://127.0.0.1:${ports[0]}`);

      const balancer = await startHaproxy(ports);
      cleanups.push(() => balancer.stop());
      await balancer.waitForStatus({ api1: 'UP', api2: 'UP' });
      const load = startLoad({ url: balancer.url, ...sale }, { clients: 64, ratePerS: 300 });
      let report;
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        for (const [i, port] of ports.entries()) {
          const server = `api${i + 1}`;
          const signalledAt = performance.now();
          processes[i]!.child.kill('SIGTERM');
          // What the balancer and a client reaching the process itself see, the first time.
          if (i === 0) await drainSeenDirectly(port, sale);
          // The health check sees the 503 and takes the process out within its drain period.
          await balancer.waitForStatus({ [server]: 'DOWN' }, 2000);
          assert.equal(await processes[i]!.exit, 0, processes[i]!.output());
          const drainedMs = processes[i]!.exitedAt()! - signalledAt;
          assert.ok(
            drainedMs >= 2000,
            `exited ${Math.round(drainedMs)} ms after SIGTERM, before its 2 s drain period ended`,
          );
          const next = launch(env(port), FROM_COMPILED_SOURCES);
          processes[i] = next;
          await readyOn(port, next.exit);
          await balancer.waitForStatus({ [server]: 'UP' }, 5000);
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      } finally {
        report = await load.stop();
      }

      t.diagnostic(
        `${report.requests} requests in ${report.seconds.toFixed(1)} s, ${report.keys.length} orders, ` +
          `${report.inFlightAnswers} in-flight 409s, latency p50 ${percentile(report.latenciesMs, 50).toFixed(0)} ms, p99 ${percentile(report.latenciesMs, 99).toFixed(0)} ms`,
      );
      assert.deepEqual(report.failures, []);
      assert.deepEqual(
        [report.transportErrors, report.serverErrors, report.unexpected],
        [0, 0, 0],
        'no transport error, no 5xx, no other unexpected status',
      );
      assert.ok(report.requests >= 1500, `a real load: ${report.requests} requests in ${report.seconds} s`);
      // Every order key was answered 201 (its first answer or the replay of it).
      const answers = [...report.answers.values()];
      assert.equal(report.answers.size, report.keys.length, 'every key answered');
      assert.deepEqual(
        answers.filter((a) => a.status !== 201),
        [],
      );
      // HAProxy neither retried nor answered anything itself.
      const servers = await balancer.servers();
      for (const [name, stat] of Object.entries(servers))
        assert.deepEqual(
          [stat.status, stat.connectionErrors, stat.responseErrors, stat.retries, stat.redispatches, stat.responses5xx],
          ['UP', 0, 0, 0, 0, 0],
          name,
        );

      const db = new pg.Client({ connectionString: database.DATABASE_URL });
      await db.connect();
      try {
        const orders = await db.query<{ id: string; email: string; tickets: string }>(
          `SELECT o.id, o.buyer_email AS email, (SELECT count(*) FROM tickets t WHERE t.order_id = o.id) AS tickets
             FROM orders o`,
        );
        // One order per key that got its 201, the very order the 201 named, with its tickets.
        const inDatabase = new Map(orders.rows.map((o) => [o.id, o]));
        assert.equal(orders.rows.length, report.keys.length, 'as many orders as keys answered 201');
        for (const [key, answer] of report.answers) {
          const row = inDatabase.get(answer.orderId!);
          assert.deepEqual(row && [row.email, Number(row.tickets)], [`${key}@example.test`, answer.tickets], key);
        }
        const sold = await db.query<{ sold: string }>('SELECT count(*) AS sold FROM tickets');
        assert.equal(
          Number(sold.rows[0]!.sold),
          answers.reduce((sum, a) => sum + a.tickets, 0),
        );
      } finally {
        await db.end();
      }
      for (const p of processes) p.child.kill('SIGTERM');
      assert.deepEqual(await Promise.all(processes.map((p) => p.exit)), [0, 0]);
    },
  );
});
