/**
 * The device's local copy of its tickets (docs/door.md, "The local copy"): filled and
 * kept current with GET /v1/door_tickets in the sync order (docs/sync.md): pages of 1000
 * from the cursor (`updated_gte` + `starting_after`, both from the last item written),
 * until `has_more` is false. Each page is written in one IndexedDB transaction together
 * with the cursor it moves to and the counts it changes, so a copy interrupted mid-fill
 * resumes where it stopped and never holds a page without its cursor.
 */
import { lookupOf } from '../door/outcome.ts';
import type { DeviceApi } from './api.ts';
import type { DoorTicket, TicketStatus } from './contract.ts';
import { readSync, syncOf, type CopyCounts, type DeviceDb, type DeviceScan, type SyncState } from './device-db.ts';
import { fromStored, toStored, type CopyTicket, type StoredTicket } from './stored-ticket.ts';

export type { CopyCounts };

const PAGE_SIZE = 1000;

export interface SyncResult {
  pages: number;
  items: number;
  ms: number;
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
  // An empty copy's first fill reads no record before writing it (they are all new) but
  // for a ticket that changed during the fill and comes again: this fill's statuses.
  const filling = state.cursor === null ? new Map<string, TicketStatus>() : undefined;
  let pages = 0;
  let items = 0;
  for (;;) {
    const page = await api.doorTickets({
      limit: PAGE_SIZE,
      ...(state.cursor ? { updated_gte: state.cursor.updated_at, starting_after: state.cursor.id } : {}),
    });
    state = await writePage(db, page.data, page.has_more ? null : now(), deviceId, filling);
    pages++;
    items += page.data.length;
    if (!page.has_more) return { pages, items, ms: now() - started };
  }
}

const isSold = (status: TicketStatus | undefined) => status === 'purchased' || status === 'checked_in';

/** The counts after a ticket went from `before` (undefined: not in the copy) to `after`. */
function countsAfter(counts: CopyCounts, before: TicketStatus | undefined, after: TicketStatus): CopyCounts {
  return {
    total: counts.total + (before === undefined ? 1 : 0),
    admitted: counts.admitted + (after === 'checked_in' ? 1 : 0) - (before === 'checked_in' ? 1 : 0),
    sold: counts.sold + (isSold(after) ? 1 : 0) - (isSold(before) ? 1 : 0),
  };
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
  filling: Map<string, TicketStatus> | undefined,
): Promise<SyncState> {
  const tx = db.transaction(['tickets', 'settings'], 'readwrite');
  const store = tx.objectStore('tickets');
  const state = syncOf(await tx.objectStore('settings').get('sync'));
  const existing: Array<StoredTicket | undefined> = await Promise.all(
    tickets.map((ticket) => (filling && !filling.has(ticket.id) ? Promise.resolve(undefined) : store.get(ticket.id))),
  );
  let counts = state.counts;
  const writes: Promise<unknown>[] = [];
  tickets.forEach((ticket, i) => {
    const mine = existing[i];
    const keepLocal = mine?.st === 'checked_in' && mine.d === deviceId && ticket.status === 'purchased';
    const next: CopyTicket = keepLocal
      ? { ...ticket, status: 'checked_in', checked_in_at: mine.c ?? null, checked_in_device_id: deviceId }
      : ticket;
    counts = countsAfter(counts, mine?.st, next.status);
    filling?.set(ticket.id, next.status);
    writes.push(store.put(toStored(next)));
  });
  const last = tickets.at(-1);
  const updated: SyncState = {
    ...state,
    counts,
    cursor: last ? { updated_at: last.updated_at, id: last.id } : state.cursor,
    synced_at: completeAt ?? state.synced_at,
  };
  writes.push(tx.objectStore('settings').put(updated, 'sync'));
  await Promise.all(writes);
  await tx.done;
  return updated;
}

/** The copy's ticket for a code as scanned or typed (docs/door.md, "The flow", step 1: trimmed, upper-cased, a hyphen makes it a ticket number). */
export async function findInCopy(db: DeviceDb, raw: string): Promise<CopyTicket | undefined> {
  const lookup = lookupOf(raw);
  if (lookup === undefined) return undefined;
  const stored =
    'serial_no' in lookup
      ? await db.getFromIndex('tickets', 'serial_no', lookup.serial_no)
      : await db.getFromIndex('tickets', 'ticket_no', lookup.ticket_no);
  return stored && fromStored(stored);
}

export interface CopyAdmission {
  ticketId: string;
  at: string;
  deviceId: string | null;
}

/**
 * Admissions the copy learns at once (decided here offline, or an upload's outcomes), so
 * a second scan is refused; `scans` are written in the same transaction (the upload
 * settles a batch at once). Answers the counts after.
 */
export async function markCheckedIn(
  db: DeviceDb,
  admissions: CopyAdmission[],
  scans: DeviceScan[] = [],
): Promise<CopyCounts> {
  const tx = db.transaction(['tickets', 'settings', 'scans'], 'readwrite');
  const tickets = tx.objectStore('tickets');
  const state = syncOf(await tx.objectStore('settings').get('sync'));
  let counts = state.counts;
  const writes: Promise<unknown>[] = scans.map((scan) => tx.objectStore('scans').put(scan));
  const found = await Promise.all(admissions.map((admission) => tickets.get(admission.ticketId)));
  admissions.forEach(({ at, deviceId }, i) => {
    const stored = found[i];
    if (!stored) return;
    const next: StoredTicket = { ...stored, st: 'checked_in', c: at };
    if (deviceId === null) delete next.d;
    else next.d = deviceId;
    counts = countsAfter(counts, stored.st, 'checked_in');
    writes.push(tickets.put(next));
  });
  if (counts !== state.counts) writes.push(tx.objectStore('settings').put({ ...state, counts }, 'sync'));
  await Promise.all(writes);
  await tx.done;
  return counts;
}

export async function copyCounts(db: DeviceDb): Promise<CopyCounts> {
  return (await readSync(db)).counts;
}
