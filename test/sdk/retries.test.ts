/**
 * The SDK's retries after a real 503 from a real Marquee on loopback (docs/sdk.md,
 * "Idempotency and retries"; docs/operations.md on which 503s are stored):
 *
 * - PostgreSQL: a sale waits on a performance row another session holds locked past
 *   DATABASE_LOCK_TIMEOUT and answers 503 "busy", which the idempotency layer stores. The
 *   retry with the same key gets that 503 replayed; the SDK then moves on to the key's
 *   deterministic successor, which sells. A second call with the caller's own key (after a
 *   crash, say) walks the same keys and gets the sale replayed.
 * - Both engines: a 503 that cannot be stored (no database connection within
 *   DATABASE_ACQUIRE_TIMEOUT while another request's transaction holds the only one): the
 *   retry with the same key executes and sells.
 *
 * The SDK's sleep is a fake that records each wait and, on the first, ends the fault.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import pg from 'pg';
import { Marquee, MarqueeApiError, type CreateOrderRequest, type OrderDetail } from '../../packages/sdk/src/index.ts';
import { DATABASE_FAULT_DETAILS } from '../../src/http/errors.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { orderBody, setupSale, type Sale } from '../helpers/orders.ts';

interface Call {
  key: string | undefined;
  status: number;
  replayed: string | null;
  code: string | undefined;
}

/** The global fetch, recording each POST's key and answer (status, replay header, problem code). */
function recordingFetch() {
  const calls: Call[] = [];
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    const response = await fetch(input, init);
    const headers = (init.headers ?? {}) as Record<string, string>;
    const problem = response.ok ? undefined : ((await response.clone().json()) as { code: string });
    calls.push({
      key: headers['idempotency-key'],
      status: response.status,
      replayed: response.headers.get('idempotent-replayed'),
      code: problem?.code,
    });
    return response;
  };
  return { calls, fetchImpl };
}

/** The sale's POST /v1/orders body, as the SDK types it. */
const saleOf = (sale: Sale) => orderBody(sale) as unknown as CreateOrderRequest;

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

async function ordersOf(t: TestApp, organizerId: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('orders')
    .select('id')
    .where('organizer_id', '=', organizerId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Each stored POST /v1/orders key of the organizer with its stored status. */
async function storedStatuses(t: TestApp, organizerId: string): Promise<Record<string, number | null>> {
  const rows = await t.database.db
    .selectFrom('idempotency_keys')
    .select(['key', 'response_status'])
    .where('organizer_id', '=', organizerId)
    .where('path', '=', '/v1/orders')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.key, r.response_status]));
}

