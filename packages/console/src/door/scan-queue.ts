/**
 * The door's queue (docs/door.md, "Offline"): every scan is stored first (scan-store.ts),
 * with an Idempotency-Key made at scan time, then settled in the order scans were made,
 * one at a time, by the check-in flow (check-in-flow.ts). When the flow cannot settle a
 * scan (no network, a 429, a 503) the queue stops at it and tries again later: at the
 * `online` event or every few seconds while the network is down, after `retry-after`
 * for a 429 or 503. Later scans wait behind it, so the order of admissions is kept.
 */
import type { Ticket } from '@marquee/sdk';
import { runScan, ScanDeferred, type DeferCause, type DoorApi } from './check-in-flow.ts';
import type { ScanStore, StoredScan } from './scan-store.ts';

export interface QueueStatus {
  /** `offline` from navigator.onLine or from a request that failed for want of a network. */
  network: 'online' | 'offline';
  /** Set while the API refuses for a rate limit or overload: when the next try goes. */
  waitingUntil: number | undefined;
  waitCause: DeferCause | undefined;
  pending: number;
}

interface QueueOptions {
  store: ScanStore;
  api: DoorApi;
  performanceLabel(ticket: Ticket): Promise<string>;
  /** A scan was stored, or settled, or is waiting: the screen re-reads what it shows. */
  onScan(scan: StoredScan): void;
  onStatus(status: QueueStatus): void;
  /** Whether the browser says it is online (navigator.onLine). */
  browserOnline?: () => boolean;
  newKey?: () => string;
  now?: () => number;
  /** While the network is down, how often the oldest scan is tried again. */
  probeEveryMs?: number;
}

const DEFAULT_PROBE_MS = 3_000;
/** When a 429 or 503 comes without retry-after. */
const DEFAULT_WAIT_MS = 5_000;

export class ScanQueue {
  #network: 'online' | 'offline' = 'online';
  #waitingUntil: number | undefined;
  #waitCause: DeferCause | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #draining: Promise<void> | undefined;
  #again = false;
  #closed = false;
  readonly #o: Required<QueueOptions>;

  constructor(options: QueueOptions) {
    this.#o = {
      browserOnline: () => globalThis.navigator?.onLine ?? true,
      newKey: () => crypto.randomUUID(),
      now: () => Date.now(),
      probeEveryMs: DEFAULT_PROBE_MS,
      ...options,
    };
    if (!this.#o.browserOnline()) this.#network = 'offline';
  }

  /** Stores a scan for the performance and settles it at once when nothing is in its way. */
  async scan(code: string, performanceId: string): Promise<StoredScan> {
    const stored = await this.#o.store.add({
      code,
      performanceId,
      idempotencyKey: this.#o.newKey(),
      scannedAt: this.#o.now(),
      pending: 1,
      waited: false,
    });
    this.#o.onScan(stored);
    await this.kick();
    // Still pending: it waits behind an earlier scan, or for the network or a retry-after.
    const now = await this.#o.store.get(stored.seq);
    if (now?.pending === 1 && !now.waited) {
      now.waited = true;
      await this.#o.store.put(now);
      this.#o.onScan(now);
    }
    return now ?? stored;
  }

  /** The browser's `online` / `offline` events. */
  setBrowserOnline(online: boolean): void {
    if (!online) {
      void this.#setNetwork('offline');
      return;
    }
    void this.#setNetwork('online').then(() => this.kick());
  }

  /** Settles pending scans until one cannot be; a call while draining drains again after. */
  kick(): Promise<void> {
    if (this.#draining) {
      this.#again = true;
      return this.#draining;
    }
    this.#draining = (async () => {
      do {
        this.#again = false;
        await this.#drain();
      } while (this.#again && !this.#closed);
    })().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async status(): Promise<QueueStatus> {
    return {
      network: this.#network,
      waitingUntil: this.#waitingUntil,
      waitCause: this.#waitCause,
      pending: await this.#o.store.pendingCount(),
    };
  }

  async #drain(): Promise<void> {
    const { store, api } = this.#o;
    for (;;) {
      if (this.#closed) return;
      if (this.#waitingUntil !== undefined && this.#waitingUntil > this.#o.now()) return;
      const next = await store.nextPending();
      if (!next) return;
      if (!this.#o.browserOnline()) {
        await this.#defer(next, new ScanDeferred('offline'));
        return;
      }
      try {
        const outcome = await runScan(api, next, {
          beforeCheckIn: async (ticketId) => {
            next.ticketId = ticketId;
            await store.put(next);
          },
          performanceLabel: this.#o.performanceLabel,
        });
        Object.assign(next, { pending: 0, outcome, settledAt: this.#o.now() });
        await store.put(next);
        this.#waitingUntil = undefined;
        this.#waitCause = undefined;
        await this.#setNetwork('online');
        this.#o.onScan(next);
      } catch (err) {
        if (!(err instanceof ScanDeferred)) throw err;
        await this.#defer(next, err);
        return;
      }
    }
  }

  async #defer(scan: StoredScan, deferred: ScanDeferred): Promise<void> {
    if (!scan.waited) {
      scan.waited = true;
      await this.#o.store.put(scan);
      this.#o.onScan(scan);
    }
    clearTimeout(this.#timer);
    if (deferred.reason === 'offline') {
      this.#waitingUntil = undefined;
      this.#waitCause = undefined;
      await this.#setNetwork('offline');
      // The `online` event is not enough: the browser may be online and the API not reachable.
      this.#timer = setTimeout(() => void this.kick(), this.#o.probeEveryMs);
      return;
    }
    const waitMs = deferred.retryAfterMs ?? DEFAULT_WAIT_MS;
    this.#waitingUntil = this.#o.now() + waitMs;
    this.#waitCause = deferred.reason;
    this.#o.onStatus(await this.status());
    this.#timer = setTimeout(() => {
      this.#waitingUntil = undefined;
      this.#waitCause = undefined;
      void this.kick();
    }, waitMs);
  }

  async #setNetwork(network: 'online' | 'offline'): Promise<void> {
    this.#network = network;
    this.#o.onStatus(await this.status());
  }
}
