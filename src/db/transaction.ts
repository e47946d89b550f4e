/**
 * withTransaction(db, fn): run fn in a transaction. When db already is a transaction
 * (a request-scoped one opened by the idempotency layer, or an outer domain call), fn
 * joins it instead of opening a nested one, so the caller decides the boundary.
 *
 * afterCommit(db, fn): run fn once the change made on db is durable. Whoever opened the
 * transaction runs the queued callbacks right after COMMIT (withTransaction here, the
 * idempotency layer for its request transaction, through transactionCommitted()); a
 * rollback drops them with the transaction.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

export type Executor = Kysely<Database> | Transaction<Database>;

const onCommit = new WeakMap<Executor, (() => void)[]>();

export async function withTransaction<T>(db: Executor, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<Database>);
  let opened: Transaction<Database> | undefined;
  const result = await db.transaction().execute((trx) => {
    opened = trx;
    return fn(trx);
  });
  if (opened) transactionCommitted(opened);
  return result;
}

/** Queues fn for after the commit of db's transaction; runs it at once when db is not one. */
export function afterCommit(db: Executor, fn: () => void): void {
  if (!db.isTransaction) {
    fn();
    return;
  }
  const queued = onCommit.get(db);
  if (queued) queued.push(fn);
  else onCommit.set(db, [fn]);
}

/** Runs what afterCommit() queued on trx; its opener calls this right after COMMIT. */
export function transactionCommitted(trx: Transaction<Database>): void {
  const queued = onCommit.get(trx);
  if (!queued) return;
  onCommit.delete(trx);
  for (const fn of queued) fn();
}
