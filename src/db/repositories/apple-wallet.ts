/**
 * SQL for an organizer's Apple Wallet settings (docs/tickets.md, "Wallet settings and
 * their keys"): one row per organizer, read, replaced and removed whole.
 */
import type { Selectable } from 'kysely';
import type { AppleWalletSettingsTable } from '../schema.ts';
import type { Executor } from '../transaction.ts';

export type AppleWalletSettingsRow = Selectable<AppleWalletSettingsTable>;

interface AppleWalletSettingsValues {
  pass_type_identifier: string;
  team_identifier: string;
  certificate_pem: string;
  sealed_private_key: string;
  wwdr_certificate_pem: string;
  certificate_expires_at: Date;
  background_color: string | null;
  foreground_color: string | null;
  label_color: string | null;
}

export function findAppleWalletSettings(
  db: Executor,
  organizerId: string,
): Promise<AppleWalletSettingsRow | undefined> {
  return db.selectFrom('apple_wallet_settings').selectAll().where('organizer_id', '=', organizerId).executeTakeFirst();
}

/** Inserts or replaces the organizer's settings and answers the stored row. */
export function upsertAppleWalletSettings(
  db: Executor,
  organizerId: string,
  values: AppleWalletSettingsValues,
): Promise<AppleWalletSettingsRow> {
  return db
    .insertInto('apple_wallet_settings')
    .values({ organizer_id: organizerId, ...values })
    .onConflict((oc) => oc.column('organizer_id').doUpdateSet({ ...values, updated_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes the organizer's settings; true when there were some. */
export async function deleteAppleWalletSettings(db: Executor, organizerId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('apple_wallet_settings')
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
