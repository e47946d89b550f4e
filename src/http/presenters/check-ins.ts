/** The public shapes of an uploaded scan (CheckInScan) and of the door's copy of a ticket (DoorTicket). */
import type { ScanRow } from '../../db/repositories/check-ins.ts';
import type { doorTicketsQuery } from '../../db/repositories/door-tickets.ts';

const deviceRef = (id: string | null, name: string | null) =>
  id === null || name === null ? null : { device_id: id, device_name: name };

export function presentCheckInScan(row: ScanRow) {
  return {
    id: row.id,
    device_scan_id: row.device_scan_id,
    ticket_id: row.ticket_id,
    ticket_no: row.reason === 'unknown' ? null : row.ticket_no,
    performance_id: row.performance_id,
    scanned_at: row.scanned_at,
    received_at: row.received_at,
    outcome: row.outcome,
    reason: row.reason,
    checked_in_at: row.outcome === 'not_admittable' ? null : row.admitted_at,
    checked_in_by:
      row.outcome === 'not_admittable' ? null : deviceRef(row.admitted_device_id, row.admitted_device_name),
    device: deviceRef(row.device_id, row.device_name),
  };
}

type DoorTicketRow = Awaited<ReturnType<ReturnType<typeof doorTicketsQuery>['execute']>>[number];

export function presentDoorTicket(row: DoorTicketRow) {
  return {
    id: row.id,
    serial_no: row.serial_no,
    ticket_no: row.ticket_no,
    performance_id: row.performance_id,
    ticket_type_id: row.ticket_type_id,
    ticket_type_name: row.ticket_type_name,
    holder_name: `${row.holder_first_name} ${row.holder_last_name ?? ''}`.trim(),
    status: row.status,
    paid: row.order_status === 'placed' || row.order_status === 'fulfilled',
    order_cancelled: row.order_status === 'cancelled',
    checked_in_at: row.checked_in_at,
    checked_in_device_id: row.checked_in_device_id,
    updated_at: row.updated_at,
  };
}
