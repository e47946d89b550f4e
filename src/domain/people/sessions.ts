/**
 * Dashboard sessions (docs/dashboard.md, "The session API" and "Sessions and their
 * defences"): sign-in with a password and, when enrolled, a TOTP code or a recovery code;
 * the session a cookie names, with its idle and absolute expiry; switching organizer;
 * signing out here or everywhere. The HTTP layer owns the cookie and the CSRF check;
 * this module never sees a request.
 */
import { randomBytes } from 'node:crypto';
import type { SessionSettings } from '../../config.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import {
  advanceTotpStep,
  findActiveMembershipsOfUser,
  findUserByEmail,
  findUserById,
  useRecoveryCode,
  type UserRow,
} from '../../db/repositories/people.ts';
import {
  deleteSession,
  deleteSessionOfUser,
  deleteSessionsOfUser,
  findLiveSessionsOfUser,
  findSessionByHash,
  findSessionById,
  insertSession,
  switchSessionOrganizer,
  touchSession,
  type SessionRow,
} from '../../db/repositories/sessions.ts';
import { DomainError, notFound } from '../../errors/domain-error.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { permissionsOf, type Role } from './permissions.ts';
import { hashRecoveryCode, looksLikeRecoveryCode, verifyTotp } from './totp.ts';
import { hashSecret, isWellFormedSecret, issueSecret } from './tokens.ts';

/** The one answer to an unknown e-mail address and to a wrong password. */
const BAD_CREDENTIALS = 'The e-mail address or password is not correct.';

/** last_seen_at is written at most this often: idle expiry needs no finer grain. */
const TOUCH_INTERVAL_MS = 60_000;

/** The signed-in person behind a /dashboard/v1 request. */
export interface SessionAuth extends AuthContext {
  userId: string;
  sessionId: string;
  role: Role;
  csrfToken: string;
  /** The absolute end of the session. */
  expiresAt: Date;
  /** When the session ends if no request comes first. */
  idleExpiresAt: Date;
}

/** Where a sign-in comes from, kept with the session for the user's list of sessions. */
export interface SignInOrigin {
  userAgent: string | undefined;
  ip: string;
}

/** A session just made: the cookie's value and the session it names. */
export interface IssuedSession {
  token: string;
  auth: SessionAuth;
}

const badCredentials = () => new DomainError('unauthorized', BAD_CREDENTIALS);

/**
 * Signs in: the same refusal, in the same time, for an unknown address and a wrong
 * password; then the second factor when the user has one. Every sign-in makes a new
 * session id (docs/dashboard.md: rotation at sign-in).
 */
export async function signIn(
  db: Executor,
  input: { email: string; password: string; totp?: string },
  origin: SignInOrigin,
  settings: SessionSettings,
  now: Date,
): Promise<IssuedSession> {
  const user = await findUserByEmail(db, input.email);
  if (!user) {
    await verifyAgainstDummy(input.password);
    throw badCredentials();
  }
  await proveIdentity(db, user, input, now);
  return openSession(db, user.id, undefined, origin, settings, now);
}

/**
 * The user's password and, when enrolled, second factor: what signing in takes, and what
 * an existing account takes to accept an invitation (a link alone never signs anyone in).
 */
export async function proveIdentity(
  db: Executor,
  user: UserRow,
  input: { password: string; totp?: string },
  now: Date,
): Promise<void> {
  if (!(await verifyPassword(user.password_hash, input.password))) throw badCredentials();
  if (user.totp_secret !== null) await checkSecondFactor(db, user, input.totp, now);
}

async function checkSecondFactor(db: Executor, user: UserRow, code: string | undefined, now: Date): Promise<void> {
  if (code === undefined || code.trim() === '')
    throw new DomainError(
      'totp_required',
      'This account has two-factor authentication: send the 6-digit code from the authenticator app in `totp`, or one of the recovery codes.',
      'totp',
    );
  const accepted = looksLikeRecoveryCode(code)
    ? await useRecoveryCode(db, user.id, hashRecoveryCode(code), now)
    : await acceptTotpCode(db, user, code, now);
  if (!accepted)
    throw new DomainError(
      'totp_invalid',
      'The authentication code is not correct, or was already used. Enter the current code from the authenticator app.',
      'totp',
    );
}

/** A TOTP code of the user's app, good once: its time step must be later than the last one used. */
async function acceptTotpCode(db: Executor, user: UserRow, code: string, now: Date): Promise<boolean> {
  if (user.totp_secret === null) return false;
  const lastStep = user.totp_last_step === null ? null : Number(user.totp_last_step);
  const step = verifyTotp(user.totp_secret, code.replace(/\s+/g, ''), now, lastStep);
  return step !== null && (await advanceTotpStep(db, user.id, step));
}

/**
 * A new session of the user, on the organizer asked for or, by default, the first of the
 * user's memberships. A user who belongs to no organizer any more cannot sign in.
 */
