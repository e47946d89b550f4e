/**
 * A streaming replica for reads (DATABASE_REPLICA_URL, docs/deploy.md "A read replica"):
 * its pool, opened like the primary's, and a tracker that says at each moment whether a
 * read may go to it.
 *
 * The tracker polls, each on its own loop so that a hung replica never delays the
 * primary's samples, the primary's WAL flush position and the replica's replay position
 * (one cheap query each, every ~100 ms). Requests pay nothing for it: a write only
 * notes its finish time, a read compares two numbers already in memory.
 *
 * - Health: the replica serves reads while it answers and its replay position is not
 *   behind the primary's position sampled DATABASE_REPLICA_MAX_LAG ago. Otherwise every
 *   read goes to the primary; one warning when that starts, one info when it ends.
 * - Read-your-writes: a credential that wrote reads from the replica only once the
 *   replica replayed the primary's position sampled after that write finished (the
 *   write's commit is at or before it), else from the primary.
 *
 * The flush position, not the insert or write position: a commit returns only once its
 * WAL is flushed, and a standby only ever receives flushed WAL, so a sample taken after a
 * commit covers it and an idle primary is never "ahead" by WAL the replica cannot have.
 */
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import { databaseOptions, openDatabase, type Db } from './client.ts';

const DEFAULT_POLL_INTERVAL_MS = 100;
/** A credential's write not yet replayed is forgotten after this (the map stays bounded). */
const WRITE_MEMORY_MS = 3_600_000;
/** Primary samples kept beyond the max lag: enough to find the one sampled after a write. */
const SAMPLE_MARGIN_MS = 2_000;

interface Logger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface TrackerOptions {
  primary: Db;
  replica: Db;
  maxLagMs: number;
  /** Poll period of each database; default 100 ms. */
  intervalMs?: number;
  /** Monotonic milliseconds; default performance.now(). */
  now?: () => number;
  logger?: Logger;
}

interface Sample {
  /** When the query was sent: its answer is at least the position of anything committed before. */
  at: number;
  lsn: bigint;
}

interface Write {
  /** Writes of the credential still running. */
  inFlight: number;
  /** When its last write ended (Infinity while the first runs). */
  finishedAt: number;
  /** The primary's position sampled after the write: what the replica must have replayed. */
  target?: bigint;
}

/** `16/B374D848` as a number of bytes. */
function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

async function lsnOf(db: Db, query: ReturnType<typeof sql<{ lsn: string | null }>>): Promise<bigint | null> {
  const { rows } = await query.execute(db);
  const text = rows[0]?.lsn ?? null;
  return text === null ? null : parseLsn(text);
}

const PRIMARY_POSITION = sql<{ lsn: string | null }>`SELECT pg_current_wal_flush_lsn()::text AS lsn`;
const REPLAY_POSITION = sql<{ lsn: string | null }>`SELECT pg_last_wal_replay_lsn()::text AS lsn`;

type State = 'unknown' | 'healthy' | 'degraded';

export class ReplicaTracker {
  readonly #opts: Required<Omit<TrackerOptions, 'logger'>> & { logger?: Logger };
  /** Primary positions, oldest first. */
  readonly #samples: Sample[] = [];
  #replay: bigint | null | undefined;
  /** A poll of the primary has been unanswered for the max lag: replay cannot be judged. */
  #primaryLate = false;
  /** The replica's last failure, cleared by a poll sent after it. */
  #failure: { at: number; message: string } | undefined;
  #state: State = 'unknown';
  readonly #writes = new Map<string, Write>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #started = false;
  #stopped = false;

