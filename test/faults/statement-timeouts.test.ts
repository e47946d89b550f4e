/**
 * DATABASE_STATEMENT_TIMEOUT and DATABASE_LOCK_TIMEOUT reach every pooled PostgreSQL
 * connection, and a request that runs into either answers 503 with retry-after (never a
 * 500, never a hang): a statement that runs too long, and a sale that waits on a
 * performance row another session holds locked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { DATABASE_FAULT_DETAILS } from '../../src/http/errors.ts';
import { createTestApp, problemOf, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { orderBody, postOrder, setupSale, type Sale } from '../helpers/orders.ts';

const STATEMENT_TIMEOUT_MS = 1000; // above what any migration statement takes
const LOCK_TIMEOUT_MS = 200;

describe('statement and lock timeouts on PostgreSQL', { skip: !onPostgres, timeout: 60_000 }, () => {
  let database: TestDatabase;
  let t: TestApp;
  let sale: Sale;
  /** When set, the idempotent request runs this statement inside its transaction first. */
  let slowStatement: string | undefined;

  before(async () => {
    database = await createTestDatabase({ statementTimeoutMs: STATEMENT_TIMEOUT_MS, lockTimeoutMs: LOCK_TIMEOUT_MS });
    t = await createTestApp({
      database,
      appOptions: {
        idempotency: {
          beforeExecute: async (request) => {
            if (slowStatement) await sql.raw(slowStatement).execute(request.db);
          },
        },
      },
    });
    sale = await setupSale(t);
  });
  after(async () => {
    await t.close();
    await database.close();
  });

  test('the settings are those of the connections', async () => {
    // pg_settings gives both in milliseconds.
    const { rows } = await sql<{ name: string; setting: string }>`
      SELECT name, setting FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout') ORDER BY name`.execute(
      database.db,
    );
    assert.deepEqual(rows, [
      { name: 'lock_timeout', setting: String(LOCK_TIMEOUT_MS) },
      { name: 'statement_timeout', setting: String(STATEMENT_TIMEOUT_MS) },
    ]);
  });

  test('a statement past the statement timeout answers 503 "overloaded" with retry-after, and nothing is sold', async () => {
    slowStatement = `SELECT pg_sleep(${(STATEMENT_TIMEOUT_MS * 5) / 1000})`;
    try {
      const started = performance.now();
      const res = await postOrder(t, sale.org.key, orderBody(sale), { 'idempotency-key': 'slow-statement' });
      const tookMs = performance.now() - started;
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.headers['retry-after'], '1');
      assert.deepEqual(res.json(), problemOf(503, DATABASE_FAULT_DETAILS.overloaded, 'database_overloaded'));
      assert.ok(tookMs < STATEMENT_TIMEOUT_MS * 5, `answered after ${tookMs} ms: the statement was not cut short`);
    } finally {
      slowStatement = undefined;
    }
    const sold = await database.db
      .selectFrom('tickets')
      .select('id')
      .where('performance_id', '=', sale.performanceId)
      .execute();
    assert.equal(sold.length, 0);
  });

  test('a sale waiting past the lock timeout on a locked performance answers 503 "busy", then sells once the lock is gone', async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM performances WHERE id = $1 FOR UPDATE', [sale.performanceId]);
      const started = performance.now();
      const res = await postOrder(t, sale.org.key, orderBody(sale));
      const tookMs = performance.now() - started;
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.headers['retry-after'], '1');
      assert.deepEqual(res.json(), problemOf(503, DATABASE_FAULT_DETAILS.busy, 'resource_busy'));
      assert.ok(tookMs >= LOCK_TIMEOUT_MS - 5 && tookMs < LOCK_TIMEOUT_MS + 3000, `answered after ${tookMs} ms`);
      await holder.query('ROLLBACK');
      assert.equal((await postOrder(t, sale.org.key, orderBody(sale))).statusCode, 201);
    } finally {
      await holder.end();
    }
  });
});
