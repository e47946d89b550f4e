/** People on the wire (docs/dashboard.md): the session body, a member, an own session. */
import type { MemberRow } from '../../db/repositories/people.ts';
import { describeSession, type SessionAuth } from '../../domain/people/sessions.ts';
import type { Executor } from '../../db/transaction.ts';

export async function presentSession(db: Executor, auth: SessionAuth) {
  return { object: 'session' as const, ...(await describeSession(db, auth)) };
}

export function presentMember(row: MemberRow) {
  return {
    object: 'member' as const,
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    user_id: row.user_id,
    invited_by: row.invited_by,
    created_at: row.created_at,
  };
}

export function presentOwnSession<T extends object>(row: T) {
  return { object: 'user_session' as const, ...row };
}
