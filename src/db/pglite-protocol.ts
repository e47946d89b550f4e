/**
 * Tasks of the embedded database's thread (./pglite-thread-task.ts) and their answers.
 * Failures are answers too: a thrown error would cross the thread boundary as a bare
 * message, without the PostgreSQL fields callers classify it by (src/db/errors.ts).
 */
export type EmbeddedRequest =
  | { op: 'open'; dataDir: string | undefined }
  | { op: 'query'; sql: string; params: unknown[] }
  | { op: 'exec'; sql: string }
  /** `execute` (an EXECUTE of `name`), after PREPARE `name` AS `sql` if this session has not yet. */
  | { op: 'prepared'; name: string; sql: string; execute: string }
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
