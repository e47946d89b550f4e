/**
 * Tickets: reads, the check-in (API and gate scanner share checkIn()), and transfer.
 *
 * checkIn() is ONE conditional UPDATE (purchased → checked_in while the order is paid)
 * with `ticket.checked_in` in the same transaction; only when it changes no row does it
 * read why, to answer 404 or the right 409. Concurrent check-ins of one ticket queue on the
 * row lock, and only the first finds the ticket still `purchased`: one 200, one event.
 */
import type { PageRequest } from '../../db/pagination.ts';
import {
  findOrderStatusOfTicket,
  checkInTicket,
  findTicket,
  findTicketOrganizer,
  findTicketWithOrderStatus,
  ticketsListQuery,
  transferTicket,
  type TicketFilters,
  type TicketKey,
} from '../../db/repositories/tickets.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound, type DomainError } from '../../errors/domain-error.ts';
import { emitDomainEvent } from '../../webhooks/outbox.ts';
import { listInView, type ListView } from '../sync/lists.ts';

export async function getTicket(db: Executor, organizerId: string, id: string) {
  const row = await findTicket(db, organizerId, id);
  if (!row) throw notFound('Ticket');
  return row;
}

export async function listTickets(
  db: Executor,
  organizerId: string,
  filters: TicketFilters,
  page: PageRequest,
  view: ListView,
) {
  for (const name of ['serial_no', 'ticket_no'] as const) {
    // An exact-match filter of only spaces can match nothing: say so rather than answer [].
    if (filters[name]?.trim() === '') throw invalid('parameter_invalid', `\`${name}\` must not be blank.`, name);
  }
  return listInView(db, 'tickets', organizerId, ticketsListQuery(db, organizerId, filters), page, view);
}

const ALREADY_CHECKED_IN = 'Ticket is already checked in.';

export async function checkIn(db: Executor, organizerId: string, key: TicketKey, now: Date) {
  return withTransaction(db, async (trx) => {
    const result = await checkInTicket(trx, organizerId, key, now);
    const ticket = result.rows[0];
    if (!ticket) throw await whyNotAdmitted(trx, organizerId, key);
    await emitDomainEvent(trx, {
      organizerId,
      type: 'ticket.checked_in',
      data: {
        ticket_id: ticket.id,
        ticket_no: ticket.ticket_no,
        order_no: ticket.order_no,
        event_id: ticket.event_id,
        performance_id: ticket.performance_id,
      },
      at: now,
    });
    return ticket;
  });
}

async function whyNotAdmitted(db: Executor, organizerId: string, key: TicketKey): Promise<DomainError> {
  const row = await findTicketWithOrderStatus(db, organizerId, key);
  if (!row) return notFound('Ticket');
  switch (row.status) {
    case 'checked_in':
      return conflict('invalid_state', ALREADY_CHECKED_IN);
    case 'refunded':
      return conflict('invalid_state', 'Ticket cannot be checked in: it was refunded.');
    case 'cancelled':
      return conflict('invalid_state', 'Ticket cannot be checked in: it was cancelled.');
  }
  if (row.order_status === 'unpaid')
    return conflict('invalid_state', 'Ticket cannot be checked in: its order is unpaid.');
  if (row.order_status === 'cancelled')
    return conflict('invalid_state', 'Ticket cannot be checked in: its order is cancelled.');
  // Admittable now: a concurrent change (e.g. a transfer or settlement) raced this call.
  return conflict('concurrent_modification', 'Ticket changed while being checked in; retry.');
}

export async function transfer(
  db: Executor,
  id: string,
  holder: { first_name: string; last_name?: string | null; email: string },
  now: Date,
  /** The dashboard's organizer: another organizer's ticket is not found. The admin API passes none. */
  scope?: string,
) {
  return withTransaction(db, async (trx) => {
    const organizerId = scope ?? (await findTicketOrganizer(trx, id));
    const current = organizerId === undefined ? undefined : await findTicket(trx, organizerId, id);
    if (!current) throw notFound('Ticket');
    const firstName = holder.first_name.trim();
    if (firstName === '') throw invalid('parameter_invalid', '`first_name` must not be blank.', 'first_name');
    if ((await findOrderStatusOfTicket(trx, current.order_id)) === 'cancelled')
      throw conflict('invalid_state', 'Ticket cannot be transferred: its order is cancelled.');
    const updated = await transferTicket(
      trx,
      id,
      {
        holder_first_name: firstName,
        holder_last_name: holder.last_name?.trim() || null,
        holder_email: holder.email.trim(),
      },
      now,
    );
    if (!updated) {
      const state = current.status === 'purchased' ? 'changed meanwhile' : `is ${current.status.replace('_', ' ')}`;
      throw conflict(
        'invalid_state',
        `Ticket ${current.ticket_no} ${state} and cannot be transferred; only a purchased ticket can.`,
      );
    }
    return updated;
  });
}
