/**
 * The one-time links (docs/dashboard.md, "One-time links"): an invitation previewed and
 * accepted (a new account, or an address that has one), a password reset asked for and
 * completed, and the first owner's set-up link of the first start. A used, expired or
 * unknown link answers 400 `link_invalid` and changes nothing; a refused input leaves the
 * link usable. Every write needs the service's Origin, session or not.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ensureDefaultOrganizer } from '../../src/bootstrap.ts';
import { totpCodeAt } from '../../src/domain/people/totp.ts';
import { permissionsOf } from '../../src/domain/people/permissions.ts';
import {
  problemOf,
  sessionCookieOf,
  useOrganizer,
  useTestApp,
  type DashboardSession,
  type TestApp,
} from '../helpers/app.ts';
import {
  BAD_CREDENTIALS,
  COMMON,
  INVITATION_REFUSED,
  IS_EMAIL,
  mailOf,
  NEW_PASSWORD,
  PASSWORD,
  post,
  sessionIdsOf,
  SIGN_IN_FIRST,
  textOf,
  TOO_SHORT,
  tooWeak,
} from '../helpers/people.ts';

const HOUR = 3_600_000;
const RATE_LIMITS = { RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '1000', RATE_LIMIT_SIGNIN_IP_PER_MIN: '1000' };

const RESET_REFUSED = problemOf(
  400,
  'This password reset link has expired or was already used. Ask for a new one with “Forgot password?”.',
  'link_invalid',
  'token',
);
const SETUP_REFUSED = problemOf(
  400,
  'This set-up link has expired or was already used. The platform operator can create the first owner with POST /admin/v1/users.',
  'link_invalid',
  'token',
);

/** The newest link waiting to be mailed to an address (the mail pass erases it once sent). */
async function latestLink(t: TestApp, recipient: string): Promise<string> {
  const job = await t.database.db
    .selectFrom('email_jobs')
    .select('link')
    .where('recipient', '=', recipient)
    .where('link', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  assert.ok(job?.link, `a pending job with a link for ${recipient}`);
  return job.link;
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

/** A session from a 201 of accept or set-up, as t.signIn returns one. */
function sessionFrom(res: { json(): Record<string, unknown>; headers: Record<string, unknown> }): DashboardSession {
  return {
    cookie: sessionCookieOf(res as Parameters<typeof sessionCookieOf>[0]),
    csrf: res.json().csrf_token as string,
    body: res.json(),
  };
}

/**
 * What a session body says of the person and the organizer they are signed in to (the
 * session tests check the rest of the body); its times are those of a session opened now.
 */
function sessionShape(body: Record<string, unknown>, now: Date) {
  assert.match(String(body.csrf_token), /^[A-Za-z0-9_-]{32}$/);
  assert.equal(body.expires_at, new Date(now.getTime() + 7 * 24 * HOUR).toISOString());
  assert.equal(body.idle_expires_at, new Date(now.getTime() + 12 * HOUR).toISOString());
  const { object, user, memberships, organizer_id, role, permissions } = body;
  return { object, user, memberships, organizer_id, role, permissions };
}

describe('invitations', () => {
  const t = useTestApp({ env: RATE_LIMITS });
  const org = useOrganizer(t);
  let owner: DashboardSession;
  let ownerId: string;

  before(async () => {
    const user = await t.createUser({ organizerId: org.id, role: 'owner', name: 'Olive Owner' });
    ownerId = user.id;
    owner = await t.signIn(user.email, user.password);
  });

  async function invite(email: string, role: string): Promise<{ id: string; token: string }> {
    t.clock.advance(1000); // the newest job is the one with the latest created_at
    const res = await t.dash(owner, 'POST', '/dashboard/v1/members', { email, role });
    assert.equal(res.statusCode, 201, res.body);
    return { id: res.json().id, token: tokenOf(await latestLink(t, email)) };
  }

  const members = async () =>
    (await t.dash(owner, 'GET', '/dashboard/v1/members')).json().data as Record<string, unknown>[];

  test('the preview says what the link offers, and spends nothing', async () => {
    const { token } = await invite('nina@example.com', 'viewer');
    for (let i = 0; i < 2; i++) {
      const res = await post(t, '/dashboard/v1/invitation', { token });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        organizer_name: 'Test Organizer',
        email: 'nina@example.com',
        role: 'viewer',
        account_exists: false,
      });
    }
  });

  test('accepting as a new account: refused input changes nothing; then 201, the session, an active member', async () => {
    const { id, token } = await invite('nina@example.com', 'viewer');
    const refusals: [Record<string, unknown>, ReturnType<typeof problemOf>][] = [
      [{ token, name: 'Nina New', password: 'password' }, tooWeak(TOO_SHORT(8))],
      [{ token, name: 'Nina New', password: 'password1234' }, tooWeak(COMMON)],
      [{ token, name: 'Nina New', password: 'Nina@Example.com' }, tooWeak(IS_EMAIL)],
      [
        { token, password: PASSWORD },
        problemOf(400, 'Enter your name to create your account.', 'parameter_missing', 'name'),
      ],
      [
        { token, name: '   ', password: PASSWORD },
        problemOf(400, 'Enter your name to create your account.', 'parameter_missing', 'name'),
      ],
      [
        { token, name: 'Nina New' },
        problemOf(400, 'Choose a password for your account.', 'parameter_missing', 'password'),
      ],
    ];
    for (const [body, problem] of refusals) {
      const res = await post(t, '/dashboard/v1/invitation/accept', body);
      assert.deepEqual([res.statusCode, res.json()], [400, problem], JSON.stringify(body));
      assert.equal(res.headers['set-cookie'], undefined, 'no session');
      // Nothing changed: the link still works, the member is still invited, no account.
      assert.equal((await post(t, '/dashboard/v1/invitation', { token })).statusCode, 200);
    }
    const users = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'nina@example.com')
      .execute();
    assert.deepEqual(users, []);
    assert.equal((await members()).find((m) => m.id === id)!.status, 'invited');

    const res = await post(t, '/dashboard/v1/invitation/accept', { token, name: '  Nina New  ', password: PASSWORD });
    assert.equal(res.statusCode, 201);
    const user = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'nina@example.com')
      .executeTakeFirstOrThrow();
    assert.deepEqual(sessionShape(res.json(), t.clock.now()), {
      object: 'session',
      user: { id: user.id, email: 'nina@example.com', name: 'Nina New', totp_enabled: false },
      memberships: [{ organizer_id: org.id, organizer_name: 'Test Organizer', role: 'viewer' }],
      organizer_id: org.id,
      role: 'viewer',
      permissions: permissionsOf('viewer'),
    });
    const setCookie = String(res.headers['set-cookie']);
    const expires = new Date(res.json().expires_at).toUTCString();
    assert.match(setCookie, /^marquee_session=[A-Za-z0-9_-]{43}; /);
    assert.equal(setCookie.slice(59), `; Path=/; Expires=${expires}; HttpOnly; SameSite=Strict`);
    const session = sessionFrom(res);
    const current = await t.dash(session, 'GET', '/dashboard/v1/session');
    assert.deepEqual([current.statusCode, current.json().user.email], [200, 'nina@example.com']);

    const member = (await members()).find((m) => m.id === id);
    assert.deepEqual(member, {
      object: 'member',
      id,
      email: 'nina@example.com',
      name: 'Nina New',
      role: 'viewer',
      status: 'active',
      user_id: user.id,
      invited_by: ownerId,
      created_at: member!.created_at,
    });
    // The new account signs in with its password.
    assert.equal((await t.signIn('nina@example.com', PASSWORD)).body.role, 'viewer');

    // The link was good once.
    const again = await post(t, '/dashboard/v1/invitation/accept', { token, name: 'Nina New', password: PASSWORD });
    assert.deepEqual([again.statusCode, again.json()], [400, INVITATION_REFUSED]);
    const preview = await post(t, '/dashboard/v1/invitation', { token });
    assert.deepEqual([preview.statusCode, preview.json()], [400, INVITATION_REFUSED]);
  });

  test('an address that has an account joins with its password: two memberships', async () => {
    const other = await t.admin('POST', '/admin/v1/organizers', { name: 'Second Stage' });
    const otherId = other.json().id as string;
    const otto = await t.createUser({ organizerId: otherId, role: 'manager', email: 'otto@example.com', name: 'Otto' });
    t.clock.advance(1000);
    const { id, token } = await invite('Otto@Example.com', 'box_office');

    const preview = await post(t, '/dashboard/v1/invitation', { token });
    assert.deepEqual(preview.json(), {
      organizer_name: 'Test Organizer',
      email: 'Otto@Example.com',
      role: 'box_office',
      account_exists: true,
    });

    // The link alone never signs anyone in to an existing account: its password is asked,
    // and a refusal leaves the link usable.
    const bare = await post(t, '/dashboard/v1/invitation/accept', { token });
    assert.deepEqual(
      [bare.statusCode, bare.json()],
      [
        400,
        problemOf(
          400,
          'Otto@Example.com already has a Marquee account: enter its password to join.',
          'parameter_missing',
          'password',
        ),
      ],
    );
    const wrong = await post(t, '/dashboard/v1/invitation/accept', { token, password: 'not the password at all' });
    assert.deepEqual(
      [wrong.statusCode, wrong.json()],
      [401, problemOf(401, 'The e-mail address or password is not correct.', 'unauthorized')],
    );
    const res = await post(t, '/dashboard/v1/invitation/accept', { token, password: otto.password });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(sessionShape(res.json(), t.clock.now()), {
      object: 'session',
      user: { id: otto.id, email: 'otto@example.com', name: 'Otto', totp_enabled: false },
      memberships: [
        { organizer_id: otherId, organizer_name: 'Second Stage', role: 'manager' },
        { organizer_id: org.id, organizer_name: 'Test Organizer', role: 'box_office' },
      ],
      organizer_id: org.id,
      role: 'box_office',
      permissions: permissionsOf('box_office'),
    });
    const memberships = await t.database.db
      .selectFrom('memberships')
      .select(['organizer_id', 'role', 'status'])
      .where('user_id', '=', otto.id)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(memberships, [
      { organizer_id: otherId, role: 'manager', status: 'active' },
      { organizer_id: org.id, role: 'box_office', status: 'active' },
    ]);
    assert.equal((await members()).find((m) => m.id === id)!.user_id, otto.id);
    // The password is still the one the account had.
    assert.equal((await t.signIn('otto@example.com', otto.password)).body.organizer_id, otherId);

    const again = await post(t, '/dashboard/v1/invitation/accept', { token, password: otto.password });
    assert.deepEqual([again.statusCode, again.json()], [400, INVITATION_REFUSED]);
  });

  test('an account with TOTP joins only with its code as well', async () => {
    const other = await t.admin('POST', '/admin/v1/organizers', { name: 'Third Stage' });
    const tess = await t.createUser({ organizerId: other.json().id as string, role: 'viewer' });
    const session = await t.signIn(tess.email, tess.password);
    const secret = (await t.dash(session, 'POST', '/dashboard/v1/profile/totp')).json().secret as string;
    const code = totpCodeAt(secret, t.clock.now());
    assert.equal((await t.dash(session, 'POST', '/dashboard/v1/profile/totp/confirm', { code })).statusCode, 200);
    t.clock.advance(60_000);
    const { token } = await invite(tess.email, 'viewer');

    const noCode = await post(t, '/dashboard/v1/invitation/accept', { token, password: tess.password });
    assert.equal(noCode.statusCode, 401);
    assert.equal(noCode.json().code, 'totp_required');
    const res = await post(t, '/dashboard/v1/invitation/accept', {
      token,
      password: tess.password,
      totp: totpCodeAt(secret, t.clock.now()),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().organizer_id, org.id);
  });

  test('an unknown or malformed token answers the same 400', async () => {
    for (const token of ['A'.repeat(32), 'not a token', 'x']) {
      for (const url of ['/dashboard/v1/invitation', '/dashboard/v1/invitation/accept']) {
        const res = await post(t, url, { token, name: 'Who', password: PASSWORD });
        const body = url.endsWith('accept') ? res.json() : (await post(t, url, { token })).json();
        assert.deepEqual(body, INVITATION_REFUSED, `${url} ${token}`);
      }
    }
  });

  test('a write from another origin, or with none, answers 403 csrf_failed and spends nothing', async () => {
    const { token } = await invite('carl@example.com', 'door');
    const foreign = await post(
      t,
      '/dashboard/v1/invitation/accept',
      { token, name: 'Carl', password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [
        403,
        problemOf(
          403,
          'The Origin https://evil.example is not this service; the dashboard API takes writes from its own pages only.',
          'csrf_failed',
        ),
      ],
    );
    const none = await t.inject({
      method: 'POST',
      url: '/dashboard/v1/invitation/accept',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token, name: 'Carl', password: PASSWORD }),
    });
    assert.deepEqual(
      [none.statusCode, none.json()],
      [
        403,
        problemOf(
          403,
          'A write to the dashboard API needs an Origin header naming this service (browsers send it); none was sent.',
          'csrf_failed',
        ),
      ],
    );
    const crossSite = await post(
      t,
      '/dashboard/v1/password_resets',
      { email: 'carl@example.com' },
      { 'sec-fetch-site': 'cross-site' },
    );
    assert.deepEqual(
      [crossSite.statusCode, crossSite.json()],
      [
        403,
        problemOf(
          403,
          'This request came from another site (Sec-Fetch-Site: cross-site); the dashboard API takes writes from its own pages only.',
          'csrf_failed',
        ),
      ],
    );
    assert.equal((await post(t, '/dashboard/v1/invitation', { token })).statusCode, 200, 'the link still works');
  });

  test('an invitation link is good for 72 hours', async () => {
    const { token } = await invite('late@example.com', 'viewer');
    t.clock.advance(72 * HOUR - 1000);
    assert.equal((await post(t, '/dashboard/v1/invitation', { token })).statusCode, 200, 'a second before the end');
    t.clock.advance(2000);
    const preview = await post(t, '/dashboard/v1/invitation', { token });
    assert.deepEqual([preview.statusCode, preview.json()], [400, INVITATION_REFUSED]);
    const accept = await post(t, '/dashboard/v1/invitation/accept', { token, name: 'Late', password: PASSWORD });
    assert.deepEqual([accept.statusCode, accept.json()], [400, INVITATION_REFUSED]);
    const users = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'late@example.com')
      .execute();
    assert.deepEqual(users, []);
  });
});

