/**
 * Statements marked PREPARED run on the embedded database as prepared statements of its
 * session (src/db/embedded/prepared.ts): EXECUTE with each value written as a literal. The
 * rows are those of the same statement with bound parameters, whatever the values hold
 * (quotes, backslashes, NULLs, nested arrays, dates, JSON); a prepared statement survives
 * a rollback; a binary value runs the statement unprepared. PGlite only, whatever engine
 * the rest of the suite runs on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { EmbeddedTurns } from '../../src/db/embedded/turns.ts';
import { PGliteDialect } from '../../src/db/embedded/dialect.ts';
import { executeArguments } from '../../src/db/embedded/prepared.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded/thread.ts';
import { PREPARED } from '../../src/db/prepared.ts';

describe('executeArguments', () => {
  test('writes each value as the text node-postgres would bind, quoted', () => {
    assert.equal(executeArguments([]), '');
    assert.equal(
      executeArguments([1, "O'Brien", null, true, 2n, new Date('2027-03-28T01:30:00.000Z')]),
      "('1', 'O''Brien', NULL, 'true', '2', '2027-03-28T01:30:00.000Z')",
    );
    assert.equal(executeArguments(['back\\slash']), String.raw`( E'back\\slash')`);
    assert.equal(executeArguments([['a', 'b"c', null, 'd\\e']]), String.raw`( E'{"a","b\\"c",NULL,"d\\\\e"}')`);
    assert.equal(
      executeArguments([
        [
          [1, 2],
          [3, 4],
        ],
      ]),
      '(\'{{"1","2"},{"3","4"}}\')',
    );
    assert.equal(executeArguments([{ a: "it's" }]), `('{"a":"it''s"}')`);
    assert.equal(executeArguments([Buffer.from('x')]), undefined);
    assert.equal(executeArguments([[Buffer.from('x')]]), undefined);
  });
});

describe('prepared statements on the embedded database', () => {
  let embedded: EmbeddedDatabase;
  let db: Kysely<unknown>;
  const calls: string[] = [];

  before(async () => {
    embedded = await startEmbeddedDatabase(undefined);
    const recording: EmbeddedDatabase = {
      query(text, params, edges) {
        calls.push(`query ${text}`);
        return embedded.query(text, params, edges);
      },
      exec: (text, edges) => embedded.exec(text, edges),
      executePrepared(name, text, execute, edges) {
        calls.push(execute);
        return embedded.executePrepared(name, text, execute, edges);
      },
      dump: () => embedded.dump(),
      close: () => embedded.close(),
    };
    db = new Kysely({ dialect: new PGliteDialect(recording, { turns: new EmbeddedTurns(5_000) }) });
  });
  after(() => db.destroy().then(() => embedded.close()));

  const awkward = {
    text: `it's a "quote", a back\\slash and a tab\t`,
    list: ['plain', `it's`, 'say "hi"', 'back\\slash', null],
    at: new Date('2027-10-31T00:59:59.123Z'),
    doc: { name: `O'Brien`, tags: ['a"b'], n: 1.5 },
  };

  async function select(prepared: boolean) {
    const mark = prepared ? PREPARED : sql``;
    const result = await sql<Record<string, unknown>>`${mark}
      SELECT ${awkward.text}::text AS text, ${awkward.list}::text[] AS list, ${awkward.at}::timestamptz AS at,
             ${JSON.stringify(awkward.doc)}::jsonb AS doc, ${true}::boolean AS yes, ${42}::int AS n,
             ${null}::text AS nothing`.execute(db);
    return result.rows;
  }

  test('the same rows as bound parameters, through EXECUTE', async () => {
    calls.length = 0;
    const unprepared = await select(false);
    const preparedRows = await select(true);
    assert.deepEqual(preparedRows, unprepared);
    assert.deepEqual(preparedRows, [{ ...awkward, doc: awkward.doc, yes: true, n: 42, nothing: null }]);
    assert.equal(calls.length, 2);
    assert.match(calls[0]!, /^query /);
    assert.match(calls[1]!, /^EXECUTE marquee_\d+\(/);
  });

  test('a prepared statement outlives a rolled-back transaction, and a row count comes back', async () => {
    await sql`CREATE TABLE notes (id int PRIMARY KEY, body text)`.execute(db);
    const insert = (id: number, body: string) =>
      sql`${PREPARED} INSERT INTO notes (id, body) VALUES (${id}, ${body})`.execute(db);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`${PREPARED} INSERT INTO notes (id, body) VALUES (${1}, ${'first'})`.execute(trx);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    const result = await insert(2, `second's`);
    assert.equal(result.numAffectedRows, 1n);
    assert.deepEqual((await sql`SELECT id, body FROM notes ORDER BY id`.execute(db)).rows, [
      { id: 2, body: `second's` },
    ]);
  });

  test('a binary value runs the statement unprepared', async () => {
    calls.length = 0;
    const rows = (await sql<{ n: number }>`${PREPARED} SELECT length(${Buffer.from('abc')}::bytea) AS n`.execute(db))
      .rows;
    assert.deepEqual(rows, [{ n: 3 }]);
    assert.equal(calls.length, 1);
    assert.match(calls[0]!, /^query /);
  });
});
