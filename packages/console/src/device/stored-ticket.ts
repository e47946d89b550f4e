/**
 * A ticket of the local copy as IndexedDB keeps it (docs/door.md, "The local copy"): the
 * fields a verdict and the screen need, under one- and two-letter names. A copy holds
 * every ticket of the device's performances (20,000 for a large venue) and the structured
 * clone stores every property name in every record: the short names and the dropped
 * fields (ticket_type_id, updated_at: the cursor keeps the last one) take the copy from
 * about 11 to about 9 MB at 20,000 tickets.
 */
import type { DoorTicket, TicketStatus } from './contract.ts';

/** What the device reads of a copied ticket. */
export type CopyTicket = Omit<DoorTicket, 'ticket_type_id' | 'updated_at'>;

export interface StoredTicket {
  /** id (the key) */
  i: string;
  /** serial_no (indexed) */
  s: string;
  /** ticket_no (indexed) */
  n: string;
  /** performance_id */
  p: string;
  /** ticket_type_name */
  y: string;
  /** holder_name */
  h: string;
  st: TicketStatus;
  /** paid */
  pd: boolean;
  /** order_cancelled */
  oc: boolean;
  /** checked_in_at, absent when null */
  c?: string;
  /** checked_in_device_id, absent when null */
  d?: string;
}

export function toStored(ticket: CopyTicket): StoredTicket {
  const stored: StoredTicket = {
    i: ticket.id,
    s: ticket.serial_no,
    n: ticket.ticket_no,
    p: ticket.performance_id,
    y: ticket.ticket_type_name,
    h: ticket.holder_name,
    st: ticket.status,
    pd: ticket.paid,
    oc: ticket.order_cancelled,
  };
  if (ticket.checked_in_at !== null) stored.c = ticket.checked_in_at;
  if (ticket.checked_in_device_id !== null) stored.d = ticket.checked_in_device_id;
  return stored;
}

export function fromStored(stored: StoredTicket): CopyTicket {
  return {
    id: stored.i,
    serial_no: stored.s,
    ticket_no: stored.n,
    performance_id: stored.p,
    ticket_type_name: stored.y,
    holder_name: stored.h,
    status: stored.st,
    paid: stored.pd,
    order_cancelled: stored.oc,
    checked_in_at: stored.c ?? null,
    checked_in_device_id: stored.d ?? null,
  };
}
