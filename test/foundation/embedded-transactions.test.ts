/**
 * The embedded dialect sends a transaction's BEGIN with the transaction's first
 * statement (src/db/pglite-dialect.ts): one message to the database's thread less per
 * transaction, with the same outcome as a BEGIN of its own. PGlite only, whatever
 * engine the rest of the suite runs on.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/pglite-thread.ts';

interface Sent {
  op: 'query' | 'exec';
  sql: string;
  begin?: string;
}

describe('embedded transactions', () => {
  let embedded: EmbeddedDatabase;
  let sent: Sent[] = [];
  let db: Kysely<unknown>;

  before(async () => {
    embedded = await startEmbeddedDatabase(undefined);
    const recording: EmbeddedDatabase = {
      query(text, params, begin) {
        sent.push({ op: 'query', sql: text, ...(begin === undefined ? {} : { begin }) });
        return embedded.query(text, params, begin);
      },
      exec(text, begin) {
        sent.push({ op: 'exec', sql: text, ...(begin === undefined ? {} : { begin }) });
        return embedded.exec(text, begin);
      },
      close: () => embedded.close(),
    };
    db = new Kysely({ dialect: new PGliteDialect(recording, { acquireTimeoutMs: 5_000 }) });
    await sql`CREATE TABLE seats (id int PRIMARY KEY)`.execute(db);
  });
  beforeEach(async () => {
    await sql`TRUNCATE seats`.execute(db);
    sent = [];
  });
  after(() => db.destroy().then(() => embedded.close()));

  const seats = async () =>
    (await sql<{ id: number }>`SELECT id FROM seats ORDER BY id`.execute(db)).rows.map((r) => r.id);

  test('BEGIN travels with the first statement; COMMIT is a message of its own', async () => {
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO seats VALUES (${1})`.execute(trx);
      await sql`INSERT INTO seats VALUES (${2})`.execute(trx);
    });
    assert.deepEqual(sent, [
      { op: 'query', sql: 'INSERT INTO seats VALUES ($1)', begin: 'BEGIN' },
      { op: 'query', sql: 'INSERT INTO seats VALUES ($1)' },
      { op: 'exec', sql: 'COMMIT' },
    ]);
    assert.deepEqual(await seats(), [1, 2]);
  });

  test('a transaction whose first statement fails rolls back, and the next one starts clean', async () => {
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`INSERT INTO seats VALUES (${1}), (${1})`.execute(trx);
      }),
      /duplicate key value violates unique constraint "seats_pkey"/,
    );
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`INSERT INTO seats VALUES (${3})`.execute(trx);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.deepEqual(
      sent.map((s) => [s.sql, s.begin]),
      [
        ['INSERT INTO seats VALUES ($1), ($2)', 'BEGIN'],
        ['ROLLBACK', undefined],
        ['INSERT INTO seats VALUES ($1)', 'BEGIN'],
        ['ROLLBACK', undefined],
      ],
    );
    assert.deepEqual(await seats(), []);
    // Outside a transaction, statements commit on their own: nothing was left open.
    await sql`INSERT INTO seats VALUES (${4})`.execute(db);
    assert.deepEqual((await sql<{ open: boolean }>`SELECT now() <> statement_timestamp() AS open`.execute(db)).rows, [
      { open: false },
    ]);
  });

  test('a transaction that ran no statement sends nothing at all', async () => {
    await db.transaction().execute(async () => undefined);
    await assert.rejects(
      db.transaction().execute(async () => {
        throw new Error('nothing to do');
      }),
      /nothing to do/,
    );
    assert.deepEqual(sent, []);
  });

  test('the isolation level and a multi-statement text travel too', async () => {
    await db
      .transaction()
      .setIsolationLevel('serializable')
      .execute(async (trx) => {
        await sql.raw('INSERT INTO seats VALUES (5); INSERT INTO seats VALUES (6)').execute(trx);
        const level = await sql<{ level: string }>`SELECT current_setting('transaction_isolation') AS level`.execute(
          trx,
        );
        assert.deepEqual(level.rows, [{ level: 'serializable' }]);
      });
    assert.deepEqual(sent[0], {
      op: 'exec',
      sql: 'INSERT INTO seats VALUES (5); INSERT INTO seats VALUES (6)',
      begin: 'BEGIN ISOLATION LEVEL SERIALIZABLE',
    });
    assert.deepEqual(await seats(), [5, 6]);
  });
});