describe('password resets', () => {
  const t = useTestApp({ env: RATE_LIMITS });
  const org = useOrganizer(t);
  const RITA = 'rita@example.com';
  let ritaId: string;

  before(async () => {
    ritaId = (
      await t.createUser({ organizerId: org.id, role: 'manager', email: RITA, password: PASSWORD, name: 'Rita' })
    ).id;
  });

  const ask = (email: string) => post(t, '/dashboard/v1/password_resets', { email });
  const complete = (token: string, password: string) =>
    post(t, '/dashboard/v1/password_resets/complete', { token, password });

  test('202 for a known and an unknown address alike; only the known one gets a mail', async () => {
    const known = await ask(RITA);
    const unknown = await ask('nobody@example.com');
    const visible = (res: typeof known) => {
      // The request id differs, and so does the remaining count of the per-IP request limit.
      const { 'x-request-id': _id, ratelimit: _left, ...headers } = res.headers;
      return { status: res.statusCode, body: res.body, headers };
    };
    assert.deepEqual(visible(known), visible(unknown));
    assert.deepEqual([known.statusCode, known.body], [202, '']);

    const jobs = await t.database.db
      .selectFrom('email_jobs')
      .select(['recipient', 'kind', 'organizer_id', 'order_id', 'subject', 'status', 'link'])
      .execute();
    assert.equal(jobs.length, 1);
    const [job] = jobs;
    assert.match(job!.link!, /^http:\/\/127\.0\.0\.1:3000\/app\/reset\?token=[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(job, {
      recipient: RITA,
      kind: 'password_reset',
      organizer_id: null,
      order_id: null,
      subject: 'Reset your Marquee password',
      status: 'pending',
      link: job!.link,
    });

    const mail = mailOf(t);
    assert.equal(await mail.run(), 1);
    assert.deepEqual(
      mail.sent.map((m) => m.envelope.to),
      [[RITA]],
    );
    assert.ok(textOf(mail.sent[0]!).includes(`\nChoose a new password here:\n${job.link}\n`));
    const sent = await t.database.db.selectFrom('email_jobs').select(['status', 'link']).execute();
    assert.deepEqual(sent, [{ status: 'sent', link: null }]);
  });

  test('a reset link is good for one hour', async () => {
    await ask(RITA);
    const token = tokenOf(await latestLink(t, RITA));
    t.clock.advance(HOUR + 1000);
    const res = await complete(token, NEW_PASSWORD);
    assert.deepEqual([res.statusCode, res.json()], [400, RESET_REFUSED]);
    // The password did not change.
    assert.equal((await t.signIn(RITA, PASSWORD)).body.role, 'manager');
  });

  test('completing: a weak password changes nothing; then 204, every session ends, the new password signs in', async () => {
    const first = await t.signIn(RITA, PASSWORD);
    const second = await t.signIn(RITA, PASSWORD);
    await ask(RITA);
    const earlier = tokenOf(await latestLink(t, RITA));
    t.clock.advance(1000);
    await ask(RITA);
    const token = tokenOf(await latestLink(t, RITA));
    assert.notEqual(token, earlier);
    t.clock.advance(HOUR - 2000);

    for (const [weak, detail] of [
      ['short', TOO_SHORT(5)],
      ['password1234', COMMON],
      [RITA.toUpperCase(), IS_EMAIL],
    ] as const) {
      const res = await complete(token, weak);
      assert.deepEqual([res.statusCode, res.json()], [400, tooWeak(detail)], weak);
    }
    assert.equal((await t.dash(first, 'GET', '/dashboard/v1/session')).statusCode, 200, 'sessions live on');

    const res = await complete(token, NEW_PASSWORD);
    assert.deepEqual([res.statusCode, res.body], [204, '']);
    for (const session of [first, second]) {
      const after = await t.dash(session, 'GET', '/dashboard/v1/session');
      assert.deepEqual([after.statusCode, after.json()], [401, SIGN_IN_FIRST]);
    }
    const left = await sessionIdsOf(t, ritaId);
    assert.deepEqual(left, []);

    const old = await post(t, '/dashboard/v1/session', { email: RITA, password: PASSWORD });
    assert.deepEqual([old.statusCode, old.json()], [401, BAD_CREDENTIALS]);
    assert.equal((await t.signIn(RITA, NEW_PASSWORD)).body.role, 'manager');

    // The token was good once, and the other reset link of the user ended with it.
    for (const spent of [token, earlier]) {
      const again = await complete(spent, 'yet another long passphrase');
      assert.deepEqual([again.statusCode, again.json()], [400, RESET_REFUSED]);
    }
    assert.equal((await t.signIn(RITA, NEW_PASSWORD)).body.role, 'manager');
  });
});

describe("the first owner's set-up link", () => {
  const t = useTestApp({ env: RATE_LIMITS });

  test('the first start makes a link; it creates the owner once', async () => {
    const created = await ensureDefaultOrganizer(t.database.db, t.config.publicUrl, t.clock.now());
    assert.ok(created);
    assert.equal(t.config.publicUrl, 'http://127.0.0.1:3000');
    assert.match(created.ownerSetupUrl, /^http:\/\/127\.0\.0\.1:3000\/app\/setup\?token=[A-Za-z0-9_-]{32}$/);
    assert.equal(await ensureDefaultOrganizer(t.database.db, t.config.publicUrl, t.clock.now()), undefined);
    const token = tokenOf(created.ownerSetupUrl);
    const input = { token, email: 'first@example.com', name: 'First Owner', password: PASSWORD };

    const weak = await post(t, '/dashboard/v1/setup', { ...input, password: 'password1234' });
    assert.deepEqual([weak.statusCode, weak.json()], [400, tooWeak(COMMON)]);
    const missing = await post(t, '/dashboard/v1/setup', { token, email: 'first@example.com', password: PASSWORD });
    assert.deepEqual(
      [missing.statusCode, missing.json()],
      [400, problemOf(400, 'Missing required field `name` in body.', 'parameter_missing', 'name')],
    );

    const res = await post(t, '/dashboard/v1/setup', input);
    assert.equal(res.statusCode, 201);
    const user = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'first@example.com')
      .executeTakeFirstOrThrow();
    assert.deepEqual(sessionShape(res.json(), t.clock.now()), {
      object: 'session',
      user: { id: user.id, email: 'first@example.com', name: 'First Owner', totp_enabled: false },
      memberships: [{ organizer_id: created.organizerId, organizer_name: 'Default', role: 'owner' }],
      organizer_id: created.organizerId,
      role: 'owner',
      permissions: permissionsOf('owner'),
    });
    const session = sessionFrom(res);
    const team = await t.dash(session, 'GET', '/dashboard/v1/members');
    assert.equal(team.statusCode, 200);
    assert.deepEqual(
      team.json().data.map((m: Record<string, unknown>) => [m.email, m.role, m.status]),
      [['first@example.com', 'owner', 'active']],
    );

    for (const again of [input, { ...input, email: 'second@example.com' }]) {
      const res2 = await post(t, '/dashboard/v1/setup', again);
      assert.deepEqual([res2.statusCode, res2.json()], [400, SETUP_REFUSED]);
    }
    const users = await t.database.db.selectFrom('users').select('email').execute();
    assert.deepEqual(users, [{ email: 'first@example.com' }]);
    assert.equal((await t.signIn('first@example.com', PASSWORD)).body.role, 'owner');
  });
});
