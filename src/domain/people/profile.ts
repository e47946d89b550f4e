/**
 * A signed-in user's own account (docs/dashboard.md, "Profile"): name, password, the TOTP
 * second factor and its recovery codes. A password change ends every other session of
 * the user and gives the current browser a new session id.
 */
import type { SessionSettings } from '../../config.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { findUserById, replaceRecoveryCodes, updateUser, type UserRow } from '../../db/repositories/people.ts';
import { deleteSessionsOfUser } from '../../db/repositories/sessions.ts';
import { expireResetLinksOfUser } from '../../db/repositories/one-time-links.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { checkPasswordPolicy, hashPassword, verifyPassword } from './passwords.ts';
import { openSession, type IssuedSession, type SessionAuth, type SignInOrigin } from './sessions.ts';
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpQrCode, totpUri, verifyTotp } from './totp.ts';

async function userOf(db: Executor, auth: SessionAuth): Promise<UserRow> {
  const user = await findUserById(db, auth.userId);
  if (!user) throw notFound('User');
  return user;
}

export async function updateProfile(db: Executor, auth: SessionAuth, input: { name: string }, now: Date) {
  await updateUser(db, auth.userId, { name: input.name }, now);
}

async function requirePassword(user: UserRow, password: string, param: string): Promise<void> {
  if (!(await verifyPassword(user.password_hash, password)))
    throw invalid('parameter_invalid', 'The current password is not correct.', param);
}

/**
 * Sets a new password after checking the current one. Every session of the user ends,
 * this one included, and a new one replaces it for this browser.
 */
export async function changePassword(
  db: Executor,
  auth: SessionAuth,
  input: { current_password: string; new_password: string },
  origin: SignInOrigin,
  settings: SessionSettings,
  now: Date,
): Promise<IssuedSession> {
  const user = await userOf(db, auth);
  await requirePassword(user, input.current_password, 'current_password');
  await checkPasswordPolicy(input.new_password, { email: user.email, param: 'new_password' });
  const passwordHash = await hashPassword(input.new_password);
  return withTransaction(db, async (trx) => {
    await updateUser(trx, user.id, { password_hash: passwordHash }, now);
    await deleteSessionsOfUser(trx, user.id);
    await expireResetLinksOfUser(trx, user.id, now);
    return openSession(trx, user.id, auth.organizerId, origin, settings, now);
  });
}

/** Starts a TOTP enrolment: a new secret, kept pending until a code from the app confirms it. */
export async function startTotpEnrolment(db: Executor, auth: SessionAuth, now: Date) {
  const user = await userOf(db, auth);
  if (user.totp_secret !== null)
    throw conflict(
      'invalid_state',
      'Two-factor authentication is already on. Remove it first to move to a new device.',
    );
  const secret = newTotpSecret();
  await updateUser(db, user.id, { totp_pending_secret: secret }, now);
  const uri = totpUri({ secret, email: user.email, issuer: 'Marquee' });
  return { secret, otpauth_url: uri, qr_code: await totpQrCode(uri) };
}

/** Confirms the pending secret with a code from the app; answers the ten recovery codes, once. */
export async function confirmTotpEnrolment(db: Executor, auth: SessionAuth, code: string, now: Date) {
  const user = await userOf(db, auth);
  if (user.totp_pending_secret === null)
    throw conflict('invalid_state', 'No enrolment is in progress: start one first (POST /dashboard/v1/profile/totp).');
  const step = verifyTotp(user.totp_pending_secret, code.replace(/\s+/g, ''), now, null);
  if (step === null)
    throw invalid(
      'parameter_invalid',
      'The code does not match: enter the 6-digit code the authenticator app shows now, after scanning the QR code.',
      'code',
    );
  const codes = newRecoveryCodes();
  await withTransaction(db, async (trx) => {
    await updateUser(
      trx,
      user.id,
      { totp_secret: user.totp_pending_secret, totp_pending_secret: null, totp_last_step: step },
      now,
    );
    await replaceRecoveryCodes(trx, user.id, codes.map(hashRecoveryCode));
  });
  return { recovery_codes: codes };
}

/** Turns TOTP off after checking the password; the recovery codes go with it. */
export async function removeTotp(db: Executor, auth: SessionAuth, password: string, now: Date): Promise<void> {
  const user = await userOf(db, auth);
  await requirePassword(user, password, 'password');
  if (user.totp_secret === null && user.totp_pending_secret === null)
    throw conflict('invalid_state', 'Two-factor authentication is not on for this account.');
  await withTransaction(db, async (trx) => {
    await updateUser(trx, user.id, { totp_secret: null, totp_pending_secret: null, totp_last_step: null }, now);
    await replaceRecoveryCodes(trx, user.id, []);
  });
}
