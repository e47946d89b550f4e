/** SQL for users, their memberships in organizers and their TOTP recovery codes (docs/dashboard.md). */
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { MembershipsTable, Role, UsersTable } from '../schema.ts';

export type UserRow = NonNullable<Awaited<ReturnType<typeof findUserById>>>;

export function findUserById(db: Executor, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user with this e-mail address, whatever its case. */
export function findUserByEmail(db: Executor, email: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** Inserts the user; undefined when the e-mail address is taken (in any case). */
export function insertUser(db: Executor, values: Insertable<UsersTable>) {
  return db
    .insertInto('users')
    .values(values)
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateUser(db: Executor, id: string, values: Updateable<UsersTable>, now: Date) {
  return db
    .updateTable('users')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Records a TOTP step as used, unless a later or equal one already was (a code is good once). */
export async function advanceTotpStep(db: Executor, userId: string, step: number): Promise<boolean> {
  const moved = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
    .returning('id')
    .executeTakeFirst();
  return moved !== undefined;
}

export async function replaceRecoveryCodes(db: Executor, userId: string, hashes: Buffer[]): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length > 0)
    await db
      .insertInto('user_recovery_codes')
      .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
      .execute();
}

/** Spends an unused recovery code; false when it is unknown or spent. */
export async function useRecoveryCode(db: Executor, userId: string, hash: Buffer, now: Date): Promise<boolean> {
  const used = await db
    .updateTable('user_recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  return used !== undefined;
}

/** The active memberships of a user, with their organizers' names, oldest first. */
export function findActiveMembershipsOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('organizers', 'organizers.id', 'memberships.organizer_id')
    .select([
      'memberships.id',
      'memberships.organizer_id',
      'memberships.role',
      'organizers.name as organizer_name',
      'memberships.created_at',
    ])
    .where('memberships.user_id', '=', userId)
    .where('memberships.status', '=', 'active')
    .orderBy('memberships.created_at')
    .orderBy('memberships.id')
    .execute();
}

/** The members of an organizer, active and invited, with their users, to page with keysetPage. */
export function membersListQuery(db: Executor, organizerId: string) {
  return db
    .selectFrom('memberships')
    .leftJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'memberships.id',
      'memberships.organizer_id',
      'memberships.user_id',
      'memberships.role',
      'memberships.status',
      'memberships.invited_by',
      'memberships.created_at',
      sql<string>`coalesce(users.email, memberships.email)`.as('email'),
      sql<string | null>`users.name`.as('name'),
    ])
    .where('memberships.organizer_id', '=', organizerId);
}

export type MemberRow = Awaited<ReturnType<ReturnType<typeof membersListQuery>['executeTakeFirstOrThrow']>>;

export function findMember(db: Executor, organizerId: string, id: string) {
  return membersListQuery(db, organizerId).where('memberships.id', '=', id).executeTakeFirst();
}

/** The membership row locked until the caller's transaction ends. */
export function findMembershipForUpdate(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** A membership by id alone (a link names it), locked until the caller's transaction ends. */
export function lockMembershipById(db: Executor, id: string) {
  return db.selectFrom('memberships').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findMembershipOfUser(db: Executor, organizerId: string, userId: string) {
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Locks the organizer's active owner rows and counts them: a concurrent demotion or
 * removal of another owner waits here, then counts what this one left.
 */
export async function lockOwners(db: Executor, organizerId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships')
    .select('id')
    .where('organizer_id', '=', organizerId)
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

export function insertMembership(db: Executor, values: Insertable<MembershipsTable>) {
  return db.insertInto('memberships').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The pending invitation of this address, if any, locked. */
export function findInvitationForUpdate(db: Executor, organizerId: string, email: string) {
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('status', '=', 'invited')
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .forUpdate()
    .executeTakeFirst();
}

export function updateMembership(
  db: Executor,
  id: string,
  values: { role?: Role; status?: 'active'; user_id?: string; invited_by?: string },
  now: Date,
) {
  return db
    .updateTable('memberships')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteMembership(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('memberships').where('id', '=', id).execute();
}
