/**
 * SQL of the CSV exports (docs/exports.md): one keyset-paged batch per call, oldest first,
 * each batch one statement (a consistent snapshot of its rows), never a transaction or a
 * cursor held across the export.
 *
 * Orders are paged by (created_at, id) over the organizer's orders that have a transaction
 * on the event (or the performance), the order-list index plus the EXISTS probe of
 * GET /v1/orders; tickets by (created_at, order_id, position) over the organizer's or the
 * performance's ticket index (the `created_at >=` bound is what lets the index scan start
 * at the cursor; the row comparison then breaks the ties of one instant exactly).
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

export interface ExportScope {
  organizerId: string;
  eventId: string;
  /** Only this performance of the event. */
  performanceId?: string;
}

/** One order transaction (an order's line for one performance of the event) with its order. */
export interface OrderExportRow {
  order_id: string;
  order_no: string;
  status: 'unpaid' | 'placed' | 'fulfilled' | 'cancelled';
  channel: 'box_office' | 'online';
  created_at: Date;
  buyer_first_name: string;
  buyer_last_name: string | null;
  buyer_email: string;
  buyer_phone: string | null;
  currency: string;
  order_total_minor: number;
  etickets_sent_at: Date | null;
  transaction_no: string;
  performance_id: string;
  performance_title: string | null;
  performance_starts_at: Date;
  ticket_count: number;
  items_total_minor: number;
  service_fees_minor: number;
  surcharges_minor: number;
  taxes_minor: number;
  total_minor: number;
}

export interface TicketExportRow {
  id: string;
  ticket_no: string;
  serial_no: string;
  status: 'purchased' | 'checked_in' | 'refunded' | 'cancelled';
  checked_in_at: Date | null;
  holder_first_name: string;
  holder_last_name: string | null;
  holder_email: string;
  ticket_type_id: string;
  ticket_type_name: string;
  performance_id: string;
  performance_title: string | null;
  performance_starts_at: Date;
  order_id: string;
  order_no: string;
  order_status: 'unpaid' | 'placed' | 'fulfilled' | 'cancelled';
  unit_price_minor: number;
  total_minor: number;
  currency: string;
  transferred_at: Date | null;
  created_at: Date;
}

/**
 * Up to `limit` orders after `afterOrderId` (oldest first) with a transaction in scope, as
 * one row per such transaction (ordered by order, then transaction position). The batch
 * holds exactly `limit` distinct orders unless it is the last.
 */
export async function orderExportBatch(
  db: Executor,
  scope: ExportScope,
  afterOrderId: string | undefined,
  limit: number,
): Promise<OrderExportRow[]> {
  const inScope = (alias: string) =>
    scope.performanceId === undefined
      ? sql`${sql.ref(`${alias}.event_id`)} = ${scope.eventId}`
      : sql`${sql.ref(`${alias}.event_id`)} = ${scope.eventId} AND ${sql.ref(`${alias}.performance_id`)} = ${scope.performanceId}`;
  const after =
    afterOrderId === undefined
      ? sql``
      : sql`AND (o.created_at, o.id) > (SELECT c.created_at, c.id FROM orders c WHERE c.id = ${afterOrderId})`;
  const result = await sql<OrderExportRow>`
    WITH page AS (
      SELECT o.id, o.order_no, o.status, o.channel, o.created_at, o.buyer_first_name, o.buyer_last_name,
             o.buyer_email, o.buyer_phone, o.currency, o.total_minor, o.etickets_sent_at
      FROM orders o
      WHERE o.organizer_id = ${scope.organizerId}
        AND EXISTS (SELECT 1 FROM order_transactions s WHERE s.order_id = o.id AND ${inScope('s')})
        ${after}
      ORDER BY o.created_at, o.id
      LIMIT ${limit}
    )
    SELECT page.id AS order_id, page.order_no, page.status, page.channel, page.created_at,
           page.buyer_first_name, page.buyer_last_name, page.buyer_email, page.buyer_phone,
           page.currency, page.total_minor AS order_total_minor, page.etickets_sent_at,
           ot.transaction_no, ot.performance_id, p.title AS performance_title, p.starts_at AS performance_starts_at,
           (SELECT count(*) FROM tickets t WHERE t.order_id = ot.order_id AND t.order_transaction_id = ot.id)::int AS ticket_count,
           ot.items_total_minor, ot.service_fees_minor, ot.surcharges_minor, ot.taxes_minor, ot.total_minor
    FROM page
    JOIN order_transactions ot ON ot.order_id = page.id AND ${inScope('ot')}
    JOIN performances p ON p.id = ot.performance_id
    ORDER BY page.created_at, page.id, ot.position
  `.execute(db);
  return result.rows;
}

/** Up to `limit` tickets in scope after `afterTicketId`, oldest first, an order's tickets in position order. */
export async function ticketExportBatch(
  db: Executor,
  scope: ExportScope,
  afterTicketId: string | undefined,
  limit: number,
): Promise<TicketExportRow[]> {
  const performance = scope.performanceId === undefined ? sql`` : sql`AND t.performance_id = ${scope.performanceId}`;
  const after =
    afterTicketId === undefined
      ? sql``
      : sql`AND t.created_at >= (SELECT c.created_at FROM tickets c WHERE c.id = ${afterTicketId})
            AND (t.created_at, t.order_id, t.position) >
                (SELECT c.created_at, c.order_id, c.position FROM tickets c WHERE c.id = ${afterTicketId})`;
  const result = await sql<TicketExportRow>`
    WITH page AS (
      SELECT t.* FROM tickets t
      WHERE t.organizer_id = ${scope.organizerId} AND t.event_id = ${scope.eventId} ${performance} ${after}
      ORDER BY t.created_at, t.order_id, t.position
      LIMIT ${limit}
    )
    SELECT page.id, page.ticket_no, page.serial_no, page.status, page.checked_in_at,
           page.holder_first_name, page.holder_last_name, page.holder_email,
           page.ticket_type_id, tt.name AS ticket_type_name,
           page.performance_id, p.title AS performance_title, p.starts_at AS performance_starts_at,
           page.order_id, page.order_no, o.status AS order_status,
           page.unit_price_minor, page.total_minor, o.currency, page.transferred_at, page.created_at
    FROM page
    JOIN ticket_types tt ON tt.id = page.ticket_type_id
    JOIN performances p ON p.id = page.performance_id
    JOIN orders o ON o.id = page.order_id
    ORDER BY page.created_at, page.order_id, page.position
  `.execute(db);
  return result.rows;
}

export interface ExportAnswerRow {
  order_id: string;
  ticket_id: string | null;
  key: string;
  value: string | string[];
}

/** The answers of these orders to the questions with these keys, in answer order. */
export async function answersOfOrders(db: Executor, orderIds: string[], keys: string[]): Promise<ExportAnswerRow[]> {
  if (orderIds.length === 0 || keys.length === 0) return [];
  const result = await sql<ExportAnswerRow>`
    SELECT a.order_id, a.ticket_id, a.key, a.value
    FROM registration_answers a
    WHERE a.order_id = ANY (${orderIds}::uuid[]) AND a.key = ANY (${keys}::text[])
    ORDER BY a.order_id, a.position
  `.execute(db);
  return result.rows;
}
