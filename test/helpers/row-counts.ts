/**
 * The row count of every table of the application schema, to assert that a refused
 * request left the database exactly as it was.
 */
import { sql } from 'kysely';
import type { Db } from '../../src/db/client.ts';

export async function rowCounts(db: Db): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(name)}`.execute(db);
    counts[name] = result.rows[0]!.n;
  }
  return counts;
}

/**
 * rowCounts() in one statement, for callers that count before and after thousands of
 * requests (the fuzzer): the table list is read once, then one SELECT counts them all.
 */
export async function createRowCounter(db: Db): Promise<() => Promise<Record<string, number>>> {
  const tables = Object.keys(await rowCounts(db));
  const counts = sql.join(
    tables.map((name) => sql`(SELECT count(*)::int FROM ${sql.table(name)}) AS ${sql.ref(name)}`),
  );
  const query = sql<Record<string, number>>`SELECT ${counts}`;
  return async () => (await query.execute(db)).rows[0]!;
}
