/**
 * Tasks of the embedded database's thread (./thread-task.ts) and their answers.
 * Failures are answers too: a thrown error would cross the thread boundary as a bare
 * message, without the PostgreSQL fields callers classify it by (src/db/errors.ts).
 */
export type EmbeddedRequest =
  | {
      op: 'open';
      dataDir: string | undefined;
      /** A data directory as a tar archive (EmbeddedDatabase.dump()) to start from, in memory. */
      snapshot?: Uint8Array;
    }
  | StatementRequest
  /** The data directory as an uncompressed tar archive: one result whose one row is its bytes. */
  | { op: 'dump' }
  | { op: 'close' };

export type StatementRequest = (
  | { op: 'query'; sql: string; params: unknown[] }
  | { op: 'exec'; sql: string }
  /** `execute` (an EXECUTE of `name`), after PREPARE `name` AS `sql` if this session has not yet. */
  | { op: 'prepared'; name: string; sql: string; execute: string }
) &
  TransactionEdges;

/**
 * Where a statement stands in its transaction, so a transaction costs the thread no more
 * trips than it has statements (./dialect.ts).
 */
export interface TransactionEdges {
  /** The transaction's BEGIN, held back to travel with its first statement: run before it. */
  begin?: string;
  /**
   * The statement ends its transaction (a COMMIT or ROLLBACK, or text ending in COMMIT).
   * The thread makes sure of it: whatever is still open after it, on success or failure,
   * is rolled back there, so the dialect may hand the connection on once it is sent.
   */
  endsTransaction?: boolean;
}

export interface EmbeddedResult {
  rows: unknown[];
  affectedRows: number | undefined;
}

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, string | number>;
}

export type EmbeddedResponse = { ok: true; result: EmbeddedResult[] } | { ok: false; error: SerializedError };
