/**
 * The embedded database on a thread of its own (docs/architecture.md, "Embedded database").
 *
 * PGlite runs PostgreSQL as WebAssembly on the thread that owns it, synchronously: on
 * the thread that serves HTTP, every query would stop every socket for as long as it
 * runs. Here one worker thread owns the instance (./thread-task.ts) and this side
 * only posts SQL and awaits the rows, so the HTTP thread never waits on WebAssembly.
 * Opening the database (compiling the WebAssembly, initialising or recovering the data
 * directory) happens on that thread too.
 *
 * The thread is a piscina pool of exactly one thread that never idles out, so the
 * instance lives as long as the handle. Tasks run in the order they are sent, one at a
 * time; the dialect's mutex (./dialect.ts) keeps one transaction at a time.
 * If the thread dies, piscina starts a new one without the database: every later query
 * fails as a lost connection (SQLSTATE 08006), which the API answers 503 (src/db/errors.ts).
 */
import { existsSync } from 'node:fs';
import { copyFile, cp } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { HELPER_THREAD_LIMITS } from '../../lib/thread-heap.ts';
import type {
  EmbeddedRequest,
  EmbeddedResponse,
  EmbeddedResult,
  SerializedError,
  TransactionEdges,
} from './protocol.ts';

/** What the Kysely dialect needs of the embedded database (./dialect.ts). */
export interface EmbeddedDatabase {
  /** One statement over the extended protocol, with parameters. */
  query(sql: string, params: unknown[], edges?: TransactionEdges): Promise<EmbeddedResult>;
  /** Any number of statements, without parameters; one result per statement. */
  exec(sql: string, edges?: TransactionEdges): Promise<EmbeddedResult[]>;
  /** `execute` (EXECUTE `name` …), PREPAREing `name` AS `sql` first on this session if needed (./prepared.ts). */
  executePrepared(name: string, sql: string, execute: string, edges?: TransactionEdges): Promise<EmbeddedResult>;
  /** The whole data directory as an uncompressed tar archive, to open another database from. */
  dump(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * Starts the thread and opens the database in `dataDir` (in memory when omitted).
 * Resolves once it is open; rejects with the error that prevented it.
 *
 * A data directory without a database gets a copy of the template the build made
 * (scripts/embedded-template.mjs). Without a template it is initialised on a thread of
 * its own that then ends: initialisation leaves hundreds of megabytes of WebAssembly
 * memory behind, which a WebAssembly instance never gives back, so the database is then
 * opened afresh. With a `snapshot` (an archive from dump()) an in-memory database starts
 * as a copy of it instead.
 */
export async function startEmbeddedDatabase(
  dataDir: string | undefined,
  templateDir: string = DEFAULT_TEMPLATE_DIR,
  snapshot?: Uint8Array,
): Promise<EmbeddedDatabase> {
  if (snapshot !== undefined) return openOnThread(dataDir, snapshot);
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) {
    if (!(await copyTemplate(templateDir, dataDir))) {
      const initialising = await openOnThread(dataDir);
      await initialising.close();
    }
  }
  return openOnThread(dataDir);
}

/** dist/embedded-template, from src/db/embedded (development) and from dist/db/embedded alike. */
const DEFAULT_TEMPLATE_DIR = fileURLToPath(new URL('../../../dist/embedded-template', import.meta.url));

/**
 * Copies the template's files into `dataDir`, PG_VERSION last: a data directory counts
 * as initialised once PG_VERSION is there, so a copy cut short is made again on the next
 * start. False when there is no template.
 */
async function copyTemplate(templateDir: string, dataDir: string): Promise<boolean> {
  if (!existsSync(join(templateDir, 'PG_VERSION'))) return false;
  const heldBack = new Set(['PG_VERSION', 'PGLITE_VERSION']);
  await cp(templateDir, dataDir, {
    recursive: true,
    force: true,
    filter: (source) => !heldBack.has(relative(templateDir, source)),
  });
  await copyFile(join(templateDir, 'PG_VERSION'), join(dataDir, 'PG_VERSION'));
  return true;
}

/**
 * Most tasks in the thread's hands at once; more wait in piscina's queue. A transaction
 * holds the connection from its first statement to its last, so in practice only the end
 * of one transaction and the first statement of the next are in hand together.
 */
const TASKS_IN_HAND = 8;

async function openOnThread(dataDir: string | undefined, snapshot?: Uint8Array): Promise<EmbeddedDatabase> {
  // Worker threads inherit the process's execArgv, so under `--import tsx` (development,
  // tests) piscina loads the TypeScript task as this thread does, and dist/ its JavaScript.
  const thread = new Piscina<EmbeddedRequest, EmbeddedResponse>({
    filename: new URL(`./thread-task${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href,
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Infinity,
    // Tasks are handed to the thread as they are sent, not one at a time as each answer
    // comes back here: the next is already there when one ends. The thread still runs
    // them one at a time, in order (./thread-task.ts).
    concurrentTasksPerWorker: TASKS_IN_HAND,
    // Beyond TASKS_IN_HAND, tasks wait in piscina's queue. By default a task taken off its
    // head that the thread cannot take yet goes back to its tail, behind later tasks; the
    // order tasks are sent in is what keeps a transaction's statements together, so it
    // goes back to the head.
    stricterFIFO: true,
    resourceLimits: HELPER_THREAD_LIMITS,
  });
  // Only run() may fail a task; an 'error' without a listener would end the process.
  thread.on('error', () => undefined);
  let closed = false;
  const send = async (request: EmbeddedRequest): Promise<EmbeddedResult[]> => {
    if (closed) throw connectionLost('the embedded database is closed');
    let response: EmbeddedResponse;
    try {
      response = await thread.run(request);
    } catch (err) {
      // The thread died with the task in hand (it ran out of memory, or was terminated).
      throw connectionLost(err instanceof Error ? err.message : String(err));
    }
    if (!response.ok) throw deserializeError(response.error);
    return response.result;
  };

  try {
    await send({ op: 'open', dataDir, ...(snapshot ? { snapshot } : {}) });
  } catch (err) {
    await thread.destroy();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    async query(sql, params, edges) {
      const [result] = await send({ op: 'query', sql, params, ...edges });
      return result ?? { rows: [], affectedRows: undefined };
    },
    exec: (sql, edges) => send({ op: 'exec', sql, ...edges }),
    async executePrepared(name, sql, execute, edges) {
      const [result] = await send({ op: 'prepared', name, sql, execute, ...edges });
      return result ?? { rows: [], affectedRows: undefined };
    },
    async dump() {
      const [result] = await send({ op: 'dump' });
      return result?.rows[0] as Uint8Array;
    },
    close() {
      closing ??= (async () => {
        await send({ op: 'close' }).catch(() => undefined);
        closed = true;
        await thread.destroy();
      })();
      return closing;
    },
  };
}

function connectionLost(reason: string): Error {
  return Object.assign(new Error(`Connection terminated: ${reason}`), { code: '08006' });
}

function deserializeError(serialized: SerializedError): Error {
  const err = Object.assign(new Error(serialized.message), serialized.fields);
  err.name = serialized.name;
  if (serialized.stack !== undefined) err.stack = serialized.stack;
  return err;
}
