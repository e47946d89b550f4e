/**
 * PostgreSQL terminates every connection of the service (pg_terminate_backend, as a
 * restart, a failover or an operator does), once while they are idle and once under a
 * load of reads and sales. The process stays up, every request answers 200/201 or a 503
 * problem with retry-after (none hangs, none is a 500), requests succeed again within
 * about 2 s, and the tickets in the database are exactly those the 201s sold.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '../helpers/app.ts';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { DATABASE_FAULT_DETAILS, DATABASE_FAULT_CODES } from '../../src/http/errors.ts';
import type { DatabaseFault } from '../../src/db/errors.ts';
import type { TestApp } from '../helpers/app.ts';
import { onPostgres, testDatabaseUrl } from '../helpers/database.ts';
import { orderBody, postOrder, setupSale, type Sale } from '../helpers/orders.ts';

const PROBLEM = 'application/problem+json; charset=utf-8';
/** A request slower than this counts as hung. */
const REQUEST_DEADLINE_MS = 10_000;
/** Requests must succeed again within this long of the termination. */
const RECOVERY_MS = 2_000;

interface Outcome {
  kind: 'read' | 'order';
  startedAt: number;
  endedAt: number;
  status: number;
}

describe("PostgreSQL terminates the service's connections", { skip: !onPostgres, timeout: 120_000 }, () => {
  let t: TestApp;
  let sale: Sale;
  let admin: pg.Client;
  let databaseName: string;
  const uncaught: unknown[] = [];
  const recordUncaught = (err: unknown) => uncaught.push(err);
  /** Tickets of every 201 of this file (quantity 1 each). */
  let sold = 0;

  before(async () => {
    process.on('uncaughtException', recordUncaught);
    process.on('unhandledRejection', recordUncaught);
    t = await createTestApp();
    sale = await setupSale(t, { event: { performances: [{ starts_at: '2027-05-01T19:00:00Z', capacity: 100_000 }] } });
    databaseName = new URL(t.database.url!).pathname.slice(1);
    admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
  });
  after(async () => {
    process.off('uncaughtException', recordUncaught);
    process.off('unhandledRejection', recordUncaught);
    await admin?.end();
    await t?.close();
  });

  /** Terminates every backend of the test database but ours; waits until they are gone. */
  async function terminateAll(): Promise<number> {
    const { rows } = await admin.query<{ terminated: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS terminated
         FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [databaseName],
    );
    return rows[0]!.terminated;
  }

  async function backendCount(): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [databaseName],
    );
    return rows[0]!.n;
  }

  function within<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} hung for ${REQUEST_DEADLINE_MS} ms`)), REQUEST_DEADLINE_MS);
    });
    return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
  }

  /** 200/201 as expected, or a 503 problem with retry-after naming a database fault. */
  function assertAcceptable(res: LightMyRequestResponse, ok: number, what: string): void {
    if (res.statusCode === ok) return;
    assert.equal(res.statusCode, 503, `${what}: ${res.statusCode} ${res.body}`);
    assert.equal(res.headers['retry-after'], '1');
    assert.equal(res.headers['content-type'], PROBLEM);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'status', 'title', 'type']);
    const fault = (Object.keys(DATABASE_FAULT_DETAILS) as DatabaseFault[]).find(
      (f) => DATABASE_FAULT_DETAILS[f] === body.detail,
    );
    assert.ok(fault, body.detail);
    assert.equal(body.code, DATABASE_FAULT_CODES[fault]);
  }

  async function read(): Promise<Outcome> {
    const startedAt = performance.now();
    // The event detail and API-key caches are per second of the app clock: move it on, so
    // reads reach the database as much as the orders do.
    t.clock.advance(1000);
    const url =
      Math.random() < 0.5 ? `/v1/events/${sale.event.id}` : `/v1/performances/${sale.performanceId}/availability`;
    const res = await within(t.api(sale.org.key, 'GET', url), `GET ${url}`);
    assertAcceptable(res, 200, `GET ${url}`);
    return { kind: 'read', startedAt, endedAt: performance.now(), status: res.statusCode };
  }

  async function order(): Promise<Outcome> {
    const startedAt = performance.now();
    const res = await within(postOrder(t, sale.org.key, orderBody(sale)), 'POST /v1/orders');
    assertAcceptable(res, 201, 'POST /v1/orders');
    if (res.statusCode === 201) {
      const tickets = res.json().transactions.flatMap((tx: { items: unknown[] }) => tx.items);
      assert.equal(tickets.length, 1);
      sold += tickets.length;
    }
    return { kind: 'order', startedAt, endedAt: performance.now(), status: res.statusCode };
  }

  /** Retries `request` until it succeeds; returns how long after `since` that was. */
  async function recoveredAfter(request: () => Promise<Outcome>, since: number): Promise<number> {
    for (;;) {
      const outcome = await request();
      if (outcome.status !== 503) return outcome.endedAt - since;
      assert.ok(performance.now() - since < RECOVERY_MS, `still 503 after ${RECOVERY_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function waitForNoBackends(): Promise<void> {
    const deadline = Date.now() + 5000;
    while ((await backendCount()) > 0) {
      assert.ok(Date.now() < deadline, 'terminated backends did not exit');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  test('idle connections terminated: no crash, requests succeed again at once', async () => {
    // Fill the pool with idle connections.
    await Promise.all(Array.from({ length: 6 }, () => order()));
    assert.ok((await backendCount()) >= 2, 'the pool holds connections');

    const terminatedAt = performance.now();
    assert.ok((await terminateAll()) >= 2);
    await waitForNoBackends();
    // The clients receive the server's "terminating connection" and the socket's end
    // while idle: the pool must take them as a warning, not an uncaught error.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(uncaught, []);

    const outcomes = await Promise.all([read(), read(), order(), order()]);
    assert.deepEqual(uncaught, []);
    const recoveryMs = Math.max(await recoveredAfter(read, terminatedAt), await recoveredAfter(order, terminatedAt));
    assert.ok(recoveryMs < RECOVERY_MS, `recovered after ${recoveryMs} ms`);
    console.log(
      `# idle: first requests ${outcomes.map((o) => o.status).join(',')}, recovered ${Math.round(recoveryMs)} ms after the termination`,
    );
  });

  test('connections terminated under load: 200/201 or 503 + retry-after, none hangs, sales match the 201s', async () => {
    const outcomes: Outcome[] = [];
    let stop = false;
    const loop = async (request: () => Promise<Outcome>) => {
      while (!stop) outcomes.push(await request());
    };
    const loops = [...Array.from({ length: 6 }, () => loop(read)), ...Array.from({ length: 6 }, () => loop(order))];
    const settled = Promise.allSettled(loops);

    // Terminate once the load is in full swing: some reads and orders answered already.
    const warm = Date.now() + 10_000;
    while (
      !(['read', 'order'] as const).every(
        (kind) => outcomes.filter((o) => o.kind === kind && o.status !== 503).length >= 6,
      )
    ) {
      assert.ok(Date.now() < warm, 'the load never got going');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const terminatedAt = performance.now();
    const terminated = await terminateAll();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    stop = true;
    const results = await settled;
    for (const result of results) if (result.status === 'rejected') throw result.reason;
    assert.deepEqual(uncaught, []);

    assert.ok(terminated >= 2, `terminated ${terminated} backends under load`);
    for (const kind of ['read', 'order'] as const) {
      const mine = outcomes.filter((o) => o.kind === kind);
      assert.ok(
        mine.some((o) => o.endedAt < terminatedAt && o.status !== 503),
        `${kind}s succeeded before the termination`,
      );
      const recovered = mine.find((o) => o.startedAt > terminatedAt && o.status !== 503);
      assert.ok(recovered, `${kind}s succeeded again after the termination`);
      assert.ok(
        recovered.endedAt - terminatedAt < RECOVERY_MS,
        `${kind}s recovered after ${recovered.endedAt - terminatedAt} ms`,
      );
    }
    const count = (kind: string, status: number) =>
      outcomes.filter((o) => o.kind === kind && o.status === status).length;
    console.log(
      `# load: terminated ${terminated} backends; reads ${count('read', 200)} x 200, ${count('read', 503)} x 503; ` +
        `orders ${count('order', 201)} x 201, ${count('order', 503)} x 503`,
    );

    // Exactly the tickets of the 201s were sold: a 503 sold nothing.
    const tickets = await t.database.db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('performance_id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(tickets.n), sold);
    const performance_ = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    assert.equal(performance_.sold_count, sold);
    const availability = await t.api(sale.org.key, 'GET', `/v1/performances/${sale.performanceId}/availability`);
    assert.equal(availability.json().performance_remaining, 100_000 - sold);
  });
});
