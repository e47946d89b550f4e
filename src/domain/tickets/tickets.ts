/**
 * Tickets: reads, the check-in (API, gate scanner and door devices share checkIn()), and
 * transfer.
 *
 * checkIn() locks the ticket's row, decides with the admission rule the door devices
 * also decide offline with (admission.ts), and admits with `ticket.checked_in` in the same
 * transaction. Concurrent check-ins of one ticket queue on the row lock, and only the
 * first finds the ticket still `purchased`: one 200, one event.
 *
 * A door device's key reaches only the tickets of its performances: another
 * performance's ticket is not found (docs/door.md).
 */
import type { PageRequest } from '../../db/pagination.ts';
import {
  admitTicket,
  findOrderStatusOfTicket,
  findTicket,
  findTicketOrganizer,
  lockTicketForAdmission,
  ticketsListQuery,
  type TicketForAdmission,
  transferTicket,
  type TicketFilters,
  type TicketKey,
} from '../../db/repositories/tickets.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound, type DomainError } from '../../errors/domain-error.ts';
import { emitDomainEvent } from '../../outbox/domain-events.ts';
import { listInView, type ListView } from '../sync/lists.ts';
import { admissionOf, type AdmissionFacts, type AdmissionRefusal } from './admission.ts';

/** The performances a caller reaches: a door device's, or null for every one of the organizer. */
type PerformanceReach = readonly string[] | null;

const within = (reach: PerformanceReach, performanceId: string) => reach === null || reach.includes(performanceId);

export async function getTicket(db: Executor, organizerId: string, id: string, reach: PerformanceReach = null) {
  const row = await findTicket(db, organizerId, id);
  if (!row || !within(reach, row.performance_id)) throw notFound('Ticket');
  return row;
}

export async function listTickets(
  db: Executor,
  organizerId: string,
  filters: TicketFilters,
  page: PageRequest,
  view: ListView,
  reach: PerformanceReach = null,
) {
  for (const name of ['serial_no', 'ticket_no'] as const) {
    // An exact-match filter of only spaces can match nothing: say so rather than answer [].
    if (filters[name]?.trim() === '') throw invalid('parameter_invalid', `\`${name}\` must not be blank.`, name);
  }
  const query = ticketsListQuery(db, organizerId, reach === null ? filters : { ...filters, performance_ids: reach });
  return listInView(db, 'tickets', organizerId, query, page, view);
}

/** Who admits: a door device (its id and performances) or anyone else (null, null). */
interface Admitter {
  deviceId: string | null;
  reach: PerformanceReach;
}

const ANYONE: Admitter = { deviceId: null, reach: null };

export async function checkIn(db: Executor, organizerId: string, key: TicketKey, now: Date, by: Admitter = ANYONE) {
  return withTransaction(db, async (trx) => {
    const ticket = await lockTicketForAdmission(trx, organizerId, key);
    const verdict = admissionOf(ticket && admissionFactsOf(ticket), by.reach);
    if (!verdict.admit) throw refusalError(verdict.reason);
    return recordAdmission(trx, organizerId, ticket!.id, { checkedInAt: now, deviceId: by.deviceId, now });
  });
}

/** What the admission rule needs of a locked ticket. */
export function admissionFactsOf(ticket: TicketForAdmission): AdmissionFacts {
  return {
    status: ticket.status,
    paid: ticket.order_status === 'placed' || ticket.order_status === 'fulfilled',
    orderCancelled: ticket.order_status === 'cancelled',
    performance_id: ticket.performance_id,
  };
}

/**
 * Admits a ticket the admission rule let in (its row locked by lockTicketForAdmission) and
 * emits `ticket.checked_in`, in the caller's transaction: the one write of every check-in,
 * online or uploaded.
 */
export async function recordAdmission(
  trx: Executor,
  organizerId: string,
  ticketId: string,
  admission: { checkedInAt: Date; deviceId: string | null; now: Date },
) {
  const ticket = await admitTicket(trx, ticketId, admission);
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
    at: admission.now,
  });
  return ticket;
}

/** The API's answer to a refused check-in: 404 for a ticket the caller cannot reach, else 409. */
function refusalError(reason: AdmissionRefusal): DomainError {
  switch (reason) {
    case 'unknown':
    case 'wrong_performance':
      return notFound('Ticket');
    case 'already_checked_in':
      return conflict('invalid_state', 'Ticket is already checked in.');
    case 'refunded':
      return conflict('invalid_state', 'Ticket cannot be checked in: it was refunded.');
    case 'cancelled':
      return conflict('invalid_state', 'Ticket cannot be checked in: it was cancelled.');
    case 'unpaid':
      return conflict('invalid_state', 'Ticket cannot be checked in: its order is unpaid.');
  }
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
