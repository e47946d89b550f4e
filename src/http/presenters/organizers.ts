/** The public shapes of organizers and their API keys (schemas Organizer, CreatedApiKey, ListedApiKey, RevokedApiKey). */
import type { ListedApiKeyRow } from '../../db/repositories/api-keys.ts';
import type { OrganizerSettingsRow } from '../../db/repositories/organizers.ts';
import type { CreatedApiKey, Scope } from '../../domain/auth/api-keys.ts';

/** The organizer and its settings (the admin API's Organizer, the dashboard's OrganizerSettings). */
export function presentOrganizer(row: OrganizerSettingsRow) {
  return {
    id: row.id,
    object: 'organizer' as const,
    name: row.name,
    timezone: row.timezone,
    currency: row.currency,
    box_office_fee_minor: row.box_office_fee_minor,
    tax_rate_bps: row.tax_rate_bps,
    contact_email: row.contact_email,
    sender_email: row.sender_email,
    default_language: row.default_language,
    ticket_paper_size: row.ticket_paper_size,
    currency_locked: row.currency_locked,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The one response that carries the key itself. */
export function presentCreatedApiKey(created: CreatedApiKey) {
  return {
    id: created.id,
    object: 'api_key' as const,
    key: created.key,
    scopes: created.scopes,
    expires_at: created.expires_at,
    created_at: created.created_at,
  };
}

/** A key as listed: its preview, never the key nor its hash. */
export function presentListedApiKey(row: ListedApiKeyRow) {
  return {
    id: row.id,
    object: 'api_key' as const,
    name: row.name,
    key_preview: row.key_preview,
    scopes: row.scopes as Scope[],
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    created_by:
      row.created_by === null ? null : { id: row.created_by, name: row.created_by_name, email: row.created_by_email },
    created_at: row.created_at,
  };
}

export function presentRevokedApiKey(row: { id: string; revoked_at: Date | null }) {
  return { id: row.id, object: 'api_key' as const, revoked_at: row.revoked_at! };
}
