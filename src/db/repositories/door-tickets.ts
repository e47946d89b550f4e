/**
 * SQL of the door's local copy (GET /v1/door_tickets, docs/check-ins.md): the tickets with
 * the facts the admission rule reads (src/domain/tickets/admission.ts), and the device's
 * last sync stamp.
 */
import type { Executor } from '../transaction.ts';

interface DoorTicketFilters {
  performance_id?: string;
  /** A door device's performances: nothing else is listed. */
  performanceIds?: readonly string[];
}

/**
 * The organizer's tickets with their order's status and their type's name, read by
 * subqueries so the query stays a query of `tickets` (the sync machinery pages it,
 * src/domain/sync/lists.ts).
 */
export function doorTicketsQuery(db: Executor, organizerId: string, filters: DoorTicketFilters) {
  let q = db
    .selectFrom('tickets')
    .select([
      'tickets.id',
      'tickets.serial_no',
      'tickets.ticket_no',
      'tickets.performance_id',
      'tickets.ticket_type_id',
      'tickets.holder_first_name',
      'tickets.holder_last_name',
      'tickets.status',
      'tickets.checked_in_at',
      'tickets.checked_in_device_id',
      'tickets.updated_at',
    ])
    .select((eb) => [
      eb
        .selectFrom('orders')
        .select('orders.status')
        .whereRef('orders.id', '=', 'tickets.order_id')
        .$asScalar()
        .$notNull()
        .as('order_status'),
      eb
        .selectFrom('ticket_types')
        .select('ticket_types.name')
        .whereRef('ticket_types.id', '=', 'tickets.ticket_type_id')
        .$asScalar()
        .$notNull()
        .as('ticket_type_name'),
    ])
    .where('tickets.organizer_id', '=', organizerId);
  if (filters.performance_id !== undefined) q = q.where('tickets.performance_id', '=', filters.performance_id);
  if (filters.performanceIds !== undefined) {
    const ids = [...filters.performanceIds];
    q = ids.length === 0 ? q.where((eb) => eb.val(false)) : q.where('tickets.performance_id', 'in', ids);
  }
  return q;
}

/** How often a device's sync is stamped at most: a busy door does not write on every poll. */
const SYNC_STAMP_INTERVAL_MS = 5000;

/** Stamps the device's last sync, unless it was stamped less than 5 s before `now`: one conditional UPDATE. */
export async function stampDeviceSync(db: Executor, deviceId: string, now: Date): Promise<void> {
  await db
    .updateTable('door_devices')
    .set({ last_synced_at: now })
    .where('id', '=', deviceId)
    .where((eb) =>
      eb.or([
        eb('last_synced_at', 'is', null),
        eb('last_synced_at', '<=', new Date(now.getTime() - SYNC_STAMP_INTERVAL_MS)),
      ]),
    )
    .execute();
}
