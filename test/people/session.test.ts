/**
 * Dashboard sessions through HTTP (docs/dashboard.md, "The session API", "Profile" and
 * "Sessions and their defences"): the sign-in body and its cookie (stored only as its
 * SHA-256, a new id at every sign-in), the one generic 401, idle and absolute expiry on
 * the injectable clock, every revocation (password change, membership removal, sign-out
 * here and everywhere), TOTP at sign-in, the three surfaces and their credentials,
 * switching organizer, the user's own sessions, and bad input answered with a 4xx.
 * CSRF is in csrf.test.ts; sign-in timing and throttling in timing.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { permissionsOf } from '../../src/domain/people/permissions.ts';
import { totpCodeAt } from '../../src/domain/people/totp.ts';
import {
  createTestApp,
  DASHBOARD_ORIGIN,
  problemOf,
  sessionCookieOf,
  type DashboardSession,
  type TestApp,
  type TestUser,
  useBefore,
  useOrganizer,
  useTestApp,
} from '../helpers/app.ts';
import { createEvent } from '../helpers/catalog.ts';
import { BAD_CREDENTIALS, NEW_PASSWORD, post, PROBLEM, SIGN_IN_FIRST, UNTHROTTLED } from '../helpers/people.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TOTP_STEP_MS = 30_000;

const GENERIC_V1_401 = problemOf(
  401,
  'A valid API key is required: send it as "Authorization: Bearer <key>".',
  'unauthorized',
);
const TOTP_REQUIRED = problemOf(
  401,
  'This account has two-factor authentication: send the 6-digit code from the authenticator app in `totp`, or one of the recovery codes.',
  'totp_required',
  'totp',
);
const TOTP_INVALID = problemOf(
  401,
  'The authentication code is not correct, or was already used. Enter the current code from the authenticator app.',
  'totp_invalid',
  'totp',
);

/**
 * Written out, not read from permissions.ts: with the per-role lists of "each role gets the
 * permissions of permissions.ts", this is what keeps the matrix from changing unnoticed.
 */
const OWNER_PERMISSIONS = [
  'read',
  'catalog',
  'sell',
  'refund',
  'check_in',
  'webhooks',
  'export',
  'api_keys',
  'devices',
  'team',
];

/** The set-cookie of a sign-out: the cookie emptied and expired. */
const CLEARED = 'marquee_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict';

/** POST /dashboard/v1/session as the console's page sends it (its own Origin), with extra headers. */
function signInRequest(
  t: TestApp,
  body: unknown,
  headers: Record<string, string> = {},
  remoteAddress?: string,
): Promise<LightMyRequestResponse> {
  return post(t, '/dashboard/v1/session', body, headers, remoteAddress);
}

/** POST /dashboard/v1/session for a test user with their own password. */
const signInAs = (t: TestApp, user: TestUser, headers: Record<string, string> = {}) =>
  signInRequest(t, { email: user.email, password: user.password }, headers);

/** The set-cookie of a sign-in over plain HTTP: `marquee_session`, not Secure. */
const PLAIN_COOKIE = /^marquee_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/;

/** The value of the `__Host-marquee_session` cookie a sign-in over HTTPS sets (asserted to be set). */
function hostCookieOf(res: LightMyRequestResponse): string {
  const header = setCookieOf(res);
  const value = /^__Host-marquee_session=([A-Za-z0-9_-]{43});/.exec(header)?.[1];
  assert.ok(value !== undefined, header);
  return value;
}

/** A DashboardSession from a 201 (sign-in) or 200 (password change) that set a new cookie. */
function sessionFrom(res: LightMyRequestResponse): DashboardSession {
  const body = res.json<Record<string, unknown>>();
  return { cookie: sessionCookieOf(res), csrf: body.csrf_token as string, body };
}

/** The raw `set-cookie` header of a response (one cookie). */
function setCookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  assert.equal(typeof header, 'string', `one set-cookie header: ${JSON.stringify(header)}`);
  return header as string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The value of `marquee_session=<value>`. */
const cookieValue = (cookie: string) => cookie.slice(cookie.indexOf('=') + 1);

/** GET /dashboard/v1/session with the cookie alone. */
const getSession = (t: TestApp, session: DashboardSession) => t.dash(session, 'GET', '/dashboard/v1/session');

async function assertSignedOut(t: TestApp, session: DashboardSession, what: string): Promise<void> {
  const res = await getSession(t, session);
  assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
  assert.equal(res.headers['content-type'], PROBLEM);
  assert.deepEqual(res.json(), SIGN_IN_FIRST);
}

async function assertSignedIn(t: TestApp, session: DashboardSession, what: string): Promise<void> {
  const res = await getSession(t, session);
  assert.equal(res.statusCode, 200, `${what}: ${res.body}`);
}

