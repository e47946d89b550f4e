/**
 * The embedded database's thread: owns the PGlite instance and runs what
 * ./thread.ts sends, one task at a time.
 *
 * PGlite is PostgreSQL compiled to WebAssembly: every query runs synchronously on the
 * thread that owns the instance. Here that is this thread, so the thread that serves
 * HTTP only posts SQL and awaits rows.
 */
import { PGlite } from '@electric-sql/pglite';
import type {
  EmbeddedRequest,
  EmbeddedResponse,
  EmbeddedResult,
  SerializedError,
  StatementRequest,
} from './protocol.ts';

let pglite: PGlite | undefined;
/** The statements PREPAREd on this session (a prepared statement outlives a rollback). */
const prepared = new Set<string>();

/**
 * PostgreSQL's default shared_buffers (128 MB) is written in full at start-up, so it is
 * all resident from the first second; an embedded database of a single organizer's
 * events is served as well from 8 MB, with the operating system's file cache behind it
 * (bench/README.md, "What each change bought").
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];

/**
 * The answer of the last task to arrive: the next one starts after it. The other side
 * keeps several tasks in this thread's hands (./thread.ts), so the next is here
 * when one ends; they still run one at a time, in the order they were sent.
 */
let previous: Promise<unknown> = Promise.resolve();

export default function runEmbeddedTask(request: EmbeddedRequest): Promise<EmbeddedResponse> {
  const response = previous.then(() => answer(request));
  previous = response;
  return response;
}

async function answer(request: EmbeddedRequest): Promise<EmbeddedResponse> {
  try {
    return { ok: true, result: await run(request) };
  } catch (err) {
    return { ok: false, error: serializeError(err) };
  }
}

async function run(request: EmbeddedRequest): Promise<EmbeddedResult[]> {
  if (request.op === 'open') {
    if (pglite !== undefined) throw new Error('the embedded database is already open on this thread');
    pglite = await PGlite.create({
      dataDir: request.dataDir,
      startParams: START_PARAMS,
      ...(request.snapshot ? { loadDataDir: new Blob([request.snapshot as Uint8Array<ArrayBuffer>]) } : {}),
    });
    prepared.clear();
    return [];
  }
  // A thread started again after a crash has no database: its queries fail as lost.
  if (pglite === undefined) {
    throw Object.assign(
      new Error('Connection terminated: the embedded database is not open (closed, or its thread restarted)'),
      {
        code: '08006',
      },
    );
  }
  if (request.op === 'dump') {
    const archive = await pglite.dumpDataDir('none');
    return [{ rows: [new Uint8Array(await archive.arrayBuffer())], affectedRows: undefined }];
  }
  if (request.op === 'close') {
    await pglite.close();
    pglite = undefined;
    prepared.clear();
    return [];
  }
  return runStatement(pglite, request);
}

/** A statement with its transaction's edges (TransactionEdges in ./protocol.ts). */
async function runStatement(db: PGlite, request: StatementRequest): Promise<EmbeddedResult[]> {
  if (request.begin !== undefined) await db.exec(request.begin);
  if (!request.endsTransaction) return runOp(db, request);
  let results: EmbeddedResult[];
  try {
    results = await runOp(db, request);
  } catch (err) {
    // The COMMIT behind a failed statement did not run: the transaction ends here,
    // not in a ROLLBACK from a caller that has already handed the connection on.
    if (db.isInTransaction()) await db.exec('ROLLBACK');
    throw err;
  }
  if (db.isInTransaction()) {
    await db.exec('ROLLBACK');
    throw new Error('a statement sent as the end of its transaction left it open; it was rolled back');
  }
  return results;
}

async function runOp(db: PGlite, request: StatementRequest): Promise<EmbeddedResult[]> {
  switch (request.op) {
    case 'query': {
      const result = await db.query(request.sql, request.params, { rowMode: 'object' });
      return [{ rows: result.rows, affectedRows: result.affectedRows }];
    }
    case 'prepared': {
      if (!prepared.has(request.name)) {
        await db.exec(`PREPARE ${request.name} AS ${request.sql}`);
        prepared.add(request.name);
      }
      const results = await db.exec(request.execute);
      return results.slice(-1).map((result) => ({ rows: result.rows, affectedRows: result.affectedRows }));
    }
    case 'exec': {
      const results = await db.exec(request.sql);
      return results.map((result) => ({ rows: result.rows, affectedRows: result.affectedRows }));
    }
  }
}

/**
 * A structured clone of an Error keeps only its message and stack; PostgreSQL's fields
 * (code, constraint, detail, …) are what callers classify errors by (src/db/errors.ts),
 * so every own string or number field crosses too.
 */
function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(err)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}), fields };
}
