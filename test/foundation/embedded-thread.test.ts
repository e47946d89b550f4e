/**
 * The embedded database runs on a thread of its own (docs/architecture.md, "Embedded
 * database"): a long query leaves the calling thread's event loop free, errors keep their
 * PostgreSQL fields, and a closed database fails queries as a lost connection.
 * PGlite only, whatever engine the rest of the suite runs on.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/client.ts';
import { classifyDatabaseError } from '../../src/db/errors.ts';
import { startEmbeddedDatabase } from '../../src/db/embedded/thread.ts';

describe('embedded database thread', () => {
  test('a query that runs for seconds leaves the event loop free', async () => {
    const handle = await openDatabase({});
    try {
      // Warm the thread up, so only the long query is timed.
      await sql`SELECT 1`.execute(handle.db);
      const delay = monitorEventLoopDelay({ resolution: 10 });
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      delay.enable();
      const started = performance.now();
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM generate_series(1, 4000000) AS g(i) WHERE md5(i::text) LIKE 'a%'`.execute(
        handle.db,
      );
      const queryMs = performance.now() - started;
      delay.disable();
      clearInterval(ticker);
      assert.ok(rows[0]!.n > 200_000, `the query counted ${rows[0]!.n}`);
      // The query is long enough that a blocked loop would show it many times over.
      assert.ok(queryMs > 500, `the query took only ${Math.round(queryMs)} ms`);
      const maxDelayMs = delay.max / 1e6;
      // Far below the query's length (a blocked loop stalls for all of it), with room for
      // a loaded machine's scheduling.
      assert.ok(
        maxDelayMs < 500,
        `the event loop stalled ${Math.round(maxDelayMs)} ms during a ${Math.round(queryMs)} ms query`,
      );
      assert.ok(ticks >= (queryMs / 20) * 0.5, `${ticks} ticks of 20 ms in ${Math.round(queryMs)} ms`);
    } finally {
      await handle.close();
    }
  });

  test('errors cross with their PostgreSQL fields', async () => {
    const handle = await openDatabase({});
    await sql`CREATE TABLE t (id int CONSTRAINT t_pk PRIMARY KEY)`.execute(handle.db);
    await sql`INSERT INTO t VALUES (1)`.execute(handle.db);
    const duplicate = await sql`INSERT INTO t VALUES (1)`.execute(handle.db).then(
      () => assert.fail('a duplicate key was inserted'),
      (err: unknown) => err as Error & Record<string, unknown>,
    );
    assert.equal(duplicate.code, '23505');
    assert.equal(duplicate.constraint, 't_pk');
    assert.equal(duplicate.message, 'duplicate key value violates unique constraint "t_pk"');
    assert.equal(classifyDatabaseError(duplicate), undefined);

    await handle.close();
  });

  test('tasks run in the order they are sent, however many wait for the thread', async () => {
    const embedded = await startEmbeddedDatabase(undefined);
    try {
      await embedded.exec('CREATE TABLE arrivals (sent int, ran serial)');
      // Far more at once than the thread holds: the rest wait in the pool's queue.
      const sent = Array.from({ length: 100 }, (_, i) =>
        embedded.query('INSERT INTO arrivals (sent) VALUES ($1)', [i + 1]),
      );
      await Promise.all(sent);
      const { rows } = await embedded.query('SELECT sent, ran FROM arrivals ORDER BY ran', []);
      assert.deepEqual(
        rows,
        Array.from({ length: 100 }, (_, i) => ({ sent: i + 1, ran: i + 1 })),
      );
    } finally {
      await embedded.close();
    }
  });

  test('once closed, the thread answers every query as a lost connection', async () => {
    const embedded = await startEmbeddedDatabase(undefined);
    assert.deepEqual(await embedded.query('SELECT $1::int AS n', [7]), { rows: [{ n: 7 }], affectedRows: 0 });
    await embedded.close();
    const afterClose = await embedded.query('SELECT 1', []).then(
      () => assert.fail('a closed database answered'),
      (err: unknown) => err as Error & { code?: string },
    );
    assert.equal(afterClose.code, '08006');
    assert.equal(classifyDatabaseError(afterClose), 'unavailable');
  });

  test('without a template, a new data directory is initialised, then opened afresh; what was written is there on the next open', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marquee-embedded-'));
    try {
      const first = await startEmbeddedDatabase(dataDir, join(dataDir, 'no-template'));
      assert.ok(existsSync(join(dataDir, 'PG_VERSION')), 'initialised');
      await first.exec('CREATE TABLE kept (n int); INSERT INTO kept VALUES (42);');
      await first.close();
      const second = await startEmbeddedDatabase(dataDir);
      assert.deepEqual((await second.query('SELECT n FROM kept', [])).rows, [{ n: 42 }]);
      assert.deepEqual((await second.query('SHOW shared_buffers', [])).rows, [{ shared_buffers: '8MB' }]);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a new data directory is a copy of the template, made again when a copy was cut short', async () => {
    const root = mkdtempSync(join(tmpdir(), 'marquee-template-'));
    const template = join(root, 'template');
    const dataDir = join(root, 'data', 'pgdata');
    try {
      const making = await startEmbeddedDatabase(template, join(root, 'no-template'));
      await making.exec('CREATE TABLE from_template (n int); INSERT INTO from_template VALUES (7);');
      await making.close();

      // A copy cut short: some files, no PG_VERSION.
      mkdirSync(join(dataDir, 'base'), { recursive: true });
      writeFileSync(join(dataDir, 'postgresql.conf'), 'truncated');
      const copied = await startEmbeddedDatabase(dataDir, template);
      assert.deepEqual((await copied.query('SELECT n FROM from_template', [])).rows, [{ n: 7 }]);
      await copied.exec('INSERT INTO from_template VALUES (8);');
      await copied.close();
      assert.equal(
        readFileSync(join(dataDir, 'PG_VERSION'), 'utf8'),
        readFileSync(join(template, 'PG_VERSION'), 'utf8'),
      );

      // Once initialised, the data directory is opened as it is, never copied over.
      const reopened = await startEmbeddedDatabase(dataDir, template);
      assert.deepEqual((await reopened.query('SELECT n FROM from_template ORDER BY n', [])).rows, [{ n: 7 }, { n: 8 }]);
      await reopened.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
