/**
 * The database-wide figures of the metrics endpoint (docs/operations.md, "Metrics"): the
 * webhook and e-mail queues and the tickets sold. Read at scrape time, at most once per
 * cache period (src/metrics/collectors.ts); each is one statement over a partial index or
 * a small table.
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

export interface QueueFigures {
  /** Due now and not finished (claimed ones in flight included). */
  due: number;
  /** Waiting for a later time: a retry's backoff. */
  scheduled: number;
  /** When the longest-waiting due item became due; null when nothing is due. */
  oldestDueAt: Date | null;
}

interface QueueRow {
  due: number | string;
  scheduled: number | string;
  oldest_due_at: Date | string | null;
}

const figures = (row: QueueRow | undefined): QueueFigures => ({
  due: Number(row?.due ?? 0),
  scheduled: Number(row?.scheduled ?? 0),
  oldestDueAt: row?.oldest_due_at == null ? null : new Date(row.oldest_due_at),
});

/**
 * Webhook deliveries still to send, as the claim sees them (claimDueDeliveries in
 * ./webhooks.ts): pending or failed with a retry time, of enabled endpoints (a disabled
 * endpoint's backlog waits for its re-enabling and is not sent, except its test pings).
 */
export async function webhookQueueFigures(db: Executor, now: Date): Promise<QueueFigures> {
  const result = await sql<QueueRow>`
    SELECT count(*) FILTER (WHERE q.due_at <= ${now})::int AS due,
           count(*) FILTER (WHERE q.due_at > ${now})::int AS scheduled,
           min(q.due_at) FILTER (WHERE q.due_at <= ${now}) AS oldest_due_at
    FROM (
      SELECT coalesce(d.next_retry_at, d.created_at) AS due_at
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status IN ('pending', 'failed')
        AND (d.status = 'pending' OR d.next_retry_at IS NOT NULL)
        AND (e.status = 'enabled' OR d.event_type = 'test.ping')
    ) q
  `.execute(db);
  return figures(result.rows[0]);
}

/** E-mail jobs still to send: pending (due or waiting for a retry) and those being sent (leased). */
export async function emailQueueFigures(db: Executor, now: Date): Promise<QueueFigures & { sending: number }> {
  const result = await sql<QueueRow & { sending: number | string }>`
    SELECT count(*) FILTER (WHERE status = 'pending' AND next_attempt_at <= ${now})::int AS due,
           count(*) FILTER (WHERE status = 'pending' AND next_attempt_at > ${now})::int AS scheduled,
           count(*) FILTER (WHERE status = 'sending')::int AS sending,
           min(next_attempt_at) FILTER (WHERE status = 'pending' AND next_attempt_at <= ${now}) AS oldest_due_at
    FROM email_jobs
    WHERE status IN ('pending', 'sending')
  `.execute(db);
  const row = result.rows[0];
  return { ...figures(row), sending: Number(row?.sending ?? 0) };
}

/**
 * Tickets sold and not given back, all organizers together: the performances' sold
 * counters, which every sale moves up and every refund and cancellation down
 * (./inventory.ts).
 */
export async function ticketsSold(db: Executor): Promise<number> {
  const result = await sql<{ sold: number | string }>`
    SELECT coalesce(sum(sold_count), 0)::float8 AS sold FROM performances
  `.execute(db);
  return Number(result.rows[0]?.sold ?? 0);
}
