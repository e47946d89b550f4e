/** SQL for dashboard sessions (docs/dashboard.md, "Sessions and their defences"). */
import type { Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { UserSessionsTable } from '../schema.ts';

export function insertSession(db: Executor, values: Insertable<UserSessionsTable>) {
  return db.insertInto('user_sessions').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * The session with this id hash, with what a request needs: the user, the role of the
 * user's active membership in the session's organizer, and that organizer's settings.
 * No row when the session is unknown or the membership is gone.
 */
export function findSessionByHash(db: Executor, tokenHash: Buffer) {
  return liveSessionQuery(db).where('s.token_hash', '=', tokenHash).executeTakeFirst();
}

/** As findSessionByHash, by the session's id. */
export function findSessionById(db: Executor, id: string) {
  return liveSessionQuery(db).where('s.id', '=', id).executeTakeFirst();
}

function liveSessionQuery(db: Executor) {
  return db
    .selectFrom('user_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.organizer_id', '=', 's.organizer_id').onRef('m.user_id', '=', 's.user_id'),
    )
    .innerJoin('organizers as o', 'o.id', 's.organizer_id')
    .select([
      's.id',
      's.token_hash',
      's.user_id',
      's.organizer_id',
      's.csrf_token',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'm.role',
      'o.currency',
      'o.timezone',
    ])
    .where('m.status', '=', 'active');
}

export type SessionRow = NonNullable<Awaited<ReturnType<typeof findSessionByHash>>>;

/** Moves last_seen_at forward (never back: two requests of one session may race). */
export async function touchSession(db: Executor, id: string, now: Date): Promise<void> {
  await db
    .updateTable('user_sessions')
    .set({ last_seen_at: now })
    .where('id', '=', id)
    .where('last_seen_at', '<', now)
    .execute();
}

export async function switchSessionOrganizer(db: Executor, id: string, organizerId: string): Promise<void> {
  await db.updateTable('user_sessions').set({ organizer_id: organizerId }).where('id', '=', id).execute();
}

/** The user's sessions that have not expired by `now`, most recently used first. */
export function findLiveSessionsOfUser(db: Executor, userId: string, idleSince: Date, now: Date) {
  return db
    .selectFrom('user_sessions')
    .select(['id', 'user_agent', 'ip', 'created_at', 'last_seen_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleSince)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('id', '=', id).execute();
}

/** Ends one of the user's sessions; false when it is not theirs or already gone. */
export async function deleteSessionOfUser(db: Executor, userId: string, id: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('user_sessions')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** Ends every session of the user, but the one kept (if any). */
export async function deleteSessionsOfUser(db: Executor, userId: string, keep?: string): Promise<void> {
  let query = db.deleteFrom('user_sessions').where('user_id', '=', userId);
  if (keep !== undefined) query = query.where('id', '!=', keep);
  await query.execute();
}

/** Ends the user's sessions on one organizer (the membership was removed). */
export async function deleteSessionsOfMembership(db: Executor, organizerId: string, userId: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('organizer_id', '=', organizerId).where('user_id', '=', userId).execute();
}

/** Deletes the sessions that ended (idle or past their absolute end); returns how many. */
export async function purgeEndedSessions(db: Executor, now: Date, idleSince: Date): Promise<number> {
  const result = await db
    .deleteFrom('user_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
