/**
 * LISTEN on a PostgreSQL channel from a connection of its own (a pooled connection cannot
 * hold a LISTEN: it is handed to other queries). A dropped connection is opened again
 * after a pause; notifications sent while it was down are lost, so a listener is only
 * ever a shortcut beside a poll, never the only way work is found.
 */
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

/** Pause before listening again after the connection failed or dropped. */
const RELISTEN_DELAY_MS = 1000;
/** Longest wait for the connection to open (a black-holed server must not stall the retries). */
const LISTEN_CONNECT_TIMEOUT_MS = 5000;

export interface ChannelListener {
  /** Resolves once the first LISTEN is in place (or failed; the listener retries). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function listenOnChannel(
  databaseUrl: string,
  channel: string,
  onNotification: () => void,
  logger: Pick<FastifyBaseLogger, 'warn'>,
  opts: { connectTimeoutMs?: number } = {},
): ChannelListener {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, RELISTEN_DELAY_MS);
    retry.unref();
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? LISTEN_CONNECT_TIMEOUT_MS,
    });
    // pg emits 'error' on the client for a dropped connection; without a handler it would throw.
    next.on('error', (err) => {
      logger.warn({ err, channel }, 'LISTEN connection failed; listening again shortly (the poll covers meanwhile)');
      if (client === next) client = null;
      next.end().catch(() => {});
      scheduleRetry();
    });
    next.on('notification', (msg) => {
      if (msg.channel === channel) onNotification();
    });
    try {
      await next.connect();
      // The channel is a fixed identifier of ours, never user input.
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
    } catch (err) {
      logger.warn({ err, channel }, 'LISTEN failed; trying again shortly (the poll covers meanwhile)');
      next.end().catch(() => {});
      scheduleRetry();
    }
  }

  const ready = connect();
  return {
    ready,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await ready;
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
