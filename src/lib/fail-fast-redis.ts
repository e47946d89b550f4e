/**
 * A Redis client for shared state that requests consult but must never wait on for long
 * (the rate-limit counters, docs/rate-limits.md; the recent writes of read-your-writes,
 * docs/deploy.md): while disconnected a command fails at once instead of queueing, a
 * command slower than `commandTimeoutMs` fails, and a command whose reply was lost is
 * never resent after a reconnect (an INCR may already have run). The caller falls back
 * to what it can decide alone. ioredis keeps reconnecting in the background.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';

interface FailFastRedis {
  client: Redis;
  /**
   * Settles once the first connection is ready, failed, or took `commandTimeoutMs`: the
   * first requests wait for it rather than report an outage that never was.
   */
  firstConnection: Promise<void>;
}

export function connectFailFastRedis(url: string, connectionName: string, commandTimeoutMs: number): FailFastRedis {
  const client = new Redis(url, {
    connectionName,
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  });
  const firstConnection = once(client, 'ready', { signal: AbortSignal.timeout(commandTimeoutMs) }).then(
    () => undefined,
    () => undefined,
  );
  return { client, firstConnection };
}
