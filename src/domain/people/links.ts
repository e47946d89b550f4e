/**
 * Single-use links (docs/dashboard.md, "One-time links"): an invitation to a team (72 h),
 * a password reset (1 h), the first owner's set-up (72 h). The token is 192 random bits,
 * stored as its SHA-256; spending it locks its row, so two requests with one link cannot
 * both succeed. A used, expired or unknown link is refused with one answer and changes
 * nothing.
 */
import type { SessionSettings } from '../../config.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { OneTimeLinksTable, Role } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import {
  expireResetLinksOfUser,
  findUsableLinkForUpdate,
  insertLink,
  markLinkUsed,
} from '../../db/repositories/one-time-links.ts';
import {
  findInvitationForUpdate,
  findMembershipOfUser,
  findUserByEmail,
  findUserById,
  lockMembershipById,
  insertMembership,
  insertUser,
  updateMembership,
  updateUser,
  deleteMembership,
} from '../../db/repositories/people.ts';
import { findOrganizer } from '../../db/repositories/organizers.ts';
import { deleteSessionsOfUser } from '../../db/repositories/sessions.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { enqueueAccountEmail } from '../../mail/account-mail.ts';
import { checkPasswordPolicy, hashPassword } from './passwords.ts';
import { openSession, proveIdentity, type IssuedSession, type SignInOrigin } from './sessions.ts';
import { hashSecret, isWellFormedSecret, issueSecret } from './tokens.ts';

type Purpose = OneTimeLinksTable['purpose'];

const LINK_LIFETIMES_MS: Readonly<Record<Purpose, number>> = {
  invitation: 72 * 3_600_000,
  password_reset: 3_600_000,
  owner_setup: 72 * 3_600_000,
};

const LINK_REFUSALS: Readonly<Record<Purpose, string>> = {
  invitation:
    'This invitation link has expired or was already used. Ask an owner of the organizer to invite you again.',
  password_reset:
    'This password reset link has expired or was already used. Ask for a new one with “Forgot password?”.',
  owner_setup:
    'This set-up link has expired or was already used. The platform operator can create the first owner with POST /admin/v1/users.',
};

/** The console page a link opens: /app/invite, /app/reset or /app/setup, with the token. */
export function linkUrl(publicUrl: string, page: 'invite' | 'reset' | 'setup', token: string): string {
  return `${publicUrl}/app/${page}?token=${token}`;
}

type LinkTarget =
  | { purpose: 'invitation'; membership_id: string }
  | { purpose: 'password_reset'; user_id: string }
  | { purpose: 'owner_setup'; organizer_id: string };

/** Stores a new link and answers its token, which exists nowhere else from now on. */
export async function issueLink(db: Executor, target: LinkTarget, now: Date): Promise<string> {
  const secret = issueSecret(24);
  await insertLink(db, {
    ...target,
    token_hash: secret.hash,
    expires_at: new Date(now.getTime() + LINK_LIFETIMES_MS[target.purpose]),
    created_at: now,
  });
  return secret.token;
}

async function findUsable(db: Executor, token: string, purpose: Purpose, now: Date) {
  const link = isWellFormedSecret(token)
    ? await findUsableLinkForUpdate(db, hashSecret(token), purpose, now)
    : undefined;
  if (!link) throw invalid('link_invalid', LINK_REFUSALS[purpose], 'token');
  return link;
}

/** Spends the link inside the caller's transaction; the rest of the transaction is what it buys. */
async function spend(db: Executor, token: string, purpose: Purpose, now: Date) {
  const link = await findUsable(db, token, purpose, now);
  if (!(await markLinkUsed(db, link.id, now))) throw invalid('link_invalid', LINK_REFUSALS[purpose], 'token');
  return link;
}

/** What an invitation link offers, without spending it. */
export async function previewInvitation(db: Executor, token: string, now: Date) {
  return withTransaction(db, async (trx) => {
    const link = await findUsable(trx, token, 'invitation', now);
    const row = await lockMembershipById(trx, link.membership_id!);
    if (!row) throw invalid('link_invalid', LINK_REFUSALS.invitation, 'token');
    const organizer = await findOrganizer(trx, row.organizer_id);
    return {
      organizer_name: organizer?.name ?? '',
      email: row.email,
      role: row.role,
      account_exists: (await findUserByEmail(trx, row.email)) !== undefined,
    };
  });
}

/**
 * Accepts an invitation: a new account needs a name and a password; an address that
 * already has an account joins with it, proven by its password (and TOTP code, when
 * enrolled) as at sign-in: whoever reads the mailbox must not get into the account.
 * Signs the person in. A refusal rolls back, so the link still works.
 */
export async function acceptInvitation(
  db: Executor,
  input: { token: string; name?: string; password?: string; totp?: string },
  origin: SignInOrigin,
  settings: SessionSettings,
  now: Date,
): Promise<IssuedSession> {
  // argon2 runs before the transaction (no row stays locked for its 20-odd milliseconds),
  // and only for a link that works: a stream of made-up tokens costs no hashing.
  await findUsable(db, input.token, 'invitation', now);
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  return withTransaction(db, async (trx) => {
    const link = await spend(trx, input.token, 'invitation', now);
    const invited = await lockMembershipById(trx, link.membership_id!);
    if (!invited || invited.status !== 'invited') throw invalid('link_invalid', LINK_REFUSALS.invitation, 'token');
    let user = await findUserByEmail(trx, invited.email);
    if (user) {
      if (input.password === undefined)
        throw invalid(
          'parameter_missing',
          `${invited.email} already has a Marquee account: enter its password to join.`,
          'password',
        );
      await proveIdentity(trx, user, { password: input.password, totp: input.totp }, now);
    } else {
      if (input.name === undefined || input.name.trim() === '')
        throw invalid('parameter_missing', 'Enter your name to create your account.', 'name');
      if (input.password === undefined || passwordHash === undefined)
        throw invalid('parameter_missing', 'Choose a password for your account.', 'password');
      await checkPasswordPolicy(input.password, { email: invited.email, param: 'password' });
      user = await insertUser(trx, {
        email: invited.email,
        name: input.name.trim(),
        password_hash: passwordHash,
        created_at: now,
        updated_at: now,
      });
      if (!user) throw conflict('concurrent_modification', 'An account for this address was just created. Try again.');
    }
    if (await findMembershipOfUser(trx, invited.organizer_id, user.id)) {
      // Already a member (invited twice, accepted once): the invitation has nothing left to add.
      await deleteMembership(trx, invited.id);
    } else {
      await updateMembership(trx, invited.id, { status: 'active', user_id: user.id }, now);
    }
    return openSession(trx, user.id, invited.organizer_id, origin, settings, now);
  });
}

