/**
 * A Kysely dialect for embedded PGlite.
 *
 * PGlite is a single PostgreSQL backend: one session, one query at a time. Kysely's
 * transactions assume a connection that belongs to the transaction until it ends, so
 * this driver hands out its one connection under a mutex: a transaction holds it from
 * BEGIN to COMMIT/ROLLBACK, and a query from another request waits instead of landing
 * inside someone else's transaction. That is the whole job of this file.
 *
 * Whose turn the connection is, requests before background jobs, and how long a caller
 * may wait for it, is ./turns.ts's job: one EmbeddedTurns is shared by the
 * Kysely instance of requests and the one of background jobs (src/db/client.ts).
 */
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { EmbeddedTurns, Turn } from './turns.ts';
import { executeArguments } from './prepared.ts';
import type { EmbeddedResult, TransactionEdges } from './protocol.ts';
import type { EmbeddedDatabase } from './thread.ts';
import { preparedStatementName } from '../prepared.ts';

interface PGliteDialectOptions {
  /** The turns of the one connection, shared by every dialect on the same database. */
  turns: EmbeddedTurns;
  /** Whose work this dialect's queries are; default 'request'. */
  turn?: Turn;
}

const NO_ROWS: QueryResult<never> = { rows: [] };

/** A transaction's opening statement: held back to travel with its first statement. */
const BEGIN_STATEMENT = /^\s*BEGIN(\s+ISOLATION\s+LEVEL\s+[A-Z ]+)?\s*;?\s*$/i;
/** Text whose last statement ends the transaction: COMMIT or ROLLBACK alone, or behind others. */
const ENDS_TRANSACTION = /(^|;)\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;
/** COMMIT or ROLLBACK alone. */
const BARE_END = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;

/**
 * The connection as one holder of the mutex has it, from acquireConnection until it is
 * handed on. A transaction costs the thread one task per statement and no more:
 * - its BEGIN is held back and travels with its first statement (an empty one sends nothing);
 * - the statement that ends it hands the connection on as soon as it is sent, not when
 *   its answer is back: the thread runs tasks in the order they are sent and makes sure
 *   the session is out of the transaction after such a statement, whatever happened
 *   (./thread-task.ts), so the next holder's first statement can be on its way
 *   while this one runs.
 */
class PGliteConnection implements DatabaseConnection {
  #begin: string | undefined;
  #release: (() => void) | undefined;

  constructor(
    private readonly pglite: EmbeddedDatabase,
    release: () => void,
  ) {
    this.#release = release;
  }

  /** Starts a transaction; its BEGIN goes with the first statement. */
  begin(statement: string): void {
    this.#begin = statement;
  }

  /** Hands the connection on, once (a connection handed on at the end of its transaction has nothing left to release). */
  release(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const raw = compiled.parameters.length === 0 && compiled.query.kind === 'RawNode';
    const bareEnd = raw && BARE_END.test(compiled.sql);
    if (this.#release === undefined) {
      // Handed on when its transaction ended: a COMMIT or ROLLBACK after that (a caller's
      // cleanup after the ending statement failed) has nothing left to end.
      if (bareEnd) return NO_ROWS;
      throw new Error('the embedded connection was used after its transaction ended and it was handed on');
    }
    if (raw && BEGIN_STATEMENT.test(compiled.sql)) {
      this.#begin = compiled.sql;
      return NO_ROWS;
    }
    const edges: TransactionEdges = { begin: this.#begin, endsTransaction: raw && ENDS_TRANSACTION.test(compiled.sql) };
    this.#begin = undefined;
    // A transaction without a statement: nothing was sent, nothing to end.
    if (bareEnd && edges.begin !== undefined) return NO_ROWS;
    const pending = this.#send<R>(compiled, raw, edges);
    if (edges.endsTransaction) this.release();
    return pending;
  }

  /**
   * Sends the statement; the task is in the thread's queue when this returns. A raw
   * parameterless query may hold several statements (a migration file); the extended
   * protocol behind query() takes one, so such text goes through exec(), as node-postgres
   * sends it through the simple protocol. A statement marked PREPARED runs as a prepared
   * statement of the session (./prepared.ts).
   */
  async #send<R>(compiled: CompiledQuery, raw: boolean, edges: TransactionEdges): Promise<QueryResult<R>> {
    let result: EmbeddedResult | undefined;
    if (raw) {
      const results = await this.pglite.exec(compiled.sql, edges);
      result = results[results.length - 1];
    } else {
      const name = preparedStatementName(compiled.sql);
      const args = name === undefined ? undefined : executeArguments(compiled.parameters);
      result =
        name === undefined || args === undefined
          ? await this.pglite.query(compiled.sql, compiled.parameters as unknown[], edges)
          : await this.pglite.executePrepared(name, compiled.sql, `EXECUTE ${name}${args}`, edges);
    }
    const affected = result?.affectedRows;
    return {
      rows: (result?.rows ?? []) as R[],
      numAffectedRows: affected === undefined ? undefined : BigInt(affected),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite driver does not support streaming queries');
  }
}

class PGliteDriver implements Driver {
  constructor(
    private readonly pglite: EmbeddedDatabase,
    private readonly turns: EmbeddedTurns,
    private readonly turn: Turn,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PGliteConnection(this.pglite, await this.turns.acquire(this.turn));
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}` : '';
    (connection as PGliteConnection).begin(`BEGIN${isolation}`);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`SAVEPOINT ${name}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`ROLLBACK TO SAVEPOINT ${name}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`RELEASE SAVEPOINT ${name}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PGliteConnection).release();
  }

  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: EmbeddedDatabase,
    private readonly opts: PGliteDialectOptions,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.opts.turns, this.opts.turn ?? 'request');
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
