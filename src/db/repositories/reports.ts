/**
 * SQL for the event report (docs/dashboard.md, "Reports"): ONE statement, so every figure
 * comes from one snapshot and one round trip, whatever the number of performances.
 * What remains is inventory_remaining() (migrations/0006_inventory_functions.sql), the
 * availability endpoint's own count, at the same `now`.
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

export type ReportInterval = 'hour' | 'day';

/** Per (performance, ticket type): the counts and money of its tickets. */
export interface ReportTypeRow {
  performance_id: string;
  ticket_type_id: string;
  name: string;
  price_minor: number;
  cap: number | null;
  sold: number;
  remaining: number;
  checked_in: number;
  refunded: number;
  cancelled: number;
  held: number;
  gross_minor: number;
  refunded_minor: number;
  fees_minor: number;
  taxes_minor: number;
}

interface ReportPerformanceRow {
  performance_id: string;
  starts_at: string;
  title: string | null;
  capacity: number;
  remaining: number;
  /** Active holds of the performance, with or without a ticket type. */
  held: number;
}

interface ReportTenderRow {
  /** The payment's tender (cash, card, bankTransfer), or free for a free order. */
  tender: string;
  orders: number;
  amount_minor: number;
}

interface ReportBucketRow {
  period_start: string;
  orders: number;
  tickets: number;
  revenue_minor: number;
}

export interface EventReportRows {
  timezone: string;
  currency: string;
  orders: number;
  performances: ReportPerformanceRow[];
  types: ReportTypeRow[];
  by_tender: ReportTenderRow[];
  buckets: ReportBucketRow[];
}

/**
 * The report's figures, or undefined when the event is not the organizer's. Tickets are
 * read once (`tk`), each with what its order paid (a payment, or nothing owed for a free
 * order) and whether its refund returns money (refunded or pending); every figure
 * aggregates that set.
 */
