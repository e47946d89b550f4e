/**
 * Checks run once before the service opens its port, so a wrong DATABASE_URL or REDIS_URL
 * stops the start with a message (src/startup-errors.ts) instead of failing the first
 * requests. See docs/operations.md, "Start-up errors".
 */
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from './db/client.ts';

/** One round trip to the database: connects (the pool is lazy) and proves the credentials work. */
export async function checkDatabase(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db);
}

/** How long the start-up ping waits for Redis; at runtime the rate limiter fails open instead. */
const REDIS_STARTUP_TIMEOUT_MS = 2_000;

/**
 * Connects to Redis once, without retries, and sends PING. Rejects with the underlying
 * error (ECONNREFUSED, ENOTFOUND, ETIMEDOUT, a reply error), not ioredis' generic
 * "Connection is closed.".
 */
export async function pingRedis(url: string, timeoutMs = REDIS_STARTUP_TIMEOUT_MS): Promise<void> {
  let lastError: Error | undefined;
  const client = new Redis(url, {
    lazyConnect: true,
    connectionName: 'marquee-startup-check',
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', (err: Error) => (lastError = err));
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw lastError ?? err;
  } finally {
    client.disconnect();
  }
}
