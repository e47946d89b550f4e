/**
 * afterCommit (src/db/transaction.ts): a callback queued in a transaction runs only once
 * it has committed, and never when it rolls back; outside a transaction it runs at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { afterCommit, withTransaction } from '../../src/db/transaction.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('afterCommit', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.close());

  test('runs after COMMIT, not when queued', async () => {
    const seen: string[] = [];
    await withTransaction(database.db, async (trx) => {
      await sql`SELECT 1`.execute(trx);
      afterCommit(trx, () => seen.push('committed'));
      seen.push('in transaction');
    });
    assert.deepEqual(seen, ['in transaction', 'committed']);
  });

  test('a rolled-back transaction drops what it queued', async () => {
    const seen: string[] = [];
    await assert.rejects(
      withTransaction(database.db, async (trx) => {
        afterCommit(trx, () => seen.push('committed'));
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.deepEqual(seen, []);
  });

  test('a joined transaction runs its callbacks when the outer one commits', async () => {
    const seen: string[] = [];
    await withTransaction(database.db, async (outer) => {
      await withTransaction(outer, async (inner) => {
        afterCommit(inner, () => seen.push('inner change'));
      });
      assert.equal(seen.length, 0, 'the inner call ended, but nothing has committed yet');
      afterCommit(outer, () => seen.push('outer change'));
    });
    assert.deepEqual(seen, ['inner change', 'outer change']);
  });

  test('outside a transaction the change has committed already: the callback runs at once', () => {
    const seen: string[] = [];
    afterCommit(database.db, () => seen.push('now'));
    assert.deepEqual(seen, ['now']);
  });
});
