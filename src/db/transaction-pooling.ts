/**
 * Connections through a transaction pooler: PgBouncer with `pool_mode = transaction`, the
 * usual front of a managed PostgreSQL (docs/deploy.md, "PgBouncer"). The pooler hands each
 * transaction, or each statement outside one, to whichever server connection is free, so
 * nothing may live on a server session between transactions:
 *
 * - no startup parameters: PgBouncer refuses `options`, and a value set at connection
 *   start would hold only on the server connection the pooler happened to open for it;
 * - no named prepared statements: a name PREPAREd on one server connection does not exist
 *   on the next (src/db/prepared.ts marks statements; here they run unnamed);
 * - statement_timeout and lock_timeout are given to every transaction instead, with
 *   `SET LOCAL`, in the message that opens it: `BEGIN; SET LOCAL …` costs no round trip
 *   more than `BEGIN`. A statement outside a transaction travels as one simple-protocol
 *   message `SET LOCAL …; SET LOCAL …; <statement>` (its parameters as literals,
 *   ./literals.ts), which PostgreSQL runs as one implicit transaction; SET LOCAL ends with
 *   it, so whatever a server session was left with by anyone else, every statement of
 *   Marquee runs under Marquee's timeouts, and none of Marquee's settings outlives its
 *   transaction.
 *
 * LISTEN, the endpoint guard's long-lived connection and migrations need a session: they
 * use DATABASE_DIRECT_URL (src/db/client.ts, sessionDatabaseUrl).
 */
import pg from 'pg';
import { inlineParameters } from './literals.ts';

/** The timeouts every statement runs under, in milliseconds. */
interface StatementTimeouts {
  statementMs: number;
  lockMs: number;
}

/** `BEGIN`, `START TRANSACTION …`, after any leading comments; captures the statement. */
const OPENS_TRANSACTION = /^(\s*(?:\/\*[\s\S]*?\*\/\s*)*(?:begin|start\s+transaction)\b[^;]*)/i;
/** Text whose last statement ends the transaction (not `ROLLBACK TO SAVEPOINT`). */
const ENDS_TRANSACTION = /(?:^|;)\s*(?:commit|end|rollback|abort)(?:\s+(?:work|transaction))?\s*;?\s*$/i;
/** How many results the SET LOCAL statements add to a message's answer. */
const SET_LOCAL_RESULTS = 2;

/** How one query of the application is sent through the pooler. */
interface PooledQuery {
  /** The text to send; undefined when it must run in a transaction of its own (a binary parameter). */
  text: string | undefined;
  /** Its bound parameters (none once inlined). */
  values: readonly unknown[];
  /** Where in the message's answer the SET LOCAL results sit, to be taken out. */
  setLocalsAt: number;
}

/** The SET LOCAL statements giving the current transaction the timeouts. */
function setLocalTimeouts(timeouts: StatementTimeouts): string {
  return (
    `SET LOCAL statement_timeout = ${Math.round(timeouts.statementMs)}; ` +
    `SET LOCAL lock_timeout = ${Math.round(timeouts.lockMs)}`
  );
}

/** Plans one query: inside a transaction as it is, else behind (or right after BEGIN with) the SET LOCALs. */
function planPooledQuery(
  text: string,
  values: readonly unknown[],
  inTransaction: boolean,
  setLocals: string,
): PooledQuery {
  // Inside a transaction, and at its end (a COMMIT or ROLLBACK also ends a failed one,
  // in which a SET LOCAL would fail), the text goes as it is.
  if (inTransaction || ENDS_TRANSACTION.test(text)) return { text, values, setLocalsAt: -1 };
  const opening = OPENS_TRANSACTION.exec(text);
  if (opening)
    return { text: `${opening[1]}; ${setLocals}${text.slice(opening[1]!.length)}`, values: [], setLocalsAt: 1 };
  const inlined = values.length === 0 ? text : inlineParameters(text, values);
  return { text: inlined === undefined ? undefined : `${setLocals}; ${inlined}`, values: [], setLocalsAt: 0 };
}

/** Whether a connection is inside a transaction once `text` has run on it. */
function inTransactionAfter(text: string, before: boolean): boolean {
  if (ENDS_TRANSACTION.test(text)) return false;
  return before || OPENS_TRANSACTION.test(text);
}

/** A message's answer without the SET LOCAL results: one result, or several for several statements. */
function withoutSetLocals(answer: pg.QueryResult | pg.QueryResult[], at: number): pg.QueryResult | pg.QueryResult[] {
  if (!Array.isArray(answer) || at < 0) return answer;
  const results = [...answer.slice(0, at), ...answer.slice(at + SET_LOCAL_RESULTS)];
  return results.length === 1 ? results[0]! : results;
}

/**
 * A node-postgres client for a transaction pooler: Kysely's query(text, values) calls are
 * sent as planPooledQuery() says; the connection's transaction state is followed in the
 * order queries are queued, which is the order the server runs them.
 */
export function transactionPooledClient(timeouts: StatementTimeouts): typeof pg.Client {
  const setLocals = setLocalTimeouts(timeouts);
  return class TransactionPooledClient extends pg.Client {
    #inTransaction = false;

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // The server's word, once it has answered everything queued: what the text said can
      // be wrong after an error (a failed `statement; COMMIT` leaves the transaction open).
      // `_queryQueue` is node-postgres's own (the lockfile pins it; the pooled test fails if it moves).
      this.connection.on('readyForQuery', (message: { status: string }) => {
        if ((this as unknown as { _queryQueue: unknown[] })._queryQueue.length === 0)
          this.#inTransaction = message.status !== 'I';
      });
    }

    // pg.Client.query has many overloads; Kysely's (text, values) is planned, others pass through.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: unknown[]): any {
      const [text, values = []] = args;
      if (args.length > 2 || typeof text !== 'string' || !Array.isArray(values))
        return Reflect.apply(super.query.bind(this), this, args);
      const plan = planPooledQuery(text, values, this.#inTransaction, setLocals);
      this.#inTransaction = inTransactionAfter(text, this.#inTransaction);
      if (plan.text === undefined) return this.#inOwnTransaction(text, values);
      const answer = super.query(plan.text, [...plan.values]) as unknown as Promise<pg.QueryResult | pg.QueryResult[]>;
      return answer.then((result) => withoutSetLocals(result, plan.setLocalsAt));
    }

    /** A statement whose parameters have no literal: BEGIN with the timeouts, the statement, COMMIT. */
    async #inOwnTransaction(text: string, values: unknown[]): Promise<pg.QueryResult> {
      await super.query(`BEGIN; ${setLocals}`);
      try {
        const result = await super.query(text, values);
        await super.query('COMMIT');
        return result;
      } catch (err) {
        await super.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
  };
}
