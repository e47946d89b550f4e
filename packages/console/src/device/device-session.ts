/**
 * A paired door device at work (docs/door.md, "Door devices"): it decides each scan,
 * keeps the local copy current, uploads what was decided offline, and notices a revoked
 * key. The screen (device-screen.tsx) renders its state and feeds it codes.
 *
 * Online (the browser says so and the last request got an answer) the server decides:
 * the scan is stored, then uploaded at once (POST /v1/check_ins) behind any scans still
 * pending, and its outcome is the verdict. Offline, or when that request gets no answer,
 * the copy decides with the server's own rule (admissionOf); an admission marks the
 * ticket checked in in the copy and waits for the upload. An online-only device queues
 * its offline scans unverified instead. A 401 on any call means the key was revoked.
 */
import { admissionOf, type AdmissionFacts } from './admission.ts';
import { lookupOf } from '../door/outcome.ts';
import { ApiRefusal, DeviceApi, NoAnswer, type ApiOptions } from './api.ts';
import type { DoorDeviceSelf } from './contract.ts';
import {
  markRevoked,
  readRevocation,
  readSync,
  type DeviceDb,
  type DeviceScan,
  type DoubleEntry,
  type Pairing,
  type ScanTicket,
} from './device-db.ts';
import { readDoubleEntries, recentDoubles } from './double-entries.ts';
import type { CopyTicket } from './stored-ticket.ts';
import { findInCopy, markCheckedIn, syncCopy, type CopyCounts, type SyncResult } from './ticket-copy.ts';
import { pendingCount, UploadQueue } from './upload-queue.ts';

const REFRESH_EVERY_MS = 15_000;
const LOG_LENGTH = 30;
const DOUBLES_SHOWN = 20;

export interface DeviceState {
  device: DoorDeviceSelf;
  network: 'online' | 'offline';
  /** Epoch ms of the last complete sync of the copy; null before the first. */
  syncedAt: number | null;
  /** The last sync's figures (the screen and the browser test read them). */
  lastSync: SyncResult | undefined;
  counts: CopyCounts;
  pending: number;
  revoked: boolean;
  /** The newest scans first. */
  log: DeviceScan[];
  doubles: DoubleEntry[];
  /** Why the last refresh failed, when not for the network (a 429, a 5xx, the device's storage). */
  trouble: string | undefined;
}

interface SessionOptions extends ApiOptions {
  browserOnline?: () => boolean;
  now?: () => number;
  newId?: () => string;
  refreshEveryMs?: number;
}

const factsOf = (ticket: CopyTicket): AdmissionFacts => ({
  status: ticket.status,
  paid: ticket.paid,
  orderCancelled: ticket.order_cancelled,
  performance_id: ticket.performance_id,
});

const snapshotOf = (ticket: CopyTicket): ScanTicket => ({
  id: ticket.id,
  ticket_no: ticket.ticket_no,
  holder_name: ticket.holder_name,
  ticket_type_name: ticket.ticket_type_name,
  performance_id: ticket.performance_id,
});

export class DeviceSession {
  readonly #api: DeviceApi;
  readonly #uploads: UploadQueue;
  readonly #o: Required<Omit<SessionOptions, keyof ApiOptions>>;
  #state: DeviceState;
  #reachable = true;
  #listeners = new Set<(state: DeviceState) => void>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #cycle: Promise<void> | undefined;
  #cycleAgain = false;
  #closed = false;

