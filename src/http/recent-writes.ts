/**
 * Read-your-writes across API processes (docs/deploy.md, "A read replica"). The replica
 * tracker (src/db/replica.ts) knows the writes of its own process exactly; a credential's
 * next read may land on another process behind the load balancer, which must then know
 * that it wrote too. With REDIS_URL, each write marks its credential in Redis before its
 * response leaves, for DATABASE_REPLICA_MAX_LAG plus a margin, and a process sends the
 * replica-eligible reads of a marked credential to the primary.
 *
 * Why that window suffices: once the max lag has passed since the write's commit, either
 * the replica has replayed it (its replay is at or past the primary's position sampled
 * then, which covers the commit), or it is behind that position and counts as lagging, and
 * every read goes to the primary anyway.
 *
 * Redis away (a failed mark or look-up, or no answer within STORE_TIMEOUT_MS): a look-up
 * answers "wrote", so the read goes to the primary; never an error. One warning when Redis
 * becomes unreachable, one info when it answers again.
 */
import { connectFailFastRedis } from '../lib/fail-fast-redis.ts';

/** A Redis command slower than this counts as Redis being away. */
const STORE_TIMEOUT_MS = 500;
/** Beyond the max lag: the tracker's poll period and clock differences between processes. */
const MARGIN_MS = 1_000;
const KEY_PREFIX = 'marquee:recent-write:';

interface Logger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface RecentWrites {
  /** Marks a write of `credential`; resolves once other processes can see it (or Redis failed). */
  mark(credential: string): Promise<void>;
  /** Whether `credential` wrote within the window (true when Redis cannot tell). */
  wroteRecently(credential: string): Promise<boolean>;
  close(): Promise<void>;
}

export function sharedRecentWrites(redisUrl: string, maxLagMs: number, logger: Logger): RecentWrites {
  const { client, firstConnection } = connectFailFastRedis(redisUrl, 'marquee-recent-writes', STORE_TIMEOUT_MS);
  const windowMs = maxLagMs + MARGIN_MS;
  let away = false;
  let closed = false;
  const unreachable = (err: unknown) => {
    if (away || closed) return;
    away = true;
    logger.warn({ err }, 'Redis unreachable: reads after writes go to the primary');
  };
  const reachable = () => {
    if (!away) return;
    away = false;
    logger.info({}, 'Redis reachable again: reads after writes are shared again');
  };
  client.on('error', unreachable);
  client.on('ready', reachable);
  /** Runs a command; undefined when Redis is away. */
  const command = async <T>(run: () => Promise<T>): Promise<T | undefined> => {
    await firstConnection;
    if (client.status !== 'ready') {
      unreachable(new Error(`redis connection is ${client.status}`));
      return undefined;
    }
    try {
      const result = await run();
      reachable();
      return result;
    } catch (err) {
      unreachable(err);
      return undefined;
    }
  };

  return {
    async mark(credential) {
      await command(() => client.set(`${KEY_PREFIX}${credential}`, '1', 'PX', windowMs));
    },
    async wroteRecently(credential) {
      const marked = await command(() => client.exists(`${KEY_PREFIX}${credential}`));
      return marked !== 0;
    },
    async close() {
      closed = true;
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
