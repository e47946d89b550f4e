/**
 * Prepared statements on the embedded database. PGlite's query() parses and plans every
 * statement on each call, and the sale's short statements would spend much of their time
 * in the planner (bench/README.md). A statement marked PREPARED (../prepared.ts) is
 * therefore PREPAREd once on the embedded database's session and run by `EXECUTE name(…)`,
 * the same named statement node-postgres makes on PostgreSQL.
 *
 * EXECUTE takes its arguments as literals in its text, not as bound parameters
 * (../literals.ts); PostgreSQL coerces each to the parameter type PREPARE inferred. A
 * statement with a binary value (a Buffer) runs unprepared.
 */
import { sqlLiteral } from '../literals.ts';

/** `(literal, …)` for EXECUTE (empty for no parameters), or undefined when a value cannot be a literal. */
export function executeArguments(params: readonly unknown[]): string | undefined {
  if (params.length === 0) return '';
  const literals: string[] = [];
  for (const value of params) {
    const written = sqlLiteral(value);
    if (written === undefined) return undefined;
    literals.push(written);
  }
  return `(${literals.join(', ')})`;
}
