/**
 * Tasks of the embedded database's thread (./pglite-thread-task.ts) and their answers.
 * Failures are answers too: a thrown error would cross the thread boundary as a bare
 * message, without the PostgreSQL fields callers classify it by (src/db/errors.ts).
 *
 * `begin` is a transaction's BEGIN sent with its first statement: one message to the
 * thread instead of two (./pglite-dialect.ts).
 */
export type EmbeddedRequest =
  | { op: 'open'; dataDir: string | undefined }
  | { op: 'query'; sql: string; params: unknown[]; begin?: string }
  | { op: 'exec'; sql: string; begin?: string }
  | { op: 'close' };

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
