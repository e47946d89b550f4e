/**
 * A network cut between the service and PostgreSQL, made real with a loopback TCP proxy
 * (test/helpers/tcp-proxy.ts): the app, its workers and their LISTEN connection reach the
 * test database only through the proxy. During the cut /readyz answers 503 and API
 * requests a 503 problem with retry-after; after it, /readyz answers 200 again, a webhook
 * delivery queued before the cut reaches its receiver, and the workers carry on (a sale
 * made after the cut is delivered and its e-mails sent). A silent partition (nothing
 * passes, nothing closes) answers 503 once a query goes unanswered past statement_timeout
 * plus ANSWER_MARGIN_MS. Nothing is uncaught.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { ANSWER_MARGIN_MS, openDatabase } from '../../src/db/client.ts';
import { DATABASE_FAULT_DETAILS } from '../../src/http/errors.ts';
import { READINESS_CACHE_MS } from '../../src/http/routes/health.ts';
import { startWorkers, type Workers } from '../../src/workers/index.ts';
import { problemOf, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { orderBody, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createWebhookTestApp, fakeResolver } from '../webhooks/helpers.ts';
import { CountingPlugin } from '../helpers/counting-plugin.ts';

const CUT_MS = 3000;
const ACQUIRE_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 1000;
const PROBLEM = 'application/problem+json; charset=utf-8';

async function eventually(what: string, check: () => Promise<boolean> | boolean, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a network cut between the service and PostgreSQL', { skip: !onPostgres, timeout: 120_000 }, () => {
  let direct: TestDatabase;
  let proxy: TcpProxy;
  let proxied: TestDatabase;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let sale: Sale;
  let dataDir: string;
  const logs: Array<{ level: number; msg: string }> = [];
  const uncaught: unknown[] = [];
  const recordUncaught = (err: unknown) => uncaught.push(err);

  before(async () => {
    process.on('uncaughtException', recordUncaught);
    process.on('unhandledRejection', recordUncaught);
    receiver = await startHttpsReceiver();
    direct = await createTestDatabase();
    proxy = await startTcpProxy(Number(new URL(direct.url!).port || 5432));
    const url = proxy.rewrite(direct.url!);
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => logs.push(JSON.parse(line)) },
    ) as unknown as FastifyBaseLogger;
    proxied = {
      ...(await openDatabase({
        databaseUrl: url,
        poolSize: 10,
        acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
        statementTimeoutMs: STATEMENT_TIMEOUT_MS,
        logger,
      })),
      url,
    };
    dataDir = mkdtempSync(path.join(tmpdir(), 'marquee-cut-'));
    t = await createWebhookTestApp({ database: proxied, env: { DATABASE_URL: url, DATA_DIR: dataDir } });
    sale = await setupSale(t);
    const endpoint = await t.api(sale.org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url('/hooks'),
      event_types: ['order.created'],
    });
    assert.equal(endpoint.statusCode, 201);
  });
  after(async () => {
    process.off('uncaughtException', recordUncaught);
    process.off('unhandledRejection', recordUncaught);
    await t?.close();
    await proxied?.close();
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the pool's sockets go before the DROP
    await proxy?.close();
    await direct?.close();
    await receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** /readyz with the previous answer's cache run out (the app clock moves on). */
  async function probe() {
    t.clock.advance(READINESS_CACHE_MS);
    return t.inject({ method: 'GET', url: '/readyz' });
  }

  async function orderIdsDelivered(): Promise<string[]> {
    return receiver.requests.map((req) => (JSON.parse(req.body) as { data: { order_id: string } }).data.order_id);
  }

  test('503 during the cut, 200 after; a delivery queued before the cut arrives after it; workers carry on', async () => {
    assert.equal((await probe()).statusCode, 200);
    // A sale queues order.created for the endpoint, with no worker running yet.
    const before = await postOrder(t, sale.org.key, orderBody(sale));
    assert.equal(before.statusCode, 201);
    const beforeId = before.json().id as string;

    await proxy.cut();
    // The workers start during the cut: every claim fails until it ends.
    const workers: Workers = startWorkers(
      { config: t.config, db: proxied.db, clock: t.clock, logger: pino({ level: 'silent' }) },
      { webhooks: { webhookResolver: fakeResolver, webhookCa: receiver.ca, webhookPollIntervalMs: 50 } },
    );
    let afterId: string;
    try {
      const cutAt = Date.now();
      let probes = 0;
      while (Date.now() - cutAt < CUT_MS) {
        const ready = await probe();
        assert.equal(ready.statusCode, 503);
        assert.deepEqual(ready.json(), problemOf(503, 'The database is not reachable.', 'database_unavailable'));
        const list = await t.api(sale.org.key, 'GET', '/v1/orders');
        assert.equal(list.statusCode, 503, list.body);
        assert.equal(list.headers['retry-after'], '1');
        assert.equal(list.headers['content-type'], PROBLEM);
        assert.deepEqual(list.json(), problemOf(503, DATABASE_FAULT_DETAILS.unavailable, 'database_unavailable'));
        const order = await postOrder(t, sale.org.key, orderBody(sale));
        assert.equal(order.statusCode, 503, order.body);
        assert.equal(order.headers['retry-after'], '1');
        probes++;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.ok(probes >= 3);
      // A probe storm during the outage costs one connection attempt, not one per probe.
      const counter = new CountingPlugin();
      t.app.deps.db = proxied.db.withPlugin(counter);
      t.clock.advance(READINESS_CACHE_MS);
      const storm = await Promise.all(Array.from({ length: 20 }, () => t.inject({ method: 'GET', url: '/readyz' })));
      t.app.deps.db = proxied.db;
      assert.deepEqual(new Set(storm.map((r) => r.statusCode)), new Set([503]));
      assert.equal(counter.queries, 1);
      assert.equal(receiver.requests.length, 0, 'nothing was delivered during the cut');

      await proxy.restore();
      const restoredAt = Date.now();
      const ready = await probe();
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });

      // The delivery queued before the cut arrives, and the workers keep working: a sale
      // made now is delivered too, and the e-mails of both are sent.
      await eventually('the delivery queued before the cut', async () =>
        (await orderIdsDelivered()).includes(beforeId),
      );
      console.log(`# delivered ${Date.now() - restoredAt} ms after the cut ended`);
      const afterCut = await postOrder(t, sale.org.key, orderBody(sale));
      assert.equal(afterCut.statusCode, 201);
      afterId = afterCut.json().id as string;
      await eventually('the delivery of a sale after the cut', async () =>
        (await orderIdsDelivered()).includes(afterId),
      );
      assert.deepEqual((await orderIdsDelivered()).sort(), [beforeId, afterId].sort());
      await eventually('the e-mails of both sales', async () => {
        const jobs = await direct.db.selectFrom('email_jobs').select(['order_id', 'status']).execute();
        return jobs.length === 4 && jobs.every((job) => job.status === 'sent');
      });
    } finally {
      await workers.stop();
    }

    assert.deepEqual(uncaught, []);
    // The pool reported its lost connections through the logger it was given.
    assert.ok(logs.some((line) => line.level === 40 && line.msg === 'database connection lost; the pool replaces it'));
    // Only the two 201s sold: every 503 during the cut sold nothing.
    const tickets = await direct.db
      .selectFrom('tickets')
      .select('order_id')
      .where('performance_id', '=', sale.performanceId)
      .execute();
    assert.deepEqual(tickets.map((row) => row.order_id).sort(), [beforeId, afterId].sort());
  });

  test('a silent partition: an unanswered query gives up after statement timeout + margin with 503, then the service recovers', async () => {
    assert.equal((await t.api(sale.org.key, 'GET', '/v1/orders')).statusCode, 200); // an open pooled connection
    proxy.stall();
    try {
      const started = performance.now();
      const res = await t.api(sale.org.key, 'GET', '/v1/orders');
      const tookMs = performance.now() - started;
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.headers['retry-after'], '1');
      assert.deepEqual(res.json(), problemOf(503, DATABASE_FAULT_DETAILS.unavailable, 'database_unavailable'));
      const deadline = STATEMENT_TIMEOUT_MS + ANSWER_MARGIN_MS;
      assert.ok(tookMs >= deadline - 50 && tookMs < deadline + 2000, `answered after ${Math.round(tookMs)} ms`);
    } finally {
      await proxy.restore();
    }
    await eventually(
      'a request succeeds after the partition',
      async () => (await t.api(sale.org.key, 'GET', '/v1/orders')).statusCode === 200,
      3000,
    );
    assert.deepEqual(uncaught, []);
  });
});
