/**
 * Opens the database: embedded PGlite under DATA_DIR when no DATABASE_URL is set,
 * otherwise a node-postgres pool. Both are one Kysely<Database> to the rest of the code.
 * Every wait for the database is bounded (docs/operations.md): a query waits at most the
 * acquire timeout for a connection, and on PostgreSQL a statement runs at most
 * statement_timeout, waits at most lock_timeout for a row lock, and is answered within
 * statement_timeout + ANSWER_MARGIN_MS or its connection is dropped. A lost connection
 * is logged and replaced, never fatal.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_POOL_SIZE, type Config } from '../config.ts';
import pg from 'pg';
import type { Database } from './schema.ts';
import { EmbeddedTurns } from './embedded/turns.ts';
import { PGliteDialect } from './embedded/dialect.ts';
import { startEmbeddedDatabase } from './embedded/thread.ts';
import { preparedStatementName } from './prepared.ts';
import { transactionPooledClient } from './transaction-pooling.ts';

export type Db = Kysely<Database>;
export type Engine = 'pglite' | 'postgres';

export interface DatabaseHandle {
  /** Requests' queries (and everything that is not a background job). */
  db: Db;
  /**
   * Background jobs' queries (webhooks, e-mail, purges). Embedded, they wait for the one
   * connection behind requests (src/db/embedded/turns.ts); on PostgreSQL this is `db`.
   */
  backgroundDb: Db;
  engine: Engine;
  /** The connections of this process: how many there may be, are checked out, and are waited for. */
  pool(): PoolUse;
  /**
   * Embedded only: the data directory as a tar archive, which `snapshot` opens another
   * in-memory database from (tests start each file's database from a migrated one).
   */
  dumpEmbedded?(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * The pool at one moment (docs/operations.md, "Metrics"). On PostgreSQL, node-postgres's
 * counts; embedded, the one connection behind the driver's mutex (src/db/embedded/dialect.ts).
 */
export interface PoolUse {
  /** Most connections this process opens (DATABASE_POOL_SIZE; 1 embedded). */
  max: number;
  /** Connections open now (embedded: always 1). */
  open: number;
  /** Connections checked out by a query or transaction. */
  inUse: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
}

// bigint (int8) columns and count(*) hold money and counts far below 2^53: read them as
// numbers. numeric stays a string (we never use it for money).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * A node-postgres client that sends SQL marked with PREPARED (src/db/prepared.ts) as a
 * named prepared statement: node-postgres parses it once per connection and binds it
 * afterwards. Kysely calls query(text, values); everything else passes through unchanged.
 */
class PreparingClient extends pg.Client {
  // pg.Client.query has many overloads; this override forwards whichever one was called.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: unknown[]): any {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = preparedStatementName(text);
      if (name !== undefined) return super.query({ name, text, values });
    }
    return Reflect.apply(super.query.bind(this), this, args);
  }
}

/**
 * How long past statement_timeout a query may go unanswered before its connection counts
 * as dead. PostgreSQL cancels a statement at statement_timeout and answers with an error,
 * so silence beyond that means the server or the path to it is gone without closing the
 * socket (a silent network partition, a failover that moved the address): TCP alone would
 * wait many minutes.
 */
export const ANSWER_MARGIN_MS = 2000;

/**
 * A client class whose queries each get an answer deadline: a query unanswered after
 * `deadlineMs` destroys the connection, so it fails as a lost connection (503) and the
 * pool discards the client. One timer per query; Kysely's queries are promises.
 */
function clientAnsweringWithin(deadlineMs: number, Client: typeof pg.Client): typeof pg.Client {
  return class AnsweringClient extends Client {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- forwards every overload, as above
    override query(...args: unknown[]): any {
      const result: unknown = Reflect.apply(super.query.bind(this), this, args);
      if (!(result instanceof Promise)) return result;
      const timer = setTimeout(() => {
        const err = Object.assign(
          new Error(`Connection terminated: no answer from the database within ${deadlineMs} ms`),
          { code: 'ETIMEDOUT' },
        );
        this.connection.stream.destroy(err);
      }, deadlineMs);
      const clear = () => clearTimeout(timer);
      result.then(clear, clear);
      return result;
    }
  };
}

/** The timeouts of a database opened without them (tests, scripts): the settings' defaults (src/config.ts). */
const DEFAULT_TIMEOUTS_MS = Object.freeze({ acquire: 5_000, statement: 30_000, lock: 10_000 });

interface OpenDatabaseOptions {
  databaseUrl?: string;
  /** Directory of the embedded database; omitted means in-memory (tests). */
  dataDir?: string;
  /** An in-memory embedded database starts as a copy of this archive (DatabaseHandle.dumpEmbedded). */
  snapshot?: Uint8Array;
  poolSize?: number;
  /** Longest wait for a free connection (both engines); default 5 s. */
  acquireTimeoutMs?: number;
  /** PostgreSQL statement_timeout; default 30 s. */
  statementTimeoutMs?: number;
  /** PostgreSQL lock_timeout; default 10 s. */
  lockTimeoutMs?: number;
  /**
   * `databaseUrl` is a transaction pooler (PgBouncer, pool_mode = transaction): no startup
   * options, no named prepared statements, the timeouts given to every transaction
   * (./transaction-pooling.ts).
   */
  transactionPooled?: boolean;
  /** Where lost connections are reported (a warning each); omitted means nowhere. */
  logger?: Pick<FastifyBaseLogger, 'warn'>;
}

