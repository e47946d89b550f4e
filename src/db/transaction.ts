/**
 * withTransaction(db, fn): run fn in a transaction. When db already is a transaction
 * (a request-scoped one opened by the idempotency layer, or an outer domain call), fn
 * joins it instead of opening a nested one, so the caller decides the boundary.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

export type Executor = Kysely<Database> | Transaction<Database>;

export async function withTransaction<T>(db: Executor, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<Database>);
  return db.transaction().execute(fn);
}