  constructor(
    private readonly db: DeviceDb,
    private readonly pairing: Pairing,
    options: SessionOptions = {},
  ) {
    this.#api = new DeviceApi(pairing.api_key, options);
    this.#o = {
      browserOnline: () => globalThis.navigator?.onLine ?? true,
      now: () => Date.now(),
      newId: () => crypto.randomUUID(),
      refreshEveryMs: REFRESH_EVERY_MS,
      ...options,
    };
    this.#uploads = new UploadQueue(db, this.#api, pairing.device.id, () => void this.#reload());
    this.#state = {
      device: pairing.device,
      network: this.#o.browserOnline() ? 'online' : 'offline',
      syncedAt: null,
      lastSync: undefined,
      counts: { total: 0, admitted: 0, sold: 0 },
      pending: 0,
      revoked: false,
      log: [],
      doubles: [],
      trouble: undefined,
    };
  }

  get state(): DeviceState {
    return this.#state;
  }

  subscribe(listener: (state: DeviceState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads what the device kept, then refreshes (scans left pending go up first) and every 15 s after. */
  async start(): Promise<void> {
    const revoked = await readRevocation(this.db);
    await this.#reload({ revoked: revoked !== undefined });
    if (revoked) return;
    this.#timer = setInterval(() => void this.refresh(), this.#o.refreshEveryMs);
    await this.refresh();
  }

  stop(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#listeners.clear();
  }

  /** The browser's `online` and `offline` events. */
  setBrowserOnline(online: boolean): void {
    if (online) {
      this.#reachable = true;
      void this.refresh();
    }
    this.#set({ network: this.#online() ? 'online' : 'offline' });
  }

  #online(): boolean {
    return this.#o.browserOnline() && this.#reachable;
  }

  /**
   * One refresh: the pending uploads, the device (name, performances, online-only), the
   * copy's changes, the double entries. One at a time; a call during one runs another after.
   */
  refresh(): Promise<void> {
    if (this.#cycle) {
      this.#cycleAgain = true;
      return this.#cycle;
    }
    this.#cycle = (async () => {
      do {
        this.#cycleAgain = false;
        await this.#refreshOnce();
      } while (this.#cycleAgain && !this.#closed);
    })().finally(() => (this.#cycle = undefined));
    return this.#cycle;
  }

  async #refreshOnce(): Promise<void> {
    if (this.#closed || this.#state.revoked) return;
    if (!this.#o.browserOnline()) {
      this.#set({ network: 'offline' });
      return;
    }
    try {
      await this.#uploads.flush();
      const fetched = await this.#api.door();
      // The same object while nothing changed: the screen redraws what depends on it only then.
      const changed = JSON.stringify(fetched) !== JSON.stringify(this.#state.device);
      const device = changed ? fetched : this.#state.device;
      if (changed) {
        this.#state = { ...this.#state, device };
        await this.db.put('settings', { ...this.pairing, device }, 'pairing');
      }
      const lastSync = await syncCopy(this.db, this.#api, device.id, this.#o.now);
      await readDoubleEntries(this.db, this.#api, device.id, this.pairing.paired_at);
      this.#reachable = true;
      await this.#reload({ lastSync, trouble: undefined });
    } catch (err) {
      await this.#failed(err);
    }
  }

  /** A failed call: offline, revoked, or a refusal said on screen. */
  async #failed(err: unknown): Promise<void> {
    if (err instanceof NoAnswer) {
      this.#reachable = false;
      await this.#reload();
      return;
    }
    if (err instanceof ApiRefusal && err.status === 401) {
      await this.#revoke();
      return;
    }
    if (err instanceof ApiRefusal) {
      this.#reachable = true;
      await this.#reload({ trouble: `Marquee refused a refresh: ${err.detail}` });
      return;
    }
    // The device's own failure (IndexedDB full, say): said on screen, the next refresh tries again.
    await this.#reload({
      trouble: `This device could not refresh: ${err instanceof Error ? err.message : String(err)}`,
    });
  }

  async #revoke(): Promise<void> {
    clearInterval(this.#timer);
    await markRevoked(this.db, this.#o.now());
    await this.#reload({ revoked: true });
  }

  /** One scan, from the code to its verdict (stored with the scan, which is answered). */
  async scan(raw: string): Promise<DeviceScan> {
    const code = raw.trim().toUpperCase();
    const base = {
      device_scan_id: this.#o.newId(),
      code,
      scanned_at: new Date(this.#o.now()).toISOString(),
    };
    if (this.#state.revoked) return { ...base, ticket: null, mode: 'unknown', pending: 0, rejected: REVOKED };
    let ticket = await findInCopy(this.db, code);
    let scan: DeviceScan | undefined;
    if (this.#online()) {
      scan = await this.#onlineScan(base, ticket);
      if (this.#state.revoked) return { ...base, ticket: null, mode: 'unknown', pending: 0, rejected: REVOKED };
      if (scan && (scan.mode === 'unknown' || scan.pending === 0)) return this.#done(scan);
      // No answer: the copy decides after all (the copy may have learnt this ticket meanwhile).
      ticket ??= await findInCopy(this.db, code);
    }
    return this.#offlineScan(base, ticket, scan);
  }

  /** The server decides; undefined or a still-pending scan when it could not be asked. */
  async #onlineScan(
    base: Pick<DeviceScan, 'device_scan_id' | 'code' | 'scanned_at'>,
    inCopy: CopyTicket | undefined,
  ): Promise<DeviceScan | undefined> {
    let ticket: ScanTicket | undefined = inCopy && snapshotOf(inCopy);
    if (!ticket) {
      // The copy may be a few seconds old: ask the API for a code it does not have.
      const lookup = lookupOf(base.code);
      try {
        const found = lookup && (await this.#api.findTicket(lookup));
        if (found)
          ticket = {
            id: found.id,
            ticket_no: found.ticket_no,
            holder_name: [found.holder.first_name, found.holder.last_name].filter(Boolean).join(' ').trim(),
            ticket_type_name: '',
            performance_id: found.performance_id,
          };
      } catch (err) {
        await this.#failed(err);
        return undefined;
      }
      if (!ticket) {
        const unknown: DeviceScan = { ...base, ticket: null, mode: 'unknown', pending: 0 };
        await this.db.put('scans', unknown);
        return unknown;
      }
    }
    const scan: DeviceScan = { ...base, ticket, mode: 'server', pending: 1 };
    // Stored before the request: a page closed now still uploads it on its next open.
    await this.db.put('scans', scan);
    try {
      await this.#uploads.flush();
      this.#reachable = true;
    } catch (err) {
      await this.#failed(err);
    }
    return (await this.db.get('scans', scan.device_scan_id)) ?? scan;
  }

  async #offlineScan(
    base: Pick<DeviceScan, 'device_scan_id' | 'code' | 'scanned_at'>,
    ticket: CopyTicket | undefined,
    stored: DeviceScan | undefined,
  ): Promise<DeviceScan> {
    const snapshot = ticket ? snapshotOf(ticket) : (stored?.ticket ?? null);
    let scan: DeviceScan;
    if (!ticket && !snapshot) scan = { ...base, ticket: null, mode: 'unknown', pending: 0 };
    else if (this.#state.device.online_only)
      // Online only: nothing is decided here; the verdict comes with the upload's outcome.
      scan = { ...base, ticket: snapshot, mode: 'unverified', pending: 1 };
    else {
      const local = admissionOf(
        ticket && factsOf(ticket),
        this.#state.device.performances.map((p) => p.id),
      );
      scan = { ...base, ticket: snapshot, mode: 'offline', local, pending: local.admit ? 1 : 0 };
      if (!local.admit && local.reason === 'already_checked_in')
        scan.local_checked_in = {
          at: ticket?.checked_in_at ?? null,
          here: ticket?.checked_in_device_id === this.#state.device.id,
        };
      if (local.admit && ticket) {
        // The scan and the copy's admission in one transaction.
        const counts = await markCheckedIn(
          this.db,
          [{ ticketId: ticket.id, at: base.scanned_at, deviceId: this.#state.device.id }],
          [scan],
        );
        return this.#shown(scan, stored, counts);
      }
    }
    await this.db.put('scans', scan);
    return this.#shown(scan, stored);
  }

  /** An online scan: the log and counter are read again, then the copy refreshed; the verdict waits for neither. */
  #done(scan: DeviceScan): DeviceScan {
    void this.#reload().then(() => this.refresh());
    return scan;
  }

  /**
   * A scan decided here: the log, the pending count and the counter change in memory
   * (reading them again from IndexedDB would hold up the next scan's write), then a
   * refresh is tried (at once nothing, while the browser is offline).
   */
  #shown(scan: DeviceScan, before: DeviceScan | undefined, counts?: CopyCounts): DeviceScan {
    const log = [scan, ...this.#state.log.filter((x) => x.device_scan_id !== scan.device_scan_id)];
    this.#set({
      log: log.slice(0, LOG_LENGTH),
      // A scan the server could not be asked about was counted pending when it was stored.
      pending: this.#state.pending + scan.pending - (before?.pending ?? 0),
      ...(counts ? { counts } : {}),
    });
    void this.refresh();
    return scan;
  }

  /** Re-reads what the screen shows from the database. */
  async #reload(patch: Partial<DeviceState> = {}): Promise<void> {
    if (this.#closed) return;
    const [log, pending, doubles, sync] = await Promise.all([
      recentScans(this.db, LOG_LENGTH),
      pendingCount(this.db),
      recentDoubles(this.db, DOUBLES_SHOWN),
      readSync(this.db),
    ]);
    this.#set({
      log,
      counts: sync.counts,
      pending,
      doubles,
      syncedAt: sync.synced_at,
      network: this.#online() ? 'online' : 'offline',
      ...patch,
    });
  }

  #set(patch: Partial<DeviceState>): void {
    if (this.#closed) return;
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener(this.#state);
  }
}

export const REVOKED =
  'This device was revoked in the dashboard: it can no longer admit. Ask a manager for a new pairing code.';

async function recentScans(db: DeviceDb, limit: number): Promise<DeviceScan[]> {
  const out: DeviceScan[] = [];
  let cursor = await db.transaction('scans').store.index('scanned_at').openCursor(null, 'prev');
  while (cursor && out.length < limit) {
    out.push(cursor.value);
    cursor = await cursor.continue();
  }
  return out;
}
