/** The calling API key as GET /v1/api_key shows it (schema CurrentApiKey). */
import type { describeApiKey, Scope } from '../../domain/auth/api-keys.ts';

export function presentCurrentApiKey(row: Awaited<ReturnType<typeof describeApiKey>>) {
  return {
    id: row.id,
    object: 'api_key' as const,
    name: row.name,
    key_preview: row.key_preview,
    scopes: row.scopes as Scope[],
    expires_at: row.expires_at,
    created_at: row.created_at,
    organizer: { id: row.organizer_id, name: row.organizer_name, currency: row.currency, timezone: row.timezone },
  };
}
