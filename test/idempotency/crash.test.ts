/**
 * A process killed (SIGKILL) while it executes an idempotent request, then restarted: a
 * retry with the same key and payload gets its final answer within 10 s of the restart,
 * a fresh execution (201) if the work had not committed, the stored response if it had.
 * The real service in a child process (docs/idempotency.md, Lease; docs/operations.md,
 * "Idempotency keys after a crash"), on PGlite under a temp DATA_DIR, and on PostgreSQL.
 *
 * Holding a request mid-flight: on PostgreSQL the test itself locks the performance row
 * the order must lock (a real lock wait, after the key was claimed); on PGlite nothing
 * outside the process can reach its database, so the test hook TEST_HOLD_IDEMPOTENT_REQUESTS
 * (refused unless NODE_ENV=test) holds the request inside its transaction.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { IDEMPOTENCY_DETAILS } from '../../src/http/plugins/idempotency.ts';
import { createEmptyPostgresDatabase, onPostgres } from '../helpers/database.ts';
import { start as startService, type RunningService as ServiceProcess } from '../helpers/service-process.ts';

const ADMIN_TOKEN = 'crash-test-admin-token-0123456789';
/** The answer must be final this long after the restarted process listens. */
const RECOVERY_BOUND_MS = 10_000;

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

