/** SQL for door devices (docs/dashboard.md, "Door devices"). */
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { DoorDevicesTable } from '../schema.ts';

export function insertDoorDevice(db: Executor, values: Insertable<DoorDevicesTable>) {
  return db.insertInto('door_devices').values(values).returning('id').executeTakeFirstOrThrow();
}

/**
 * The organizer's devices as the dashboard shows them, to page with keysetPage or narrow
 * to one: the key's last use, who created the device, and the scans it uploaded since
 * midnight in the organizer's time zone (midnight of `now`, the service's clock).
 */
export function doorDevicesQuery(db: Executor, organizerId: string, now: Date) {
  return db
    .selectFrom('door_devices')
    .innerJoin('organizers', 'organizers.id', 'door_devices.organizer_id')
    .leftJoin('api_keys', 'api_keys.id', 'door_devices.api_key_id')
    .leftJoin('users', 'users.id', 'door_devices.created_by')
    .select([
      'door_devices.id',
      'door_devices.name',
      'door_devices.performance_ids',
      'door_devices.online_only',
      'door_devices.provisioning_expires_at',
      'door_devices.claimed_at',
      'door_devices.revoked_at',
      'door_devices.last_synced_at',
      'door_devices.created_at',
      'door_devices.created_by',
      'api_keys.last_used_at',
      'users.name as created_by_name',
      'users.email as created_by_email',
      sql<number>`(
        SELECT count(*)::int FROM check_in_scans s
        WHERE s.device_id = door_devices.id
          AND s.received_at >= (date_trunc('day', ${now}::timestamptz AT TIME ZONE organizers.timezone)
                                AT TIME ZONE organizers.timezone)
      )`.as('scans_today'),
    ])
    .where('door_devices.organizer_id', '=', organizerId);
}

export type DoorDeviceRow = Awaited<ReturnType<ReturnType<typeof doorDevicesQuery>['execute']>>[number];

export function findDoorDevice(db: Executor, organizerId: string, id: string, now: Date) {
  return doorDevicesQuery(db, organizerId, now).where('door_devices.id', '=', id).executeTakeFirst();
}

/** The performances of these ids that belong to the organizer, with their event, by start. */
export function performancesOfDevices(db: Executor, organizerId: string, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('performances')
    .innerJoin('events', 'events.id', 'performances.event_id')
    .select([
      'performances.id',
      'performances.event_id',
      'events.title as event_name',
      'performances.starts_at',
      'performances.ends_at',
      'events.timezone',
    ])
    .where('performances.organizer_id', '=', organizerId)
    .where('performances.id', 'in', [...ids])
    .orderBy('performances.starts_at')
    .orderBy('performances.id')
    .execute();
}

export type DevicePerformanceRow = Awaited<ReturnType<typeof performancesOfDevices>>[number];

/**
 * The claim: ONE conditional UPDATE, so of two claims of one token only the first to take
 * the row's lock matches (the second re-reads the row, whose hash is gone, and updates
 * nothing). Returns the claimed device, or undefined for a used, expired, revoked or
 * unknown token.
 */
export function claimDoorDeviceRow(db: Executor, tokenHash: Buffer, now: Date) {
  return db
    .updateTable('door_devices')
    .set({ claimed_at: now, provisioning_token_hash: null, updated_at: now })
    .where('provisioning_token_hash', '=', tokenHash)
    .where('claimed_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('provisioning_expires_at', '>', now)
    .returning(['id', 'organizer_id', 'name', 'created_by'])
    .executeTakeFirst();
}

export async function setDoorDeviceKey(db: Executor, id: string, apiKeyId: string): Promise<void> {
  await db.updateTable('door_devices').set({ api_key_id: apiKeyId }).where('id', '=', id).execute();
}

/** Changes a device of the organizer that is not revoked; returns its key's id (undefined: none such). */
export function updateDoorDeviceRow(
  db: Executor,
  organizerId: string,
  id: string,
  values: Updateable<DoorDevicesTable>,
) {
  return db
    .updateTable('door_devices')
    .set(values)
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'api_key_id'])
    .executeTakeFirst();
}

/** Sets revoked_at unless already set; returns the device's key, to revoke with it. */
export function revokeDoorDeviceRow(db: Executor, organizerId: string, id: string, now: Date) {
  return db
    .updateTable('door_devices')
    .set((eb) => ({
      revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)),
      updated_at: eb.case().when('revoked_at', 'is', null).then(eb.val(now)).else(eb.ref('updated_at')).end(),
    }))
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .returning(['id', 'api_key_id'])
    .executeTakeFirst();
}

/** A new provisioning token for a device neither claimed nor revoked; undefined otherwise. */
export function reissueDoorDeviceTokenRow(
  db: Executor,
  organizerId: string,
  id: string,
  tokenHash: Buffer,
  expiresAt: Date,
  now: Date,
) {
  return db
    .updateTable('door_devices')
    .set({ provisioning_token_hash: tokenHash, provisioning_expires_at: expiresAt, updated_at: now })
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .where('claimed_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
}

/** The state of a device of the organizer, whatever it is (to say why a change is refused). */
export function findDoorDeviceState(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('door_devices')
    .select(['id', 'claimed_at', 'revoked_at'])
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/** The hash of an API key (to forget its cached lookup). */
export function findApiKeyHash(db: Executor, apiKeyId: string) {
  return db.selectFrom('api_keys').select('key_hash').where('id', '=', apiKeyId).executeTakeFirst();
}

/** The device a device key belongs to, with its organizer (GET /v1/door_device). */
export function findDeviceWithOrganizer(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('door_devices')
    .innerJoin('organizers', 'organizers.id', 'door_devices.organizer_id')
    .select([
      'door_devices.id',
      'door_devices.name',
      'door_devices.online_only',
      'door_devices.performance_ids',
      'organizers.id as organizer_id',
      'organizers.name as organizer_name',
      'organizers.timezone as organizer_timezone',
      'organizers.currency as organizer_currency',
    ])
    .where('door_devices.id', '=', id)
    .where('door_devices.organizer_id', '=', organizerId)
    .executeTakeFirst();
}
