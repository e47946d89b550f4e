/**
 * The upload of a door's offline scans (docs/check-ins.md, "The upload"). Scans are applied
 * in scanned_at order (ties: request order), each in a transaction of its own:
 *
 * 1. claim the scan's (api_key, device_scan_id) with an insert that does nothing when it
 *    exists; a scan uploaded before is answered from its stored outcome and changes nothing
 *    (a concurrent upload of the same scan waits on the unique index, then replays; the
 *    scans found by one read before the loop skip their transaction altogether);
 * 2. lock the ticket and decide with the admission rule (src/domain/tickets/admission.ts),
 *    the very rule the device decided offline with;
 * 3. admit it with the one admission write of every check-in (recordAdmission: the ticket
 *    and `ticket.checked_in`), its checked_in_at the scan's time, or refuse it;
 * 4. store the outcome on the scan's row.
 *
 * So the first upload of a ticket to reach the service is its admission; a later scan of it
 * is `already_checked_in`, a double entry, with the first admission's time and device.
 */
import {
  findScanId,
  findScanIds,
  findScans,
  insertScanIfAbsent,
  recordOutcome,
  type ScanOutcome,
} from '../../db/repositories/check-ins.ts';
import { lockTicketForAdmission } from '../../db/repositories/tickets.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid } from '../../errors/domain-error.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { admissionOf } from '../tickets/admission.ts';
import { admissionFactsOf, recordAdmission } from '../tickets/tickets.ts';

interface UploadedScan {
  ticket_id: string;
  /** RFC 3339, validated by the route. */
  scanned_at: string;
  device_scan_id: string;
}

type Uploader = Pick<AuthContext, 'organizerId' | 'apiKeyId' | 'deviceId' | 'performanceIds'>;

/** Applies the scans and returns every scan's row, in request order. */
export async function uploadCheckIns(db: Executor, auth: Uploader, scans: readonly UploadedScan[], now: Date) {
  if (auth.apiKeyId === null) throw new Error('uploadCheckIns() needs an API key');
  assertUniqueScanIds(scans);
  const order = scans
    .map((scan, index) => ({ scan, index, at: new Date(scan.scanned_at) }))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || a.index - b.index);
  // A re-sent upload (its answer was lost) is answered from one read, not a transaction a scan.
  const known = await findScanIds(
    db,
    auth.apiKeyId,
    scans.map((scan) => scan.device_scan_id),
  );
  const ids: string[] = new Array<string>(scans.length);
  for (const { scan, index, at } of order)
    ids[index] = known.get(scan.device_scan_id) ?? (await applyScan(db, auth, auth.apiKeyId, scan, at, now));
  const rows = new Map((await findScans(db, ids)).map((row) => [row.id, row]));
  return ids.map((id) => rows.get(id)!);
}

function assertUniqueScanIds(scans: readonly UploadedScan[]): void {
  const seen = new Map<string, number>();
  scans.forEach((scan, index) => {
    const first = seen.get(scan.device_scan_id);
    if (first !== undefined)
      throw invalid(
        'parameter_invalid',
        `\`data.${index}.device_scan_id\` repeats \`data.${first}.device_scan_id\` (${JSON.stringify(scan.device_scan_id)}); each scan of an upload needs its own device_scan_id.`,
        `data.${index}.device_scan_id`,
      );
    seen.set(scan.device_scan_id, index);
  });
}

/** One scan, in a transaction of its own; returns its row's id. */
function applyScan(db: Executor, auth: Uploader, apiKeyId: string, scan: UploadedScan, at: Date, now: Date) {
  return withTransaction(db, async (trx) => {
    const id = await insertScanIfAbsent(trx, {
      organizer_id: auth.organizerId,
      api_key_id: apiKeyId,
      device_id: auth.deviceId,
      device_scan_id: scan.device_scan_id,
      ticket_id: scan.ticket_id,
      scanned_at: at,
      received_at: now,
    });
    // Uploaded before (or by a concurrent upload that committed first): its outcome stands.
    if (id === undefined) return findScanId(trx, apiKeyId, scan.device_scan_id);
    await recordOutcome(trx, id, await decide(trx, auth, scan.ticket_id, at, now));
    return id;
  });
}

async function decide(trx: Executor, auth: Uploader, ticketId: string, at: Date, now: Date): Promise<ScanOutcome> {
  const ticket = await lockTicketForAdmission(trx, auth.organizerId, { id: ticketId });
  const verdict = admissionOf(ticket && admissionFactsOf(ticket), auth.performanceIds);
  const performance_id = ticket?.performance_id ?? null;
  if (verdict.admit) {
    // A scan stamped in the future (a device clock ahead) is admitted now.
    const checkedInAt = at.getTime() > now.getTime() ? now : at;
    await recordAdmission(trx, auth.organizerId, ticket!.id, { checkedInAt, deviceId: auth.deviceId, now });
    return {
      outcome: 'admitted',
      reason: null,
      performance_id,
      admitted_at: checkedInAt,
      admitted_device_id: auth.deviceId,
    };
  }
  if (verdict.reason === 'already_checked_in')
    return {
      outcome: 'already_checked_in',
      reason: null,
      performance_id,
      admitted_at: ticket!.checked_in_at,
      admitted_device_id: ticket!.checked_in_device_id,
    };
  return {
    outcome: 'not_admittable',
    reason: verdict.reason,
    performance_id,
    admitted_at: null,
    admitted_device_id: null,
  };
}