export async function openSession(
  db: Executor,
  userId: string,
  organizerId: string | undefined,
  origin: SignInOrigin,
  settings: SessionSettings,
  now: Date,
): Promise<IssuedSession> {
  const memberships = await findActiveMembershipsOfUser(db, userId);
  const membership = memberships.find((m) => m.organizer_id === organizerId) ?? memberships[0];
  if (!membership)
    throw new DomainError(
      'no_membership',
      'This account is no longer a member of any organizer. Ask an owner of your organizer to invite you again.',
    );
  const secret = issueSecret(32);
  const row = await insertSession(db, {
    token_hash: secret.hash,
    user_id: userId,
    organizer_id: membership.organizer_id,
    csrf_token: randomBytes(24).toString('base64url'),
    user_agent: origin.userAgent?.slice(0, 500) ?? null,
    ip: origin.ip,
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + settings.absoluteTimeoutMs),
  });
  const found = await findSessionById(db, row.id);
  if (!found) throw new Error('a session just inserted was not found');
  return { token: secret.token, auth: sessionAuthOf(found, settings) };
}

function sessionAuthOf(row: SessionRow, settings: SessionSettings): SessionAuth {
  const idleEnd = new Date(row.last_seen_at.getTime() + settings.idleTimeoutMs);
  return {
    apiKeyId: null,
    userId: row.user_id,
    deviceId: null,
    performanceIds: null,
    sessionId: row.id,
    organizerId: row.organizer_id,
    role: row.role,
    // A person's reach is decided by the role (permissions.ts), not by key scopes.
    scopes: ['read', 'write'],
    currency: row.currency,
    timezone: row.timezone,
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
    idleExpiresAt: idleEnd < row.expires_at ? idleEnd : row.expires_at,
  };
}

/**
 * The session a cookie names, or undefined when it is unknown, idle or past its absolute
 * end, or its user is no longer an active member of its organizer. A live session's
 * last use moves forward (at most once a minute).
 */
export async function authenticateSession(
  db: Executor,
  token: string,
  settings: SessionSettings,
  now: Date,
): Promise<SessionAuth | undefined> {
  if (!isWellFormedSecret(token)) return undefined;
  const row = await findSessionByHash(db, hashSecret(token));
  if (!row) return undefined;
  const auth = sessionAuthOf(row, settings);
  if (auth.idleExpiresAt <= now) {
    await deleteSession(db, row.id);
    return undefined;
  }
  if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_INTERVAL_MS) {
    await touchSession(db, row.id, now);
    return sessionAuthOf({ ...row, last_seen_at: now }, settings);
  }
  return auth;
}

/** The session body (docs/dashboard.md): the user, their memberships, the current role and its permissions. */
export async function describeSession(db: Executor, auth: SessionAuth) {
  const [user, memberships] = await Promise.all([
    findUserById(db, auth.userId),
    findActiveMembershipsOfUser(db, auth.userId),
  ]);
  if (!user) throw notFound('User');
  return {
    user: { id: user.id, email: user.email, name: user.name, totp_enabled: user.totp_secret !== null },
    memberships: memberships.map((m) => ({
      organizer_id: m.organizer_id,
      organizer_name: m.organizer_name,
      role: m.role,
    })),
    organizer_id: auth.organizerId,
    // What the console formats prices and dates with, as GET /v1/api_key gives a key.
    organizer: {
      id: auth.organizerId,
      name: memberships.find((m) => m.organizer_id === auth.organizerId)?.organizer_name ?? '',
      currency: auth.currency,
      timezone: auth.timezone,
    },
    role: auth.role,
    permissions: permissionsOf(auth.role),
    csrf_token: auth.csrfToken,
    expires_at: auth.expiresAt,
    idle_expires_at: auth.idleExpiresAt,
  };
}

/** Moves the session to another organizer the user is an active member of. */
export async function switchOrganizer(
  db: Executor,
  auth: SessionAuth,
  organizerId: string,
  settings: SessionSettings,
): Promise<SessionAuth> {
  return withTransaction(db, async (trx) => {
    const memberships = await findActiveMembershipsOfUser(trx, auth.userId);
    if (!memberships.some((m) => m.organizer_id === organizerId)) throw notFound('Organizer');
    await switchSessionOrganizer(trx, auth.sessionId, organizerId);
    const row = await findSessionById(trx, auth.sessionId);
    if (!row) throw notFound('Organizer');
    return sessionAuthOf(row, settings);
  });
}

/** Signs out this session, or every session of the user. */
export async function signOut(db: Executor, auth: SessionAuth, everywhere: boolean): Promise<void> {
  if (everywhere) await deleteSessionsOfUser(db, auth.userId);
  else await deleteSession(db, auth.sessionId);
}

/** The user's live sessions, the current one marked. */
export async function listOwnSessions(db: Executor, auth: SessionAuth, settings: SessionSettings, now: Date) {
  const rows = await findLiveSessionsOfUser(db, auth.userId, new Date(now.getTime() - settings.idleTimeoutMs), now);
  return rows.map((row) => ({ ...row, current: row.id === auth.sessionId }));
}

/** Ends one of the user's own sessions. */
export async function endOwnSession(db: Executor, auth: SessionAuth, sessionId: string): Promise<void> {
  if (!(await deleteSessionOfUser(db, auth.userId, sessionId))) throw notFound('Session');
}
