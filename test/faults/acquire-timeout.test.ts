/**
 * A request that cannot get a database connection within DATABASE_ACQUIRE_TIMEOUT answers
 * 503 with retry-after instead of waiting: on PGlite while another request's transaction
 * holds the one embedded connection, on PostgreSQL while it holds the only pooled one.
 * Afterwards the connection serves requests again (a timed-out wait leaves nothing held).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { DATABASE_FAULT_DETAILS } from '../../src/http/errors.ts';
import { createTestApp, problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';

const ACQUIRE_TIMEOUT_MS = 300;
const PROBLEM = 'application/problem+json; charset=utf-8';

describe(
  `a wait for the database connection is bounded (${onPostgres ? 'PostgreSQL, pool of 1' : 'PGlite'})`,
  { timeout: 60_000 },
  () => {
    let database: TestDatabase;
    let t: TestApp;
    let org: TestOrganizer;
    /** Set while a test holds the connection: the idempotent request parks in here. */
    let hold: { entered: () => void; released: Promise<void> } | undefined;

    before(async () => {
      database = await createTestDatabase({ acquireTimeoutMs: ACQUIRE_TIMEOUT_MS, poolSize: 1 });
      t = await createTestApp({
        database,
        appOptions: {
          idempotency: {
            // Runs inside the request's open transaction, which holds the connection.
            beforeExecute: async (_request: FastifyRequest) => {
              const parked = hold;
              if (!parked) return;
              parked.entered();
              await parked.released;
            },
          },
        },
      });
      org = await t.createOrganizer();
    });
    after(async () => {
      await t.close();
      await database.close();
    });

    /** Starts an idempotent POST /v1/events that holds the connection until release(). */
    async function holdConnection(): Promise<{ release(): void; response: Promise<{ statusCode: number }> }> {
      let entered!: () => void;
      let release!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      hold = { entered, released: new Promise<void>((resolve) => (release = resolve)) };
      const response = t.api(org.key, 'POST', '/v1/events', eventBody(t), {
        'idempotency-key': `hold-${Math.random()}`,
      });
      await inside;
      hold = undefined;
      return { release, response };
    }

    test('a request waiting longer than the acquire timeout answers 503 with retry-after, then the connection serves again', async () => {
      // Warm the API-key cache, so the waiting request reaches its first query.
      assert.equal((await t.api(org.key, 'GET', '/v1/orders')).statusCode, 200);
      const holder = await holdConnection();

      const started = performance.now();
      const waiting = await Promise.all([1, 2, 3].map(() => t.api(org.key, 'GET', '/v1/orders')));
      const waited = performance.now() - started;
      for (const res of waiting) {
        assert.equal(res.statusCode, 503);
        assert.equal(res.headers['retry-after'], '1');
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.deepEqual(res.json(), problemOf(503, DATABASE_FAULT_DETAILS.overloaded, 'database_overloaded'));
      }
      assert.ok(waited >= ACQUIRE_TIMEOUT_MS - 5, `answered after ${waited} ms, before the acquire timeout`);
      assert.ok(waited < ACQUIRE_TIMEOUT_MS + 2000, `answered after ${waited} ms`);

      // The holder was not disturbed, and the timed-out waiters hold nothing: the next
      // requests get the connection at once.
      holder.release();
      assert.equal((await holder.response).statusCode, 201);
      const again = performance.now();
      const after = await Promise.all([1, 2].map(() => t.api(org.key, 'GET', '/v1/orders')));
      assert.deepEqual(
        after.map((r) => r.statusCode),
        [200, 200],
      );
      assert.ok(performance.now() - again < ACQUIRE_TIMEOUT_MS, 'the connection was free at once');
      assert.equal(after[0]!.json().data.length, 0);
      const events = await t.api(org.key, 'GET', '/v1/events');
      assert.equal(events.json().data.length, 1);
    });

    test('a wait shorter than the acquire timeout is served, not refused', async () => {
      const holder = await holdConnection();
      const waiting = t.api(org.key, 'GET', '/v1/events');
      await new Promise((resolve) => setTimeout(resolve, ACQUIRE_TIMEOUT_MS / 3));
      holder.release();
      const res = await waiting;
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().data.length, 2);
      assert.equal((await holder.response).statusCode, 201);
    });
  },
);