/** The options of openDatabase() that configuration sets. */
export function databaseOptions(
  config: Readonly<Config>,
  logger?: Pick<FastifyBaseLogger, 'warn'>,
): OpenDatabaseOptions {
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    acquireTimeoutMs: config.databaseAcquireTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    lockTimeoutMs: config.databaseLockTimeoutMs,
    transactionPooled: config.databaseDirectUrl !== undefined,
    ...(logger ? { logger } : {}),
  };
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const acquireTimeoutMs = opts.acquireTimeoutMs ?? DEFAULT_TIMEOUTS_MS.acquire;
  if (opts.databaseUrl) {
    const timeouts = {
      statementMs: Math.round(opts.statementTimeoutMs ?? DEFAULT_TIMEOUTS_MS.statement),
      lockMs: Math.round(opts.lockTimeoutMs ?? DEFAULT_TIMEOUTS_MS.lock),
    };
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? DEFAULT_POOL_SIZE,
      // Waiting for a free connection, and opening a new one, ends with an error that
      // answers 503 instead of queueing the request forever.
      connectionTimeoutMillis: acquireTimeoutMs,
      // A transaction must never wait forever on a row lock held by a stuck peer, nor a
      // statement run forever: set once per connection, or per transaction through a pooler.
      ...(opts.transactionPooled
        ? { Client: clientAnsweringWithin(timeouts.statementMs + ANSWER_MARGIN_MS, transactionPooledClient(timeouts)) }
        : {
            Client: clientAnsweringWithin(timeouts.statementMs + ANSWER_MARGIN_MS, PreparingClient),
            options: `-c lock_timeout=${timeouts.lockMs} -c statement_timeout=${timeouts.statementMs}`,
          }),
    });
    handleLostConnections(pool, opts.logger);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const max = opts.poolSize ?? DEFAULT_POOL_SIZE;
    return {
      db,
      // A pool has connections enough for both: background jobs take theirs like requests.
      backgroundDb: db,
      engine: 'postgres',
      pool: () => ({
        max,
        open: pool.totalCount,
        inUse: pool.totalCount - pool.idleCount,
        waiting: pool.waitingCount,
      }),
      close: () => db.destroy(),
    };
  }
  let dataDir: string | undefined;
  if (opts.dataDir) {
    dataDir = path.resolve(opts.dataDir, 'pgdata');
    mkdirSync(dataDir, { recursive: true });
  }
  const pglite = await startEmbeddedDatabase(dataDir, undefined, dataDir ? undefined : opts.snapshot);
  // One connection, two queues for it: requests go before background jobs (src/db/embedded/turns.ts).
  const turns = new EmbeddedTurns(acquireTimeoutMs);
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, { turns }) });
  const backgroundDb = new Kysely<Database>({ dialect: new PGliteDialect(pglite, { turns, turn: 'background' }) });
  return {
    db,
    backgroundDb,
    engine: 'pglite',
    pool: () => ({ max: 1, open: 1, ...turns.use() }),
    dumpEmbedded: () => pglite.dump(),
    async close() {
      await Promise.all([db.destroy(), backgroundDb.destroy()]);
      await pglite.close();
    },
  };
}

/**
 * The URL of a connection that keeps a session (LISTEN, the webhook endpoint guard,
 * migrations): DATABASE_DIRECT_URL when DATABASE_URL is a transaction pooler, else
 * DATABASE_URL itself; undefined on the embedded database.
 */
export function sessionDatabaseUrl(config: Pick<Config, 'databaseUrl' | 'databaseDirectUrl'>): string | undefined {
  return config.databaseDirectUrl ?? config.databaseUrl;
}

/**
 * node-postgres emits 'error' when a connection drops (a restart, a failover,
 * pg_terminate_backend): on the pool for an idle connection, on the client for one that
 * is checked out between queries. An 'error' without a listener would throw and end the
 * process. Here each is a warning: the pool discards the dead connection (on its release,
 * for a checked-out one) and opens a new one on demand; the query that was running, if
 * any, fails and its request answers 503.
 */
function handleLostConnections(pool: pg.Pool, logger: Pick<FastifyBaseLogger, 'warn'> | undefined): void {
  // An idle connection's error reaches both listeners (the pool's first): log it once.
  const reported = new WeakSet<object>();
  const report = (err: Error) => {
    if (reported.has(err)) return;
    reported.add(err);
    logger?.warn({ err }, 'database connection lost; the pool replaces it');
  };
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
}
