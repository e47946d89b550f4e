/**
 * SQL for an organizer's Google Wallet settings (docs/tickets.md, "Wallet settings and
 * their keys"): one row per organizer, read, replaced and removed whole.
 */
import type { Selectable } from 'kysely';
import type { GoogleWalletSettingsTable } from '../schema.ts';
import type { Executor } from '../transaction.ts';

export type GoogleWalletSettingsRow = Selectable<GoogleWalletSettingsTable>;

interface GoogleWalletSettingsValues {
  issuer_id: string;
  service_account_email: string;
  sealed_private_key: string;
  key_id: string;
}

export function findGoogleWalletSettings(
  db: Executor,
  organizerId: string,
): Promise<GoogleWalletSettingsRow | undefined> {
  return db.selectFrom('google_wallet_settings').selectAll().where('organizer_id', '=', organizerId).executeTakeFirst();
}

/** Inserts or replaces the organizer's settings and answers the stored row. */
export function upsertGoogleWalletSettings(
  db: Executor,
  organizerId: string,
  values: GoogleWalletSettingsValues,
): Promise<GoogleWalletSettingsRow> {
  return db
    .insertInto('google_wallet_settings')
    .values({ organizer_id: organizerId, ...values })
    .onConflict((oc) => oc.column('organizer_id').doUpdateSet({ ...values, updated_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes the organizer's settings; true when there were some. */
export async function deleteGoogleWalletSettings(db: Executor, organizerId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('google_wallet_settings')
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