async function sessionRowsOf(t: TestApp, userId: string) {
  return t.database.db
    .selectFrom('user_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();
}

/** An active membership of an existing user in another organizer, made after the user's first. */
async function addMembership(t: TestApp, user: TestUser, organizerId: string, role: string, createdAt: Date) {
  const row = await t.database.db
    .insertInto('memberships')
    .values({
      organizer_id: organizerId,
      user_id: user.id,
      email: user.email,
      role: role as 'viewer',
      status: 'active',
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * One database for the file (creating one is the slow part); the tests that need other
 * settings get an app of their own on it.
 */
describe('dashboard sessions over HTTP', () => {
  const app = useTestApp({ env: UNTHROTTLED });
  const mainOrg = useOrganizer(app);

  function useSiblingApp(env: Record<string, string>): TestApp {
    const sibling = useBefore(
      () => createTestApp({ env: { ...UNTHROTTLED, ...env }, database: app.database }),
      'useSiblingApp',
    );
    after(() => sibling.close());
    return sibling;
  }

  describe('sign-in: the session body and its cookie', () => {
    const t = app;
    const org = mainOrg;

    test('201: the session body exactly, expiring 7 days after sign-in and 12 hours after the last request', async () => {
      const user = await t.createUser({
        organizerId: org.id,
        role: 'owner',
        email: 'ada@example.com',
        name: 'Ada Lovelace',
      });
      const now = t.clock.now().getTime();
      const res = await signInRequest(t, { email: 'ada@example.com', password: user.password });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const body = res.json();
      assert.match(body.csrf_token, /^[A-Za-z0-9_-]{32}$/);
      assert.deepEqual(body, {
        object: 'session',
        user: { id: user.id, email: 'ada@example.com', name: 'Ada Lovelace', totp_enabled: false },
        memberships: [{ organizer_id: org.id, organizer_name: 'Test Organizer', role: 'owner' }],
        organizer_id: org.id,
        // The organizers' defaults (migrations/0001_foundation.sql).
        organizer: { id: org.id, name: 'Test Organizer', currency: 'EUR', timezone: 'UTC' },
        role: 'owner',
        permissions: OWNER_PERMISSIONS,
        csrf_token: body.csrf_token,
        expires_at: new Date(now + 7 * DAY).toISOString(),
        idle_expires_at: new Date(now + 12 * HOUR).toISOString(),
      });
      // GET /dashboard/v1/session answers the same body.
      const session = sessionFrom(res);
      const read = await getSession(t, session);
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json(), body);
    });

    test('each role gets the permissions of permissions.ts', async () => {
      const expected: Record<string, string[]> = {
        manager: ['read', 'catalog', 'sell', 'refund', 'check_in', 'webhooks', 'export', 'devices'],
        box_office: ['read', 'sell', 'check_in'],
        door: ['check_in'],
        viewer: ['read', 'export'],
      };
      for (const [role, permissions] of Object.entries(expected)) {
        const user = await t.createUser({ organizerId: org.id, role });
        const session = await t.signIn(user.email, user.password);
        assert.equal(session.body.role, role);
        assert.deepEqual(session.body.permissions, permissions, role);
        assert.deepEqual(session.body.memberships, [{ organizer_id: org.id, organizer_name: 'Test Organizer', role }]);
      }
    });

    test('the cookie over HTTP: marquee_session, 256 random bits, HttpOnly, SameSite=Strict, Path=/, no Secure', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const res = await signInAs(t, user);
      assert.equal(res.statusCode, 201);
      const header = setCookieOf(res);
      const value = /^marquee_session=([A-Za-z0-9_-]{43});/.exec(header)?.[1];
      assert.ok(value !== undefined, header);
      assert.equal(Buffer.from(value, 'base64url').length * 8, 256);
      assert.equal(
        header,
        `marquee_session=${value}; Path=/; Expires=${new Date(res.json().expires_at).toUTCString()}; HttpOnly; SameSite=Strict`,
      );
    });

    test('an x-forwarded-proto header is not believed without TRUST_PROXY: the cookie stays the plain one', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const res = await signInAs(t, user, { 'x-forwarded-proto': 'https' });
      assert.equal(res.statusCode, 201, res.body);
      assert.match(setCookieOf(res), PLAIN_COOKIE);
    });

    test('the database keeps only the SHA-256 of the cookie value, never the value', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      const value = cookieValue(session.cookie);
      const rows = await sessionRowsOf(t, user.id);
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.equal(row.token_hash.length, 32);
      assert.ok(Buffer.from(row.token_hash).equals(sha256(value)), 'token_hash is the SHA-256 of the cookie value');
      assert.equal(row.csrf_token, session.csrf);
      const stored = JSON.stringify(row);
      assert.ok(!stored.includes(value), 'the raw cookie value is not stored');
      assert.ok(!stored.includes(Buffer.from(value, 'base64url').toString('hex')), 'nor its bytes');
    });

    test('every sign-in makes a new session id: two sign-ins, two cookies, two rows, both working', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const first = await t.signIn(user.email, user.password);
      const second = await t.signIn(user.email, user.password);
      assert.notEqual(first.cookie, second.cookie);
      assert.notEqual(first.csrf, second.csrf);
      const rows = await sessionRowsOf(t, user.id);
      assert.equal(rows.length, 2);
      assert.notEqual(rows[0]!.id, rows[1]!.id);
      await assertSignedIn(t, first, 'the first session');
      await assertSignedIn(t, second, 'the second session');
    });

    test('a cookie planted by an attacker is never promoted: signing in with it yields a new, different id', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const planted = randomBytes(32).toString('base64url');
      const res = await signInAs(t, user, { cookie: `marquee_session=${planted}` });
      assert.equal(res.statusCode, 201, res.body);
      const issued = sessionCookieOf(res);
      assert.notEqual(cookieValue(issued), planted);
      const rows = await sessionRowsOf(t, user.id);
      assert.equal(rows.length, 1);
      assert.ok(!Buffer.from(rows[0]!.token_hash).equals(sha256(planted)));
      assert.equal(
        await t.database.db
          .selectFrom('user_sessions')
          .select('id')
          .where('token_hash', '=', sha256(planted))
          .executeTakeFirst(),
        undefined,
      );
      await assertSignedOut(t, { cookie: `marquee_session=${planted}`, csrf: '', body: {} }, 'the planted cookie');
      await assertSignedIn(t, { cookie: issued, csrf: res.json().csrf_token, body: {} }, 'the issued cookie');
    });

    test('a signed-in browser signing in again gets a new id; the old one keeps working until signed out', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const before = await t.signIn(user.email, user.password);
      const res = await signInAs(t, user, { cookie: before.cookie });
      assert.equal(res.statusCode, 201);
      assert.notEqual(sessionCookieOf(res), before.cookie);
    });
  });

  describe('sign-in over HTTPS (TRUST_PROXY and x-forwarded-proto)', () => {
    const t = useSiblingApp({ TRUST_PROXY: 'true' });
    const org = useOrganizer(t);

    /** What a TLS-terminating proxy forwards for a browser on https://tickets.example.com. */
    const viaProxy = { host: 'tickets.example.com', 'x-forwarded-proto': 'https' };

    test('the cookie is __Host-marquee_session, Secure; it works over HTTPS', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const res = await signInAs(t, user, { ...viaProxy, origin: 'https://tickets.example.com' });
      assert.equal(res.statusCode, 201, res.body);
      const header = setCookieOf(res);
      const value = /^__Host-marquee_session=([A-Za-z0-9_-]{43});/.exec(header)?.[1];
      assert.ok(value !== undefined, header);
      assert.equal(
        header,
        `__Host-marquee_session=${value}; Path=/; Expires=${new Date(res.json().expires_at).toUTCString()}; HttpOnly; Secure; SameSite=Strict`,
      );
      const read = await t.inject({
        method: 'GET',
        url: '/dashboard/v1/session',
        headers: { cookie: `__Host-marquee_session=${value}`, ...viaProxy },
      });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json().user.id, user.id);
      // The origin of the page over HTTPS may write; the same host over plain HTTP may not.
      const session = { cookie: `__Host-marquee_session=${value}`, csrf: res.json().csrf_token as string, body: {} };
      const renamed = await t.dash(
        session,
        'PATCH',
        '/dashboard/v1/profile',
        { name: 'Grace' },
        {
          ...viaProxy,
          origin: 'https://tickets.example.com',
        },
      );
      assert.equal(renamed.statusCode, 200, renamed.body);
      const downgraded = await t.dash(
        session,
        'PATCH',
        '/dashboard/v1/profile',
        { name: 'Mallory' },
        {
          ...viaProxy,
          origin: 'http://tickets.example.com',
        },
      );
      assert.equal(downgraded.statusCode, 403, downgraded.body);
      assert.equal(downgraded.json().code, 'csrf_failed');
    });

    test('over HTTPS, an unprefixed cookie with a valid session id is not read', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const res = await signInAs(t, user, { ...viaProxy, origin: 'https://tickets.example.com' });
      const token = hostCookieOf(res);
      const tossed = await t.inject({
        method: 'GET',
        url: '/dashboard/v1/session',
        headers: { cookie: `marquee_session=${token}`, ...viaProxy },
      });
      assert.equal(tossed.statusCode, 401, tossed.body);
      assert.deepEqual(tossed.json(), SIGN_IN_FIRST);
    });

    test('over plain HTTP behind the same proxy, the plain cookie', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const res = await signInAs(t, user, { 'x-forwarded-proto': 'http' });
      assert.equal(res.statusCode, 201, res.body);
      assert.match(setCookieOf(res), PLAIN_COOKIE);
    });
  });

  describe('sign-in with PUBLIC_URL=https://tickets.example.com', () => {
    const t = useSiblingApp({ PUBLIC_URL: 'https://tickets.example.com' });
    const org = useOrganizer(t);

    test('the cookie is __Host-marquee_session, Secure, whatever the request; the public origin may write', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const res = await signInAs(t, user, { origin: 'https://tickets.example.com' });
      assert.equal(res.statusCode, 201, res.body);
      const header = setCookieOf(res);
      const value = /^__Host-marquee_session=([A-Za-z0-9_-]{43});/.exec(header)?.[1];
      assert.ok(value !== undefined, header);
      assert.equal(
        header,
        `__Host-marquee_session=${value}; Path=/; Expires=${new Date(res.json().expires_at).toUTCString()}; HttpOnly; Secure; SameSite=Strict`,
      );
      const session = { cookie: `__Host-marquee_session=${value}`, csrf: res.json().csrf_token as string, body: {} };
      const renamed = await t.dash(
        session,
        'PATCH',
        '/dashboard/v1/profile',
        { name: 'Grace' },
        {
          origin: 'https://tickets.example.com',
        },
      );
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(renamed.json().user.name, 'Grace');
      // Signing out clears the same cookie it set.
      const out = await t.dash(session, 'DELETE', '/dashboard/v1/session', undefined, {
        origin: 'https://tickets.example.com',
      });
      assert.equal(out.statusCode, 204);
      assert.equal(
        setCookieOf(out),
        '__Host-marquee_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict',
      );
    });

    test('over HTTPS the unprefixed cookie is never read: a sibling subdomain could have planted it', async () => {
      // The attacker's own valid session, tossed into the victim's browser as `marquee_session`
      // (Domain=.example.com, or over plain HTTP): only `__Host-` proves this host set it.
      const attacker = await t.createUser({ organizerId: org.id, role: 'owner' });
      const signedIn = await signInAs(t, attacker, { origin: 'https://tickets.example.com' });
      const token = hostCookieOf(signedIn);
      const tossed = await t.inject({
        method: 'GET',
        url: '/dashboard/v1/session',
        headers: { cookie: `marquee_session=${token}` },
      });
      assert.equal(tossed.statusCode, 401, tossed.body);
      assert.deepEqual(tossed.json(), SIGN_IN_FIRST);
      // Beside the victim's own cookie, the tossed one decides nothing either.
      const victim = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const victimIn = await signInAs(t, victim, { origin: 'https://tickets.example.com' });
      const victimToken = hostCookieOf(victimIn);
      const both = await t.inject({
        method: 'GET',
        url: '/dashboard/v1/session',
        headers: { cookie: `marquee_session=${token}; __Host-marquee_session=${victimToken}` },
      });
      assert.equal(both.statusCode, 200, both.body);
      assert.equal(both.json().user.id, victim.id);
    });
  });

  describe('sign-in failures: one generic 401', () => {
    const t = app;
    const org = mainOrg;

    test('an unknown e-mail and a wrong password answer byte-identical 401s', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner' });
      const unknown = await signInRequest(t, { email: 'nobody-here@example.com', password: user.password });
      const wrong = await signInRequest(t, { email: user.email, password: 'not the password at all' });
      for (const res of [unknown, wrong]) {
        assert.equal(res.statusCode, 401);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.equal(res.headers['set-cookie'], undefined);
        assert.deepEqual(res.json(), BAD_CREDENTIALS);
      }
      assert.equal(unknown.body, wrong.body);
      assert.equal(unknown.headers['content-length'], wrong.headers['content-length']);
      assert.deepEqual(await sessionRowsOf(t, user.id), []);
    });

    test('the e-mail address is matched whatever its case', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner', email: 'Mixed.Case@Example.com' });
      for (const email of ['mixed.case@example.com', 'MIXED.CASE@EXAMPLE.COM', 'Mixed.Case@Example.com']) {
        const res = await signInRequest(t, { email, password: user.password });
        assert.equal(res.statusCode, 201, `${email}: ${res.body}`);
        assert.equal(res.json().user.id, user.id);
        assert.equal(res.json().user.email, 'Mixed.Case@Example.com');
      }
    });

    test('the password is matched exactly (case and surrounding spaces count)', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner' });
      for (const password of [user.password.toUpperCase(), ` ${user.password}`, `${user.password} `]) {
        const res = await signInRequest(t, { email: user.email, password });
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), BAD_CREDENTIALS);
      }
    });

    test('a user who is no longer a member of any organizer: 403 no_membership; a wrong password still 401', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      await t.database.db.deleteFrom('memberships').where('user_id', '=', user.id).execute();
      const res = await signInAs(t, user);
      assert.equal(res.statusCode, 403);
      assert.deepEqual(
        res.json(),
        problemOf(
          403,
          'This account is no longer a member of any organizer. Ask an owner of your organizer to invite you again.',
          'no_membership',
        ),
      );
      assert.equal(res.headers['set-cookie'], undefined);
      const wrong = await signInRequest(t, { email: user.email, password: 'not the password at all' });
      assert.deepEqual(wrong.json(), BAD_CREDENTIALS);
    });
  });

  describe('expiry with the default settings (12 h idle, 7 days absolute)', () => {
    const t = app;
    const org = mainOrg;

    test('a request at 11 h 59 min keeps the session alive and moves its idle end; 12 h after the last use → 401', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      const signedInAt = t.clock.now().getTime();

      t.clock.advance(11 * HOUR + 59 * MINUTE);
      const kept = await getSession(t, session);
      assert.equal(kept.statusCode, 200);
      const usedAt = t.clock.now().getTime();
      assert.equal(kept.json().idle_expires_at, new Date(usedAt + 12 * HOUR).toISOString());
      assert.equal(kept.json().expires_at, new Date(signedInAt + 7 * DAY).toISOString());

      // Past the first idle end (sign-in + 12 h), alive: the request moved it.
      t.clock.advance(11 * HOUR + 59 * MINUTE);
      assert.equal((await getSession(t, session)).statusCode, 200);
      const lastUse = t.clock.now().getTime();

      t.clock.advance(12 * HOUR);
      assert.equal(t.clock.now().getTime(), lastUse + 12 * HOUR);
      await assertSignedOut(t, session, '12 h after the last use');
      // Gone for good: the row is deleted, and turning back the clock does not revive it.
      assert.deepEqual(await sessionRowsOf(t, user.id), []);
      t.clock.advance(-HOUR);
      await assertSignedOut(t, session, 'an idle-expired session');
    });

    test('one minute short of the idle end, alive; a write of an idle session is refused with the 401 too', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      t.clock.advance(12 * HOUR - MINUTE);
      assert.equal((await getSession(t, session)).statusCode, 200);
      t.clock.advance(12 * HOUR);
      const write = await t.dash(session, 'PATCH', '/dashboard/v1/profile', { name: 'Too late' });
      assert.equal(write.statusCode, 401);
      assert.deepEqual(write.json(), SIGN_IN_FIRST);
    });

    test('7 days after sign-in the session ends even when used every hour', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      const signedInAt = t.clock.now().getTime();
      const end = signedInAt + 7 * DAY;
      for (let hour = 1; hour < 7 * 24; hour++) {
        t.clock.advance(HOUR);
        const res = await getSession(t, session);
        assert.equal(res.statusCode, 200, `hour ${hour}`);
        // The idle end never goes past the absolute end.
        const idleEnd = Math.min(t.clock.now().getTime() + 12 * HOUR, end);
        assert.equal(res.json().idle_expires_at, new Date(idleEnd).toISOString(), `hour ${hour}`);
        assert.equal(res.json().expires_at, new Date(end).toISOString());
      }
      t.clock.set(new Date(end - 1));
      assert.equal((await getSession(t, session)).statusCode, 200, 'alive 1 ms before the absolute end');
      t.clock.set(new Date(end));
      await assertSignedOut(t, session, '7 days after sign-in');
    });
  });

  describe('expiry with SESSION_IDLE_TIMEOUT=5m and SESSION_ABSOLUTE_TIMEOUT=30m', () => {
    const t = useSiblingApp({ SESSION_IDLE_TIMEOUT: '5m', SESSION_ABSOLUTE_TIMEOUT: '30m' });
    const org = useOrganizer(t);

    test('the body says the configured ends; idle after 5 min without a request', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const now = t.clock.now().getTime();
      const session = await t.signIn(user.email, user.password);
      assert.equal(session.body.expires_at, new Date(now + 30 * MINUTE).toISOString());
      assert.equal(session.body.idle_expires_at, new Date(now + 5 * MINUTE).toISOString());
      t.clock.advance(4 * MINUTE + 59_000);
      assert.equal((await getSession(t, session)).statusCode, 200);
      t.clock.advance(5 * MINUTE);
      await assertSignedOut(t, session, '5 min after the last use');
    });

    test('used every 4 minutes, the session still ends 30 minutes after sign-in', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      const end = t.clock.now().getTime() + 30 * MINUTE;
      for (let i = 1; i <= 7; i++) {
        t.clock.advance(4 * MINUTE);
        assert.equal((await getSession(t, session)).statusCode, 200, `${4 * i} min`);
      }
      t.clock.set(new Date(end));
      await assertSignedOut(t, session, '30 min after sign-in');
    });

    test('the list of own sessions leaves out idle ones', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      await t.signIn(user.email, user.password);
      t.clock.advance(5 * MINUTE);
      const current = await t.signIn(user.email, user.password);
      const list = await t.dash(current, 'GET', '/dashboard/v1/session/sessions');
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().data.length, 1);
      assert.equal(list.json().data[0].current, true);
    });
  });

  describe('revocation', () => {
    const t = app;
    const org = mainOrg;

    test('a password change ends every other session; this browser gets a new cookie that works, the old one does not', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const here = await t.signIn(user.email, user.password);
      const elsewhere = await t.signIn(user.email, user.password);
      t.clock.advance(MINUTE);
      const res = await t.dash(here, 'POST', '/dashboard/v1/profile/password', {
        current_password: user.password,
        new_password: NEW_PASSWORD,
      });
      assert.equal(res.statusCode, 200, res.body);
      const header = setCookieOf(res);
      const value = /^marquee_session=([A-Za-z0-9_-]{43});/.exec(header)?.[1];
      assert.ok(value !== undefined, header);
      assert.equal(
        header,
        `marquee_session=${value}; Path=/; Expires=${new Date(res.json().expires_at).toUTCString()}; HttpOnly; SameSite=Strict`,
      );
      const renewed = sessionFrom(res);
      assert.notEqual(renewed.cookie, here.cookie);
      assert.notEqual(renewed.csrf, here.csrf);
      const now = t.clock.now().getTime();
      assert.deepEqual(res.json(), {
        ...here.body,
        csrf_token: renewed.csrf,
        expires_at: new Date(now + 7 * DAY).toISOString(),
        idle_expires_at: new Date(now + 12 * HOUR).toISOString(),
      });

      await assertSignedOut(t, elsewhere, 'the other browser');
      await assertSignedOut(t, here, 'the old cookie of this browser');
      await assertSignedIn(t, renewed, 'the new cookie');
      assert.equal((await sessionRowsOf(t, user.id)).length, 1);
      // The new session writes with its own token.
      const write = await t.dash(renewed, 'PATCH', '/dashboard/v1/profile', { name: 'Renamed' });
      assert.equal(write.statusCode, 200, write.body);

      // The old password no longer signs in; the new one does.
      const old = await signInAs(t, user);
      assert.equal(old.statusCode, 401);
      assert.deepEqual(old.json(), BAD_CREDENTIALS);
      assert.equal((await signInRequest(t, { email: user.email, password: NEW_PASSWORD })).statusCode, 201);
    });

    test('a password change with a wrong current password: 400 naming it, nothing ends', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const here = await t.signIn(user.email, user.password);
      const elsewhere = await t.signIn(user.email, user.password);
      const res = await t.dash(here, 'POST', '/dashboard/v1/profile/password', {
        current_password: 'not the password at all',
        new_password: NEW_PASSWORD,
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        problemOf(400, 'The current password is not correct.', 'parameter_invalid', 'current_password'),
      );
      assert.equal(res.headers['set-cookie'], undefined);
      await assertSignedIn(t, here, 'this browser');
      await assertSignedIn(t, elsewhere, 'the other browser');
    });

    test('removing a membership ends that user’s sessions on that organizer at once, not on another', async () => {
      const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
      const member = await t.createUser({ organizerId: org.id, role: 'manager' });
      const other = await t.createOrganizer();
      await addMembership(t, member, other.id, 'viewer', new Date(t.clock.now().getTime() + 1000));
      const ownerSession = await t.signIn(owner.email, owner.password);
      const onThis = await t.signIn(member.email, member.password);
      assert.equal(onThis.body.organizer_id, org.id);
      const onOther = await t.signIn(member.email, member.password);
      const switched = await t.dash(onOther, 'POST', '/dashboard/v1/session/organizer', { organizer_id: other.id });
      assert.equal(switched.statusCode, 200, switched.body);

      const members = await t.dash(ownerSession, 'GET', '/dashboard/v1/members?limit=100');
      assert.equal(members.statusCode, 200, members.body);
      const membership = (members.json().data as { id: string; user_id: string | null }[]).find(
        (m) => m.user_id === member.id,
      );
      assert.ok(membership, 'the member is listed');
      const removed = await t.dash(ownerSession, 'DELETE', `/dashboard/v1/members/${membership.id}`);
      assert.equal(removed.statusCode, 204, removed.body);
      assert.equal(removed.body, '');

      await assertSignedOut(t, onThis, 'the session on the organizer the member left');
      const still = await getSession(t, onOther);
      assert.equal(still.statusCode, 200, 'the session on the other organizer');
      assert.deepEqual(still.json().memberships, [
        { organizer_id: other.id, organizer_name: 'Test Organizer', role: 'viewer' },
      ]);
      const rows = await sessionRowsOf(t, member.id);
      assert.deepEqual(
        rows.map((r) => r.organizer_id),
        [other.id],
      );
      // Signing in again lands on the one organizer left.
      const again = await t.signIn(member.email, member.password);
      assert.equal(again.body.organizer_id, other.id);
      assert.equal(again.body.role, 'viewer');
    });

    test('DELETE /dashboard/v1/session ends only this session and clears the cookie', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const here = await t.signIn(user.email, user.password);
      const elsewhere = await t.signIn(user.email, user.password);
      const res = await t.dash(here, 'DELETE', '/dashboard/v1/session');
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(res.body, '');
      assert.equal(setCookieOf(res), CLEARED);
      await assertSignedOut(t, here, 'this browser');
      await assertSignedIn(t, elsewhere, 'the other browser');
      assert.equal((await sessionRowsOf(t, user.id)).length, 1);
    });

    test('DELETE /dashboard/v1/session?everywhere=true ends every session of the user, and no one else’s', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const bystander = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const sessions = [
        await t.signIn(user.email, user.password),
        await t.signIn(user.email, user.password),
        await t.signIn(user.email, user.password),
      ];
      const theirs = await t.signIn(bystander.email, bystander.password);
      const res = await t.dash(sessions[1]!, 'DELETE', '/dashboard/v1/session?everywhere=true');
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(setCookieOf(res), CLEARED);
      for (const [i, session] of sessions.entries()) await assertSignedOut(t, session, `session ${i}`);
      assert.deepEqual(await sessionRowsOf(t, user.id), []);
      await assertSignedIn(t, theirs, 'another user’s session');
    });

    test('everywhere=false ends only this one', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const here = await t.signIn(user.email, user.password);
      const elsewhere = await t.signIn(user.email, user.password);
      assert.equal((await t.dash(here, 'DELETE', '/dashboard/v1/session?everywhere=false')).statusCode, 204);
      await assertSignedOut(t, here, 'this browser');
      await assertSignedIn(t, elsewhere, 'the other browser');
    });

    test('signing out twice: the second answers 401', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const here = await t.signIn(user.email, user.password);
      assert.equal((await t.dash(here, 'DELETE', '/dashboard/v1/session')).statusCode, 204);
      const again = await t.dash(here, 'DELETE', '/dashboard/v1/session');
      assert.equal(again.statusCode, 401);
      assert.deepEqual(again.json(), SIGN_IN_FIRST);
    });
  });

  describe('TOTP at sign-in', () => {
    const t = app;
    const org = mainOrg;

    /** A 6-digit code that is none of the codes around now (the verifier may accept a step of drift). */
    const wrongCode = (secret: string) => {
      const now = t.clock.now().getTime();
      const near = new Set([-2, -1, 0, 1, 2].map((k) => totpCodeAt(secret, new Date(now + k * TOTP_STEP_MS))));
      for (let n = 0; ; n++) {
        const code = String(n).padStart(6, '0');
        if (!near.has(code)) return code;
      }
    };

    test('enrol, confirm, then sign in with the code, once; a recovery code, once; remove with the password', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner', email: 'totp-user@example.com' });
      const session = await t.signIn(user.email, user.password);

      const enrol = await t.dash(session, 'POST', '/dashboard/v1/profile/totp');
      assert.equal(enrol.statusCode, 201, enrol.body);
      const { secret, otpauth_url: url, qr_code: qr } = enrol.json();
      assert.deepEqual(Object.keys(enrol.json()).sort(), ['otpauth_url', 'qr_code', 'secret']);
      assert.match(secret, /^[A-Z2-7]{16,}=*$/);
      assert.ok(url.startsWith('otpauth://totp/'), url);
      assert.ok(url.includes(`secret=${secret}`), url);
      assert.ok(qr.startsWith('data:image/png;base64,'), qr.slice(0, 40));
      const png = Buffer.from(qr.slice('data:image/png;base64,'.length), 'base64');
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

      // Until confirmed, TOTP is off: sign-in needs no code.
      assert.equal((await signInAs(t, user)).statusCode, 201);

      const wrongConfirm = await t.dash(session, 'POST', '/dashboard/v1/profile/totp/confirm', {
        code: wrongCode(secret),
      });
      assert.equal(wrongConfirm.statusCode, 400);
      assert.equal(wrongConfirm.json().param, 'code');

      const confirmCode = totpCodeAt(secret, t.clock.now());
      const confirmed = await t.dash(session, 'POST', '/dashboard/v1/profile/totp/confirm', { code: confirmCode });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      const recovery = confirmed.json().recovery_codes as string[];
      assert.deepEqual(Object.keys(confirmed.json()), ['recovery_codes']);
      assert.equal(recovery.length, 10);
      assert.equal(new Set(recovery).size, 10);
      for (const code of recovery) assert.equal(typeof code, 'string');
      assert.equal((await getSession(t, session)).json().user.totp_enabled, true);

      // A correct password without a code.
      const missing = await signInAs(t, user);
      assert.equal(missing.statusCode, 401);
      assert.deepEqual(missing.json(), TOTP_REQUIRED);
      assert.equal(missing.headers['set-cookie'], undefined);
      // A wrong password with or without a code is the generic 401: it says nothing about TOTP.
      for (const body of [
        { email: user.email, password: 'not the password at all' },
        { email: user.email, password: 'not the password at all', totp: totpCodeAt(secret, t.clock.now()) },
      ])
        assert.deepEqual((await signInRequest(t, body)).json(), BAD_CREDENTIALS);
      // The code that confirmed the enrolment is spent.
      const replayedConfirm = await signInRequest(t, { email: user.email, password: user.password, totp: confirmCode });
      assert.equal(replayedConfirm.statusCode, 401);
      assert.deepEqual(replayedConfirm.json(), TOTP_INVALID);
      // A wrong code.
      const wrong = await signInRequest(t, { email: user.email, password: user.password, totp: wrongCode(secret) });
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(wrong.json(), TOTP_INVALID);

      // The next step's code: 201, once.
      t.clock.advance(TOTP_STEP_MS);
      const code = totpCodeAt(secret, t.clock.now());
      const ok = await signInRequest(t, { email: user.email, password: user.password, totp: code });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(ok.json().user.totp_enabled, true);
      const replay = await signInRequest(t, { email: user.email, password: user.password, totp: code });
      assert.equal(replay.statusCode, 401);
      assert.deepEqual(replay.json(), TOTP_INVALID);

      // A recovery code works once.
      const withRecovery = await signInRequest(t, { email: user.email, password: user.password, totp: recovery[3]! });
      assert.equal(withRecovery.statusCode, 201, withRecovery.body);
      const recoveryAgain = await signInRequest(t, { email: user.email, password: user.password, totp: recovery[3]! });
      assert.equal(recoveryAgain.statusCode, 401);
      assert.deepEqual(recoveryAgain.json(), TOTP_INVALID);
      // Another one still works.
      assert.equal(
        (await signInRequest(t, { email: user.email, password: user.password, totp: recovery[7]! })).statusCode,
        201,
      );

      // Removing needs the password.
      const badRemove = await t.dash(session, 'POST', '/dashboard/v1/profile/totp/remove', {
        password: 'not the password at all',
      });
      assert.equal(badRemove.statusCode, 400);
      assert.deepEqual(
        badRemove.json(),
        problemOf(400, 'The current password is not correct.', 'parameter_invalid', 'password'),
      );
      assert.equal((await getSession(t, session)).json().user.totp_enabled, true);
      const removed = await t.dash(session, 'POST', '/dashboard/v1/profile/totp/remove', { password: user.password });
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(removed.json().object, 'session');
      assert.equal(removed.json().user.totp_enabled, false);
      // Off: the password alone signs in, and the unused recovery codes are gone.
      assert.equal((await signInAs(t, user)).statusCode, 201);
      const codes = await t.database.db
        .selectFrom('user_recovery_codes')
        .select('user_id')
        .where('user_id', '=', user.id)
        .execute();
      assert.deepEqual(codes, []);
    });

    /** A user with TOTP on, confirmed at the clock's current step; the secret and the recovery codes. */
    async function enrolled() {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      const { secret } = (await t.dash(session, 'POST', '/dashboard/v1/profile/totp')).json();
      const confirmed = await t.dash(session, 'POST', '/dashboard/v1/profile/totp/confirm', {
        code: totpCodeAt(secret, t.clock.now()),
      });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      return { user, secret: secret as string, recovery: confirmed.json().recovery_codes as string[] };
    }

    test('a code one step either side is accepted, once, and never one from before the last accepted', async () => {
      const { user, secret } = await enrolled();
      const withCode = (code: string) => signInRequest(t, { email: user.email, password: user.password, totp: code });
      t.clock.advance(2 * TOTP_STEP_MS);
      const now = t.clock.now().getTime();
      const at = (steps: number) => totpCodeAt(secret, new Date(now + steps * TOTP_STEP_MS));
      // Two steps ahead of the app's clock: refused.
      if (at(2) !== at(-1) && at(2) !== at(0) && at(2) !== at(1))
        assert.deepEqual((await withCode(at(2))).json(), TOTP_INVALID);
      // The previous step (a phone 30 s behind): accepted.
      assert.equal((await withCode(at(-1))).statusCode, 201);
      // The next step (a phone 30 s ahead): accepted; after it, the current step's code is too old.
      assert.equal((await withCode(at(1))).statusCode, 201);
      if (at(0) !== at(1)) assert.deepEqual((await withCode(at(0))).json(), TOTP_INVALID);
      assert.deepEqual((await withCode(at(-1))).json(), TOTP_INVALID);
      // Spaces inside the code, as some apps show it, are fine.
      t.clock.advance(2 * TOTP_STEP_MS);
      const spaced = totpCodeAt(secret, t.clock.now());
      assert.equal((await withCode(`${spaced.slice(0, 3)} ${spaced.slice(3)}`)).statusCode, 201);
    });

    test('one code sent by two sign-ins at once signs in one of them; so does one recovery code', async () => {
      const { user, secret, recovery } = await enrolled();
      t.clock.advance(TOTP_STEP_MS);
      const code = totpCodeAt(secret, t.clock.now());
      const withCode = (totp: string) => signInRequest(t, { email: user.email, password: user.password, totp });
      const racing = await Promise.all([withCode(code), withCode(code), withCode(code)]);
      assert.deepEqual(racing.map((r) => r.statusCode).sort(), [201, 401, 401]);
      for (const res of racing.filter((r) => r.statusCode === 401)) assert.deepEqual(res.json(), TOTP_INVALID);
      const recovering = await Promise.all([withCode(recovery[0]!), withCode(recovery[0]!)]);
      assert.deepEqual(recovering.map((r) => r.statusCode).sort(), [201, 401]);
      // A recovery code is read whatever its case and dashes.
      const typed = recovery[1]!.toUpperCase().replace('-', ' ');
      assert.equal((await withCode(typed)).statusCode, 201);
      assert.deepEqual((await withCode(recovery[1]!)).json(), TOTP_INVALID);
    });
  });

  describe('the three surfaces and their credentials', () => {
    const t = app;
    const org = mainOrg;

    test('/v1 with only the session cookie: the generic /v1 401', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner' });
      const session = await t.signIn(user.email, user.password);
      const res = await t.inject({ method: 'GET', url: '/v1/events', headers: { cookie: session.cookie } });
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="marquee-api"');
      assert.equal(res.headers['content-type'], PROBLEM);
      assert.deepEqual(res.json(), GENERIC_V1_401);
      const write = await t.inject({
        method: 'POST',
        url: '/v1/events',
        headers: { cookie: session.cookie, origin: DASHBOARD_ORIGIN, 'x-csrf-token': session.csrf },
        payload: {},
      });
      assert.equal(write.statusCode, 401);
      assert.deepEqual(write.json(), GENERIC_V1_401);
    });

    test('/dashboard/v1 with only an API key: 401 unauthorized, "Sign in first"', async () => {
      const res = await t.api(org.key, 'GET', '/dashboard/v1/events');
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['content-type'], PROBLEM);
      assert.deepEqual(res.json(), SIGN_IN_FIRST);
      const session = await t.api(org.key, 'GET', '/dashboard/v1/session');
      assert.deepEqual(session.json(), SIGN_IN_FIRST);
      const nothing = await t.inject({ method: 'GET', url: '/dashboard/v1/events' });
      assert.equal(nothing.statusCode, 401);
      assert.deepEqual(nothing.json(), SIGN_IN_FIRST);
    });

    test('/dashboard/v1 with an API key and a session: the session decides, the key is ignored', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'door' });
      const session = await t.signIn(user.email, user.password);
      const res = await t.dash(session, 'GET', '/dashboard/v1/orders', undefined, {
        authorization: `Bearer ${org.key}`,
      });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'role_forbidden');
    });

    test('/dashboard/v1/openapi.json describes only /dashboard/v1; /v1/openapi.json has no /dashboard path', async () => {
      const dashboard = await t.inject({ method: 'GET', url: '/dashboard/v1/openapi.json' });
      assert.equal(dashboard.statusCode, 200);
      const dashboardPaths = Object.keys(dashboard.json().paths as object);
      assert.ok(dashboardPaths.length > 0);
      assert.deepEqual(
        dashboardPaths.filter((p) => !p.startsWith('/dashboard/v1/')),
        [],
      );
      for (const path of ['/dashboard/v1/session', '/dashboard/v1/events', '/dashboard/v1/session/sessions/{id}'])
        assert.ok(dashboardPaths.includes(path), path);
      assert.ok(!dashboardPaths.includes('/dashboard/v1/api_key'), 'GET /v1/api_key is not mounted');

      const v1 = await t.inject({ method: 'GET', url: '/v1/openapi.json' });
      assert.equal(v1.statusCode, 200);
      const v1Paths = Object.keys(v1.json().paths as object);
      assert.ok(v1Paths.includes('/v1/events'), JSON.stringify(v1Paths.slice(0, 5)));
      assert.deepEqual(
        v1Paths.filter((p) => p.includes('dashboard') || p.includes('/session')),
        [],
      );
    });
  });

  describe('switching organizer', () => {
    const t = app;
    const first = mainOrg;

    test('role, permissions and data follow the organizer switched to; a non-member organizer → 404', async () => {
      const second = await t.createOrganizer();
      await t.admin('PATCH', `/admin/v1/organizers/${second.id}`, {
        name: 'Second Stage',
        currency: 'GBP',
        timezone: 'Europe/London',
      });
      const stranger = await t.createOrganizer();
      const user = await t.createUser({ organizerId: first.id, role: 'owner' });
      await addMembership(t, user, second.id, 'viewer', new Date(t.clock.now().getTime() + 1000));
      const firstEvent = await createEvent(t, first.key);
      const secondEvent = await createEvent(t, second.key);
      await createEvent(t, stranger.key);

      const session = await t.signIn(user.email, user.password);
      const memberships = [
        { organizer_id: first.id, organizer_name: 'Test Organizer', role: 'owner' },
        { organizer_id: second.id, organizer_name: 'Second Stage', role: 'viewer' },
      ];
      assert.equal(session.body.organizer_id, first.id);
      assert.deepEqual(session.body.memberships, memberships);
      const listIds = async () => {
        const res = await t.dash(session, 'GET', '/dashboard/v1/events');
        assert.equal(res.statusCode, 200, res.body);
        return (res.json().data as { id: string }[]).map((e) => e.id);
      };
      assert.deepEqual(await listIds(), [firstEvent.id]);

      const switched = await t.dash(session, 'POST', '/dashboard/v1/session/organizer', { organizer_id: second.id });
      assert.equal(switched.statusCode, 200, switched.body);
      assert.deepEqual(switched.json(), {
        ...session.body,
        organizer_id: second.id,
        organizer: { id: second.id, name: 'Second Stage', currency: 'GBP', timezone: 'Europe/London' },
        role: 'viewer',
        permissions: permissionsOf('viewer'),
        memberships,
      });
      const read = await getSession(t, session);
      assert.equal(read.json().organizer_id, second.id);
      assert.equal(read.json().role, 'viewer');
      assert.deepEqual(await listIds(), [secondEvent.id]);
      const one = await t.dash(session, 'GET', `/dashboard/v1/events/${firstEvent.id}`);
      assert.equal(one.statusCode, 404, 'the first organizer’s event is out of reach');
      // The viewer's role applies now.
      const create = await t.dash(session, 'POST', '/dashboard/v1/events', { title: 'No' });
      assert.equal(create.statusCode, 403);
      assert.deepEqual(
        create.json(),
        problemOf(
          403,
          'Your role (viewer) does not include the `catalog` permission this operation needs. An owner can change your role.',
          'role_forbidden',
          'catalog',
        ),
      );

      for (const organizerId of [stranger.id, '00000000-0000-4000-8000-000000000000']) {
        const refused = await t.dash(session, 'POST', '/dashboard/v1/session/organizer', { organizer_id: organizerId });
        assert.equal(refused.statusCode, 404);
        assert.deepEqual(refused.json(), problemOf(404, 'Organizer not found.', 'resource_not_found'));
      }
      assert.equal((await getSession(t, session)).json().organizer_id, second.id, 'a refused switch moves nothing');

      const back = await t.dash(session, 'POST', '/dashboard/v1/session/organizer', { organizer_id: first.id });
      assert.equal(back.statusCode, 200);
      assert.equal(back.json().role, 'owner');
      assert.deepEqual(back.json().permissions, permissionsOf('owner'));
      assert.deepEqual(await listIds(), [firstEvent.id]);
    });

    test('an invitation not yet accepted is no membership to switch to', async () => {
      const other = await t.createOrganizer();
      const user = await t.createUser({ organizerId: first.id, role: 'viewer' });
      await t.database.db
        .insertInto('memberships')
        .values({ organizer_id: other.id, email: user.email, role: 'owner', status: 'invited' })
        .execute();
      const session = await t.signIn(user.email, user.password);
      assert.equal((session.body.memberships as unknown[]).length, 1);
      const refused = await t.dash(session, 'POST', '/dashboard/v1/session/organizer', { organizer_id: other.id });
      assert.equal(refused.statusCode, 404);
    });
  });

  describe('the user’s own sessions', () => {
    const t = app;
    const org = mainOrg;

    async function signInFrom(user: TestUser, userAgent: string, ip: string): Promise<DashboardSession> {
      const res = await signInRequest(
        t,
        { email: user.email, password: user.password },
        { 'user-agent': userAgent },
        ip,
      );
      assert.equal(res.statusCode, 201, res.body);
      return sessionFrom(res);
    }

    test('listed with device and IP, the current one marked; ending the other signs that browser out', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const bystander = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const laptopAt = t.clock.now();
      const laptop = await signInFrom(user, 'Laptop Firefox', '203.0.113.10');
      t.clock.advance(MINUTE);
      const phoneAt = t.clock.now();
      const phone = await signInFrom(user, 'Phone Safari', '203.0.113.20');
      const theirs = await t.signIn(bystander.email, bystander.password);
      t.clock.advance(MINUTE);
      // This request is the laptop's latest use: it lists first.
      const listedAt = t.clock.now();

      const rows = await sessionRowsOf(t, user.id);
      const idOf = (createdAt: Date) => rows.find((r) => r.created_at.getTime() === createdAt.getTime())!.id;
      const own = (id: string, userAgent: string, ip: string, at: Date, lastSeen: Date, current: boolean) => ({
        object: 'user_session',
        id,
        user_agent: userAgent,
        ip,
        created_at: at.toISOString(),
        last_seen_at: lastSeen.toISOString(),
        expires_at: new Date(at.getTime() + 7 * DAY).toISOString(),
        current,
      });
      const list = await t.dash(laptop, 'GET', '/dashboard/v1/session/sessions');
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(list.json(), {
        object: 'list',
        data: [
          own(idOf(laptopAt), 'Laptop Firefox', '203.0.113.10', laptopAt, listedAt, true),
          own(idOf(phoneAt), 'Phone Safari', '203.0.113.20', phoneAt, phoneAt, false),
        ],
        has_more: false,
      });
      t.clock.advance(MINUTE);
      const fromPhone = await t.dash(phone, 'GET', '/dashboard/v1/session/sessions');
      assert.deepEqual(
        (fromPhone.json().data as { id: string; current: boolean }[]).map((s) => [s.id, s.current]),
        [
          [idOf(phoneAt), true],
          [idOf(laptopAt), false],
        ],
      );

      // Another user's session is not one of mine to end.
      const theirId = (await sessionRowsOf(t, bystander.id))[0]!.id;
      const foreign = await t.dash(laptop, 'DELETE', `/dashboard/v1/session/sessions/${theirId}`);
      assert.equal(foreign.statusCode, 404);
      assert.deepEqual(foreign.json(), problemOf(404, 'Session not found.', 'resource_not_found'));
      await assertSignedIn(t, theirs, 'the other user’s session');

      const ended = await t.dash(laptop, 'DELETE', `/dashboard/v1/session/sessions/${idOf(phoneAt)}`);
      assert.equal(ended.statusCode, 204, ended.body);
      assert.equal(ended.body, '');
      assert.equal(ended.headers['set-cookie'], undefined, 'this browser keeps its cookie');
      await assertSignedOut(t, phone, 'the phone');
      await assertSignedIn(t, laptop, 'the laptop');
      const after = await t.dash(laptop, 'GET', '/dashboard/v1/session/sessions');
      assert.deepEqual(
        (after.json().data as { id: string }[]).map((s) => s.id),
        [idOf(laptopAt)],
      );
      // Ending it again, or a malformed id: 404.
      for (const id of [idOf(phoneAt), 'not-a-uuid']) {
        const again = await t.dash(laptop, 'DELETE', `/dashboard/v1/session/sessions/${id}`);
        assert.equal(again.statusCode, 404);
        assert.deepEqual(again.json(), problemOf(404, 'Session not found.', 'resource_not_found'));
      }
    });

    test('a very long user agent is kept to 500 characters; no user agent is null', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await signInFrom(user, 'U'.repeat(2000), '203.0.113.30');
      const bare = await signInAs(t, user, { 'user-agent': '' });
      assert.equal(bare.statusCode, 201);
      const list = await t.dash(session, 'GET', '/dashboard/v1/session/sessions');
      const agents = (list.json().data as { user_agent: string | null }[]).map((s) => s.user_agent?.length ?? null);
      assert.deepEqual(agents.sort(), [0, 500].sort());
    });
  });

  describe('bad input: a clear 4xx, never a 5xx', () => {
    const t = app;
    const org = mainOrg;

    const signInCases: [string, unknown, number, string, string | undefined][] = [
      ['a malformed e-mail', { email: 'not-an-email', password: 'x' }, 400, 'parameter_invalid', 'email'],
      ['an e-mail with a NUL', { email: 'a\u0000b@example.com', password: 'x' }, 400, 'parameter_invalid', 'email'],
      [
        'an over-long e-mail',
        { email: `${'a'.repeat(250)}@example.com`, password: 'x' },
        400,
        'parameter_invalid',
        'email',
      ],
      [
        'an over-long password',
        { email: 'a@example.com', password: 'p'.repeat(1025) },
        400,
        'parameter_invalid',
        'password',
      ],
      [
        'an over-long totp',
        { email: 'a@example.com', password: 'x', totp: '1'.repeat(33) },
        400,
        'parameter_invalid',
        'totp',
      ],
      ['an empty password', { email: 'a@example.com', password: '' }, 400, 'parameter_invalid', 'password'],
      ['no password', { email: 'a@example.com' }, 400, 'parameter_missing', 'password'],
      ['no e-mail', { password: 'x' }, 400, 'parameter_missing', 'email'],
      [
        'an unknown field',
        { email: 'a@example.com', password: 'x', remember: true },
        400,
        'parameter_unknown',
        'remember',
      ],
      ['a numeric e-mail', { email: 5, password: 'x' }, 400, 'parameter_invalid', 'email'],
      ['a password array', { email: 'a@example.com', password: ['x'] }, 400, 'parameter_invalid', 'password'],
      ['a numeric totp', { email: 'a@example.com', password: 'x', totp: 123456 }, 400, 'parameter_invalid', 'totp'],
      ['a null body', null, 400, 'invalid_json', undefined],
      ['an array body', [], 400, 'invalid_json', undefined],
      ['a JSON string body', '"ada@example.com"', 400, 'invalid_json', undefined],
    ];

    for (const [what, body, status, code, param] of signInCases)
      test(`sign-in with ${what}: ${status} ${code}`, async () => {
        const res = await signInRequest(t, body);
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.headers['content-type'], PROBLEM);
        const problem = res.json();
        assert.equal(problem.code, code, res.body);
        assert.equal(problem.param, param, res.body);
        assert.equal(typeof problem.detail, 'string');
        assert.equal(res.headers['set-cookie'], undefined);
      });

    test('sign-in with broken JSON, no body, or another content type', async () => {
      const broken = await signInRequest(t, '{"email": "a@example.com",');
      assert.equal(broken.statusCode, 400);
      assert.equal(broken.json().code, 'invalid_json');
      const empty = await t.inject({
        method: 'POST',
        url: '/dashboard/v1/session',
        headers: { origin: DASHBOARD_ORIGIN },
      });
      assert.equal(empty.statusCode, 400, empty.body);
      const form = await t.inject({
        method: 'POST',
        url: '/dashboard/v1/session',
        headers: { origin: DASHBOARD_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=a%40example.com&password=x',
      });
      assert.equal(form.statusCode, 415, form.body);
      assert.equal(form.json().code, 'unsupported_media_type');
    });

    test('signed-in operations refuse bad input with 400 and change nothing', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'owner', name: 'Unchanged' });
      const session = await t.signIn(user.email, user.password);
      const cases: [string, string, unknown, string, string | undefined][] = [
        ['PATCH', '/dashboard/v1/profile', { name: '' }, 'parameter_invalid', 'name'],
        ['PATCH', '/dashboard/v1/profile', { name: 'n'.repeat(201) }, 'parameter_invalid', 'name'],
        ['PATCH', '/dashboard/v1/profile', { name: 42 }, 'parameter_invalid', 'name'],
        ['PATCH', '/dashboard/v1/profile', { name: 'Ok', email: 'x@example.com' }, 'parameter_unknown', 'email'],
        ['PATCH', '/dashboard/v1/profile', {}, 'parameter_missing', 'name'],
        [
          'POST',
          '/dashboard/v1/profile/password',
          { current_password: user.password },
          'parameter_missing',
          'new_password',
        ],
        [
          'POST',
          '/dashboard/v1/profile/password',
          { current_password: user.password, new_password: 'p'.repeat(1025) },
          'parameter_invalid',
          'new_password',
        ],
        [
          'POST',
          '/dashboard/v1/session/organizer',
          { organizer_id: 'not-a-uuid' },
          'parameter_invalid',
          'organizer_id',
        ],
        ['POST', '/dashboard/v1/session/organizer', { organizer_id: 7 }, 'parameter_invalid', 'organizer_id'],
        ['POST', '/dashboard/v1/session/organizer', {}, 'parameter_missing', 'organizer_id'],
        ['POST', '/dashboard/v1/profile/totp/confirm', { code: 123456 }, 'parameter_invalid', 'code'],
        ['POST', '/dashboard/v1/profile/totp/confirm', { code: '1'.repeat(17) }, 'parameter_invalid', 'code'],
        ['POST', '/dashboard/v1/profile/totp/remove', {}, 'parameter_missing', 'password'],
        ['DELETE', '/dashboard/v1/session?everywhere=maybe', undefined, 'parameter_invalid', 'everywhere'],
        ['DELETE', '/dashboard/v1/session?all=true', undefined, 'parameter_unknown', 'all'],
      ];
      for (const [method, url, body, code, param] of cases) {
        const res = await t.dash(session, method as 'POST', url, body);
        const where = `${method} ${url} ${JSON.stringify(body)}`;
        assert.equal(res.statusCode, 400, `${where}: ${res.body}`);
        assert.equal(res.json().code, code, `${where}: ${res.body}`);
        assert.equal(res.json().param, param, `${where}: ${res.body}`);
      }
      const after = await getSession(t, session);
      assert.equal(after.statusCode, 200);
      assert.equal(after.json().user.name, 'Unchanged');
      assert.equal(after.json().organizer_id, org.id);
      assert.equal((await sessionRowsOf(t, user.id)).length, 1);
    });

    test('a weak new password: 400 password_too_weak naming new_password; the sessions stay', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
      const session = await t.signIn(user.email, user.password);
      for (const weak of ['short', 'password1234', user.email]) {
        const res = await t.dash(session, 'POST', '/dashboard/v1/profile/password', {
          current_password: user.password,
          new_password: weak,
        });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'password_too_weak', res.body);
        assert.equal(res.json().param, 'new_password');
      }
      await assertSignedIn(t, session, 'after refused changes');
    });

    test('a name with a NUL character or only spaces is refused, not a 5xx', async () => {
      const user = await t.createUser({ organizerId: org.id, role: 'viewer', name: 'Unchanged' });
      const session = await t.signIn(user.email, user.password);
      const res = await t.dash(session, 'PATCH', '/dashboard/v1/profile', { name: 'Ada\u0000Lovelace' });
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} ${res.body}`);
      assert.equal((await getSession(t, session)).json().user.name, 'Unchanged');
    });

    test('garbage session cookies answer the 401, never a 5xx', async () => {
      const cookies = [
        'marquee_session=',
        'marquee_session=%E0%A4%A',
        'marquee_session=%00%00',
        `marquee_session=${'A'.repeat(4000)}`,
        'marquee_session=not a token!',
        'marquee_session="quoted"',
        `marquee_session=${randomBytes(32).toString('base64url')}; marquee_session=${randomBytes(32).toString('base64url')}`,
        '__Host-marquee_session=abc',
        '=;;==;',
      ];
      for (const cookie of cookies) {
        const res = await t.inject({ method: 'GET', url: '/dashboard/v1/session', headers: { cookie } });
        assert.equal(res.statusCode, 401, `${cookie.slice(0, 60)}: ${res.body}`);
        assert.deepEqual(res.json(), SIGN_IN_FIRST);
      }
    });
  });
});
