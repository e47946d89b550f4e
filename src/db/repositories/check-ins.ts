/**
 * SQL of the uploaded scans (check_in_scans, migrations/0019_door_devices.sql; docs/check-ins.md):
 * the insert that claims a (key, device_scan_id) once, the outcome it is given, and the reads
 * that present scans with their ticket number and device names.
 */
import type { CheckInOutcome, CheckInRefusal } from '../schema.ts';
import type { Executor } from '../transaction.ts';

interface NewScan {
  organizer_id: string;
  api_key_id: string;
  device_id: string | null;
  device_scan_id: string;
  ticket_id: string;
  scanned_at: Date;
  received_at: Date;
}

/**
 * Claims the scan's (api_key_id, device_scan_id): its id when this call inserted it, or
 * undefined when the scan was uploaded before. A concurrent upload of the same scan waits on
 * the unique index until the first commits (then gets undefined) or rolls back (then inserts).
 * The row starts as not_admittable/unknown; recordOutcome() sets the real outcome in the same
 * transaction, so no other transaction ever sees the placeholder.
 */
export async function insertScanIfAbsent(db: Executor, scan: NewScan): Promise<string | undefined> {
  const row = await db
    .insertInto('check_in_scans')
    .values({ ...scan, outcome: 'not_admittable', reason: 'unknown' })
    .onConflict((oc) => oc.columns(['api_key_id', 'device_scan_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** The scans a key uploaded before among these device_scan_ids: device_scan_id → id. */
export async function findScanIds(
  db: Executor,
  apiKeyId: string,
  deviceScanIds: readonly string[],
): Promise<Map<string, string>> {
  if (deviceScanIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('check_in_scans')
    .select(['id', 'device_scan_id'])
    .where('api_key_id', '=', apiKeyId)
    .where('device_scan_id', 'in', [...deviceScanIds])
    .execute();
  return new Map(rows.map((row) => [row.device_scan_id, row.id]));
}

/** The id of the scan a key uploaded before with this device_scan_id. */
export async function findScanId(db: Executor, apiKeyId: string, deviceScanId: string): Promise<string> {
  const row = await db
    .selectFrom('check_in_scans')
    .select('id')
    .where('api_key_id', '=', apiKeyId)
    .where('device_scan_id', '=', deviceScanId)
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface ScanOutcome {
  outcome: CheckInOutcome;
  reason: CheckInRefusal | null;
  performance_id: string | null;
  admitted_at: Date | null;
  admitted_device_id: string | null;
}

export async function recordOutcome(db: Executor, id: string, outcome: ScanOutcome): Promise<void> {
  await db.updateTable('check_in_scans').set(outcome).where('id', '=', id).execute();
}

/** Scans with what their presentation needs: the ticket's number, the devices' names. */
function presentableScans(db: Executor) {
  return db
    .selectFrom('check_in_scans')
    .leftJoin('tickets', (join) =>
      join
        .onRef('tickets.id', '=', 'check_in_scans.ticket_id')
        .onRef('tickets.organizer_id', '=', 'check_in_scans.organizer_id'),
    )
    .leftJoin('door_devices as uploader', 'uploader.id', 'check_in_scans.device_id')
    .leftJoin('door_devices as admitter', 'admitter.id', 'check_in_scans.admitted_device_id')
    .select([
      'check_in_scans.id',
      'check_in_scans.device_scan_id',
      'check_in_scans.ticket_id',
      'tickets.ticket_no',
      'check_in_scans.performance_id',
      'check_in_scans.scanned_at',
      'check_in_scans.received_at',
      'check_in_scans.outcome',
      'check_in_scans.reason',
      'check_in_scans.admitted_at',
      'check_in_scans.admitted_device_id',
      'admitter.name as admitted_device_name',
      'check_in_scans.device_id',
      'uploader.name as device_name',
    ]);
}

export type ScanRow = Awaited<ReturnType<ReturnType<typeof presentableScans>['execute']>>[number];

export function findScans(db: Executor, ids: string[]): Promise<ScanRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return presentableScans(db).where('check_in_scans.id', 'in', ids).execute();
}

export interface ScanFilters {
  outcome?: CheckInOutcome;
  performance_id?: string;
  received_gte?: Date;
}

/**
 * The organizer's scans, filtered; for a door device (`device` given), only the scans on its
 * performances and its own uploads.
 */
export function checkInScansListQuery(
  db: Executor,
  organizerId: string,
  filters: ScanFilters,
  device: { apiKeyId: string; performanceIds: readonly string[] } | undefined,
) {
  let q = presentableScans(db).where('check_in_scans.organizer_id', '=', organizerId);
  if (filters.outcome !== undefined) q = q.where('check_in_scans.outcome', '=', filters.outcome);
  if (filters.performance_id !== undefined) q = q.where('check_in_scans.performance_id', '=', filters.performance_id);
  if (filters.received_gte !== undefined) q = q.where('check_in_scans.received_at', '>=', filters.received_gte);
  if (device !== undefined) {
    const { apiKeyId, performanceIds } = device;
    q = q.where((eb) => {
      const own = eb('check_in_scans.api_key_id', '=', apiKeyId);
      if (performanceIds.length === 0) return own;
      return eb.or([eb('check_in_scans.performance_id', 'in', [...performanceIds]), own]);
    });
  }
  return q;
}
