/**
 * Double entries made elsewhere (docs/door.md, "Upload and reconciliation"): a ticket this
 * device admitted, scanned again and uploaded by another gate. Each refresh reads
 * GET /v1/check_ins?outcome=already_checked_in from the last one seen (`received_gte`,
 * inclusive, so what was seen is told apart by id) and keeps those whose admission was
 * this device's. The gate that uploads the second scan sees it in its own upload's answer.
 */
import type { DeviceApi } from './api.ts';
import type { CheckInScan } from './contract.ts';
import { readSync, syncOf, type DeviceDb, type DoubleEntry } from './device-db.ts';

type Reader = Pick<DeviceApi, 'checkIns'>;

const PAGE = 100;

function doubleOf(scan: CheckInScan): DoubleEntry {
  return {
    id: scan.id,
    ticket_no: scan.ticket_no,
    performance_id: scan.performance_id,
    admitted_at: scan.checked_in_at,
    gate: scan.device?.device_name ?? 'the console or the API',
    scanned_at: scan.scanned_at,
    received_at: scan.received_at,
  };
}

/** Reads the double entries since the last read; answers the new ones that concern this device. */
export async function readDoubleEntries(
  db: DeviceDb,
  api: Reader,
  deviceId: string,
  since: string,
): Promise<DoubleEntry[]> {
  const state = await readSync(db);
  const from = state.doubles_since ?? since;
  const found: DoubleEntry[] = [];
  let newest = from;
  let after: string | undefined;
  for (;;) {
    const page = await api.checkIns({
      outcome: 'already_checked_in',
      received_gte: from,
      limit: PAGE,
      ...(after === undefined ? {} : { starting_after: after }),
    });
    for (const scan of page.data) {
      if (scan.received_at > newest) newest = scan.received_at;
      if (scan.checked_in_by?.device_id === deviceId && scan.device?.device_id !== deviceId) found.push(doubleOf(scan));
    }
    if (!page.has_more || page.data.length === 0) break;
    after = page.data.at(-1)!.id;
  }
  const tx = db.transaction(['doubles', 'settings'], 'readwrite');
  const fresh: DoubleEntry[] = [];
  for (const entry of found) {
    if (await tx.objectStore('doubles').get(entry.id)) continue;
    await tx.objectStore('doubles').put(entry);
    fresh.push(entry);
  }
  const current = syncOf(await tx.objectStore('settings').get('sync'));
  await tx.objectStore('settings').put({ ...current, doubles_since: newest }, 'sync');
  await tx.done;
  return fresh;
}

export async function recentDoubles(db: DeviceDb, limit: number): Promise<DoubleEntry[]> {
  const out: DoubleEntry[] = [];
  let cursor = await db.transaction('doubles').store.index('received_at').openCursor(null, 'prev');
  while (cursor && out.length < limit) {
    out.push(cursor.value);
    cursor = await cursor.continue();
  }
  return out;
}
