/**
 * SQL literals, for the few statements that travel without bound parameters: EXECUTE of
 * an embedded prepared statement (./embedded/prepared.ts) and a statement followed by
 * `; COMMIT` in one simple-protocol message (./transaction.ts, sendLast),
 * and a statement behind its timeouts on a transaction pooler (./transaction-pooling.ts).
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

/**
 * `text` with each placeholder `$n` replaced by the literal of values[n - 1], or undefined
 * when a value has no literal (binary). Placeholders inside quoted strings, quoted
 * identifiers, dollar-quoted bodies and comments are left alone. PostgreSQL resolves an
 * untyped literal exactly as it resolves a parameter of unspecified type, so the
 * statement means what it meant with bound parameters.
 */
export function inlineParameters(text: string, values: readonly unknown[]): string | undefined {
  const literals: string[] = [];
  for (const value of values) {
    const written = sqlLiteral(value);
    if (written === undefined) return undefined;
    literals.push(written);
  }
  return text.replace(SQL_TOKENS, (token: string, _dollarTag: string | undefined, index: string | undefined) => {
    if (index === undefined) return token;
    const written = literals[Number(index) - 1];
    if (written === undefined) throw new Error(`no value for placeholder $${index}`);
    return written;
  });
}

/**
 * What a placeholder can hide in, then a placeholder (captured): 'strings' (with ''),
 * E'strings' (with backslash escapes), "identifiers", $tag$bodies$tag$, -- and block
 * comments, and `$n`.
 */
const SQL_TOKENS =
  /[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|(\$[A-Za-z_]*\$)[\s\S]*?\1|--[^\n]*|\/\*[\s\S]*?\*\/|\$(\d+)/g;
