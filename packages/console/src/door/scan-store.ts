/**
 * The door's scans, kept in IndexedDB (docs/door.md, "Offline"): every scan is written
 * here before any request is made for it, with the Idempotency-Key it was given at scan
 * time, so a scan made offline, or one whose answer was lost, survives a reload and is
 * sent later under the same key. One database per person and organizer (named after a
 * hash of the two ids), so a scan queued for one organizer, or by one person, is never
 * sent for another (an Idempotency-Key belongs to the user who sent it). Settled scans hold
 * holders' names and are kept a day (pruneSettled), pending ones until they are sent.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Outcome } from './outcome.ts';

interface ScanRecord {
  code: string;
  performanceId: string;
  idempotencyKey: string;
  /** Epoch milliseconds, when the code was read. */
  scannedAt: number;
  /** 1 while waiting for its verdict; 0 once settled (IndexedDB cannot index booleans). */
  pending: 0 | 1;
  /** Set once the check-in has been sent: from then on only a replay of it is sent. */
  ticketId?: string;
  /** True when the scan had to wait (offline, a 429, a 503): its verdict came later. */
  waited: boolean;
  outcome?: Outcome;
  settledAt?: number;
}

export interface StoredScan extends ScanRecord {
  /** The order scans were made in: IndexedDB's auto-increment key. */
  seq: number;
}

interface DoorSchema extends DBSchema {
  scans: { key: number; value: ScanRecord; indexes: { pending: number } };
}

export interface ScanStore {
  add(scan: ScanRecord): Promise<StoredScan>;
  put(scan: StoredScan): Promise<void>;
  get(seq: number): Promise<StoredScan | undefined>;
  /** The oldest scan still pending, across performances. */
  nextPending(): Promise<StoredScan | undefined>;
  pendingCount(): Promise<number>;
  /** The newest scans first. */
  recent(limit: number): Promise<StoredScan[]>;
  /** Deletes settled scans made before `scannedBefore` (epoch ms); pending ones stay. Returns how many. */
  pruneSettled(scannedBefore: number): Promise<number>;
  close(): void;
}

const VERSION = 1;

export async function openScanStore(name: string): Promise<ScanStore> {
  const db: IDBPDatabase<DoorSchema> = await openDB<DoorSchema>(name, VERSION, {
    upgrade(database) {
      const scans = database.createObjectStore('scans', { autoIncrement: true });
      // Index entries sort by key, then by primary key: the oldest pending scan comes first.
      scans.createIndex('pending', 'pending');
    },
  });
  const withSeq = (value: ScanRecord, seq: number): StoredScan => ({ ...value, seq });
  return {
    async add(scan) {
      return withSeq(scan, await db.add('scans', scan));
    },
    async put({ seq, ...scan }) {
      await db.put('scans', scan, seq);
    },
    async get(seq) {
      const value = await db.get('scans', seq);
      return value && withSeq(value, seq);
    },
    async nextPending() {
      const cursor = await db.transaction('scans').store.index('pending').openCursor(IDBKeyRange.only(1));
      return cursor ? withSeq(cursor.value, cursor.primaryKey) : undefined;
    },
    pendingCount: () => db.countFromIndex('scans', 'pending', IDBKeyRange.only(1)),
    async recent(limit) {
      const out: StoredScan[] = [];
      let cursor = await db.transaction('scans').store.openCursor(null, 'prev');
      while (cursor && out.length < limit) {
        out.push(withSeq(cursor.value, cursor.key));
        cursor = await cursor.continue();
      }
      return out;
    },
    async pruneSettled(scannedBefore) {
      const tx = db.transaction('scans', 'readwrite');
      let deleted = 0;
      // Keys grow with time, so the oldest scans come first and the walk stops at the first recent one.
      for (let cursor = await tx.store.openCursor(); cursor; cursor = await cursor.continue()) {
        if (cursor.value.scannedAt >= scannedBefore) break;
        if (cursor.value.pending === 1) continue;
        await cursor.delete();
        deleted++;
      }
      await tx.done;
      return deleted;
    },
    close: () => db.close(),
  };
}

/**
 * The database name for the scans of one owner (`<user id>:<organizer id>` in the console,
 * any credential in a program): a hash of it, never the value itself.
 */
export async function scanStoreName(owner: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(owner));
  const hex = Array.from(new Uint8Array(digest, 0, 8), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `marquee-door-${hex}`;
}
