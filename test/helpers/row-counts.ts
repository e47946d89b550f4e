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
