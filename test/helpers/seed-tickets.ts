/**
 * Many paid tickets at once, straight in SQL (as bench/scenarios/exports.ts seeds):
 * `count` tickets of one performance and ticket type, four to a placed cash order, for
 * tests that need a door copy of a real size (docs/door.md, "The local copy"). The
 * rows go through the tables' triggers, so the sync order stamps them like any sale.
 */
import { sql } from 'kysely';
import type { TestApp } from './app.ts';

const TICKETS_PER_ORDER = 4;

export async function seedPaidTickets(
  t: TestApp,
  {
    organizerId,
    eventId,
    performanceId,
    ticketTypeId,
    count,
    prefix,
  }: {
    organizerId: string;
    eventId: string;
    performanceId: string;
    ticketTypeId: string;
    count: number;
    /** Starts every order number: unique per call within an organizer. */
    prefix: string;
  },
): Promise<void> {
  const orders = Math.ceil(count / TICKETS_PER_ORDER);
  // One statement: the orders, their transactions and tickets follow each other through
  // RETURNING, so a sold order whose number happens to start with the prefix is never taken.
  await sql`
    WITH o AS (
      INSERT INTO orders (organizer_id, order_no, status, channel, tender, buyer_first_name, buyer_last_name,
                          buyer_email, currency, total_minor, paid_at, created_at, updated_at)
      SELECT ${organizerId}, ${prefix} || lpad(g::text, 6, '0'), 'placed', 'box_office', 'cash', 'Buyer', 'Nº ' || g,
             'buyer' || g || '@example.test', 'EUR', ${TICKETS_PER_ORDER * 3500}, now(), now(), now()
      FROM generate_series(1, ${orders}::int) AS g
      RETURNING id, organizer_id, order_no, total_minor, buyer_last_name, buyer_email, created_at
    ), ot AS (
      INSERT INTO order_transactions (organizer_id, order_id, transaction_no, position, event_id, performance_id,
                                      delivery_method, items_total_minor, surcharges_minor, taxes_minor,
                                      service_fees_minor, total_minor, created_at)
      SELECT o.organizer_id, o.id, o.order_no || '-T1', 1, ${eventId}, ${performanceId}, 'eticket', o.total_minor,
             0, 0, 0, o.total_minor, o.created_at
      FROM o
      RETURNING id, order_id, organizer_id, event_id, performance_id
    )
    INSERT INTO tickets (organizer_id, order_id, order_transaction_id, order_no, position, ticket_no, serial_no,
                         status, event_id, performance_id, ticket_type_id, holder_first_name, holder_last_name,
                         holder_email, unit_price_minor, fee_minor, tax_minor, total_minor, created_at, updated_at)
    SELECT ot.organizer_id, ot.order_id, ot.id, o.order_no, pos, o.order_no || '-' || lpad(pos::text, 3, '0'),
           upper(md5(ot.id::text || pos::text)), 'purchased', ot.event_id, ot.performance_id, ${ticketTypeId},
           'Holder', o.buyer_last_name || '.' || pos, o.buyer_email, 3500, 0, 0, 3500, o.created_at, o.created_at
    FROM ot JOIN o ON o.id = ot.order_id, generate_series(1, ${TICKETS_PER_ORDER}::int) AS pos
    WHERE (substr(o.order_no, ${prefix.length + 1})::int - 1) * ${TICKETS_PER_ORDER} + pos <= ${count}`.execute(
    t.database.db,
  );
}

/** The serials of `limit` purchased tickets of a performance (the seeded ones included). */
export async function serialsOf(t: TestApp, performanceId: string, limit: number): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('tickets')
    .select('serial_no')
    .where('performance_id', '=', performanceId)
    .where('status', '=', 'purchased')
    .orderBy('ticket_no')
    .limit(limit)
    .execute();
  return rows.map((row) => row.serial_no);
}
