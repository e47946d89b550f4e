/**
 * Prepared statements on the embedded database. PGlite's query() parses and plans every
 * statement on each call; the sale's statements spend a fifth to a third of their time in
 * the planner there (bench/README.md). A statement marked PREPARED (./prepared.ts) is
 * therefore PREPAREd once on the embedded database's session and run by `EXECUTE name(…)`,
 * the same named statement node-postgres makes on PostgreSQL.
 *
 * EXECUTE takes its arguments as literals in its text, not as bound parameters, so this
 * module writes each value as the text node-postgres would send for it (a Date as ISO
 * 8601, an array as a PostgreSQL array literal, an object as JSON, anything else as its
 * string), quoted by node-postgres's escapeLiteral; PostgreSQL coerces each literal to
 * the parameter type PREPARE inferred, as it does for a text-format bound parameter.
 * Binary values (Buffers) are not written this way: such a statement runs unprepared.
 */
import pg from 'pg';

/** `(literal, …)` for EXECUTE (empty for no parameters), or undefined when a value cannot be a literal. */
export function executeArguments(params: readonly unknown[]): string | undefined {
  if (params.length === 0) return '';
  const literals: string[] = [];
  for (const value of params) {
    const text = parameterText(value);
    if (text === undefined) return undefined;
    literals.push(text === null ? 'NULL' : pg.escapeLiteral(text));
  }
  return `(${literals.join(', ')})`;
}

/** The text of a parameter as node-postgres sends it; null for SQL NULL, undefined for binary values. */
function parameterText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value);
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      // An object (JSON, as node-postgres sends it); a function or symbol cannot be bound at all.
      return typeof value === 'object' ? JSON.stringify(value) : undefined;
  }
}

function arrayLiteral(values: readonly unknown[]): string | undefined {
  const elements: string[] = [];
  for (const value of values) {
    if (Array.isArray(value)) {
      const nested = arrayLiteral(value);
      if (nested === undefined) return undefined;
      elements.push(nested);
      continue;
    }
    const text = parameterText(value);
    if (text === undefined) return undefined;
    elements.push(text === null ? 'NULL' : `"${text.replace(/[\\"]/g, '\\$&')}"`);
  }
  return `{${elements.join(',')}}`;
}
