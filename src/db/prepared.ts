/**
 * Named prepared statements for hot, fixed-shape SQL (the sale path).
 *
 * Kysely sends every query as an unnamed statement, which PostgreSQL parses and plans on
 * each call; the sale's statements are short, so planning them again on every call is a
 * large part of their cost (bench/README.md). A query whose SQL begins with PREPARED:
 *
 *   sql`${PREPARED} SELECT … FROM take_inventory(${ids}::uuid[], …)`.execute(trx)
 *
 * is sent by the node-postgres pool (src/db/client.ts) as a named statement: parsed once
 * per connection, and after five executions PostgreSQL may keep a generic plan and stop
 * planning it. Use it only for SQL whose text does not depend on the data (arrays through
 * `= ANY($1::uuid[])` or unnest(), never a list of placeholders), and name the columns
 * rather than `*` (a cached statement must keep its result shape). On PGlite the same
 * name is PREPAREd on the embedded session and run by EXECUTE (./embedded/prepared.ts).
 */
import { sql } from 'kysely';

/** The comment that marks a statement to prepare; must be the very start of the SQL. */
export const PREPARED_MARK = '/*prepared*/';

export const PREPARED = sql.raw(PREPARED_MARK);

/** At most this many distinct statements are prepared per process; others run unnamed. */
export const MAX_PREPARED_STATEMENTS = 64;

const names = new Map<string, string>();

/**
 * The statement name for a marked SQL text (the same in every connection of the process),
 * or undefined when the text is not marked or the cap is reached.
 */
export function preparedStatementName(text: string): string | undefined {
  if (!text.startsWith(PREPARED_MARK)) return undefined;
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_PREPARED_STATEMENTS) return undefined;
    name = `marquee_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}
