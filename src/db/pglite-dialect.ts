/**
 * A Kysely dialect for embedded PGlite.
 *
 * PGlite is a single PostgreSQL backend: one session, one query at a time. Kysely's
 * transactions assume a connection that belongs to the transaction until it ends, so
 * this driver hands out its one connection under a mutex: a transaction holds it from
 * BEGIN to COMMIT/ROLLBACK, and a query from another request waits instead of landing
 * inside someone else's transaction. That is the whole job of this file.
 *
 * The wait for the connection is bounded by the acquire timeout (DATABASE_ACQUIRE_TIMEOUT,
 * like the pool's on PostgreSQL): a waiter that gives up rejects with AcquireTimeoutError
 * (answered 503), and when its turn comes it hands the mutex on at once, so a timed-out
 * wait never holds the connection nor leaves it locked.
 */
import { Mutex } from 'async-mutex';
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
import { AcquireTimeoutError } from './errors.ts';
import { executeArguments } from './pglite-prepared.ts';
import type { EmbeddedResult } from './pglite-protocol.ts';
import type { EmbeddedDatabase } from './pglite-thread.ts';
import { preparedStatementName } from './prepared.ts';

interface PGliteDialectOptions {
  /** Longest wait for the connection while another holds it. */
  acquireTimeoutMs: number;
}

/**
 * Acquires the mutex or rejects with AcquireTimeoutError after `timeoutMs`. A waiter that
 * timed out stays queued (async-mutex cannot dequeue one waiter) and, when its turn
 * comes, releases the mutex at once, so the next waiter gets it.
 */
function acquireWithin(mutex: Mutex, timeoutMs: number): Promise<() => void> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new AcquireTimeoutError(timeoutMs));
    }, timeoutMs);
    mutex.acquire().then(
      (release) => {
        if (timedOut) {
          release();
          return;
        }
        clearTimeout(timer);
        resolve(release);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!timedOut) reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: EmbeddedDatabase) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // A raw parameterless query may hold several statements (a migration file); the
    // extended protocol behind query() takes one, so such text goes through exec(),
    // as node-postgres sends it through the simple protocol.
    if (compiled.parameters.length === 0 && compiled.query.kind === 'RawNode') {
      const results = await this.pglite.exec(compiled.sql);
      const last = results[results.length - 1];
      return {
        rows: (last?.rows ?? []) as R[],
        numAffectedRows: last?.affectedRows === undefined ? undefined : BigInt(last.affectedRows),
      };
    }
    const result = await this.#run(compiled);
    const affected = result.affectedRows;
    return {
      rows: result.rows as R[],
      numAffectedRows: affected === undefined ? undefined : BigInt(affected),
    };
  }

  /** A statement marked PREPARED runs as a prepared statement of the session (./pglite-prepared.ts). */
  #run(compiled: CompiledQuery): Promise<EmbeddedResult> {
    const name = preparedStatementName(compiled.sql);
    const args = name === undefined ? undefined : executeArguments(compiled.parameters);
    if (name === undefined || args === undefined) {
      return this.pglite.query(compiled.sql, compiled.parameters as unknown[]);
    }
    return this.pglite.executePrepared(name, compiled.sql, `EXECUTE ${name}${args}`);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite driver does not support streaming queries');
  }
}

/** The embedded connection's use: 1 or 0 holding it, and how many wait for it (docs/operations.md, "Metrics"). */
interface ConnectionUse {
  inUse: number;
  waiting: number;
}

class PGliteDriver implements Driver {
  readonly #connection: PGliteConnection;
  readonly #mutex = new Mutex();
  #release: (() => void) | undefined;
  /** Callers waiting for the connection (a waiter that timed out no longer counts). */
  #waiting = 0;

  constructor(
    pglite: EmbeddedDatabase,
    private readonly acquireTimeoutMs: number,
  ) {
    this.#connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#waiting++;
    try {
      this.#release = await acquireWithin(this.#mutex, this.acquireTimeoutMs);
    } finally {
      this.#waiting--;
    }
    return this.#connection;
  }

  use(): ConnectionUse {
    return { inUse: this.#release === undefined ? 0 : 1, waiting: this.#waiting };
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}` : '';
    await connection.executeQuery(CompiledQuery.raw(`BEGIN${isolation}`));
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

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  #driver: PGliteDriver | undefined;

  constructor(
    private readonly pglite: EmbeddedDatabase,
    private readonly opts: PGliteDialectOptions,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    this.#driver = new PGliteDriver(this.pglite, this.opts.acquireTimeoutMs);
    return this.#driver;
  }
  /** The connection's use by the Kysely instance of this dialect (nothing before it made its driver). */
  use(): ConnectionUse {
    return this.#driver?.use() ?? { inUse: 0, waiting: 0 };
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
