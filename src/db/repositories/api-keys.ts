/** SQL for API keys. */
import type { Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { ApiKeysTable } from '../schema.ts';

export function insertApiKey(db: Executor, values: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * The key with this hash, its organizer's settings and, for a door device's key, the
 * device and its performances; whatever its state.
 */
export function findApiKeyByHash(db: Executor, keyHash: Buffer) {
  return db
    .selectFrom('api_keys')
    .innerJoin('organizers', 'organizers.id', 'api_keys.organizer_id')
    .leftJoin('door_devices', 'door_devices.api_key_id', 'api_keys.id')
    .select([
      'door_devices.id as device_id',
      'door_devices.performance_ids',
      'api_keys.id',
      'api_keys.organizer_id',
      'api_keys.key_hash',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'organizers.currency',
      'organizers.timezone',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/**
 * Sets revoked_at unless already set; returns the hash too, for the lookup cache. With an
 * organizer, only a key of that organizer (the dashboard); without, any (the admin API).
 */
export function revokeApiKey(db: Executor, id: string, now: Date, organizerId?: string) {
  let query = db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('id', '=', id);
  if (organizerId !== undefined) query = query.where('organizer_id', '=', organizerId);
  return query.returning(['id', 'revoked_at', 'key_hash']).executeTakeFirst();
}

export type ListedApiKeyRow = Awaited<ReturnType<ReturnType<typeof apiKeysListQuery>['execute']>>[number];

/** An organizer's keys for the lists (never the hash), with who created each, to page with keysetPage. */
export function apiKeysListQuery(db: Executor, organizerId: string) {
  return db
    .selectFrom('api_keys')
    .leftJoin('users', 'users.id', 'api_keys.created_by')
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.key_preview',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'api_keys.created_at',
      'api_keys.created_by',
      'users.name as created_by_name',
      'users.email as created_by_email',
    ])
    .where('api_keys.organizer_id', '=', organizerId);
}

/** A key of the organizer with the organizer's name and settings (GET /v1/api_key); never the hash. */
export function findApiKeyWithOrganizer(db: Executor, id: string, organizerId: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('organizers', 'organizers.id', 'api_keys.organizer_id')
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.key_preview',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.created_at',
      'organizers.id as organizer_id',
      'organizers.name as organizer_name',
      'organizers.currency',
      'organizers.timezone',
    ])
    .where('api_keys.id', '=', id)
    .where('api_keys.organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/** Records a use of the key, unless one at or after `staleBefore` is already recorded. */
export async function recordApiKeyUse(db: Executor, id: string, now: Date, staleBefore: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute();
}
