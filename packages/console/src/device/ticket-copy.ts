/**
 * The device's local copy of its tickets (docs/door.md, "The local copy"): filled and
 * kept current with GET /v1/door_tickets in the sync order (docs/sync.md): pages of 1000
 * from the cursor (`updated_gte` + `starting_after`, both from the last item written),
 * until `has_more` is false. Each page is written in one IndexedDB transaction together
 * with the cursor it moves to, so a copy interrupted mid-fill resumes where it stopped and
 * never holds a page without its cursor.
 */
import { lookupOf } from '../door/outcome.ts';
import type { DeviceApi } from './api.ts';
import type { DoorTicket } from './contract.ts';
import { readSync, type DeviceDb, type SyncState } from './device-db.ts';

export const PAGE_SIZE = 1000;

export interface SyncResult {
  pages: number;
  items: number;
  ms: number;
}

export interface CopyCounts {
  /** Every ticket in the copy. */
  total: number;
  /** Checked in. */
  admitted: number;
  /** Purchased or checked in: refunded and cancelled tickets are no longer sold. */
  sold: number;
}

type Source = Pick<DeviceApi, 'doorTickets'>;

/** Reads every change since the cursor into the copy; answers once `has_more` is false. */
export async function syncCopy(
  db: DeviceDb,
  api: Source,
  deviceId: string,
  now: () => number = Date.now,
): Promise<SyncResult> {
  const started = now();
  let state = await readSync(db);
  let pages = 0;
  let items = 0;
  for (;;) {
    const page = await api.doorTickets({
      limit: PAGE_SIZE,
      ...(state.cursor ? { updated_gte: state.cursor.updated_at, starting_after: state.cursor.id } : {}),
    });
    state = await writePage(db, page.data, page.has_more ? null : now(), deviceId);
    pages++;
    items += page.data.length;
    if (!page.has_more) return { pages, items, ms: now() - started };
  }
}

/**
 * One page and the cursor it moves to, in one transaction. A ticket this device admitted
 * offline and has not uploaded yet stays checked in here when the server still says
 * purchased (the upload will make it so); any other change of the server wins.
 */
async function writePage(
  db: DeviceDb,
  tickets: DoorTicket[],
  completeAt: number | null,
  deviceId: string,
): Promise<SyncState> {
  const tx = db.transaction(['tickets', 'settings'], 'readwrite');
  const store = tx.objectStore('tickets');
  const state = await readSyncIn(tx.objectStore('settings'));
  const writes: Promise<unknown>[] = [];
  const existing = await Promise.all(tickets.map((ticket) => store.get(ticket.id)));
  tickets.forEach((ticket, i) => {
    const mine = existing[i];
    const keepLocal =
      mine?.status === 'checked_in' && mine.checked_in_device_id === deviceId && ticket.status === 'purchased';
    writes.push(
      store.put(
        keepLocal
          ? { ...ticket, status: 'checked_in', checked_in_at: mine.checked_in_at, checked_in_device_id: deviceId }
          : ticket,
      ),
    );
  });
  const last = tickets.at(-1);
  const next: SyncState = {
    ...state,
    cursor: last ? { updated_at: last.updated_at, id: last.id } : state.cursor,
    synced_at: completeAt ?? state.synced_at,
  };
  writes.push(tx.objectStore('settings').put(next, 'sync'));
  await Promise.all(writes);
  await tx.done;
  return next;
}

async function readSyncIn(settings: { get(key: 'sync'): Promise<unknown> }): Promise<SyncState> {
  return (
    ((await settings.get('sync')) as SyncState | undefined) ?? {
      cursor: null,
      synced_at: null,
      doubles_since: null,
    }
  );
}

/** The copy's ticket for a code as scanned or typed (docs/door.md, "The flow", step 1). */
export async function findInCopy(db: DeviceDb, raw: string): Promise<DoorTicket | undefined> {
  const lookup = lookupOf(raw);
  if (lookup === undefined) return undefined;
  return 'serial_no' in lookup
    ? db.getFromIndex('tickets', 'serial_no', lookup.serial_no)
    : db.getFromIndex('tickets', 'ticket_no', lookup.ticket_no);
}

/** An admission decided here: the copy says so at once, so a second scan is refused. */
export async function markCheckedIn(
  db: DeviceDb,
  ticketId: string,
  at: string,
  deviceId: string | null,
): Promise<void> {
  const tx = db.transaction('tickets', 'readwrite');
  const ticket = await tx.store.get(ticketId);
  if (ticket)
    await tx.store.put({ ...ticket, status: 'checked_in', checked_in_at: at, checked_in_device_id: deviceId });
  await tx.done;
}

export async function copyCounts(db: DeviceDb): Promise<CopyCounts> {
  const tx = db.transaction('tickets');
  const [total, admitted, purchased] = await Promise.all([
    tx.store.count(),
    tx.store.index('status').count('checked_in'),
    tx.store.index('status').count('purchased'),
  ]);
  return { total, admitted, sold: admitted + purchased };
}
