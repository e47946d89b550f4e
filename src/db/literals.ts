/**
 * SQL literals, for the few statements that travel without bound parameters: EXECUTE of
 * an embedded prepared statement (./pglite-prepared.ts) and a statement followed by
 * `; COMMIT` in one simple-protocol message (./transaction.ts, withTransactionCommittedLast).
 *
 * Each value is written as the text node-postgres would bind for it (a Date as ISO 8601,
 * an array as a PostgreSQL array literal, an object as JSON, anything else as its string)
 * and quoted by node-postgres's escapeLiteral, so any string is safe; PostgreSQL coerces
 * the literal to the type its context (or a cast) gives, as it does for a text-format
 * bound parameter. Binary values (Buffers) have no literal here.
 */
import pg from 'pg';

/** The quoted literal of `value` ('NULL' for null), or undefined for a binary value. */
export function sqlLiteral(value: unknown): string | undefined {
  const text = parameterText(value);
  if (text === undefined) return undefined;
  return text === null ? 'NULL' : pg.escapeLiteral(text);
}

/** sqlLiteral for a value known not to be binary. */
export function literal(value: unknown): string {
  const written = sqlLiteral(value);
  if (written === undefined) throw new Error('a binary value has no SQL literal');
  return written;
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
    const text = Array.isArray(value) ? arrayLiteral(value) : parameterText(value);
    if (text === undefined) return undefined;
    elements.push(text === null ? 'NULL' : Array.isArray(value) ? text : `"${text.replace(/[\\"]/g, '\\$&')}"`);
  }
  return `{${elements.join(',')}}`;
}