  constructor(opts: TrackerOptions) {
    this.#opts = { intervalMs: DEFAULT_POLL_INTERVAL_MS, now: () => performance.now(), ...opts };
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#loop(() => this.#pollPrimary());
    this.#loop(() => this.#pollReplica());
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Whether a read of `credential` (undefined: no credential) may go to the replica now. */
  servesRead(credential: string | undefined): boolean {
    if (this.#state !== 'healthy') return false;
    if (credential === undefined) return true;
    const write = this.#writes.get(credential);
    if (write === undefined) return true;
    if (!this.#caughtUp(write)) return false;
    this.#writes.delete(credential);
    return true;
  }

  /** A write of `credential` begins: its reads go to the primary until it ends and is replayed. */
  beginWrite(credential: string): void {
    const write = this.#writes.get(credential);
    if (write === undefined) this.#writes.set(credential, { inFlight: 1, finishedAt: Infinity });
    else write.inFlight++;
  }

  /** A write of `credential` ended (its transaction committed or rolled back) now. */
  endWrite(credential: string): void {
    const write = this.#writes.get(credential);
    if (write === undefined) return;
    write.inFlight = Math.max(0, write.inFlight - 1);
    write.finishedAt = this.#opts.now();
    delete write.target;
  }

  /** A replica-routed read failed: no read goes there until a poll sent afterwards answers. */
  noteFailure(err: unknown): void {
    this.#failure = { at: this.#opts.now(), message: err instanceof Error ? err.message : String(err) };
    this.#evaluate();
  }

  #caughtUp(write: Write): boolean {
    if (write.inFlight > 0) return false;
    if (write.target === undefined) {
      const after = this.#samples.find((sample) => sample.at > write.finishedAt);
      if (after === undefined) return false;
      write.target = after.lsn;
    }
    return typeof this.#replay === 'bigint' && this.#replay >= write.target;
  }

  #loop(poll: () => Promise<void>): void {
    const next = () => {
      if (this.#stopped) return;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        void poll().finally(next);
      }, this.#opts.intervalMs);
      // The polls never keep a process alive that has nothing else to do.
      timer.unref();
      this.#timers.add(timer);
    };
    void poll().finally(next);
  }

  async #pollPrimary(): Promise<void> {
    const at = this.#opts.now();
    try {
      const lsn = await this.#answeredWithinMaxLag(lsnOf(this.#opts.primary, PRIMARY_POSITION), () => {
        this.#primaryLate = true;
      });
      if (lsn !== null) this.#samples.push({ at, lsn });
      this.#primaryLate = false;
    } catch {
      // The primary's own failures answer 503 on the requests; here they only leave no sample.
    }
    const keepFrom = this.#opts.now() - this.#opts.maxLagMs - SAMPLE_MARGIN_MS;
    while (this.#samples.length > 1 && this.#samples[1]!.at < keepFrom) this.#samples.shift();
    this.#forgetWrites();
    this.#evaluate();
  }

  async #pollReplica(): Promise<void> {
    const at = this.#opts.now();
    try {
      const lsn = await this.#answeredWithinMaxLag(lsnOf(this.#opts.replica, REPLAY_POSITION), () => {
        this.#failure = { at, message: `no answer within ${this.#opts.maxLagMs} ms` };
      });
      this.#replay = lsn;
      if (this.#failure !== undefined && this.#failure.at < at) this.#failure = undefined;
    } catch (err) {
      this.#failure = { at, message: err instanceof Error ? err.message : String(err) };
    }
    this.#evaluate();
  }

  /**
   * `query`, and `late` called once it has been unanswered for the max lag: a hung
   * connection (a silent network cut) counts as a failure long before the pool's own
   * answer deadline. The poll still waits for the query, so polls never pile up. Judged
   * in setImmediate, after the pending I/O of that turn of the event loop: an answer that
   * arrived while the loop was busy is not taken for silence.
   */
  async #answeredWithinMaxLag<T>(query: Promise<T>, late: () => void): Promise<T> {
    let answered = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (answered || this.#stopped) return;
          late();
          this.#evaluate();
        }),
      this.#opts.maxLagMs,
    );
    timer.unref();
    try {
      return await query;
    } finally {
      answered = true;
      clearTimeout(timer);
    }
  }

  /** Drops writes the replica has replayed, and any older than WRITE_MEMORY_MS. */
  #forgetWrites(): void {
    const now = this.#opts.now();
    for (const [credential, write] of this.#writes)
      if ((write.inFlight === 0 && now - write.finishedAt > WRITE_MEMORY_MS) || this.#caughtUp(write))
        this.#writes.delete(credential);
  }

  /** Why the replica may not serve reads now; undefined when it may; 'unknown' before its first answers. */
  #problem(): string | undefined {
    const now = this.#opts.now();
    if (this.#failure !== undefined) return `the replica fails: ${this.#failure.message}`;
    if (this.#replay === undefined || this.#samples.length === 0) return 'unknown';
    if (this.#replay === null) return 'the replica is not a standby (pg_last_wal_replay_lsn() is null)';
    const { maxLagMs } = this.#opts;
    if (this.#primaryLate) return `the primary's WAL position was not read within ${maxLagMs} ms`;
    const reference = this.#newestSampleUpTo(now - maxLagMs);
    if (reference !== undefined && this.#replay < reference.lsn)
      return `the replica's replay is more than ${maxLagMs} ms behind the primary`;
    return undefined;
  }

  #newestSampleUpTo(at: number): Sample | undefined {
    for (let i = this.#samples.length - 1; i >= 0; i--) if (this.#samples[i]!.at <= at) return this.#samples[i];
    return undefined;
  }

  /** For the metrics (src/http/read-routing.ts): serving reads, and the WAL bytes not yet replayed. */
  health(): { healthy: boolean; lagBytes: number | undefined } {
    const newest = this.#samples.at(-1);
    const lagBytes =
      newest !== undefined && typeof this.#replay === 'bigint'
        ? Math.max(0, Number(newest.lsn - this.#replay))
        : undefined;
    return { healthy: this.#state === 'healthy', lagBytes };
  }

  #evaluate(): void {
    const problem = this.#problem();
    if (problem === 'unknown' && this.#state === 'unknown') return;
    const next: State = problem === undefined ? 'healthy' : 'degraded';
    if (next === this.#state) return;
    if (next === 'degraded')
      this.#opts.logger?.warn({ reason: problem }, 'read replica degraded: every read goes to the primary');
    else if (this.#state === 'degraded')
      this.#opts.logger?.info({}, 'read replica recovered: replica-routed reads go to it again');
    this.#state = next;
  }
}

/** The replica's reads and its tracker (main.ts and tests build the app with one). */
export interface ReadReplica {
  /** The replica's pool, for replica-routed reads (src/http/read-routing.ts). */
  db: Db;
  tracker: ReplicaTracker;
  close(): Promise<void>;
}

/**
 * Opens DATABASE_REPLICA_URL with the primary's pool options and timeouts, with a tracker
 * not yet started (the app starts it once it is ready, src/http/read-routing.ts: building
 * the app keeps the event loop busy for seconds, which would read as a silent replica);
 * undefined without the setting. A replica that is down at start is no
 * error: the tracker finds it degraded and every read goes to the primary.
 */
export async function openReadReplica(
  config: Readonly<Config>,
  primary: Db,
  opts: { logger?: Logger; intervalMs?: number } = {},
): Promise<ReadReplica | undefined> {
  if (config.databaseReplicaUrl === undefined) return undefined;
  // No logger for lost connections: the tracker's one warning says the replica is gone.
  const handle = await openDatabase({ ...databaseOptions(config), databaseUrl: config.databaseReplicaUrl });
  const tracker = new ReplicaTracker({
    primary,
    replica: handle.db,
    maxLagMs: config.databaseReplicaMaxLagMs,
    ...(opts.intervalMs === undefined ? {} : { intervalMs: opts.intervalMs }),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  return {
    db: handle.db,
    tracker,
    async close() {
      tracker.stop();
      await handle.close();
    },
  };
}
