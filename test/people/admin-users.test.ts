/**
 * POST /admin/v1/users (docs/dashboard.md, "One-time links"): an operator creates a user
 * with a password and a membership directly. The user can sign in at once; the password
 * policy applies; an address that has an account, in any case, is refused; only the
 * admin token opens it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useOrganizer, useTestApp, type TestApp } from '../helpers/app.ts';
import { COMMON, IS_EMAIL, PASSWORD, post, TOO_SHORT, tooWeak, UUID } from '../helpers/people.ts';

const UNKNOWN_ORGANIZER = '00000000-0000-4000-8000-000000000000';

function usersNamed(t: TestApp, email: string) {
  return t.database.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute();
}

describe('POST /admin/v1/users', () => {
  const t = useTestApp({ env: { RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '1000', RATE_LIMIT_SIGNIN_IP_PER_MIN: '1000' } });
  const org = useOrganizer(t);

  const create = (body: Record<string, unknown>) => t.admin('POST', '/admin/v1/users', body);

  test('creates the user with a membership: 201 and the user; they sign in with the password', async () => {
    const res = await create({
      email: 'ada@example.com',
      password: PASSWORD,
      name: 'Ada Lovelace',
      organizer_id: org.id,
      role: 'manager',
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, UUID);
    assert.deepEqual(body, {
      object: 'user',
      id: body.id,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      organizer_id: org.id,
      role: 'manager',
    });

    const membership = await t.database.db
      .selectFrom('memberships')
      .select(['organizer_id', 'user_id', 'email', 'role', 'status', 'invited_by'])
      .where('user_id', '=', body.id)
      .execute();
    assert.deepEqual(membership, [
      {
        organizer_id: org.id,
        user_id: body.id,
        email: 'ada@example.com',
        role: 'manager',
        status: 'active',
        invited_by: null,
      },
    ]);
    const user = await t.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.match(user.password_hash, /^\$argon2id\$/, 'stored as argon2id, never in clear');

    const session = await t.signIn('ada@example.com', PASSWORD);
    assert.deepEqual(
      {
        user: session.body.user,
        memberships: session.body.memberships,
        organizer_id: session.body.organizer_id,
        role: session.body.role,
      },
      {
        user: { id: body.id, email: 'ada@example.com', name: 'Ada Lovelace', totp_enabled: false },
        memberships: [{ organizer_id: org.id, organizer_name: 'Test Organizer', role: 'manager' }],
        organizer_id: org.id,
        role: 'manager',
      },
    );
  });

  test('the name is optional: the user has an empty one', async () => {
    const res = await create({ email: 'nameless@example.com', password: PASSWORD, organizer_id: org.id, role: 'door' });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json(), {
      object: 'user',
      id: res.json().id,
      email: 'nameless@example.com',
      name: '',
      organizer_id: org.id,
      role: 'door',
    });
    const session = await t.signIn('nameless@example.com', PASSWORD);
    assert.equal(session.body.role, 'door');
  });

  test('a pending invitation of the address is answered by the membership: one member, the link gone', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const invited = await t.dash(session, 'POST', '/dashboard/v1/members', {
      email: 'Pat@example.com',
      role: 'viewer',
    });
    assert.equal(invited.statusCode, 201);
    const job = await t.database.db
      .selectFrom('email_jobs')
      .select('link')
      .where('recipient', '=', 'Pat@example.com')
      .executeTakeFirstOrThrow();
    const token = new URL(job.link!).searchParams.get('token')!;

    const res = await create({ email: 'pat@example.com', password: PASSWORD, organizer_id: org.id, role: 'manager' });
    assert.equal(res.statusCode, 201);
    const team = (await t.dash(session, 'GET', '/dashboard/v1/members')).json().data as Record<string, unknown>[];
    assert.deepEqual(
      team.filter((m) => String(m.email).toLowerCase() === 'pat@example.com').map((m) => [m.role, m.status, m.user_id]),
      [['manager', 'active', res.json().id]],
    );
    const preview = await post(t, '/dashboard/v1/invitation', { token });
    assert.equal(preview.statusCode, 400);
    assert.equal(preview.json().code, 'link_invalid');
  });

  test('an address that has an account answers 409, whatever its case and organizer', async () => {
    const other = await t.createOrganizer();
    for (const [email, organizerId] of [
      ['ada@example.com', org.id],
      ['ADA@Example.COM', org.id],
      ['ada@example.com', other.id],
    ] as const) {
      const res = await create({ email, password: PASSWORD, organizer_id: organizerId, role: 'viewer' });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(res.json(), problemOf(409, `An account for ${email} already exists.`, 'resource_exists'));
    }
    assert.deepEqual((await usersNamed(t, 'ada@example.com')).length, 1);
    const memberships = await t.database.db
      .selectFrom('memberships')
      .select('organizer_id')
      .where('email', '=', 'ada@example.com')
      .execute();
    assert.deepEqual(memberships, [{ organizer_id: org.id }], 'no membership was added');
  });

  test('a weak password answers 400 password_too_weak naming `password`, and creates nothing', async () => {
    for (const [password, detail] of [
      ['short', TOO_SHORT(5)],
      ['ünïcödé-pw', TOO_SHORT(10)],
      ['x'.repeat(257), 'The password must be at most 256 characters long; it has 257.'],
      ['PassWord1234', COMMON],
      ['Weak-One-Address@Example.com', IS_EMAIL],
      ['weak-one-address', IS_EMAIL],
    ] as const) {
      const res = await create({
        email: 'weak-one-address@example.com',
        password,
        organizer_id: org.id,
        role: 'viewer',
      });
      assert.deepEqual([res.statusCode, res.json()], [400, tooWeak(detail)], password);
    }
    assert.deepEqual(await usersNamed(t, 'weak-one-address@example.com'), []);
  });

  test('an unknown organizer answers 404, and creates no user', async () => {
    const res = await create({
      email: 'orphan@example.com',
      password: PASSWORD,
      organizer_id: UNKNOWN_ORGANIZER,
      role: 'owner',
    });
    assert.deepEqual([res.statusCode, res.json()], [404, problemOf(404, 'Organizer not found.', 'resource_not_found')]);
    assert.deepEqual(await usersNamed(t, 'orphan@example.com'), []);
  });

  test('bad input: an unknown role, a malformed address, a missing organizer', async () => {
    const cases: [Record<string, unknown>, ReturnType<typeof problemOf>][] = [
      [
        { email: 'bad@example.com', password: PASSWORD, organizer_id: org.id, role: 'admin' },
        problemOf(400, '`role` must be one of: owner, manager, box_office, door, viewer.', 'parameter_invalid', 'role'),
      ],
      [
        { email: 'not-an-address', password: PASSWORD, organizer_id: org.id, role: 'viewer' },
        problemOf(400, '`email` must be a valid email.', 'parameter_invalid', 'email'),
      ],
      [
        { email: 'bad@example.com', password: PASSWORD, role: 'viewer' },
        problemOf(400, 'Missing required field `organizer_id` in body.', 'parameter_missing', 'organizer_id'),
      ],
    ];
    for (const [body, problem] of cases) {
      const res = await create(body);
      assert.deepEqual([res.statusCode, res.json()], [400, problem], JSON.stringify(body));
    }
    assert.deepEqual(await usersNamed(t, 'bad@example.com'), []);
  });

  test('without the admin token: 401, whatever else is sent', async () => {
    const body = JSON.stringify({
      email: 'sneaky@example.com',
      password: PASSWORD,
      organizer_id: org.id,
      role: 'owner',
    });
    const admin401 = problemOf(
      401,
      'A valid admin token is required: send it as "Authorization: Bearer <ADMIN_TOKEN>".',
      'unauthorized',
    );
    for (const headers of [
      {},
      { authorization: 'Bearer not-the-admin-token' },
      { authorization: `Bearer ${org.key}` },
    ]) {
      const res = await t.inject({
        method: 'POST',
        url: '/admin/v1/users',
        headers: { 'content-type': 'application/json', ...headers },
        payload: body,
      });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="marquee-admin"');
      assert.deepEqual(res.json(), admin401);
    }
    // A signed-in owner's session is no admin token either.
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const res = await t.inject({
      method: 'POST',
      url: '/admin/v1/users',
      headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-csrf-token': session.csrf },
      payload: body,
    });
    assert.deepEqual([res.statusCode, res.json()], [401, admin401]);
    assert.deepEqual(await usersNamed(t, 'sneaky@example.com'), []);
  });
});
