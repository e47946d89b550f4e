/**
 * The embedded database's one connection serves requests before background jobs, and a
 * background job that has waited BACKGROUND_PROMOTION_MS queues with the requests, so it
 * is slowed, never starved (src/db/embedded/turns.ts). The last test runs the real
 * embedded database behind both Kysely instances of openDatabase().
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/client.ts';
import { EmbeddedTurns, type Turn } from '../../src/db/embedded/turns.ts';
import { AcquireTimeoutError } from '../../src/db/errors.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('turns of the embedded connection', () => {
  /** Queues `turns` behind a held connection, releases it, and returns the order they were served in. */
  async function servedOrder(embedded: EmbeddedTurns, queue: Array<[string, Turn]>): Promise<string[]> {
    const served: string[] = [];
    const release = await embedded.acquire('request');
    const waiting = queue.map(async ([name, turn]) => {
      const done = await embedded.acquire(turn);
      served.push(name);
      await tick();
      done();
    });
    await tick();
    release();
    await Promise.all(waiting);
    return served;
  }

  test('requests are served before background work that queued first, each kind in arrival order', async () => {
    const order = await servedOrder(new EmbeddedTurns(5_000, 60_000), [
      ['mail 1', 'background'],
      ['sale 1', 'request'],
      ['mail 2', 'background'],
      ['sale 2', 'request'],
      ['sale 3', 'request'],
    ]);
    assert.deepEqual(order, ['sale 1', 'sale 2', 'sale 3', 'mail 1', 'mail 2']);
  });

  test('a background waiter promoted after its wait goes before requests that came after that', async () => {
    const embedded = new EmbeddedTurns(5_000, 50);
    const release = await embedded.acquire('request');
    const served: string[] = [];
    const take = async (name: string, turn: Turn) => {
      const done = await embedded.acquire(turn);
      served.push(name);
      done();
    };
    const waiting = [take('early sale', 'request'), take('mail', 'background')];
    await new Promise((resolve) => setTimeout(resolve, 120));
    waiting.push(take('late sale', 'request'));
    await tick();
    release();
    await Promise.all(waiting);
    assert.deepEqual(served, ['early sale', 'mail', 'late sale']);
    // The last holder hands the connection on in a turn of its own.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(embedded.use(), { inUse: 0, waiting: 0 }, 'the promoted waiter left no place held');
  });

  test('under a steady stream of requests, background work still gets the connection', async () => {
    const embedded = new EmbeddedTurns(5_000, 30);
    let stop = false;
    // Two request loops keep a request waiting at every hand-over.
    const requests = [1, 2].map(async () => {
      while (!stop) {
        const done = await embedded.acquire('request');
        await new Promise((resolve) => setTimeout(resolve, 2));
        done();
      }
    });
    const started = performance.now();
    const done = await embedded.acquire('background');
    const waited = performance.now() - started;
    done();
    stop = true;
    await Promise.all(requests);
    assert.ok(waited >= 30, `served only once promoted (after ${Math.round(waited)} ms)`);
    assert.ok(waited < 1_000, `served soon after its promotion, not starved (${Math.round(waited)} ms)`);
  });

  test('a background wait beyond the acquire timeout fails like a request, and hands its turn on', async () => {
    const embedded = new EmbeddedTurns(80, 20);
    const release = await embedded.acquire('request');
    await assert.rejects(embedded.acquire('background'), AcquireTimeoutError);
    assert.deepEqual(embedded.use(), { inUse: 1, waiting: 0 });
    release();
    const next = await embedded.acquire('request');
    next();
    await tick(); // the given-up places come up behind it and are handed on at once
    assert.deepEqual(embedded.use(), { inUse: 0, waiting: 0 });
  });

  test('the connection is handed on in a turn of the event loop of its own', async () => {
    const embedded = new EmbeddedTurns(5_000);
    const release = await embedded.acquire('request');
    let taken = false;
    const next = embedded.acquire('request').then((done) => {
      taken = true;
      return done;
    });
    release();
    for (let i = 0; i < 20; i++) await Promise.resolve();
    assert.equal(taken, false, 'the waiter ran in the microtasks of the holder that handed the connection on');
    await tick();
    await tick();
    assert.equal(taken, true);
    (await next)();
  });

  test("openDatabase() embedded: the workers' Kysely waits behind the requests' one", async () => {
    const database = await openDatabase({});
    try {
      assert.notEqual(database.backgroundDb, database.db);
      const served: string[] = [];
      let finish!: () => void;
      const held = new Promise<void>((resolve) => (finish = resolve));
      let holding!: () => void;
      const inside = new Promise<void>((resolve) => (holding = resolve));
      const transaction = database.db.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        holding();
        await held;
      });
      await inside;
      const background = sql`SELECT 'job'`.execute(database.backgroundDb).then(() => served.push('job'));
      await tick();
      const request = sql`SELECT 'request'`.execute(database.db).then(() => served.push('request'));
      await tick();
      assert.deepEqual(database.pool(), { max: 1, open: 1, inUse: 1, waiting: 2 });
      finish();
      await Promise.all([transaction, background, request]);
      assert.deepEqual(served, ['request', 'job']);
    } finally {
      await database.close();
    }
  });
});
