/**
 * Transactions, opened one way (docs/architecture.md, "Transactions"):
 *
 * openTransaction(db) begins a transaction on a connection of its own and hands back its
 * executor (every statement run on it is part of the transaction) with commit() and
 * rollback(). It is the only place a transaction of the service opens; withTransaction
 * and the idempotency layer's request transaction both go through it.
 *
 * withTransaction(db, fn): run fn in a transaction. When db already is one (the request
 * transaction of an Idempotency-Key, or an outer domain call), fn joins it instead of
 * opening a nested one, so the outermost caller decides the boundary.
 *
 * Inside any transaction:
 * - sendAhead(trx, query) pipelines: the statement goes to the database behind the ones
 *   already sent, without waiting for their answers;
 * - sendLast(trx, statement) sends the transaction's last statement. When withTransaction
 *   opened the transaction, the COMMIT travels behind it in the same message, so a lock
 *   the statement takes is released inside the database, not a round trip later; in a
 *   transaction its opener commits later (a joined one), it is sent on its own;
 * - afterCommit(trx, fn) runs fn once the change is durable (a rollback drops it).
 */
import {
  sql,
  type CompiledQuery,
  type DatabaseConnection,
  type Kysely,
  type KyselyPlugin,
  type QueryResult,
} from 'kysely';
import type { Database } from './schema.ts';

/** A handle statements run on: the shared pool, or a transaction's connection. */
export type Executor = Kysely<Database>;

/** A query, raw (sql`…`) or built, that compiles on the transaction's Kysely instance. */
interface Sendable<R> {
  compile(db: Kysely<Database>): CompiledQuery<R>;
}

/** A transaction opened by openTransaction. */
interface OpenState {
  connection: DatabaseConnection;
  /** Everything sent ahead, answered (or failed) before the transaction ends. */
  sent: Promise<unknown>[];
  /** COMMIT sent behind the last statement (sendLast). */
  committed: boolean;
  /** commit() or rollback() has run: the connection is no longer the transaction's. */
  ended: boolean;
  onCommit: (() => void)[];
}

/**
 * An executor of an open transaction. Its opener's executor, when withTransaction opened
 * it, may commit with the last statement; an executor handed to a caller that joined
 * (withTransaction inside a transaction) never does: its caller's work is not the last.
 */
interface TransactionView {
  state: OpenState;
  commitsWithLast: boolean;
}

const open = new WeakMap<Executor, TransactionView>();

/** A Kysely instance with a no-op plugin: a new handle on the same connection and plugins. */
const JOINED: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => args.result,
};

/** A transaction that openTransaction began: its executor, and how it ends. */
export interface OpenedTransaction {
  readonly db: Executor;
  /** COMMIT (unless sendLast already sent it), then what afterCommit queued. */
  commit(): Promise<void>;
  /** ROLLBACK (a failure to roll back is swallowed: the connection is released either way). */
  rollback(): Promise<void>;
}

/**
 * Begins a transaction on a connection held until commit() or rollback(). The executor
 * runs its statements one after another on that connection; sendAhead pipelines on it.
 * `commitsWithLast`: the transaction may commit with its last statement (sendLast).
 */
export async function openTransaction(
  db: Executor,
  opts: { commitsWithLast?: boolean } = {},
): Promise<OpenedTransaction> {
  if (open.has(db)) throw new Error('openTransaction: already inside a transaction');
  const held = holdConnection(db);
  const conn = await held.conn;
  const state: OpenState = {
    connection: await connectionOf(conn),
    sent: [],
    committed: false,
    ended: false,
    onCommit: [],
  };
  try {
    await sql`BEGIN`.execute(conn);
  } catch (err) {
    held.release();
    await held.released;
    throw err;
  }
  open.set(conn, { state, commitsWithLast: opts.commitsWithLast ?? false });
  const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
    if (state.ended) throw new Error(`${statement}: the transaction has already ended`);
    state.ended = true;
    await Promise.all(state.sent);
    open.delete(conn);
    try {
      if (state.committed) return;
      if (statement === 'COMMIT') await sql`COMMIT`.execute(conn);
      else await sql`ROLLBACK`.execute(conn).catch(() => undefined);
    } finally {
      held.release();
      await held.released;
    }
  };
  return {
    db: conn,
    commit: async () => {
      await end('COMMIT');
      for (const fn of state.onCommit) fn();
    },
    rollback: () => end('ROLLBACK'),
  };
}

