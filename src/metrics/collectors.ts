/**
 * The gauges read when Prometheus scrapes (docs/operations.md, "Metrics"): this process's
 * database connections, and the database-wide queues and tickets sold. The database
 * figures come from one read shared by every scrape within FIGURES_CACHE_MS of its start,
 * so a scrape storm (several Prometheus servers, a tight interval, a dashboard refreshing)
 * costs at most three small queries per period and never queues scrapes behind each other.
 */
import { Gauge, Registry } from 'prom-client';
import type { DatabaseHandle, PoolUse } from '../db/client.ts';
import { emailQueueFigures, ticketsSold, webhookQueueFigures, type QueueFigures } from '../db/repositories/metrics.ts';
import type { Clock } from '../lib/clock.ts';

/** How long one read of the database figures is served (their age at most, besides the read's own time). */
export const FIGURES_CACHE_MS = 5000;

interface Figures {
  readAt: Date;
  webhooks: QueueFigures;
  emails: QueueFigures & { sending: number };
  ticketsSold: number;
}

export interface DatabaseMetricsOptions {
  database: Pick<DatabaseHandle, 'db' | 'pool'>;
  clock: Clock;
  /** How long one read of the database figures is reused; default FIGURES_CACHE_MS. */
  cacheMs?: number;
}

/** Seconds from `since` to `now`; 0 when nothing is waiting. */
const ageSeconds = (since: Date | null, now: Date) =>
  since === null ? 0 : Math.max(0, (now.getTime() - since.getTime()) / 1000);

/** One read shared by the callers within `cacheMs` of its start; undefined: the read failed. */
function sharedRead(
  read: (now: Date) => Promise<Figures>,
  clock: Clock,
  cacheMs: number,
): () => Promise<Figures | undefined> {
  let last: { startedAt: number; figures: Promise<Figures | undefined> } | undefined;
  return () => {
    const now = clock.now();
    const at = now.getTime();
    if (last === undefined || at - last.startedAt >= cacheMs || at < last.startedAt) {
      last = { startedAt: at, figures: read(now).catch(() => undefined) };
    }
    return last.figures;
  };
}

/**
 * A registry of the scrape-time gauges of one database handle: merged with the process's
 * instruments (./registry.ts) by the listener. A failed database read leaves the queue
 * gauges at their last values and sets marquee_db_figures_up to 0.
 */
// eslint-disable-next-line max-lines-per-function -- one gauge declaration after another, each with its help text
export function databaseMetrics(opts: DatabaseMetricsOptions): Registry {
  const { database, clock } = opts;
  const registers = [new Registry()];
  const figures = sharedRead(
    async (now) => ({
      readAt: now,
      webhooks: await webhookQueueFigures(database.db, now),
      emails: await emailQueueFigures(database.db, now),
      ticketsSold: await ticketsSold(database.db),
    }),
    clock,
    opts.cacheMs ?? FIGURES_CACHE_MS,
  );

  const pool = (name: string, help: string, read: (use: PoolUse) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(database.pool()));
      },
    });
  pool(
    'marquee_db_pool_max',
    'Most database connections this process opens (DATABASE_POOL_SIZE; 1 on the embedded database).',
    (u) => u.max,
  );
  pool('marquee_db_pool_open', 'Database connections this process has open.', (u) => u.open);
  pool('marquee_db_pool_in_use', 'Database connections checked out by a query or transaction.', (u) => u.inUse);
  pool('marquee_db_pool_waiting', 'Queries and transactions waiting for a database connection.', (u) => u.waiting);

  /** A gauge set from the shared read; kept at its last value when the read fails. */
  const fromFigures = (name: string, help: string, labelNames: string[], set: (g: Gauge, f: Figures) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const f = await figures();
        if (f) set(this, f);
      },
    });
  new Gauge({
    name: 'marquee_db_figures_up',
    help: 'Whether the last read of the database-wide figures (queues, tickets sold) succeeded: 1, or 0.',
    registers,
    async collect() {
      this.set((await figures()) ? 1 : 0);
    },
  });
  fromFigures(
    'marquee_webhook_queue_depth',
    'Webhook deliveries waiting to be sent, all organizers: due (now, in flight included) or scheduled (a retry later).',
    ['state'],
    (g, f) => {
      g.set({ state: 'due' }, f.webhooks.due);
      g.set({ state: 'scheduled' }, f.webhooks.scheduled);
    },
  );
  fromFigures(
    'marquee_webhook_queue_oldest_due_age_seconds',
    'How long the longest-waiting due webhook delivery has been due; 0 when none is.',
    [],
    (g, f) => g.set(ageSeconds(f.webhooks.oldestDueAt, f.readAt)),
  );
  fromFigures(
    'marquee_email_queue_depth',
    'E-mail jobs waiting to be sent: due (now), scheduled (a retry later) or sending (claimed by a worker).',
    ['state'],
    (g, f) => {
      g.set({ state: 'due' }, f.emails.due);
      g.set({ state: 'scheduled' }, f.emails.scheduled);
      g.set({ state: 'sending' }, f.emails.sending);
    },
  );
  fromFigures(
    'marquee_email_queue_oldest_due_age_seconds',
    'How long the longest-waiting due e-mail job has been due; 0 when none is.',
    [],
    (g, f) => g.set(ageSeconds(f.emails.oldestDueAt, f.readAt)),
  );
  fromFigures(
    'marquee_tickets_sold',
    'Tickets sold and not refunded or cancelled, all organizers (the performances’ sold counters).',
    [],
    (g, f) => g.set(f.ticketsSold),
  );
  return registers[0]!;
}
