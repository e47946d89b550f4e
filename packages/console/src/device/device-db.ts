/**
 * The door device's IndexedDB database, `marquee-device` (docs/door.md, "The door
 * device"): the pairing (the device key and the device), the local copy of its tickets
 * with its sync cursor, the scans (every scan is written here before any request is made
 * for it, so a closed page loses nothing), and the double entries seen elsewhere. One
 * device per browser profile: a pairing replaces the last.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Admission } from './admission.ts';
import type { CheckInScan, DoorDeviceSelf } from './contract.ts';
import type { StoredTicket } from './stored-ticket.ts';

const DEVICE_DB_NAME = 'marquee-device';
const VERSION = 1;

export interface Pairing {
  api_key: string;
  device: DoorDeviceSelf;
  paired_at: string;
}

export interface SyncState {
  /** The last item of the last page written: the sync cursor (docs/sync.md). */
  cursor: { updated_at: string; id: string } | null;
  /** Epoch ms of the last complete sync (a page with has_more false). */
  synced_at: number | null;
  /** The `received_gte` of the next read of double entries. */
  doubles_since: string | null;
  /**
   * The copy's counts, kept with every write of the copy (in its transaction): counting
   * 20,000 records in IndexedDB takes a tenth of a second on a device, too slow per scan.
   */
  counts: CopyCounts;
}

export interface CopyCounts {
  /** Every ticket in the copy. */
  total: number;
  /** Checked in. */
  admitted: number;
  /** Purchased or checked in: refunded and cancelled tickets are no longer sold. */
  sold: number;
}

const EMPTY_SYNC: SyncState = Object.freeze({
  cursor: null,
  synced_at: null,
  doubles_since: null,
  counts: Object.freeze({ total: 0, admitted: 0, sold: 0 }),
});

/** The sync state as read from the settings store (in any transaction). */
export function syncOf(value: unknown): SyncState {
  return (value as SyncState | undefined) ?? EMPTY_SYNC;
}

/** Set once a call answered 401: the key was revoked, the copy deleted. */
interface Revocation {
  at: number;
}

/** What a scan shows of its ticket, kept with the scan (the copy may be deleted). */
export interface ScanTicket {
  id: string;
  ticket_no: string;
  holder_name: string;
  ticket_type_name: string;
  performance_id: string;
}

/**
 * How a scan was decided on the device: `server` sent at once and decided by the answer;
 * `offline` decided by the local copy (admissionOf); `unverified` queued by an online-only
 * device; `unknown` no ticket has the code (nothing to send).
 */
type ScanMode = 'server' | 'offline' | 'unverified' | 'unknown';

export interface DeviceScan {
  device_scan_id: string;
  /** The code as read, trimmed and upper-cased. */
  code: string;
  /** RFC 3339, when the code was read. */
  scanned_at: string;
  ticket: ScanTicket | null;
  mode: ScanMode;
  /** The local copy's verdict, for an `offline` scan. */
  local?: Admission;
  /** For a local `already_checked_in`: when, and whether this device did it. */
  local_checked_in?: { at: string | null; here: boolean };
  /** 1 while it waits to be uploaded; 0 once settled (IndexedDB cannot index booleans). */
  pending: 0 | 1;
  /** The server's outcome, once it came. */
  outcome?: CheckInScan;
  /** The API refused the upload of this very scan (a 4xx other than 401): its detail. */
  rejected?: string;
}

/** A double entry of a ticket this device admitted, scanned again elsewhere. */
export interface DoubleEntry {
  /** The check-in scan's id (GET /v1/check_ins). */
  id: string;
  ticket_no: string | null;
  performance_id: string | null;
  admitted_at: string | null;
  gate: string;
  scanned_at: string;
  received_at: string;
}

interface DeviceSchema extends DBSchema {
  settings: {
    key: 'pairing' | 'sync' | 'revoked';
    value: Pairing | SyncState | Revocation;
  };
  tickets: {
    key: string;
    value: StoredTicket;
    indexes: { serial_no: string; ticket_no: string };
  };
  scans: {
    key: string;
    value: DeviceScan;
    indexes: { pending: [number, string]; scanned_at: string };
  };
  doubles: { key: string; value: DoubleEntry; indexes: { received_at: string } };
}

export type DeviceDb = IDBPDatabase<DeviceSchema>;

export async function openDeviceDb(name = DEVICE_DB_NAME): Promise<DeviceDb> {
  return openDB<DeviceSchema>(name, VERSION, {
    upgrade(db) {
      db.createObjectStore('settings');
      const tickets = db.createObjectStore('tickets', { keyPath: 'i' });
      tickets.createIndex('serial_no', 's');
      tickets.createIndex('ticket_no', 'n');
      const scans = db.createObjectStore('scans', { keyPath: 'device_scan_id' });
      // Pending scans in the order they were made: the upload's order.
      scans.createIndex('pending', ['pending', 'scanned_at']);
      scans.createIndex('scanned_at', 'scanned_at');
      const doubles = db.createObjectStore('doubles', { keyPath: 'id' });
      doubles.createIndex('received_at', 'received_at');
    },
  });
}

export async function readPairing(db: DeviceDb): Promise<Pairing | undefined> {
  return (await db.get('settings', 'pairing')) as Pairing | undefined;
}

export async function readRevocation(db: DeviceDb): Promise<Revocation | undefined> {
  return (await db.get('settings', 'revoked')) as Revocation | undefined;
}

export async function readSync(db: DeviceDb): Promise<SyncState> {
  return syncOf(await db.get('settings', 'sync'));
}

/** A new pairing: the key and device, and nothing of an earlier one. */
export async function storePairing(db: DeviceDb, pairing: Pairing): Promise<void> {
  const tx = db.transaction(['settings', 'tickets', 'scans', 'doubles'], 'readwrite');
  await Promise.all([
    tx.objectStore('settings').clear(),
    tx.objectStore('tickets').clear(),
    tx.objectStore('scans').clear(),
    tx.objectStore('doubles').clear(),
  ]);
  await tx.objectStore('settings').put(pairing, 'pairing');
  await tx.done;
}

/** Forgets the key and everything the device kept (the Unpair button). */
export async function forgetEverything(db: DeviceDb): Promise<void> {
  const tx = db.transaction(['settings', 'tickets', 'scans', 'doubles'], 'readwrite');
  await Promise.all([
    tx.objectStore('settings').clear(),
    tx.objectStore('tickets').clear(),
    tx.objectStore('scans').clear(),
    tx.objectStore('doubles').clear(),
  ]);
  await tx.done;
}

/**
 * The key was revoked (a 401): the copy's holder names are deleted, and the scans' too;
 * the scans stay, so the count of those never uploaded can still be shown.
 */
export async function markRevoked(db: DeviceDb, at: number): Promise<void> {
  const tx = db.transaction(['settings', 'tickets', 'scans', 'doubles'], 'readwrite');
  await tx.objectStore('tickets').clear();
  await tx.objectStore('doubles').clear();
  for (let cursor = await tx.objectStore('scans').openCursor(); cursor; cursor = await cursor.continue())
    if (cursor.value.ticket)
      await cursor.update({ ...cursor.value, ticket: { ...cursor.value.ticket, holder_name: '' } });
  await tx.objectStore('settings').put({ at } satisfies Revocation, 'revoked');
  await tx.objectStore('settings').put(EMPTY_SYNC, 'sync');
  await tx.done;
}