export async function withTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  const outer = open.get(db);
  if (outer) {
    const joined = db.withPlugin(JOINED);
    open.set(joined, { state: outer.state, commitsWithLast: false });
    return fn(joined);
  }
  const trx = await openTransaction(db, { commitsWithLast: true });
  let result: T;
  try {
    result = await fn(trx.db);
  } catch (err) {
    await trx.rollback();
    throw err;
  }
  await trx.commit();
  return result;
}

/** Whether db is the executor of an open transaction: statements run on it join that transaction. */
export function inTransaction(db: Executor): boolean {
  return open.has(db);
}

/** Queues fn for after the commit of db's transaction; runs it at once when db is not one. */
export function afterCommit(db: Executor, fn: () => void): void {
  const view = open.get(db);
  if (view) view.state.onCommit.push(fn);
  else fn();
}

/**
 * Sends a statement of the transaction now, behind the statements already sent, without
 * waiting for their answers; resolves with its own. The database runs them in the order
 * sent; if one fails, every later one fails too (the transaction is aborted), so a caller
 * that awaits them together hears of the first failure first. Both engines' connections
 * take statements while earlier ones run and answer them in order (docs/architecture.md,
 * "A sale is one pipeline").
 */
export function sendAhead<R>(trx: Executor, query: Sendable<R>): Promise<QueryResult<R>> {
  const { state } = viewOf(trx, 'sendAhead');
  const answer = state.connection.executeQuery<R>(query.compile(trx));
  state.sent.push(answer.catch(() => undefined));
  return answer;
}

/**
 * Sends the transaction's last statement (simple protocol: it takes no parameters; see
 * ./literals.ts). When withTransaction opened the transaction, `statement; COMMIT` go as
 * ONE message: if the statement fails, the COMMIT does not run (an error aborts the rest
 * of the message) and withTransaction rolls back when the caller throws. In a transaction
 * whose opener commits later, the statement alone is sent.
 */
export async function sendLast(trx: Executor, statement: string): Promise<void> {
  const { state, commitsWithLast } = viewOf(trx, 'sendLast');
  await sendAhead(trx, sql.raw(commitsWithLast ? `${statement}; COMMIT` : statement));
  if (commitsWithLast) state.committed = true;
}

function viewOf(trx: Executor, caller: string): TransactionView {
  const view = open.get(trx);
  if (!view) throw new Error(`${caller}: not inside a transaction opened by openTransaction`);
  if (view.state.committed || view.state.ended) throw new Error(`${caller}: the transaction has already ended`);
  return view;
}

/**
 * A connection of db held until release(): Kysely lends a connection for the length of a
 * callback, and a transaction may outlive the call that opened it (the request
 * transaction of an Idempotency-Key spans hooks).
 */
function holdConnection(db: Executor) {
  let release!: () => void;
  const releasing = new Promise<void>((resolve) => (release = resolve));
  let lend!: (conn: Kysely<Database>) => void;
  const conn = new Promise<Kysely<Database>>((resolve) => (lend = resolve));
  const released = db.connection().execute(async (c) => {
    lend(c);
    await releasing;
  });
  // A failure to acquire rejects `released` before a connection was lent.
  const acquired = Promise.race([conn, released.then(() => Promise.reject(new Error('connection released early')))]);
  return { conn: acquired, release, released };
}

/**
 * The driver's connection under a connection-bound Kysely instance. Kysely runs the
 * queries of such an instance one after another, each once the one before has answered;
 * a pipeline sends on the connection itself. getExecutor() is marked internal in Kysely's
 * types; the lockfile pins Kysely, and test/foundation/pipelined-transaction.test.ts
 * fails on both engines if it changes.
 */
async function connectionOf(conn: Kysely<Database>): Promise<DatabaseConnection> {
  return conn.getExecutor().provideConnection(async (connection) => connection);
}
