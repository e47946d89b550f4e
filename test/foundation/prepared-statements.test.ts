/**
 * SQL marked with PREPARED goes to PostgreSQL as a named prepared statement (parsed once
 * per connection); unmarked SQL stays unnamed; on PGlite the mark is only a comment.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/client.ts';
import { MAX_PREPARED_STATEMENTS, PREPARED, PREPARED_MARK, preparedStatementName } from '../../src/db/prepared.ts';
import { createEmptyPostgresDatabase, onPostgres } from '../helpers/database.ts';

describe('prepared statements', () => {
  test('a marked query is prepared once per connection and answers like an unmarked one', async () => {
    const empty = onPostgres ? await createEmptyPostgresDatabase() : undefined;
    // One connection, so every query below runs on the session that pg_prepared_statements shows.
    const handle = await openDatabase(empty ? { databaseUrl: empty.url, poolSize: 1 } : {});
    try {
      for (const n of [1, 2, 3]) {
        const marked = await sql<{
          n: number;
          ids: string[];
        }>`${PREPARED} SELECT ${n}::int AS n, ${['a', 'b']}::text[] AS ids`.execute(handle.db);
        assert.deepEqual(marked.rows, [{ n, ids: ['a', 'b'] }]);
        const plain = await sql<{ n: number }>`SELECT ${n}::int + 0 AS n`.execute(handle.db);
        assert.deepEqual(plain.rows, [{ n }]);
      }
      if (onPostgres) {
        const prepared = await sql<{
          name: string;
          statement: string;
        }>`SELECT name, statement FROM pg_prepared_statements ORDER BY name`.execute(handle.db);
        assert.deepEqual(prepared.rows, [
          { name: 'marquee_1', statement: `${PREPARED_MARK} SELECT $1::int AS n, $2::text[] AS ids` },
        ]);
      }
      // An error in a prepared statement leaves the connection and the statement usable.
      await assert.rejects(sql`${PREPARED} SELECT 1 / ${0}::int AS n`.execute(handle.db), /division by zero/);
      const again = await sql<{ n: number }>`${PREPARED} SELECT 1 / ${1}::int AS n`.execute(handle.db);
      assert.deepEqual(again.rows, [{ n: 1 }]);
    } finally {
      await handle.close();
      await empty?.drop();
    }
  });

  test('names: one per distinct marked text, none for unmarked text, none past the cap', () => {
    assert.equal(preparedStatementName('SELECT 1'), undefined);
    assert.equal(preparedStatementName(` ${PREPARED_MARK} SELECT 1`), undefined, 'the mark must start the text');
    const first = preparedStatementName(`${PREPARED_MARK} SELECT 'names test'`);
    assert.match(first!, /^marquee_\d+$/);
    assert.equal(preparedStatementName(`${PREPARED_MARK} SELECT 'names test'`), first);
    let last: string | undefined;
    for (let i = 0; i <= MAX_PREPARED_STATEMENTS; i++) {
      const name = preparedStatementName(`${PREPARED_MARK} SELECT ${i}`);
      if (name === undefined) break;
      last = name;
    }
    assert.equal(last, `marquee_${MAX_PREPARED_STATEMENTS}`);
    assert.equal(preparedStatementName(`${PREPARED_MARK} SELECT 'one too many'`), undefined);
    assert.equal(preparedStatementName(`${PREPARED_MARK} SELECT 'names test'`), first, 'known texts keep their name');
  });
});
