/**
 * A transaction on the embedded database costs its thread one task per statement: the
 * BEGIN travels with the first statement, and the statement that ends the transaction
 * hands the connection on as soon as it is sent (src/db/embedded/dialect.ts). The thread
 * runs tasks in the order they were sent and rolls back whatever an ending statement left
 * open (src/db/embedded/thread-task.ts), so the next holder never lands inside it. PGlite
 * only, whatever engine the rest of the suite runs on.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { EmbeddedTurns } from '../../src/db/embedded/turns.ts';
import { PGliteDialect } from '../../src/db/embedded/dialect.ts';
import type { TransactionEdges } from '../../src/db/embedded/protocol.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded/thread.ts';
import { sendLast, withTransaction } from '../../src/db/transaction.ts';
import type { Database } from '../../src/db/schema.ts';

interface Sent {
  sql: string;
  edges: TransactionEdges;
}

describe('transactions on the embedded database', () => {
  let embedded: EmbeddedDatabase;
  let db: Kysely<Database>;
  const sent: Sent[] = [];
  /** While set, an ending statement's answer waits for it (the task itself is already sent). */
  let holdEndings: Promise<void> | undefined;

  before(async () => {
    embedded = await startEmbeddedDatabase(undefined);
    const record = (text: string, edges: TransactionEdges | undefined) =>
      sent.push({ sql: text.trim(), edges: { ...edges } });
    const recording: EmbeddedDatabase = {
      query(text, params, edges) {
        record(text, edges);
        return embedded.query(text, params, edges);
      },
      async exec(text, edges) {
        record(text, edges);
        const answer = embedded.exec(text, edges);
        if (edges?.endsTransaction && holdEndings) await holdEndings;
        return answer;
      },
      executePrepared(name, text, execute, edges) {
        record(execute, edges);
        return embedded.executePrepared(name, text, execute, edges);
      },
      dump: () => embedded.dump(),
      close: () => embedded.close(),
    };
    db = new Kysely<Database>({ dialect: new PGliteDialect(recording, { turns: new EmbeddedTurns(5_000) }) });
    await sql`CREATE TABLE notes (id int PRIMARY KEY, body text)`.execute(db);
  });
  after(() => db.destroy().then(() => embedded.close()));
  beforeEach(async () => {
    await sql`DELETE FROM notes`.execute(db);
    sent.length = 0;
  });

  const notes = async () => (await sql<{ id: number }>`SELECT id FROM notes ORDER BY id`.execute(db)).rows;

  test('the BEGIN travels with the first statement, and an empty transaction sends nothing', async () => {
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO notes (id, body) VALUES (${1}, ${'one'})`.execute(trx);
      await sql`INSERT INTO notes (id, body) VALUES (${2}, ${'two'})`.execute(trx);
    });
    await db.transaction().execute(async () => undefined);
    assert.deepEqual(sent, [
      { sql: 'INSERT INTO notes (id, body) VALUES ($1, $2)', edges: { begin: 'BEGIN', endsTransaction: false } },
      { sql: 'INSERT INTO notes (id, body) VALUES ($1, $2)', edges: { begin: undefined, endsTransaction: false } },
      { sql: 'COMMIT', edges: { begin: undefined, endsTransaction: true } },
    ]);
    assert.deepEqual(await notes(), [{ id: 1 }, { id: 2 }]);
  });

  test('the next transaction is sent while the ending statement of the last is still running', async () => {
    let open!: () => void;
    holdEndings = new Promise((resolve) => (open = resolve));
    try {
      let firstAnswered = false;
      const first = withTransaction(db, async (conn) => {
        await sql`INSERT INTO notes (id, body) VALUES (${1}, ${'first'})`.execute(conn);
        await sendLast(conn, `INSERT INTO notes (id, body) VALUES (2, 'first''s end')`);
        firstAnswered = true;
      });
      const second = db
        .transaction()
        .execute((trx) => sql<{ n: number }>`SELECT count(*)::int AS n FROM notes`.execute(trx));
      // The second transaction's first statement goes out while the first's answer is held
      // (its own COMMIT may follow at once: only the first three are in a fixed order).
      const deadline = Date.now() + 2_000;
      while (sent.length < 3 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(firstAnswered, false);
      assert.deepEqual(
        sent.slice(0, 3).map((s) => s.sql),
        [
          'INSERT INTO notes (id, body) VALUES ($1, $2)',
          `INSERT INTO notes (id, body) VALUES (2, 'first''s end'); COMMIT`,
          'SELECT count(*)::int AS n FROM notes',
        ],
      );
      assert.deepEqual(sent[2]!.edges, { begin: 'BEGIN', endsTransaction: false });
      open();
      await first;
      // It ran after the first had committed, in order.
      assert.deepEqual((await second).rows, [{ n: 2 }]);
    } finally {
      holdEndings = undefined;
    }
  });

  test('a failed ending statement is rolled back by the thread; the next holder starts clean', async () => {
    await assert.rejects(
      withTransaction(db, async (conn) => {
        await sql`INSERT INTO notes (id, body) VALUES (${1}, ${'kept?'})`.execute(conn);
        await sendLast(conn, 'SELECT 1 / 0');
      }),
      /division by zero/,
    );
    assert.deepEqual(await notes(), []);
    await db.transaction().execute((trx) => sql`INSERT INTO notes (id, body) VALUES (${3}, ${'next'})`.execute(trx));
    assert.deepEqual(await notes(), [{ id: 3 }]);
  });

  test('an ending statement that leaves its transaction open fails, and the transaction is rolled back', async () => {
    await assert.rejects(
      withTransaction(db, async (conn) => {
        await sql`INSERT INTO notes (id, body) VALUES (${1}, ${'open'})`.execute(conn);
        // The COMMIT is inside a comment: the text ends like an ending but ends nothing.
        await sendLast(conn, 'SELECT 1 -- and then');
      }),
      /left it open; it was rolled back/,
    );
    assert.deepEqual(await notes(), []);
  });

  test('the connection is not used after it was handed on, but a late ROLLBACK is harmless', async () => {
    await assert.rejects(
      db.connection().execute(async (conn) => {
        await sql`BEGIN`.execute(conn);
        await sql`INSERT INTO notes (id, body) VALUES (${1}, ${'one'})`.execute(conn);
        await sql`COMMIT`.execute(conn);
        await sql`ROLLBACK`.execute(conn);
        await sql`SELECT 1`.execute(conn);
      }),
      /used after its transaction ended/,
    );
    assert.deepEqual(await notes(), [{ id: 1 }]);
  });
});