/**
 * Sends a reset link (1 hour) when the address has an account. The answer never says
 * whether it has one.
 */
export async function requestPasswordReset(db: Executor, email: string, publicUrl: string, now: Date): Promise<void> {
  await withTransaction(db, async (trx) => {
    const user = await findUserByEmail(trx, email);
    if (!user) return;
    const token = await issueLink(trx, { purpose: 'password_reset', user_id: user.id }, now);
    await enqueueAccountEmail(
      trx,
      {
        kind: 'password_reset',
        organizerId: null,
        recipient: user.email,
        link: linkUrl(publicUrl, 'reset', token),
        data: { name: user.name },
      },
      now,
    );
  });
}

/** Sets a new password from a reset link; every session of the user ends. */
export async function completePasswordReset(
  db: Executor,
  input: { token: string; password: string },
  now: Date,
): Promise<void> {
  await findUsable(db, input.token, 'password_reset', now);
  const passwordHash = await hashPassword(input.password);
  await withTransaction(db, async (trx) => {
    const link = await spend(trx, input.token, 'password_reset', now);
    const user = await findUserById(trx, link.user_id!);
    if (!user) throw invalid('link_invalid', LINK_REFUSALS.password_reset, 'token');
    await checkPasswordPolicy(input.password, { email: user.email, param: 'password' });
    await updateUser(trx, user.id, { password_hash: passwordHash }, now);
    await deleteSessionsOfUser(trx, user.id);
    await expireResetLinksOfUser(trx, user.id, now);
  });
}

/** The first start's set-up link for the first owner of an organizer (printed once). */
export function createOwnerSetupLink(db: Executor, organizerId: string, now: Date): Promise<string> {
  return issueLink(db, { purpose: 'owner_setup', organizer_id: organizerId }, now);
}

/** Creates the first owner from a set-up link and signs them in. */
export async function setUpOwner(
  db: Executor,
  input: { token: string; email: string; name: string; password: string },
  origin: SignInOrigin,
  settings: SessionSettings,
  now: Date,
): Promise<IssuedSession> {
  await checkPasswordPolicy(input.password, { email: input.email, param: 'password' });
  await findUsable(db, input.token, 'owner_setup', now);
  const passwordHash = await hashPassword(input.password);
  return withTransaction(db, async (trx) => {
    const link = await spend(trx, input.token, 'owner_setup', now);
    const userId = await createMember(trx, {
      email: input.email,
      name: input.name,
      passwordHash,
      organizerId: link.organizer_id!,
      role: 'owner',
      now,
    });
    return openSession(trx, userId, link.organizer_id!, origin, settings, now);
  });
}

/**
 * A new user with an active membership (the set-up link, and the admin API's
 * POST /admin/v1/users). An address that already has an account is refused. A pending
 * invitation of the address to the organizer is answered by the membership: it goes,
 * with its link, so the team does not list the person twice.
 */
async function createMember(
  db: Executor,
  input: { email: string; name: string; passwordHash: string; organizerId: string; role: Role; now: Date },
): Promise<string> {
  return withTransaction(db, async (trx) => {
    if (!(await findOrganizer(trx, input.organizerId))) throw notFound('Organizer');
    const user = await insertUser(trx, {
      email: input.email,
      name: input.name,
      password_hash: input.passwordHash,
      created_at: input.now,
      updated_at: input.now,
    });
    if (!user) throw conflict('resource_exists', `An account for ${input.email} already exists.`);
    const invited = await findInvitationForUpdate(trx, input.organizerId, user.email);
    if (invited) await deleteMembership(trx, invited.id);
    await insertMembership(trx, {
      organizer_id: input.organizerId,
      user_id: user.id,
      email: user.email,
      role: input.role,
      status: 'active',
      created_at: input.now,
      updated_at: input.now,
    }).catch((err: unknown) => {
      if (isUniqueViolation(err, 'memberships_user_uq'))
        throw conflict('resource_exists', `${input.email} is already a member of this organizer.`);
      throw err;
    });
    return user.id;
  });
}

/** POST /admin/v1/users: an operator sets a password directly (people get invitations). */
export async function createUserDirectly(
  db: Executor,
  input: { email: string; password: string; name?: string; organizer_id: string; role: Role },
  now: Date,
) {
  await checkPasswordPolicy(input.password, { email: input.email, param: 'password' });
  const passwordHash = await hashPassword(input.password);
  const id = await createMember(db, {
    email: input.email,
    name: input.name ?? '',
    passwordHash,
    organizerId: input.organizer_id,
    role: input.role,
    now,
  });
  return { id, email: input.email, name: input.name ?? '', organizer_id: input.organizer_id, role: input.role };
}
