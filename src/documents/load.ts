/**
 * An order's documents as plain data (src/documents/types.ts), read from the database as
 * it is now: the tickets a buyer can still use (purchased or checked in), in the order's
 * ticket order, in the language of the order's event (docs/tickets.md, "Languages").
 * Undefined when the order has no such ticket left.
 */
import type { Executor } from '../db/transaction.ts';
import { findTicketsForMail } from '../db/repositories/emails.ts';
import { findOrganizer } from '../db/repositories/organizers.ts';
import { languageOf } from '../i18n/index.ts';
import type { OrderDocumentInput } from './types.ts';

interface DocumentOrder {
  id: string;
  organizer_id: string;
  order_no: string;
  currency: string;
}

export async function loadOrderDocuments(db: Executor, order: DocumentOrder): Promise<OrderDocumentInput | undefined> {
  const [organizer, tickets] = await Promise.all([
    findOrganizer(db, order.organizer_id),
    findTicketsForMail(db, order.id),
  ]);
  if (!organizer) throw new Error(`organizer ${order.organizer_id} not found`);
  if (tickets.length === 0) return undefined;
  return {
    // One mail speaks one language: that of the order's first event (an order rarely spans two).
    language: languageOf(tickets[0]!.event_language, organizer.default_language),
    organizerName: organizer.name,
    orderId: order.id,
    orderNo: order.order_no,
    currency: order.currency,
    paperSize: organizer.ticket_paper_size,
    tickets: tickets.map((t) => ({
      id: t.id,
      ticketNo: t.ticket_no,
      serialNo: t.serial_no,
      eventId: t.event_id,
      eventTitle: t.event_title,
      performanceId: t.performance_id,
      performanceStartsAt: t.starts_at,
      performanceEndsAt: t.ends_at,
      eventTimeZone: t.event_timezone,
      venueName: t.venue_name,
      ticketTypeName: t.ticket_type_name,
      priceMinor: t.total_minor,
      holderName: t.holder_last_name ? `${t.holder_first_name} ${t.holder_last_name}` : t.holder_first_name,
    })),
  };
}
