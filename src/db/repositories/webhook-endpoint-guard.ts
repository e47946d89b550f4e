/**
 * The endpoint guard: how a delivery worker on PostgreSQL signs every attempt with its
 * endpoint's current secret without a read before each start (docs/webhooks.md,
 * "Rotating the secret").
 *
 * On a connection of its own the guard opens a transaction, takes
 * `LOCK TABLE webhook_endpoints IN SHARE MODE` and reads the url, secret and status of
 * the endpoints the worker is starting attempts for, in one round trip. While that lock
 * is held no change to any endpoint can commit (SHARE conflicts with the ROW EXCLUSIVE
 * lock every UPDATE or DELETE takes; inserting deliveries, claiming and reading do not
 * conflict), so what was read stays current and attempts start from it with no query.
 * The lock is held HOLD_MS at a time: then the guard forgets what it read (before
 * anything is sent) and commits, so a rotate_secret, PATCH or disable waits at most
 * about that long; a worker that keeps starting attempts takes the lock again in the
 * same round trip as the commit, behind any writer already waiting (PostgreSQL queues
 * lock requests in order, so writers are never starved, with any number of workers).
 * An idle worker holds no lock.
 *
 * A failed statement, a lost connection or close() forget what was read at once; reads
 * then fail until a new connection has the lock again.
 */
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { EndpointAtStart } from './webhook-endpoints.ts';

/** How long one lock is held at most before it is given up (and taken again if still needed). */
const HOLD_MS = 50;
/** Longest wait for the lock behind a writer before the attempt to take it fails. */
const LOCK_WAIT_MS = 2000;
/** A guard statement unanswered this long counts as a lost connection. */
const ANSWER_WITHIN_MS = 5000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EndpointGuard {
  /**
   * The endpoints' current url, secret and status when the lock is held and they were
   * read under it; undefined when they must be read first (read()). A missing id in the
   * map is an endpoint that no longer exists.
   */
  readNow(ids: string[]): Map<string, EndpointAtStart> | undefined;
  /** Takes the lock if needed and reads the endpoints under it. */
  read(ids: string[]): Promise<Map<string, EndpointAtStart>>;
  close(): Promise<void>;
}

/** The statement reading endpoints under the lock; the ids are inlined (a simple query may hold several statements). */
function selectEndpoints(ids: string[]): string {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`not an endpoint id: ${id}`);
  return `SELECT id, url, secret, status FROM webhook_endpoints WHERE id = ANY ('{${ids.join(',')}}'::uuid[])`;
}

const TAKE_LOCK = `BEGIN; SET LOCAL lock_timeout = ${LOCK_WAIT_MS}; LOCK TABLE webhook_endpoints IN SHARE MODE`;

type Row = EndpointAtStart & { id: string };

// eslint-disable-next-line max-lines-per-function -- one connection's state and the operations that share it
export function openEndpointGuard(
  databaseUrl: string,
  logger: Pick<FastifyBaseLogger, 'warn'>,
  opts: { connectTimeoutMs?: number; holdMs?: number } = {},
): EndpointGuard {
  const holdMs = opts.holdMs ?? HOLD_MS;
  let client: pg.Client | null = null;
  let inTransaction = false;
  /** What was read under the lock held now (null for an endpoint that does not exist); null when no lock is held. */
  let held: Map<string, EndpointAtStart | null> | null = null;
  /** Endpoints asked for during this hold: the next hold reads them again. */
  let used = new Set<string>();
  let holdTimer: NodeJS.Timeout | null = null;
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;

  const forget = () => {
    held = null;
    if (holdTimer) clearTimeout(holdTimer);
    holdTimer = null;
  };
  const drop = (c: pg.Client) => {
    forget();
    inTransaction = false;
    if (client === c) client = null;
    c.end().catch(() => {});
  };

  async function connection(): Promise<pg.Client> {
    if (client) return client;
    const next = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? ANSWER_WITHIN_MS,
      query_timeout: ANSWER_WITHIN_MS,
    });
    // A dropped connection has lost its lock: forget what was read under it at once.
    next.on('error', (err) => {
      logger.warn({ err }, 'webhook endpoint guard connection lost; attempts wait for a new one');
      drop(next);
    });
    next.on('end', () => drop(next));
    await next.connect();
    client = next;
    return next;
  }

  /** Runs `sql` (a simple query, possibly several statements) and returns the last statement's rows. */
  async function run(c: pg.Client, sql: string): Promise<Row[]> {
    try {
      const result = (await c.query(sql)) as pg.QueryResult<Row> | Array<pg.QueryResult<Row>>;
      return (Array.isArray(result) ? result[result.length - 1]! : result).rows;
    } catch (err) {
      drop(c);
      throw err;
    }
  }

  function hold(ids: string[], rows: Row[]): void {
    held = new Map<string, EndpointAtStart | null>(ids.map((id) => [id, null]));
    for (const { id, ...endpoint } of rows) held.set(id, endpoint);
    holdTimer = setTimeout(expire, holdMs);
  }

  /** The hold is over: forget what was read (now, before anything more is sent), then commit or renew. */
  function expire(): void {
    holdTimer = null;
    held = null;
    const again = [...used];
    used = new Set();
    chain = chain.then(async () => {
      const c = client;
      if (!c || !inTransaction || held) return;
      try {
        if (again.length === 0 || closed) {
          inTransaction = false;
          await run(c, 'COMMIT');
        } else {
          hold(again, await run(c, `COMMIT; ${TAKE_LOCK}; ${selectEndpoints(again)}`));
        }
      } catch (err) {
        logger.warn({ err }, 'webhook endpoint guard could not renew its lock; attempts wait for a new one');
      }
    });
  }

  function current(ids: string[]): Map<string, EndpointAtStart> | undefined {
    if (!held || !ids.every((id) => held!.has(id))) return undefined;
    const found = new Map<string, EndpointAtStart>();
    for (const id of ids) {
      used.add(id);
      const endpoint = held.get(id);
      if (endpoint) found.set(id, endpoint);
    }
    return found;
  }

  return {
    readNow: current,
    read(ids) {
      const now = current(ids);
      if (now) return Promise.resolve(now);
      const reading = chain.then(async () => {
        for (;;) {
          if (closed) throw new Error('the webhook endpoint guard is closed');
          const again = current(ids);
          if (again) return again;
          const c = await connection();
          if (held) {
            // The lock is held: read the endpoints not read yet under it (one statement in
            // the same transaction). If the hold ran out meanwhile, take the lock anew.
            const under = held;
            const rows = await run(c, selectEndpoints(ids.filter((id) => !under.has(id))));
            for (const id of ids) if (!under.has(id)) under.set(id, null);
            for (const { id, ...endpoint } of rows) under.set(id, endpoint);
          } else {
            const wanted = [...new Set([...ids, ...used])];
            const commit = inTransaction ? 'COMMIT; ' : '';
            inTransaction = true;
            hold(wanted, await run(c, `${commit}${TAKE_LOCK}; ${selectEndpoints(wanted)}`));
          }
        }
      });
      chain = reading.catch(() => {});
      return reading;
    },
    async close() {
      closed = true;
      forget();
      await chain;
      const c = client;
      client = null;
      if (c) {
        if (inTransaction) await c.query('COMMIT').catch(() => {});
        inTransaction = false;
        await c.end().catch(() => {});
      }
    },
  };
}
