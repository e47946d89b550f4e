/**
 * withTransactionCommittedLast's pipeline (src/db/transaction.ts), on the suite's engine:
 * statements sent ahead all go out before the first is answered and run in the order
 * sent; when one fails, the ones behind it fail too, the caller hears of the first
 * failure, nothing is committed, and the connection serves the next transaction cleanly.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { sendAhead, sendLast, withTransaction } from '../../src/db/transaction.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('a pipelined transaction', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
    await sql`CREATE TABLE piped (id int PRIMARY KEY, ran serial)`.execute(database.db);
  });
  after(async () => database.close());
  beforeEach(async () => {
    await sql`TRUNCATE piped RESTART IDENTITY`.execute(database.db);
  });

  const rows = async () =>
    (await sql<{ id: number; ran: number }>`SELECT id, ran FROM piped ORDER BY ran`.execute(database.db)).rows;

  test('every statement is sent before the first is answered; they run in order and commit', async () => {
    let answeredWhenAllSent: boolean | undefined;
    const answers = await withTransaction(database.db, async (trx) => {
      let answered = false;
      const first = sendAhead(trx, sql<{ id: number }>`INSERT INTO piped (id) VALUES (${1}) RETURNING id`);
      void first.then(() => (answered = true));
      const second = sendAhead(trx, sql<{ id: number }>`INSERT INTO piped (id) VALUES (${2}) RETURNING id`);
      const ending = sendLast(trx, 'INSERT INTO piped (id) VALUES (3)');
      answeredWhenAllSent = answered;
      return Promise.all([first, second, ending]);
    });
    assert.equal(answeredWhenAllSent, false);
    assert.deepEqual(
      answers.slice(0, 2).map((answer) => answer!.rows),
      [[{ id: 1 }], [{ id: 2 }]],
    );
    assert.deepEqual(await rows(), [
      { id: 1, ran: 1 },
      { id: 2, ran: 2 },
      { id: 3, ran: 3 },
    ]);
  });

  test('a failing statement fails the ones behind it; the first failure is reported; nothing commits', async () => {
    const failure = await withTransaction(database.db, async (trx) => {
      const sent = [
        sendAhead(trx, sql`INSERT INTO piped (id) VALUES (${1})`),
        sendAhead(trx, sql`INSERT INTO piped (id) VALUES (${1})`),
        sendLast(trx, 'INSERT INTO piped (id) VALUES (3)'),
      ];
      await Promise.all(sent);
    }).then(
      () => assert.fail('the pipeline committed'),
      (err: unknown) => err as Error & { code?: string },
    );
    assert.equal(failure.code, '23505');
    assert.deepEqual(await rows(), []);
    // The connection is out of the failed transaction: the next one commits.
    await withTransaction(database.db, async (trx) => {
      await Promise.all([sendAhead(trx, sql`INSERT INTO piped (id) VALUES (${4})`), sendLast(trx, 'SELECT 1')]);
    });
    assert.deepEqual(
      (await rows()).map((row) => row.id),
      [4],
    );
  });
});
