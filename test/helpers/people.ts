/**
 * What the tests of test/people share: the public writes of the dashboard (sign-in and
 * the one-time links, sent from the service's own page), the problems they answer with,
 * the password policy's refusals, the mails of one pass of the mail job, and the session
 * rows of a user.
 */
import type { LightMyRequestResponse } from 'fastify';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import type { ComposedMail } from '../../src/mail/compose.ts';
import type { Mailer } from '../../src/mail/transport.ts';
import { DASHBOARD_ORIGIN, problemOf, type TestApp } from './app.ts';
import { inThreadRenderer } from './mail-renderer.ts';
import { parseMime } from './smtp-receiver.ts';

/** An id the service made (a UUID, lower case). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const PASSWORD = 'a long and unusual passphrase';
export const NEW_PASSWORD = 'another long and unusual passphrase';

/** Sign-in is throttled per address and per IP; tests that sign in often lift both limits. */
export const UNTHROTTLED = { RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '100000', RATE_LIMIT_SIGNIN_IP_PER_MIN: '100000' };

/** The content type of every problem answer (docs/errors.md). */
export const PROBLEM = 'application/problem+json; charset=utf-8';

export const BAD_CREDENTIALS = problemOf(401, 'The e-mail address or password is not correct.', 'unauthorized');
export const SIGN_IN_FIRST = problemOf(
  401,
  'Sign in first: the dashboard API takes the session cookie that POST /dashboard/v1/session sets (API keys work on /v1 only).',
  'unauthorized',
);
export const INVITATION_REFUSED = problemOf(
  400,
  'This invitation link has expired or was already used. Ask an owner of the organizer to invite you again.',
  'link_invalid',
  'token',
);

/** The refusals of the password policy (docs/dashboard.md, "Passwords"). */
export const TOO_SHORT = (length: number) =>
  `The password must be at least 12 characters long; it has ${length}. A few unrelated words make a long password that is easy to remember.`;
export const IS_EMAIL = 'The password must not be your e-mail address or its name part.';
export const COMMON =
  'This password is one of the most common passwords and would be guessed first: choose another (a few unrelated words make a good one).';
export const tooWeak = (detail: string) => problemOf(400, detail, 'password_too_weak', 'password');

/**
 * A write with no session, from the service's own page (its Origin), as the console sends
 * sign-in and the one-time links: a JSON body (a string is sent as it is), extra headers,
 * and the client's address if it matters.
 */
export function post(
  t: TestApp,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  remoteAddress?: string,
): Promise<LightMyRequestResponse> {
  return t.inject({
    method: 'POST',
    url,
    headers: { origin: DASHBOARD_ORIGIN, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
}

/** The mails one pass of the mail job sends, rendered in this thread and kept here. */
export function mailOf(t: TestApp) {
  const sent: ComposedMail[] = [];
  const mailer: Mailer = {
    send: () => Promise.reject(new Error('not used')),
    sendComposed: async (mail) => {
      sent.push(mail);
      return { messageId: mail.messageId };
    },
    close() {},
  };
  const renderer = inThreadRenderer('Marquee <no-reply@localhost>');
  return { sent, run: () => runEmailJobsOnce({ db: t.database.db, mailer, renderer, clock: t.clock }) };
}

/** The text/plain part of a sent mail. */
export function textOf(mail: ComposedMail): string {
  return parseMime(mail.raw.toString('latin1')).parts.find((p) => p.contentType === 'text/plain')!.text;
}

/** The ids of a user's session rows (signed out or revoked sessions have none). */
export function sessionIdsOf(t: TestApp, userId: string) {
  return t.database.db.selectFrom('user_sessions').select('id').where('user_id', '=', userId).execute();
}
