/**
 * withTransaction(db, fn): run fn in a transaction. When db already is a transaction
 * (a request-scoped one opened by the idempotency layer, or an outer domain call), fn
 * joins it instead of opening a nested one, so the caller decides the boundary.
 *
 * afterCommit(db, fn): run fn once the change made on db is durable. Whoever opened the
 * transaction runs the queued callbacks right after COMMIT (withTransaction here, the
 * idempotency layer for its request transaction, through transactionCommitted()); a
 * rollback drops them with the transaction.
 *
 * withTransactionCommittedLast(db, fn): a transaction whose COMMIT travels in the same
 * message as its last statement, for a transaction that takes a contended lock in that
 * statement: the lock is then released inside the database, not a round trip later.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
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

/** Runs `statement; COMMIT` as one message (simple protocol: the statement takes no parameters). */
export type CommitAfter = (statement: string) => Promise<void>;

/**
 * Runs fn in a transaction of its own on one connection; fn ends it by passing its last
 * statement to `commitAfter`, which sends it with the COMMIT behind it in ONE message. If
 * that statement fails, the COMMIT does not run (an error aborts the rest of a simple-
 * protocol message) and the transaction is rolled back, as it is when fn throws. If fn
 * returns without calling commitAfter, the transaction is committed then.
 * Inside fn the connection is not a Kysely transaction: withTransaction would nest and
 * afterCommit would not wait, so fn must not call either.
 */
export async function withTransactionCommittedLast<T>(
  db: Executor,
  fn: (conn: Kysely<Database>, commitAfter: CommitAfter) => Promise<T>,
): Promise<T> {
  if (db.isTransaction) throw new Error('withTransactionCommittedLast: already inside a transaction');
  return db.connection().execute(async (conn) => {
    let committed = false;
    const commitAfter: CommitAfter = async (statement) => {
      await sql.raw(`${statement}; COMMIT`).execute(conn);
      committed = true;
    };
    await sql`BEGIN`.execute(conn);
    try {
      const result = await fn(conn, commitAfter);
      if (!committed) await sql`COMMIT`.execute(conn);
      return result;
    } catch (err) {
      if (!committed) await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}
