/** The public shape of a ticket (schema Ticket of the OpenAPI document). */
import type { TicketRow } from '../../db/repositories/tickets.ts';

export function presentTicket(row: TicketRow) {
  return {
    id: row.id,
    object: 'ticket' as const,
    ticket_no: row.ticket_no,
    serial_no: row.serial_no,
    status: row.status,
    performance_id: row.performance_id,
    ticket_type_id: row.ticket_type_id,
    holder: { first_name: row.holder_first_name, last_name: row.holder_last_name, email: row.holder_email },
    is_free: row.unit_price_minor === 0,
    unit_price_minor: row.unit_price_minor,
    total_minor: row.total_minor,
    checked_in_at: row.checked_in_at,
    transferred_at: row.transferred_at,
    order_id: row.order_id,
    order_no: row.order_no,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
