/**
 * The metrics listener (docs/operations.md, "Metrics"): scraped before and after each
 * thing the service does (requests, a sale and a refused one, a 429, an idempotent replay
 * and conflict, webhook deliveries to a loopback receiver, mails to a loopback SMTP
 * server), every counter and gauge moving by exactly what happened; the database figures
 * cached on the app's clock; the pool gauges of both engines; nothing of it on the API.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { listenError, startupFailureMessage } from '../../src/startup-errors.ts';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import { createMailer, type Mailer } from '../../src/mail/transport.ts';
import { FIGURES_CACHE_MS } from '../../src/metrics/collectors.ts';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.ts';
import { deliverDue, type WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import { ADMIN_TOKEN, problemOf, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, onPostgres } from '../helpers/database.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { inThreadRenderer } from '../helpers/mail-renderer.ts';
import { scrape, type Scrape } from '../helpers/metrics.ts';
import { orderBody, placeOrder, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { closedPort } from '../helpers/ports.ts';
import { launch, stop } from '../helpers/service-process.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { createWebhookTestApp, workerDepsFor } from '../webhooks/helpers.ts';

const FROM = 'Marquee <no-reply@localhost>';
const READ_LIMIT = 2;
const REQUESTS = 'marquee_http_request_duration_seconds_count';

/** How much each named series moved from one scrape to the next. */
function delta(before: Scrape, after: Scrape, name: string, labels?: Record<string, string>): number {
  return after.value(name, labels) - before.value(name, labels);
}

const requests = (route: string, method: string, status: number) => ({ route, method, status_code: String(status) });