describe(
  'the SDK after a stored 503 (PostgreSQL: a row lock past DATABASE_LOCK_TIMEOUT)',
  {
    skip: !onPostgres,
    timeout: 60_000,
  },
  () => {
    let database: TestDatabase;
    let t: TestApp;
    let sale: Sale;
    let baseUrl: string;

    before(async () => {
      database = await createTestDatabase({ lockTimeoutMs: 200 });
      t = await createTestApp({ database });
      sale = await setupSale(t);
      baseUrl = await listen(t);
    });
    after(async () => {
      await t.close();
      await database.close();
    });

    /** A second session holding the sale's performance row locked until `release()`. */
    async function lockPerformance() {
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM performances WHERE id = $1 FOR UPDATE', [sale.performanceId]);
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await holder.query('ROLLBACK');
          await holder.end();
        },
      };
    }

    /** An SDK whose fetch is recorded and whose sleep records the wait and runs `onSleep`. */
    function sdk(onSleep: () => Promise<void> = async () => {}, maxRetries?: number) {
      const { calls, fetchImpl } = recordingFetch();
      const sleeps: number[] = [];
      const client = new Marquee({
        apiKey: sale.org.key,
        baseUrl,
        fetch: fetchImpl,
        maxRetries,
        sleep: async (ms) => {
          sleeps.push(ms);
          await onSleep();
        },
      });
      return { client, calls, sleeps };
    }

    const BUSY = { status: 503, code: 'resource_busy' };

    test('the replayed 503 moves the call to the successor key, which sells; a later call replays the sale', async () => {
      const lock = await lockPerformance();
      const key = 'box-office-order-1001';
      const first = sdk(() => lock.release());
      const order: OrderDetail = await first.client.orders.create(saleOf(sale), { idempotencyKey: key });
      assert.deepEqual(first.calls, [
        { key, ...BUSY, replayed: null },
        { key, ...BUSY, replayed: 'true' },
        { key: `${key}:retry-1`, status: 201, replayed: null, code: undefined },
      ]);
      // The first 503's retry-after: 1; none before the successor (the replay was stored earlier).
      assert.deepEqual(first.sleeps, [1000]);
      assert.equal(order.status, 'placed');
      assert.deepEqual(await ordersOf(t, sale.org.id), [order.id]);
      assert.deepEqual(await storedStatuses(t, sale.org.id), { [key]: 503, [`${key}:retry-1`]: 201 });

      // The same call again with the caller's own key, as after a crash of the caller:
      // the same keys, both replayed, and the same order.
      const again = sdk();
      assert.deepEqual(await again.client.orders.create(saleOf(sale), { idempotencyKey: key }), order);
      assert.deepEqual(again.calls, [
        { key, ...BUSY, replayed: 'true' },
        { key: `${key}:retry-1`, status: 201, replayed: 'true', code: undefined },
      ]);
      assert.deepEqual(again.sleeps, []);
      assert.deepEqual(await ordersOf(t, sale.org.id), [order.id]);
    });

    test('out of retries, the replayed 503 is thrown; the next call walks on from the same key and sells once', async () => {
      const before = await ordersOf(t, sale.org.id);
      const lock = await lockPerformance();
      const key = `crash-safe-${'k'.repeat(240)}`; // 251 characters: the successor is cut and hashed
      const tail = `:${createHash('sha256').update(key).digest('hex').slice(0, 32)}:retry-1`;
      const successor = `${key.slice(0, 214)}${tail}`;
      assert.equal(successor.length, 255);
      try {
        const short = sdk(async () => {}, 1);
        const err = await short.client.orders.create(saleOf(sale), { idempotencyKey: key }).catch((e: unknown) => e);
        assert.ok(err instanceof MarqueeApiError);
        assert.deepEqual([err.status, err.code, err.detail], [503, 'resource_busy', DATABASE_FAULT_DETAILS.busy]);
        assert.deepEqual(short.calls, [
          { key, ...BUSY, replayed: null },
          { key, ...BUSY, replayed: 'true' },
        ]);
        assert.deepEqual(short.sleeps, [1000]);
      } finally {
        await lock.release();
      }

      const next = sdk();
      const order = await next.client.orders.create(saleOf(sale), { idempotencyKey: key });
      assert.deepEqual(next.calls, [
        { key, ...BUSY, replayed: 'true' },
        { key: successor, status: 201, replayed: null, code: undefined },
      ]);
      assert.deepEqual(next.sleeps, []);
      assert.deepEqual(await ordersOf(t, sale.org.id), [...before, order.id].sort());
      const stored = await storedStatuses(t, sale.org.id);
      assert.deepEqual([stored[key], stored[successor], Object.keys(stored).length], [503, 201, 4]);
    });
  },
);

describe(
  `the SDK after a 503 that is not stored (${onPostgres ? 'PostgreSQL, pool of 1' : 'PGlite'}: acquire timeout)`,
  {
    timeout: 60_000,
  },
  () => {
    let database: TestDatabase;
    let t: TestApp;
    let sale: Sale;
    let baseUrl: string;
    /** Set while a test holds the connection: the idempotent request parks in here. */
    let hold: { entered: () => void; released: Promise<void> } | undefined;

    before(async () => {
      database = await createTestDatabase({ acquireTimeoutMs: 300, poolSize: 1 });
      t = await createTestApp({
        database,
        appOptions: {
          idempotency: {
            // Runs inside the request's open transaction, which holds the connection.
            beforeExecute: async (_request: FastifyRequest) => {
              const parked = hold;
              if (!parked) return;
              hold = undefined;
              parked.entered();
              await parked.released;
            },
          },
        },
      });
      sale = await setupSale(t);
      baseUrl = await listen(t);
    });
    after(async () => {
      await t.close();
      await database.close();
    });

    test('the retry with the same key executes and sells once', async () => {
      // Warm the API-key cache, so the sale's first query is its key's claim.
      assert.equal((await t.api(sale.org.key, 'GET', '/v1/orders')).statusCode, 200);
      let entered!: () => void;
      let release!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      hold = { entered, released: new Promise<void>((resolve) => (release = resolve)) };
      const holder = t.api(sale.org.key, 'POST', '/v1/events', eventBody(t), {
        'idempotency-key': 'holds-the-connection',
      });
      await inside;

      const { calls, fetchImpl } = recordingFetch();
      const sleeps: number[] = [];
      const client = new Marquee({
        apiKey: sale.org.key,
        baseUrl,
        fetch: fetchImpl,
        sleep: async (ms) => {
          sleeps.push(ms);
          release();
          assert.equal((await holder).statusCode, 201);
        },
      });
      const key = 'box-office-order-2001';
      const order = await client.orders.create(saleOf(sale), { idempotencyKey: key });
      assert.deepEqual(calls, [
        { key, status: 503, replayed: null, code: 'database_overloaded' },
        { key, status: 201, replayed: null, code: undefined },
      ]);
      assert.deepEqual(sleeps, [1000]);
      assert.equal(order.status, 'placed');
      assert.deepEqual(await ordersOf(t, sale.org.id), [order.id]);
      assert.deepEqual(await storedStatuses(t, sale.org.id), { [key]: 201 });
    });
  },
);

