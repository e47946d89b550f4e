/** SQL for one-time links: invitations, password resets, owner set-up (docs/dashboard.md). */
import type { Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { OneTimeLinksTable } from '../schema.ts';

export function insertLink(db: Executor, values: Insertable<OneTimeLinksTable>) {
  return db.insertInto('one_time_links').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The unused, unexpired link of this purpose with this token hash, locked. */
export function findUsableLinkForUpdate(
  db: Executor,
  tokenHash: Buffer,
  purpose: OneTimeLinksTable['purpose'],
  now: Date,
) {
  return db
    .selectFrom('one_time_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst();
}

/** Spends the link; false when another request spent it first. */
export async function markLinkUsed(db: Executor, id: string, now: Date): Promise<boolean> {
  const used = await db
    .updateTable('one_time_links')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return used !== undefined;
}

/** Makes every unused link of the membership unusable (a new invitation replaces it). */
export async function expireLinksOfMembership(db: Executor, membershipId: string, now: Date): Promise<void> {
  await db
    .updateTable('one_time_links')
    .set({ used_at: now })
    .where('membership_id', '=', membershipId)
    .where('used_at', 'is', null)
    .execute();
}

/** Makes the user's unused reset links unusable (the password was just set). */
export async function expireResetLinksOfUser(db: Executor, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('one_time_links')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', 'password_reset')
    .where('used_at', 'is', null)
    .execute();
}

/** Deletes links that expired before `before`, used or not; returns how many. */
export async function purgeLinksExpiredBefore(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('one_time_links').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