describe('metrics', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;
  let smtp: SmtpReceiver;
  let mailer: Mailer;
  let metrics: MetricsServer;
  let deps: WebhookWorkerDeps;
  let sale: Sale;
  const renderer = inThreadRenderer(FROM);
  /** Scrapes after moving the app's clock past the database figures' cache period. */
  const fresh = async () => {
    t.clock.advance(FIGURES_CACHE_MS);
    return scrape(metrics.port);
  };

  before(async () => {
    receiver = await startHttpsReceiver();
    smtp = await startSmtpReceiver();
    t = await createWebhookTestApp({
      env: { METRICS_PORT: '0', RATE_LIMIT_READ_PER_MIN: String(READ_LIMIT), SMTP_URL: smtp.url },
    });
    mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent' });
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, database: t.database, clock: t.clock });
    deps = workerDepsFor(t, receiver);
    sale = await setupSale(t);
  });
  after(async () => {
    await metrics.close();
    mailer.close();
    await t.close();
    await smtp.close();
    await receiver.close();
  });

  test('requests by route pattern, method and status, never by raw URL; unmatched ones under one label', async () => {
    const before = await scrape(metrics.port);
    const eventId = sale.event.id;
    const missing = randomUUID();
    const key = await newReadKey();
    assert.equal((await t.api(key, 'GET', `/v1/events/${eventId}`)).statusCode, 200);
    assert.equal((await t.api(key, 'GET', `/v1/events/${missing}`)).statusCode, 404);
    assert.equal((await t.inject({ method: 'GET', url: `/v1/no-such-thing/${missing}` })).statusCode, 404);
    assert.equal((await t.inject({ method: 'HEAD', url: '/healthz' })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const after = await scrape(metrics.port);

    assert.equal(delta(before, after, REQUESTS, requests('/v1/events/:id', 'GET', 200)), 1);
    assert.equal(delta(before, after, REQUESTS, requests('/v1/events/:id', 'GET', 404)), 1);
    assert.equal(delta(before, after, REQUESTS, requests('unmatched', 'GET', 404)), 1);
    assert.equal(delta(before, after, REQUESTS, requests('/healthz', 'HEAD', 200)), 1);
    assert.equal(delta(before, after, REQUESTS, requests('/healthz', 'GET', 200)), 1);
    // The histogram's buckets and sum move with the count.
    const bucket = { ...requests('/healthz', 'GET', 200), le: '+Inf' };
    assert.equal(delta(before, after, 'marquee_http_request_duration_seconds_bucket', bucket), 1);
    assert.ok(after.value('marquee_http_request_duration_seconds_sum', requests('/healthz', 'GET', 200)) > 0);
    // Unmatched requests are timed too (from their 404 handler), not recorded as 0 s.
    const unmatchedSum = (scraped: typeof after) =>
      scraped.value('marquee_http_request_duration_seconds_sum', requests('unmatched', 'GET', 404));
    assert.ok(unmatchedSum(after) > unmatchedSum(before));
    // No series carries an id of a URL.
    assert.equal(after.text.includes(eventId), false);
    assert.equal(after.text.includes(missing), false);
    const routes = new Set(after.series('marquee_http_request_duration_seconds_count').map((l) => l.route));
    for (const route of routes) assert.match(route!, /^(\/[a-z0-9_./:-]*|unmatched)$/);
  });

  test('a sale and a refused sale: request counts, then tickets sold and the mail queue once the cache period ends', async () => {
    const startsAt = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    const small = await setupSale(t, {
      org: sale.org,
      event: { performances: [{ starts_at: startsAt, capacity: 1 }] },
    });
    const before = await fresh();
    await placeOrder(t, sale, {}, 2);
    const refused = await postOrder(t, sale.org.key, orderBody(small, {}, 2));
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().code, 'insufficient_inventory');
    const cached = await scrape(metrics.port);
    assert.equal(delta(before, cached, REQUESTS, requests('/v1/orders', 'POST', 201)), 1);
    assert.equal(delta(before, cached, REQUESTS, requests('/v1/orders', 'POST', 400)), 1);
    // Within the cache period the database figures are those of the last read.
    assert.equal(delta(before, cached, 'marquee_tickets_sold'), 0);
    assert.equal(delta(before, cached, 'marquee_email_queue_depth', { state: 'due' }), 0);

    const after = await fresh();
    assert.equal(delta(before, after, 'marquee_tickets_sold'), 2);
    // The receipt and the e-tickets, due since the sale, one cache period ago.
    assert.equal(delta(before, after, 'marquee_email_queue_depth', { state: 'due' }), 2);
    assert.equal(after.value('marquee_email_queue_oldest_due_age_seconds') >= FIGURES_CACHE_MS / 1000, true);
    assert.equal(after.value('marquee_db_figures_up'), 1);
  });

  test('a 429 counts as a refusal of its bucket', async () => {
    const key = await newReadKey();
    const before = await scrape(metrics.port);
    // Fixed one-minute windows: the first refusal comes at READ_LIMIT + 1, or later if a window turned meanwhile.
    let refused = 0;
    for (let i = 0; i < 3 * READ_LIMIT && refused === 0; i++) {
      const res = await t.api(key, 'GET', `/v1/events/${sale.event.id}`);
      if (res.statusCode === 429) refused++;
    }
    assert.equal(refused, 1);
    const after = await scrape(metrics.port);
    assert.equal(delta(before, after, 'marquee_rate_limit_refusals_total', { bucket: 'read' }), 1);
    assert.equal(delta(before, after, 'marquee_rate_limit_refusals_total', { bucket: 'write' }), 0);
    assert.equal(delta(before, after, REQUESTS, requests('/v1/events/:id', 'GET', 429)), 1);
  });

  test('an idempotent replay and a conflict', async () => {
    const key = `metrics-${randomUUID()}`;
    const headers = { 'idempotency-key': key };
    const before = await fresh();
    const first = await postOrder(t, sale.org.key, orderBody(sale), headers);
    assert.equal(first.statusCode, 201, first.body);
    const replay = await postOrder(t, sale.org.key, orderBody(sale), headers);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const conflict = await postOrder(t, sale.org.key, orderBody(sale, {}, 3), headers);
    assert.equal(conflict.statusCode, 409);
    assert.equal(conflict.json().code, 'idempotency_key_reused');
    const after = await fresh();
    assert.equal(delta(before, after, 'marquee_idempotency_replays_total'), 1);
    assert.equal(delta(before, after, 'marquee_idempotency_conflicts_total', { code: 'idempotency_key_reused' }), 1);
    assert.equal(delta(before, after, 'marquee_idempotency_conflicts_total', { code: 'idempotency_key_in_flight' }), 0);
    // The replay sold nothing.
    assert.equal(delta(before, after, 'marquee_tickets_sold'), 1);
  });

  test('webhook deliveries by outcome; the queue depth and the age of the oldest due delivery', async () => {
    const created = await t.api(sale.org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url('/hook'),
      event_types: ['order.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const before = await fresh();
    assert.equal(before.value('marquee_webhook_queue_depth', { state: 'due' }), 0);
    assert.equal(before.value('marquee_webhook_queue_oldest_due_age_seconds'), 0);

    await placeOrder(t, sale);
    t.clock.advance(3000);
    const queued = await fresh();
    assert.equal(queued.value('marquee_webhook_queue_depth', { state: 'due' }), 1);
    assert.equal(queued.value('marquee_webhook_queue_depth', { state: 'scheduled' }), 0);
    // Due since the sale: 3 s, then the cache period.
    assert.equal(queued.value('marquee_webhook_queue_oldest_due_age_seconds'), 3 + FIGURES_CACHE_MS / 1000);

    receiver.setHandler((_req, res) => {
      res.writeHead(200).end();
    });
    assert.deepEqual(
      (await deliverDue(deps)).map((o) => o.status),
      ['success'],
    );
    receiver.setHandler((_req, res) => {
      res.writeHead(500).end();
    });
    await placeOrder(t, sale);
    assert.deepEqual(
      (await deliverDue(deps)).map((o) => o.status),
      ['failed'],
    );
    const after = await fresh();
    assert.equal(delta(before, after, 'marquee_webhook_deliveries_total', { outcome: 'success' }), 1);
    assert.equal(delta(before, after, 'marquee_webhook_deliveries_total', { outcome: 'failed' }), 1);
    assert.equal(delta(before, after, 'marquee_webhook_deliveries_total', { outcome: 'exhausted' }), 0);
    // The failed one waits for its retry (30 s after the attempt; one cache period has passed).
    assert.equal(after.value('marquee_webhook_queue_depth', { state: 'due' }), 0);
    assert.equal(after.value('marquee_webhook_queue_depth', { state: 'scheduled' }), 1);
    assert.equal(after.value('marquee_webhook_queue_oldest_due_age_seconds'), 0);
    await t.database.db.deleteFrom('webhook_endpoints').execute();
  });

  test('mails by outcome: a failed attempt to retry, then sent; the mail queue empties', async () => {
    const before = await fresh();
    const due = before.value('marquee_email_queue_depth', { state: 'due' });
    assert.ok(due > 0);
    const broken = createMailer({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, from: FROM, outboxDir: '/x' });
    try {
      assert.equal(await runEmailJobsOnce({ db: t.database.db, mailer: broken, renderer, clock: t.clock }), due);
    } finally {
      broken.close();
    }
    const retrying = await fresh();
    assert.equal(delta(before, retrying, 'marquee_email_sends_total', { outcome: 'retry' }), due);
    assert.equal(retrying.value('marquee_email_queue_depth', { state: 'due' }), 0);
    assert.equal(retrying.value('marquee_email_queue_depth', { state: 'scheduled' }), due);
    assert.equal(retrying.value('marquee_email_queue_oldest_due_age_seconds'), 0);

    t.clock.advance(60_000); // the first retry delay
    assert.equal(await runEmailJobsOnce({ db: t.database.db, mailer, renderer, clock: t.clock }), due);
    const after = await fresh();
    assert.equal(delta(before, after, 'marquee_email_sends_total', { outcome: 'sent' }), due);
    assert.equal(delta(before, after, 'marquee_email_sends_total', { outcome: 'failed' }), 0);
    assert.equal(after.value('marquee_email_queue_depth', { state: 'due' }), 0);
    assert.equal(after.value('marquee_email_queue_depth', { state: 'scheduled' }), 0);
    assert.equal(after.value('marquee_email_queue_depth', { state: 'sending' }), 0);
    assert.equal(smtp.messages.length, due);
  });

  test('event-loop delay and the other process metrics', async () => {
    // A scrape resets the delay histogram, and the first timer tick after a reset only
    // starts a new interval (it records nothing): wait a few ticks (resolution 10 ms)
    // before blocking, or the block would fall into that unrecorded first interval.
    await scrape(metrics.port);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const blockUntil = Date.now() + 200;
    while (Date.now() < blockUntil); // the event loop blocked for 200 ms
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await scrape(metrics.port);
    const lagMax = after.value('nodejs_eventloop_lag_max_seconds');
    assert.ok(lagMax >= 0.15, `nodejs_eventloop_lag_max_seconds ${lagMax}`);
    assert.ok(after.has('nodejs_eventloop_lag_p99_seconds'));
    assert.ok(after.has('process_cpu_user_seconds_total'));
    assert.ok(after.value('nodejs_heap_size_used_bytes') > 0);
  });

  test('nothing of it on the API: not under /v1, /admin/v1 or the root', async () => {
    for (const url of ['/metrics', '/v1/metrics', '/admin/v1/metrics']) {
      const res = await t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), problemOf(404, res.json().detail, 'unknown_endpoint'));
    }
    const other = await fetch(`http://127.0.0.1:${metrics.port}/v1/events`);
    assert.equal(other.status, 404);
    assert.equal(await other.text(), 'Not found: the metrics are at /metrics.\n');
    const post = await fetch(`http://127.0.0.1:${metrics.port}/metrics`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  async function newReadKey(): Promise<string> {
    const res = await t.admin('POST', `/admin/v1/organizers/${sale.org.id}/api_keys`, { scopes: ['read'] });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().key as string;
  }
});

describe('metrics: the database pool', () => {
  test('max, open, in use and waiting, on a one-connection pool', async () => {
    const database = await createTestDatabase({ poolSize: 1 });
    const clock = { now: () => new Date() };
    const metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, database, clock });
    try {
      const idle = await scrape(metrics.port);
      assert.equal(idle.value('marquee_db_pool_max'), 1);
      assert.equal(idle.value('marquee_db_pool_in_use'), 0);
      assert.equal(idle.value('marquee_db_pool_waiting'), 0);

      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const isHeld = new Promise<void>((resolve) => (holding = resolve));
      const transaction = database.db.transaction().execute(async (trx) => {
        await trx.selectFrom('organizers').select('id').execute();
        holding();
        await held;
      });
      await isHeld;
      const waiter = database.db.selectFrom('organizers').select('id').execute();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const busy = await scrape(metrics.port);
      assert.equal(busy.value('marquee_db_pool_open'), 1);
      assert.equal(busy.value('marquee_db_pool_in_use'), 1);
      assert.equal(busy.value('marquee_db_pool_waiting'), 1);
      release();
      await transaction;
      await waiter;
      const after = await scrape(metrics.port);
      assert.equal(after.value('marquee_db_pool_in_use'), 0);
      assert.equal(after.value('marquee_db_pool_waiting'), 0);
      assert.equal(after.value('marquee_db_pool_open'), 1);
    } finally {
      await metrics.close();
      await database.close();
    }
  });

  test(`the engine's figures fail soft: marquee_db_figures_up 0 once the database is gone (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const database = await createTestDatabase();
    let now = Date.now();
    const metrics = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      database,
      clock: { now: () => new Date(now) },
    });
    try {
      assert.equal((await scrape(metrics.port)).value('marquee_db_figures_up'), 1);
      await database.close();
      now += FIGURES_CACHE_MS;
      const down = await scrape(metrics.port);
      assert.equal(down.value('marquee_db_figures_up'), 0);
    } finally {
      await metrics.close();
    }
  });
});

describe('metrics: the process', () => {
  test('a worker process (no API port) serves its metrics on METRICS_PORT, and stops cleanly', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'marquee-data-'));
    try {
      const worker = launch({
        ROLE: 'worker',
        DATA_DIR: dataDir,
        ADMIN_TOKEN: 'metrics-admin-token-0123456789',
        METRICS_PORT: '0',
        LOG_FORMAT: 'json',
      });
      const [, port] = await worker.waitForOutput(/"metrics":"http:\/\/127\.0\.0\.1:(\d+)\/metrics"/, 60_000);
      await worker.waitForOutput(/Marquee worker running/);
      const scraped = await scrape(Number(port));
      assert.equal(scraped.value('marquee_db_pool_max'), 1);
      assert.equal(scraped.value('marquee_db_figures_up'), 1);
      assert.equal(scraped.value('marquee_tickets_sold'), 0);
      assert.ok(scraped.has('nodejs_eventloop_lag_seconds'));
      // No API in this role: no request series.
      assert.deepEqual(scraped.series('marquee_http_request_duration_seconds_count'), []);
      assert.equal(await stop(worker), 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('metrics: configuration', () => {
  test('a METRICS_PORT in use is named at start', async () => {
    const database = { db: undefined as never, pool: () => ({ max: 1, open: 1, inUse: 0, waiting: 0 }) };
    const clock = { now: () => new Date() };
    const first = await startMetricsServer({ host: '127.0.0.1', port: 0, database, clock });
    try {
      const err: unknown = await startMetricsServer({ host: '127.0.0.1', port: first.port, database, clock }).then(
        () => assert.fail('a second listener on the same port started'),
        (e: unknown) => e,
      );
      const explained = listenError(err, '127.0.0.1', first.port, { port: 'METRICS_PORT', host: 'METRICS_HOST' });
      assert.equal(
        startupFailureMessage(explained),
        `Marquee cannot start: METRICS_PORT: 127.0.0.1:${first.port} is already in use by another process (EADDRINUSE: address already in use)`,
      );
    } finally {
      await first.close();
    }
  });

  test('METRICS_PORT unset serves nothing; a port, METRICS_HOST 127.0.0.1 by default', () => {
    assert.equal(loadConfig({}).metricsPort, undefined);
    assert.equal(loadConfig({ METRICS_PORT: '' }).metricsPort, undefined);
    const config = loadConfig({ METRICS_PORT: '9464' });
    assert.equal(config.metricsPort, 9464);
    assert.equal(config.metricsHost, '127.0.0.1');
    assert.equal(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metricsHost, '0.0.0.0');
    // A worker serves no API port: its metrics may use the number.
    assert.equal(loadConfig({ ROLE: 'worker', PORT: '9464', METRICS_PORT: '9464' }).metricsPort, 9464);
  });

  test('a bad METRICS_PORT is named', () => {
    assert.throws(() => loadConfig({ METRICS_PORT: 'x' }), {
      message: 'Invalid configuration: METRICS_PORT must be an integer from 0 to 65535, got "x".',
    });
    assert.throws(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' }), {
      message:
        'Invalid configuration: METRICS_PORT must differ from PORT (8080): the metrics have a port of their own.',
    });
  });
});
