/** SQL for API keys. */
import type { Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { ApiKeysTable } from '../schema.ts';

export function insertApiKey(db: Executor, values: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The key with this hash and its organizer's settings, whatever its state. */
export function findApiKeyByHash(db: Executor, keyHash: Buffer) {
  return db
    .selectFrom('api_keys')
    .innerJoin('organizers', 'organizers.id', 'api_keys.organizer_id')
    .select([
      'api_keys.id',
      'api_keys.organizer_id',
      'api_keys.key_hash',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'organizers.currency',
      'organizers.timezone',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** Sets revoked_at unless already set; returns the hash too, for the lookup cache. */
export function revokeApiKey(db: Executor, id: string, now: Date) {
  return db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('id', '=', id)
    .returning(['id', 'revoked_at', 'key_hash'])
    .executeTakeFirst();
}

export type ListedApiKeyRow = Awaited<ReturnType<ReturnType<typeof apiKeysListQuery>['execute']>>[number];

/** An organizer's keys for the admin list (never the hash), to page with keysetPage. */
export function apiKeysListQuery(db: Executor, organizerId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'key_preview', 'scopes', 'expires_at', 'revoked_at', 'last_used_at', 'created_at'])
    .where('organizer_id', '=', organizerId);
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