describe('the SDK after a real 429 (a write limit of 1 per minute)', { timeout: 60_000 }, () => {
  let t: TestApp;
  let sale: Sale;
  let baseUrl: string;

  before(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_WRITE_PER_MIN: '1' } });
    sale = await setupSale(t);
    baseUrl = await listen(t);
  });
  after(() => t.close());

  test("the retry waits the answer's retry-after, keeps the key (a 429 is not stored) and sells once", async () => {
    // The write key has a bucket of its own: its one write of the minute goes here.
    const spent = await t.api(sale.org.writeKey, 'POST', '/v1/orders', saleOf(sale));
    assert.equal(spent.statusCode, 201, spent.body);

    const calls: Array<{ key: string | undefined; status: number; retryAfter: string | null }> = [];
    const sleeps: number[] = [];
    const realNow = Date.now;
    let skipped = 0;
    const client = new Marquee({
      apiKey: sale.org.writeKey,
      baseUrl,
      fetch: async (input, init = {}) => {
        const response = await fetch(input, init);
        const key = (init.headers as Record<string, string>)['idempotency-key'];
        calls.push({ key, status: response.status, retryAfter: response.headers.get('retry-after') });
        return response;
      },
      // The wait passes on the service's wall clock (its rate-limit windows), not for real.
      sleep: async (ms) => {
        sleeps.push(ms);
        skipped += ms;
      },
    });
    Date.now = () => realNow() + skipped;
    let order: OrderDetail;
    try {
      order = await client.orders.create(saleOf(sale), { idempotencyKey: 'box-office-order-3001' });
    } finally {
      Date.now = realNow;
    }
    const retryAfter = Number(calls[0]?.retryAfter);
    assert.ok(retryAfter >= 59 && retryAfter <= 60, `retry-after: ${retryAfter}`);
    assert.deepEqual(calls, [
      { key: 'box-office-order-3001', status: 429, retryAfter: String(retryAfter) },
      { key: 'box-office-order-3001', status: 201, retryAfter: null },
    ]);
    assert.deepEqual(sleeps, [retryAfter * 1000]);
    assert.deepEqual(await ordersOf(t, sale.org.id), [spent.json().id, order.id].sort());
    assert.deepEqual(await storedStatuses(t, sale.org.id), { 'box-office-order-3001': 201 });
  });

  test('without retries, the 429 is thrown with its retry-after in milliseconds', async () => {
    // A key of its own, so its bucket owes nothing to the wall clock the test above moved.
    const org = await t.createOrganizer();
    const client = new Marquee({ apiKey: org.writeKey, baseUrl, maxRetries: 0 });
    const spent = await t.api(org.writeKey, 'POST', '/v1/webhook_endpoints', {});
    assert.equal(spent.statusCode, 400);
    const refused = await client.tickets.checkIn('00000000-0000-4000-8000-000000000000').catch((err: unknown) => err);
    assert.ok(refused instanceof MarqueeApiError);
    assert.equal(refused.status, 429);
    assert.ok(
      refused.retryAfterMs !== undefined && refused.retryAfterMs >= 59_000 && refused.retryAfterMs <= 60_000,
      `retryAfterMs: ${refused.retryAfterMs}`,
    );
    const missing = await new Marquee({ apiKey: org.readKey, baseUrl }).tickets
      .get('00000000-0000-4000-8000-000000000000')
      .catch((err: unknown) => err);
    assert.ok(missing instanceof MarqueeApiError);
    assert.deepEqual([missing.status, missing.retryAfterMs], [404, undefined]);
  });
});
