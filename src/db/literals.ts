/**
 * SQL literals for the few statements that must travel over the simple query protocol,
 * which carries no parameters: a statement followed by `; COMMIT` in the same message
 * (src/db/transaction.ts, withTransactionCommittedLast). Each helper accepts only values
 * of its exact type and shape, checked here, so nothing a client sent reaches the text
 * unchecked; everything else uses parameters.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuidArrayLiteral(ids: readonly string[]): string {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`not a UUID: ${JSON.stringify(id)}`);
  return `ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[]`;
}

export function integerArrayLiteral(values: readonly number[]): string {
  for (const value of values) if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return `ARRAY[${values.join(',')}]::integer[]`;
}

export function timestampLiteral(at: Date): string {
  // toISOString() throws on an invalid date and otherwise yields only digits, '-', ':', '.', 'T' and 'Z'.
  return `'${at.toISOString()}'::timestamptz`;
}
