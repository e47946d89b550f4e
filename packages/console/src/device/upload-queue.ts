/**
 * The device's upload (docs/door.md, "Upload and reconciliation"): pending scans go up
 * with POST /v1/check_ins in the order they were made (scanned_at), at most 500 a
 * request, and each outcome settles its scan in IndexedDB. The server applies a batch in
 * scanned_at order and answers a scan it has seen before (the same device_scan_id) from
 * its stored outcome, so an upload whose answer was lost is simply sent again.
 *
 * One upload at a time: a call while one runs makes it run once more after, so a scan
 * made meanwhile is not left behind and no scan is sent by two uploads at once.
 */
import { ApiRefusal, type DeviceApi } from './api.ts';
import type { CheckInScan } from './contract.ts';
import type { DeviceDb, DeviceScan } from './device-db.ts';
import { markCheckedIn, type CopyAdmission } from './ticket-copy.ts';

const MAX_BATCH = 500;

type Uploader = Pick<DeviceApi, 'uploadCheckIns'>;

/** The pending scans, oldest first. */
export async function pendingScans(db: DeviceDb, limit = Infinity): Promise<DeviceScan[]> {
  const out: DeviceScan[] = [];
  const range = IDBKeyRange.bound([1, ''], [1, '\uffff']);
  for (
    let cursor = await db.transaction('scans').store.index('pending').openCursor(range);
    cursor && out.length < limit;
  ) {
    out.push(cursor.value);
    cursor = await cursor.continue();
  }
  return out;
}

export function pendingCount(db: DeviceDb): Promise<number> {
  return db.countFromIndex('scans', 'pending', IDBKeyRange.bound([1, ''], [1, '\uffff']));
}

/** A 400 naming one scan of the batch (`data.3.device_scan_id`, a dotted path, docs/errors.md): its index. */
function rejectedIndex(err: ApiRefusal): number | undefined {
  const match = /^data\.(\d+)\./.exec(err.param ?? '');
  return match ? Number(match[1]) : undefined;
}

export class UploadQueue {
  #running: Promise<CheckInScan[]> | undefined;
  #again = false;

  constructor(
    private readonly db: DeviceDb,
    private readonly api: Uploader,
    private readonly deviceId: string,
    /** The scans of a batch once settled (the screen re-reads its log). */
    private readonly onSettled: (scans: DeviceScan[]) => void = () => {},
  ) {}

  /**
   * Uploads every pending scan; answers the outcomes received. Throws NoAnswer (offline)
   * or an ApiRefusal the queue cannot settle (a 401, a 429, a 5xx): the scans stay pending.
   */
  flush(): Promise<CheckInScan[]> {
    if (this.#running) {
      this.#again = true;
      return this.#running.then(() => this.flush());
    }
    this.#running = (async () => {
      const received: CheckInScan[] = [];
      try {
        do {
          this.#again = false;
          for (;;) {
            const batch = await pendingScans(this.db, MAX_BATCH);
            if (batch.length === 0) break;
            const { outcomes, settled } = await this.#send(batch);
            received.push(...outcomes);
            // An answer that settled nothing would send the same batch forever.
            if (settled === 0) break;
          }
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
      return received;
    })();
    return this.#running;
  }

  async #send(batch: DeviceScan[]): Promise<{ outcomes: CheckInScan[]; settled: number }> {
    let answer;
    try {
      answer = await this.api.uploadCheckIns(
        batch.map((scan) => ({
          ticket_id: scan.ticket!.id,
          scanned_at: scan.scanned_at,
          device_scan_id: scan.device_scan_id,
        })),
      );
    } catch (err) {
      // A 400 is about the scans themselves: set the one it names (or the whole batch)
      // aside with the API's words, so the others still go up.
      if (!(err instanceof ApiRefusal) || err.status !== 400) throw err;
      const index = rejectedIndex(err);
      const rejected = index === undefined ? batch : batch.slice(index, index + 1);
      await this.#settle(rejected.map((scan) => ({ ...scan, pending: 0, rejected: err.detail })));
      return { outcomes: [], settled: rejected.length };
    }
    const byId = new Map(answer.data.map((outcome) => [outcome.device_scan_id, outcome]));
    const settled: DeviceScan[] = [];
    const admissions: CopyAdmission[] = [];
    for (const scan of batch) {
      const outcome = byId.get(scan.device_scan_id);
      if (!outcome) continue;
      settled.push({ ...scan, pending: 0, outcome });
      // The copy learns the admission at once: the next refresh confirms it.
      if (outcome.outcome !== 'not_admittable')
        admissions.push({
          ticketId: outcome.ticket_id,
          at: outcome.checked_in_at ?? scan.scanned_at,
          deviceId: outcome.checked_in_by?.device_id ?? (outcome.outcome === 'admitted' ? this.deviceId : null),
        });
    }
    // The batch's outcomes and what the copy learns from them, in one transaction.
    await markCheckedIn(this.db, admissions, settled);
    this.onSettled(settled);
    return { outcomes: answer.data, settled: settled.length };
  }

  async #settle(scans: DeviceScan[]): Promise<void> {
    const tx = this.db.transaction('scans', 'readwrite');
    await Promise.all([...scans.map((scan) => tx.store.put(scan)), tx.done]);
    this.onSettled(scans);
  }
}
