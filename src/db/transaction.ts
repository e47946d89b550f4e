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
 * statement: the lock is then released inside the database, not a round trip later. Its
 * statements may be sent ahead, as a pipeline: each goes to the database behind the
 * ones before it without waiting for their answers.
 */
import {
  sql,
  type CompiledQuery,
  type DatabaseConnection,
  type Kysely,
  type QueryResult,
  type Transaction,
} from 'kysely';
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

/** A query, raw (sql`…`) or built, that compiles on the transaction's Kysely instance. */
interface Sendable<R> {
  compile(db: Kysely<Database>): CompiledQuery<R>;
}

/**
 * Sends a statement of the transaction now, behind the statements already sent, without
 * waiting for their answers; resolves with its own. The database runs them in the order
 * sent; if one fails, every later one fails too (the transaction is aborted), so a caller
 * that awaits them together hears of the first failure first.
 */
export type SendAhead = <R>(query: Sendable<R>) => Promise<QueryResult<R>>;

/**
 * Runs fn in a transaction of its own on one connection; fn ends it by passing its last
 * statement to `commitAfter`, which sends it with the COMMIT behind it in ONE message. If
 * that statement fails, the COMMIT does not run (an error aborts the rest of a simple-
 * protocol message) and the transaction is rolled back, as it is when fn throws. If fn
 * returns without calling commitAfter, the transaction is committed then.
 *
 * `sendAhead` pipelines: a statement whose answer the next one does not depend on is sent
 * without waiting for it, so the database goes from one to the next without a round trip
 * to this process in between (on the embedded database, the thread that runs them never
 * waits for this one; docs/architecture.md, "A sale is one pipeline"). Whatever was sent
 * is answered before the connection is committed, rolled back or handed on.
 * Inside fn the connection is not a Kysely transaction: withTransaction would nest and
 * afterCommit would not wait, so fn must not call either.
 */
export async function withTransactionCommittedLast<T>(
  db: Executor,
  fn: (conn: Kysely<Database>, commitAfter: CommitAfter, sendAhead: SendAhead) => Promise<T>,
): Promise<T> {
  if (db.isTransaction) throw new Error('withTransactionCommittedLast: already inside a transaction');
  return db.connection().execute(async (conn) => {
    const connection = await connectionOf(conn);
    const sent: Promise<unknown>[] = [];
    const sendAhead: SendAhead = <R>(query: Sendable<R>) => {
      const answer = connection.executeQuery<R>(query.compile(conn));
      sent.push(answer.catch(() => undefined));
      return answer;
    };
    let committed = false;
    const commitAfter: CommitAfter = async (statement) => {
      await sendAhead(sql.raw(`${statement}; COMMIT`));
      committed = true;
    };
    await sql`BEGIN`.execute(conn);
    try {
      const result = await fn(conn, commitAfter, sendAhead);
      await Promise.all(sent);
      if (!committed) await sql`COMMIT`.execute(conn);
      return result;
    } catch (err) {
      await Promise.all(sent);
      if (!committed) await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * The driver's connection under a connection-bound Kysely instance. Kysely runs the
 * queries of such an instance one after another, each once the one before has answered;
 * a pipeline sends on the connection itself. Both engines' connections take statements
 * while earlier ones are still running and answer them in order: node-postgres queues
 * them on its client, the embedded database's thread runs its tasks in the order sent.
 * getExecutor() is marked internal in Kysely's types; the lockfile pins Kysely, and
 * test/foundation/pipelined-transaction.test.ts fails on both engines if it changes.
 */
async function connectionOf(conn: Kysely<Database>): Promise<DatabaseConnection> {
  return conn.getExecutor().provideConnection(async (connection) => connection);
}