// eslint-disable-next-line max-lines-per-function -- one SQL statement, kept whole so the report is one snapshot
export async function selectEventReport(
  db: Executor,
  organizerId: string,
  eventId: string,
  interval: ReportInterval,
  now: Date,
): Promise<EventReportRows | undefined> {
  const result = await sql<{ report: EventReportRows | null }>`
    WITH ev AS (
      SELECT e.id, e.timezone, o.currency
      FROM events e JOIN organizers o ON o.id = e.organizer_id
      WHERE e.id = ${eventId}::uuid AND e.organizer_id = ${organizerId}::uuid
    ),
    perf AS (
      SELECT p.id, p.starts_at, p.title, p.capacity
      FROM performances p
      WHERE p.event_id = (SELECT id FROM ev) AND p.organizer_id = ${organizerId}::uuid
    ),
    remaining AS (
      SELECT * FROM inventory_remaining(ARRAY(SELECT id FROM perf), ${now}::timestamptz)
    ),
    -- Holds that count against availability at now: the rule of inventory_remaining().
    held AS (
      SELECT h.performance_id, h.ticket_type_id, sum(h.quantity)::int AS quantity
      FROM holds h
      WHERE h.performance_id IN (SELECT id FROM perf)
        AND h.released_at IS NULL AND (h.expires_at IS NULL OR h.expires_at > ${now}::timestamptz)
      GROUP BY h.performance_id, h.ticket_type_id
    ),
    -- The orders of the event's tickets, each with how it was paid: its payment (one at
    -- most: a cash sale's, or a pay-later order's settlement), or free; none: unpaid.
    ord AS (
      SELECT o.id, o.status, o.created_at, pay.tender, pay.paid_at
      FROM orders o
      LEFT JOIN LATERAL (
        SELECT p.tender, p.created_at AS paid_at FROM payments p WHERE p.order_id = o.id
        UNION ALL
        SELECT 'free', o.created_at WHERE o.tender = 'free'
        ORDER BY 2
        LIMIT 1
      ) pay ON true
      WHERE o.id IN (SELECT t.order_id FROM tickets t
                     WHERE t.organizer_id = ${organizerId}::uuid AND t.performance_id IN (SELECT id FROM perf))
    ),
    tk AS (
      SELECT t.performance_id, t.ticket_type_id, t.status, t.order_id, t.refund_id,
             t.total_minor, t.fee_minor, t.tax_minor,
             ord.status AS order_status, ord.created_at AS ordered_at,
             ord.tender AS paid_with, ord.paid_at,
             coalesce(r.status IN ('refunded', 'pending'), false) AS money_back,
             r.created_at AS refunded_at
      FROM tickets t
      JOIN ord ON ord.id = t.order_id
      LEFT JOIN refunds r ON r.id = t.refund_id
      WHERE t.organizer_id = ${organizerId}::uuid AND t.performance_id IN (SELECT id FROM perf)
    ),
    by_type AS (
      SELECT performance_id, ticket_type_id,
             count(*) FILTER (WHERE status IN ('purchased', 'checked_in'))::int AS sold,
             count(*) FILTER (WHERE status = 'checked_in')::int AS checked_in,
             count(*) FILTER (WHERE status = 'refunded')::int AS refunded,
             count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
             coalesce(sum(total_minor) FILTER (WHERE paid_with IS NOT NULL), 0)::bigint AS gross_minor,
             coalesce(sum(total_minor) FILTER (WHERE money_back), 0)::bigint AS refunded_minor,
             coalesce(sum(fee_minor) FILTER (WHERE paid_with IS NOT NULL AND NOT money_back), 0)::bigint AS fees_minor,
             coalesce(sum(tax_minor) FILTER (WHERE paid_with IS NOT NULL AND NOT money_back), 0)::bigint AS taxes_minor
      FROM tk
      GROUP BY performance_id, ticket_type_id
    ),
    types AS (
      SELECT pr.performance_id, tt.id AS ticket_type_id, tt.name, tt.sort_order, pr.price_minor,
             pr.limited_quantity AS cap,
             coalesce(rm.type_remaining, 0) AS remaining,
             coalesce(h.quantity, 0) AS held,
             coalesce(b.sold, 0) AS sold, coalesce(b.checked_in, 0) AS checked_in,
             coalesce(b.refunded, 0) AS refunded, coalesce(b.cancelled, 0) AS cancelled,
             coalesce(b.gross_minor, 0) AS gross_minor, coalesce(b.refunded_minor, 0) AS refunded_minor,
             coalesce(b.fees_minor, 0) AS fees_minor, coalesce(b.taxes_minor, 0) AS taxes_minor
      FROM prices pr
      JOIN ticket_types tt ON tt.id = pr.ticket_type_id
      LEFT JOIN remaining rm ON rm.performance_id = pr.performance_id AND rm.ticket_type_id = pr.ticket_type_id
      LEFT JOIN held h ON h.performance_id = pr.performance_id AND h.ticket_type_id = pr.ticket_type_id
      LEFT JOIN by_type b ON b.performance_id = pr.performance_id AND b.ticket_type_id = pr.ticket_type_id
      WHERE pr.performance_id IN (SELECT id FROM perf)
    ),
    -- Sales over time: an order when it was placed (not cancelled ones), money in when it
    -- was paid, money out when it was refunded; each in its bucket of the event's zone.
    moments AS (
      SELECT min(ordered_at) AS at, 1 AS orders,
             count(*) FILTER (WHERE status IN ('purchased', 'checked_in'))::int AS tickets, 0::bigint AS revenue
      FROM tk WHERE order_status <> 'cancelled' GROUP BY order_id
      UNION ALL
      SELECT min(paid_at), 0, 0, sum(total_minor) FROM tk WHERE paid_with IS NOT NULL GROUP BY order_id
      UNION ALL
      SELECT min(refunded_at), 0, 0, -sum(total_minor) FROM tk WHERE money_back GROUP BY refund_id
    ),
    bucketed AS (
      SELECT CASE WHEN ${interval}::text = 'hour'
                  -- The instant minus the time since the local hour began: exact, even in
                  -- the hour a clock goes back and in zones offset by half hours.
                  THEN m.at - ((m.at AT TIME ZONE ev.timezone) - date_trunc('hour', m.at AT TIME ZONE ev.timezone))
                  ELSE date_trunc('day', m.at AT TIME ZONE ev.timezone) AT TIME ZONE ev.timezone
             END AS period_start,
             m.orders, m.tickets, m.revenue
      FROM moments m, ev
    )
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM ev) THEN NULL ELSE json_build_object(
      'timezone', (SELECT timezone FROM ev),
      'currency', (SELECT currency FROM ev),
      'orders', (SELECT count(DISTINCT order_id) FROM tk WHERE order_status <> 'cancelled'),
      'performances', coalesce((
        SELECT json_agg(json_build_object(
                 'performance_id', p.id, 'starts_at', p.starts_at, 'title', p.title, 'capacity', p.capacity,
                 'remaining', coalesce((SELECT rm.performance_remaining FROM remaining rm WHERE rm.performance_id = p.id LIMIT 1), 0),
                 'held', coalesce((SELECT sum(h.quantity) FROM held h WHERE h.performance_id = p.id), 0))
               ORDER BY p.starts_at, p.id)
        FROM perf p), '[]'::json),
      'types', coalesce((
        SELECT json_agg(json_build_object(
                 'performance_id', ty.performance_id, 'ticket_type_id', ty.ticket_type_id, 'name', ty.name,
                 'price_minor', ty.price_minor, 'cap', ty.cap, 'sold', ty.sold, 'remaining', ty.remaining,
                 'checked_in', ty.checked_in, 'refunded', ty.refunded, 'cancelled', ty.cancelled, 'held', ty.held,
                 'gross_minor', ty.gross_minor, 'refunded_minor', ty.refunded_minor,
                 'fees_minor', ty.fees_minor, 'taxes_minor', ty.taxes_minor)
               ORDER BY ty.sort_order, ty.ticket_type_id)
        FROM types ty), '[]'::json),
      'by_tender', coalesce((
        SELECT json_agg(json_build_object('tender', x.paid_with, 'orders', x.orders, 'amount_minor', x.amount_minor))
        FROM (SELECT paid_with, count(DISTINCT order_id) AS orders, sum(total_minor) AS amount_minor
              FROM tk WHERE paid_with IS NOT NULL GROUP BY paid_with) x), '[]'::json),
      'buckets', coalesce((
        SELECT json_agg(json_build_object('period_start', b.period_start, 'orders', b.orders,
                                          'tickets', b.tickets, 'revenue_minor', b.revenue_minor)
               ORDER BY b.period_start)
        FROM (SELECT period_start, sum(orders)::int AS orders, sum(tickets)::int AS tickets,
                     sum(revenue)::bigint AS revenue_minor
              FROM bucketed GROUP BY period_start) b), '[]'::json)
    ) END AS report
  `.execute(db);
  return result.rows[0]?.report ?? undefined;
}
