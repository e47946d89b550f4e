/**
 * An organizer's team (docs/dashboard.md, "Team"): members and pending invitations,
 * inviting by e-mail with a role, changing a role, removing a member. An organizer always
 * keeps one active owner: every change that could take the last one away first locks the
 * organizer's owner rows (lockOwners), so two owners demoting each other at once are
 * decided one after the other and the second is refused.
 */
import { isUniqueViolation } from '../../db/errors.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import type { Role } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import {
  deleteMembership,
  findInvitationForUpdate,
  findMember,
  findMembershipForUpdate,
  findMembershipOfUser,
  findUserByEmail,
  findUserById,
  insertMembership,
  lockOwners,
  membersListQuery,
  updateMembership,
} from '../../db/repositories/people.ts';
import { findOrganizer } from '../../db/repositories/organizers.ts';
import { deleteSessionsOfMembership } from '../../db/repositories/sessions.ts';
import { expireLinksOfMembership } from '../../db/repositories/one-time-links.ts';
import { conflict, DomainError, notFound } from '../../errors/domain-error.ts';
import { enqueueAccountEmail } from '../../mail/account-mail.ts';
import { issueLink, linkUrl } from './links.ts';
import { ROLE_LABELS } from './permissions.ts';
import type { SessionAuth } from './sessions.ts';

export function listMembers(db: Executor, organizerId: string, page: PageRequest) {
  return keysetPage(db, membersListQuery(db, organizerId), page, {
    table: 'memberships',
    organizerId,
    sortColumn: 'created_at',
    direction: 'asc',
  });
}

async function memberOrNotFound(db: Executor, organizerId: string, id: string) {
  const member = await findMember(db, organizerId, id);
  if (!member) throw notFound('Member');
  return member;
}

const lastOwner = (what: string) =>
  new DomainError(
    'last_owner',
    `${what} would leave this organizer without an owner. Make another member an owner first.`,
  );

/**
 * Invites an address with a role: a membership in the `invited` state and a single-use
 * link (72 hours) e-mailed through the mail jobs. Inviting an address already invited
 * sends a new link with the new role; the earlier link stops working.
 */
export async function inviteMember(
  db: Executor,
  auth: SessionAuth,
  input: { email: string; role: Role },
  publicUrl: string,
  now: Date,
) {
  const id = await withTransaction(db, async (trx) => {
    const user = await findUserByEmail(trx, input.email);
    if (user && (await findMembershipOfUser(trx, auth.organizerId, user.id)))
      throw conflict('resource_exists', `${user.email} is already a member of this organizer.`);
    const invited = await findInvitationForUpdate(trx, auth.organizerId, input.email);
    let membershipId: string;
    if (invited) {
      await updateMembership(trx, invited.id, { role: input.role, invited_by: auth.userId }, now);
      await expireLinksOfMembership(trx, invited.id, now);
      membershipId = invited.id;
    } else {
      membershipId = (
        await insertMembership(trx, {
          organizer_id: auth.organizerId,
          email: input.email,
          role: input.role,
          status: 'invited',
          invited_by: auth.userId,
          created_at: now,
          updated_at: now,
        })
      ).id;
    }
    const token = await issueLink(trx, { purpose: 'invitation', membership_id: membershipId }, now);
    const [organizer, inviter] = await Promise.all([
      findOrganizer(trx, auth.organizerId),
      findUserById(trx, auth.userId),
    ]);
    await enqueueAccountEmail(
      trx,
      {
        kind: 'invitation',
        organizerId: auth.organizerId,
        recipient: input.email,
        link: linkUrl(publicUrl, 'invite', token),
        data: {
          organizer_name: organizer?.name ?? '',
          inviter_name: inviter?.name || inviter?.email || '',
          role: ROLE_LABELS[input.role],
        },
      },
      now,
    );
    return membershipId;
  }).catch((err: unknown) => {
    // Two invitations of one address at the same instant: the unique index keeps one.
    if (isUniqueViolation(err, 'memberships_invited_uq'))
      throw conflict('concurrent_modification', 'This address was just invited by another request. Reload the team.');
    throw err;
  });
  return memberOrNotFound(db, auth.organizerId, id);
}

/** Changes a member's role (or an invitation's); never the last owner's away from owner. */
export async function changeMemberRole(db: Executor, organizerId: string, id: string, role: Role, now: Date) {
  await withTransaction(db, async (trx) => {
    const owners = await lockOwners(trx, organizerId);
    const membership = await findMembershipForUpdate(trx, organizerId, id);
    if (!membership) throw notFound('Member');
    if (role !== 'owner' && owners.length === 1 && owners[0] === membership.id) throw lastOwner('Changing this role');
    await updateMembership(trx, id, { role }, now);
  });
  return memberOrNotFound(db, organizerId, id);
}

/**
 * Removes a member (their sessions on this organizer end in the same transaction) or
 * withdraws an invitation (its link stops working with it).
 */
export async function removeMember(db: Executor, organizerId: string, id: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const owners = await lockOwners(trx, organizerId);
    const membership = await findMembershipForUpdate(trx, organizerId, id);
    if (!membership) throw notFound('Member');
    if (owners.length === 1 && owners[0] === membership.id) throw lastOwner('Removing this member');
    await deleteMembership(trx, id);
    if (membership.user_id !== null) await deleteSessionsOfMembership(trx, organizerId, membership.user_id);
  });
}