async function call(
  service: ServiceProcess,
  apiKey: string,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${service.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** A published event with one performance, and an order body for one ticket of it. */
async function saleOn(service: ServiceProcess, apiKey: string) {
  const created = await call(service, apiKey, 'POST', '/v1/events', {
    title: `Crash ${randomUUID().slice(0, 8)}`,
    venue: { name: 'Main Hall' },
    performances: [{ starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(), capacity: 100 }],
    ticket_types: [{ name: 'General', price_minor: 2500, quantity: null }],
  });
  assert.equal(created.status, 201, created.body);
  const event = JSON.parse(created.body) as { ticket_types: { id: string; prices: { performance_id: string }[] }[] };
  const performanceId = event.ticket_types[0]!.prices[0]!.performance_id;
  const orderBody = (email: string) => ({
    items: [{ performance_id: performanceId, ticket_type_id: event.ticket_types[0]!.id, quantity: 1 }],
    buyer: { first_name: 'Ada', email },
    tender: 'cash',
  });
  return { performanceId, orderBody };
}

/**
 * Retries until the answer is not the in-flight 409 (the dead request's lease running
 * out), and reports how long after `since` the final answer came and how many 409s came first.
 */
async function retryUntilFinal(service: ServiceProcess, apiKey: string, body: unknown, key: string, since: number) {
  let inFlight = 0;
  for (;;) {
    const res = await call(service, apiKey, 'POST', '/v1/orders', body, { 'idempotency-key': key });
    if (
      res.status === 409 &&
      JSON.parse(res.body).detail === IDEMPOTENCY_DETAILS.inFlight &&
      Date.now() - since < RECOVERY_BOUND_MS
    ) {
      inFlight++;
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    return { res, afterMs: Date.now() - since, inFlight };
  }
}

const ordersOf = async (service: ServiceProcess, apiKey: string, email: string) => {
  const list = await call(service, apiKey, 'GET', '/v1/orders?limit=100');
  assert.equal(list.status, 200);
  return (JSON.parse(list.body).data as { buyer: { email: string } }[]).filter((o) => o.buyer.email === email).length;
};

describe('idempotency keys after a SIGKILL', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test(
    'killed mid-request, then after the 201: the retries execute anew or replay, within 10 s of the restart',
    { timeout: 240_000 },
    async (t) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'marquee-crash-'));
      const env: Record<string, string> = { DATA_DIR: dataDir, ADMIN_TOKEN, NODE_ENV: 'test' };
      let locker: pg.Client | undefined;
      if (onPostgres) {
        const database = await createEmptyPostgresDatabase();
        cleanups.push(() => database.drop());
        env.DATABASE_URL = database.url;
        locker = new pg.Client({ connectionString: database.url });
        await locker.connect();
        cleanups.push(() => locker!.end());
      }

      // 1. Committed, then killed: the stored response survives the crash.
      const first = await startService(env);
      const apiKey = /Default organizer API key \(read, write\): (mqk_\S+)/.exec(first.output())?.[1];
      assert.ok(apiKey, 'the Default key is printed at first start');
      const sale = await saleOn(first, apiKey);
      const committedKey = `crash-committed-${randomUUID()}`;
      const committedBody = sale.orderBody('committed@example.test');
      const committed = await call(first, apiKey, 'POST', '/v1/orders', committedBody, {
        'idempotency-key': committedKey,
      });
      assert.equal(committed.status, 201, committed.body);
      assert.equal(await first.kill(), 'SIGKILL');

      // 2. Restarted (on PGlite holding every idempotent request mid-flight): the committed
      // order replays; a new order claims its key and is killed before its work commits.
      const second = await startService(onPostgres ? env : { ...env, TEST_HOLD_IDEMPOTENT_REQUESTS: '5m' });
      const replayed = await call(second, apiKey, 'POST', '/v1/orders', committedBody, {
        'idempotency-key': committedKey,
      });
      assert.equal(replayed.status, 201);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal(replayed.body, committed.body);

      const deadKey = `crash-mid-request-${randomUUID()}`;
      const deadBody = sale.orderBody('mid-request@example.test');
      if (locker) {
        await locker.query('BEGIN');
        await locker.query('SELECT 1 FROM performances WHERE id = $1 FOR UPDATE', [sale.performanceId]);
      }
      const interrupted = call(second, apiKey, 'POST', '/v1/orders', deadBody, { 'idempotency-key': deadKey }).then(
        () => assert.fail('the killed request must not be answered'),
        (err: unknown) => err,
      );
      if (locker) await waitUntilClaimedAndWaiting(locker, deadKey);
      else await second.waitForOutput(/test hook: holding an idempotent request mid-flight/);
      assert.equal(await second.kill(), 'SIGKILL');
      assert.ok((await interrupted) instanceof Error, 'the client saw the connection drop');
      // The orphaned backend (PostgreSQL) may take the lock now; it can never commit.
      if (locker) await locker.query('ROLLBACK');

      // 3. Restarted again: the retry executes the order anew, once.
      const third = await startService(env);
      const listeningAt = Date.now();
      const retry = await retryUntilFinal(third, apiKey, deadBody, deadKey, listeningAt);
      assert.equal(retry.res.status, 201, retry.res.body);
      assert.equal(retry.res.headers.get('idempotent-replayed'), null, 'a fresh execution, not a replay');
      assert.ok(retry.afterMs < RECOVERY_BOUND_MS, `final answer ${retry.afterMs} ms after the restart`);
      t.diagnostic(`final answer ${retry.afterMs} ms after the restart, after ${retry.inFlight} in-flight 409s`);
      // PGlite frees a dead process's keys at once; PostgreSQL after at most one lease (5 s).
      if (!onPostgres) assert.equal(retry.inFlight, 0, 'no in-flight 409 on PGlite after a restart');
      const again = await call(third, apiKey, 'POST', '/v1/orders', deadBody, { 'idempotency-key': deadKey });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.body, retry.res.body);
      assert.equal(
        await ordersOf(third, apiKey, 'mid-request@example.test'),
        1,
        'exactly one order for the killed request',
      );
      assert.equal(
        await ordersOf(third, apiKey, 'committed@example.test'),
        1,
        'exactly one order for the committed request',
      );
      third.child.kill('SIGTERM');
      assert.equal(await third.exit, 0);
    },
  );
});

/** PostgreSQL: the order's key is claimed and its transaction waits on the test's row lock. */
async function waitUntilClaimedAndWaiting(locker: pg.Client, key: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const claimed = await locker.query("SELECT 1 FROM idempotency_keys WHERE key = $1 AND status = 'in_progress'", [
      key,
    ]);
    const waiting = await locker.query(
      "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
    );
    if (claimed.rowCount === 1 && waiting.rowCount! > 0) return;
    assert.ok(Date.now() < deadline, 'the order never claimed its key and waited on the lock');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
