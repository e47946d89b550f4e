/** SQL for tickets: issue, read, list, and the conditional updates of check-in, refund, cancel, transfer. */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

export type TicketRow = Awaited<ReturnType<typeof findTicket>> & {};

export function findTicket(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('tickets')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

export async function findTicketOrganizer(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('tickets').select('organizer_id').where('id', '=', id).executeTakeFirst();
  return row?.organizer_id;
}

export function findTicketsOfOrders(db: Executor, orderIds: string[]) {
  return db
    .selectFrom('tickets')
    .selectAll()
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

export interface TicketFilters {
  order_id?: string;
  performance_id?: string;
  status?: TicketRow['status'];
  /** Exact; `tickets_serial_no_uq` finds the one row (docs/door.md, "Lookup"). */
  serial_no?: string;
  /** Exact; `tickets_ticket_no_uq` (organizer_id, ticket_no) finds the one row. */
  ticket_no?: string;
  /** Only these performances' tickets: a door device's reach. */
  performance_ids?: readonly string[];
}

export function ticketsListQuery(db: Executor, organizerId: string, filters: TicketFilters) {
  let q = db.selectFrom('tickets').selectAll('tickets').where('tickets.organizer_id', '=', organizerId);
  if (filters.order_id !== undefined) q = q.where('tickets.order_id', '=', filters.order_id);
  if (filters.performance_id !== undefined) q = q.where('tickets.performance_id', '=', filters.performance_id);
  if (filters.status !== undefined) q = q.where('tickets.status', '=', filters.status);
  if (filters.serial_no !== undefined) q = q.where('tickets.serial_no', '=', filters.serial_no);
  if (filters.ticket_no !== undefined) q = q.where('tickets.ticket_no', '=', filters.ticket_no);
  if (filters.performance_ids !== undefined) q = q.where('tickets.performance_id', 'in', [...filters.performance_ids]);
  return q;
}

export type TicketKey = { id: string } | { serialNo: string };

/** A ticket with its order's status: what the admission rule decides from. */
export type TicketForAdmission = TicketRow & { order_status: string };

/**
 * The ticket and its order's status, the ticket's row locked for its check-in. Only the
 * ticket is locked: every change that can make a purchased ticket not admittable (a
 * refund, a cancel, another check-in, a transfer) writes the ticket row and so waits for
 * this lock, or this read waits for it. An order settled meanwhile is read as unpaid, a
 * refusal the door retries. Not locking the order keeps the lock order of refund and
 * cancel (order, then tickets) free of deadlocks.
 */
export async function lockTicketForAdmission(
  db: Executor,
  organizerId: string,
  key: TicketKey,
): Promise<TicketForAdmission | undefined> {
  const where = 'id' in key ? sql`t.id = ${key.id}` : sql`t.serial_no = ${key.serialNo}`;
  const result = await sql<TicketForAdmission>`
    SELECT t.*, o.status AS order_status
    FROM tickets t JOIN orders o ON o.id = t.order_id
    WHERE ${where} AND t.organizer_id = ${organizerId}
    FOR UPDATE OF t
  `.execute(db);
  return result.rows[0];
}

/** Admits a ticket locked by lockTicketForAdmission: its check-in time and the door device, if one. */
export function admitTicket(
  db: Executor,
  id: string,
  admission: { checkedInAt: Date; deviceId: string | null; now: Date },
) {
  return db
    .updateTable('tickets')
    .set({
      status: 'checked_in',
      checked_in_at: admission.checkedInAt,
      checked_in_device_id: admission.deviceId,
      updated_at: admission.now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Stamps an order's tickets as changed: what a door decides from includes whether the
 * order is paid, so a settled order's tickets reach the doors' copies (docs/door.md).
 */
export async function touchTicketsOfOrder(db: Executor, orderId: string, now: Date): Promise<void> {
  await db.updateTable('tickets').set({ updated_at: now }).where('order_id', '=', orderId).execute();
}

/** Moves the given purchased tickets of an order to refunded/cancelled; returns those moved. */
export function releaseTickets(
  db: Executor,
  orderId: string,
  ticketIds: string[] | 'all',
  values: { status: 'refunded' | 'cancelled'; refund_id?: string; updated_at: Date },
) {
  let q = db.updateTable('tickets').set(values).where('order_id', '=', orderId).where('status', '=', 'purchased');
  if (ticketIds !== 'all') q = q.where('id', 'in', ticketIds);
  return q.returningAll().execute();
}

/** A new holder for a purchased ticket; undefined when the ticket is not purchased (any more). */
export function transferTicket(
  db: Executor,
  id: string,
  holder: { holder_first_name: string; holder_last_name: string | null; holder_email: string },
  now: Date,
) {
  return db
    .updateTable('tickets')
    .set({ ...holder, transferred_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'purchased')
    .returningAll()
    .executeTakeFirst();
}

/** The ids of the tickets a refund returned, in order position. */
export async function findRefundedTicketIds(db: Executor, refundId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tickets')
    .select('id')
    .where('refund_id', '=', refundId)
    .orderBy('position')
    .execute();
  return rows.map((row) => row.id);
}

/** The ticket numbers of an order's checked-in tickets, in order position. */
export async function findCheckedInTicketNos(db: Executor, orderId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tickets')
    .select('ticket_no')
    .where('order_id', '=', orderId)
    .where('status', '=', 'checked_in')
    .orderBy('position')
    .execute();
  return rows.map((row) => row.ticket_no);
}

/** The status of a ticket's order. */
export async function findOrderStatusOfTicket(db: Executor, orderId: string): Promise<string> {
  const row = await db.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirstOrThrow();
  return row.status;
}
