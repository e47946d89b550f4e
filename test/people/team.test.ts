/**
 * The team of an organizer through /dashboard/v1/members (docs/dashboard.md, "Team"):
 * the list, invitations by e-mail (the mail job, the mail, the link erased once sent),
 * inviting again, role changes, removal, and the rule that an organizer always keeps an
 * owner, also when two owners demote each other at the same moment (PostgreSQL).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import pg from 'pg';
import { permissionsOf } from '../../src/domain/people/permissions.ts';
import {
  problemOf,
  useOrganizer,
  useTestApp,
  type DashboardSession,
  type TestApp,
  type TestUser,
} from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import {
  INVITATION_REFUSED,
  mailOf,
  PASSWORD,
  post,
  sessionIdsOf,
  SIGN_IN_FIRST,
  textOf,
  UUID,
} from '../helpers/people.ts';
import { header, parseMime } from '../helpers/smtp-receiver.ts';

const LAST_OWNER_DEMOTED = problemOf(
  409,
  'Changing this role would leave this organizer without an owner. Make another member an owner first.',
  'last_owner',
);
const LAST_OWNER_REMOVED = problemOf(
  409,
  'Removing this member would leave this organizer without an owner. Make another member an owner first.',
  'last_owner',
);
const MEMBER_NOT_FOUND = problemOf(404, 'Member not found.', 'resource_not_found');
const LINK = /^http:\/\/127\.0\.0\.1:3000\/app\/invite\?token=[A-Za-z0-9_-]{32}$/;
const RATE_LIMITS = { RATE_LIMIT_SIGNIN_ACCOUNT_PER_MIN: '1000', RATE_LIMIT_SIGNIN_IP_PER_MIN: '1000' };

/** The e-mail jobs of one address, oldest first. */
function jobsOf(t: TestApp, recipient: string) {
  return t.database.db
    .selectFrom('email_jobs')
    .selectAll()
    .where('recipient', '=', recipient)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The token of the newest invitation link waiting to be mailed to an address (sent, it is erased). */
async function latestToken(t: TestApp, recipient: string): Promise<string> {
  const pending = (await jobsOf(t, recipient)).filter((job) => job.link !== null);
  const link = pending.at(-1)?.link;
  assert.ok(link, `a pending invitation job for ${recipient}`);
  return new URL(link).searchParams.get('token')!;
}

const preview = (t: TestApp, token: string) => post(t, '/dashboard/v1/invitation', { token });

async function membershipOf(t: TestApp, organizerId: string, userId: string) {
  return t.database.db
    .selectFrom('memberships')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** Another, new organizer with one owner: the organizer's id, the owner's and the owner's membership id. */
async function foreignOwner(t: TestApp) {
  const other = await t.createOrganizer();
  const stranger = await t.createUser({ organizerId: other.id, role: 'owner' });
  return { organizerId: other.id, userId: stranger.id, memberId: (await membershipOf(t, other.id, stranger.id)).id };
}

async function activeOwners(t: TestApp, organizerId: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('memberships')
    .select('user_id')
    .where('organizer_id', '=', organizerId)
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .execute();
  return rows.map((r) => r.user_id!);
}

describe('the team', () => {
  const t = useTestApp({ env: RATE_LIMITS });
  const org = useOrganizer(t);
  const people = {} as Record<'olive' | 'max' | 'dora', TestUser & { name: string; role: string; createdAt: string }>;
  let owner: DashboardSession;
  let ivy: Record<string, unknown>;
  let ivyToken = '';

  before(async () => {
    for (const [key, name, role] of [
      ['olive', 'Olive Owner', 'owner'],
      ['max', 'Max Manager', 'manager'],
      ['dora', 'Dora Door', 'door'],
    ] as const) {
      t.clock.advance(1000);
      const createdAt = t.clock.now().toISOString();
      const user = await t.createUser({ organizerId: org.id, role, name, email: `${key}@example.com` });
      people[key] = { ...user, name, role, createdAt };
    }
    owner = await t.signIn(people.olive.email, people.olive.password);
  });

  const memberOf = async (key: keyof typeof people, role?: string) => {
    const person = people[key];
    return {
      object: 'member',
      id: (await membershipOf(t, org.id, person.id)).id,
      email: person.email,
      name: person.name,
      role: role ?? person.role,
      status: 'active',
      user_id: person.id,
      invited_by: null,
      created_at: person.createdAt,
    };
  };

  test('an owner lists the members, oldest first, a page at a time', async () => {
    const all = await t.dash(owner, 'GET', '/dashboard/v1/members');
    assert.equal(all.statusCode, 200);
    const [olive, max, dora] = [await memberOf('olive'), await memberOf('max'), await memberOf('dora')];
    assert.deepEqual(all.json(), { object: 'list', data: [olive, max, dora], has_more: false });

    const first = await t.dash(owner, 'GET', '/dashboard/v1/members?limit=2');
    assert.deepEqual(first.json(), { object: 'list', data: [olive, max], has_more: true });
    const next = await t.dash(owner, 'GET', `/dashboard/v1/members?limit=2&starting_after=${max.id}`);
    assert.deepEqual(next.json(), { object: 'list', data: [dora], has_more: false });
  });

  test('an invitation: 201 invited member, a mail job, a mail with the link, then the link erased', async () => {
    t.clock.advance(1000);
    const invitedAt = t.clock.now().toISOString();
    const res = await t.dash(owner, 'POST', '/dashboard/v1/members', { email: 'ivy@example.com', role: 'box_office' });
    assert.equal(res.statusCode, 201);
    const member = res.json();
    assert.match(member.id, UUID);
    assert.deepEqual(member, {
      object: 'member',
      id: member.id,
      email: 'ivy@example.com',
      name: null,
      role: 'box_office',
      status: 'invited',
      user_id: null,
      invited_by: people.olive.id,
      created_at: invitedAt,
    });

    const [job, ...more] = await jobsOf(t, 'ivy@example.com');
    assert.deepEqual(more, []);
    assert.deepEqual(
      {
        kind: job!.kind,
        organizer_id: job!.organizer_id,
        order_id: job!.order_id,
        subject: job!.subject,
        status: job!.status,
      },
      {
        kind: 'invitation',
        organizer_id: org.id,
        order_id: null,
        subject: 'You are invited to join Test Organizer on Marquee',
        status: 'pending',
      },
    );
    assert.match(job!.link!, LINK);
    const link = job!.link!;
    ivyToken = new URL(link).searchParams.get('token')!;

    const mail = mailOf(t);
    assert.equal(await mail.run(), 1);
    assert.equal(mail.sent.length, 1);
    assert.deepEqual(mail.sent[0]!.envelope.to, ['ivy@example.com']);
    const parsed = parseMime(mail.sent[0]!.raw.toString('latin1'));
    assert.equal(header(parsed.headers, 'subject'), 'You are invited to join Test Organizer on Marquee');
    assert.equal(
      textOf(mail.sent[0]!),
      [
        'Hello,',
        '',
        'Olive Owner invited you to join Test Organizer on Marquee.',
        'Your role: box office.',
        '',
        'Accept the invitation here:',
        link,
        '',
        'This link can be used only once, within 72 hours.',
        '',
      ].join('\n'),
    );
    const sentJob = (await jobsOf(t, 'ivy@example.com'))[0]!;
    assert.deepEqual([sentJob.status, sentJob.link], ['sent', null]);

    const offered = await preview(t, new URL(link).searchParams.get('token')!);
    assert.equal(offered.statusCode, 200);
    assert.deepEqual(offered.json(), {
      organizer_name: 'Test Organizer',
      email: 'ivy@example.com',
      role: 'box_office',
      account_exists: false,
    });

    const list = await t.dash(owner, 'GET', '/dashboard/v1/members');
    assert.deepEqual(list.json().data.at(-1), member, 'the invitation is listed last');
    ivy = member;
  });

  test('inviting the address again sends a new link with the new role; the old link stops working', async () => {
    t.clock.advance(1000);
    const again = await t.dash(owner, 'POST', '/dashboard/v1/members', { email: 'ivy@example.com', role: 'viewer' });
    assert.equal(again.statusCode, 201);
    assert.deepEqual(again.json(), { ...ivy, role: 'viewer' }, 'the same invitation, with the new role');
    const jobs = await jobsOf(t, 'ivy@example.com');
    assert.deepEqual(
      jobs.map((j) => [j.kind, j.status]),
      [
        ['invitation', 'sent'],
        ['invitation', 'pending'],
      ],
    );
    assert.match(jobs[1]!.link!, LINK);
    const newToken = await latestToken(t, 'ivy@example.com');
    assert.notEqual(newToken, ivyToken);

    const old = await preview(t, ivyToken);
    assert.deepEqual([old.statusCode, old.json()], [400, INVITATION_REFUSED]);
    const offered = await preview(t, newToken);
    assert.equal(offered.statusCode, 200);
    assert.equal(offered.json().role, 'viewer');

    const mail = mailOf(t);
    assert.equal(await mail.run(), 1);
    assert.ok(textOf(mail.sent[0]!).includes(`\n${jobs[1]!.link!}\n`), 'the mail carries the new link');
    assert.ok(textOf(mail.sent[0]!).includes('\nYour role: viewer.\n'));
    const listed = (await t.dash(owner, 'GET', '/dashboard/v1/members')).json().data;
    assert.equal(listed.filter((m: { email: string }) => m.email === 'ivy@example.com').length, 1, 'one invitation');
  });

  test("inviting a member's address answers 409 resource_exists, whatever its case, and sends nothing", async () => {
    for (const email of ['max@example.com', 'MAX@Example.com']) {
      const res = await t.dash(owner, 'POST', '/dashboard/v1/members', { email, role: 'viewer' });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(
        res.json(),
        problemOf(409, 'max@example.com is already a member of this organizer.', 'resource_exists'),
      );
    }
    const jobs = await t.database.db
      .selectFrom('email_jobs')
      .select('recipient')
      .where('recipient', 'in', ['max@example.com', 'MAX@Example.com'])
      .execute();
    assert.deepEqual(jobs, []);
  });

  test('an owner changes a role: 200 and the member; the member holds the new role from the next request', async () => {
    const dora = await t.signIn(people.dora.email, people.dora.password);
    assert.equal(dora.body.role, 'door');
    const res = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${(await memberOf('dora')).id}`, {
      role: 'viewer',
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), await memberOf('dora', 'viewer'));
    const session = await t.dash(dora, 'GET', '/dashboard/v1/session');
    assert.deepEqual([session.json().role, session.json().permissions], ['viewer', permissionsOf('viewer')]);
    const back = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${(await memberOf('dora')).id}`, { role: 'door' });
    assert.deepEqual([back.statusCode, back.json()], [200, await memberOf('dora')]);
  });

  test('the last owner can be neither demoted nor removed', async () => {
    const olive = (await memberOf('olive')).id;
    for (const role of ['manager', 'box_office', 'door', 'viewer']) {
      const res = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${olive}`, { role });
      assert.deepEqual([res.statusCode, res.json()], [409, LAST_OWNER_DEMOTED], role);
    }
    const removed = await t.dash(owner, 'DELETE', `/dashboard/v1/members/${olive}`);
    assert.deepEqual([removed.statusCode, removed.json()], [409, LAST_OWNER_REMOVED]);
    // Making the owner an owner again changes nothing and is no demotion.
    const same = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${olive}`, { role: 'owner' });
    assert.deepEqual([same.statusCode, same.json()], [200, await memberOf('olive')]);
    assert.deepEqual(await activeOwners(t, org.id), [people.olive.id]);
  });

  test('with two owners each can demote the other once; the demotion of the last owner answers 409', async () => {
    const [olive, max] = [(await memberOf('olive')).id, (await memberOf('max')).id];
    const promoted = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${max}`, { role: 'owner' });
    assert.deepEqual([promoted.statusCode, promoted.json()], [200, await memberOf('max', 'owner')]);
    const maxSession = await t.signIn(people.max.email, people.max.password);

    // Max demotes Olive; Max is the last owner and cannot demote himself.
    const first = await t.dash(maxSession, 'PATCH', `/dashboard/v1/members/${olive}`, { role: 'manager' });
    assert.deepEqual([first.statusCode, first.json()], [200, await memberOf('olive', 'manager')]);
    const self = await t.dash(maxSession, 'PATCH', `/dashboard/v1/members/${max}`, { role: 'manager' });
    assert.deepEqual([self.statusCode, self.json()], [409, LAST_OWNER_DEMOTED]);
    // Olive, a manager now, may not touch the team at all.
    const refused = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${max}`, { role: 'manager' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'role_forbidden');

    // And the other way round.
    await t.dash(maxSession, 'PATCH', `/dashboard/v1/members/${olive}`, { role: 'owner' });
    const second = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${max}`, { role: 'manager' });
    assert.deepEqual([second.statusCode, second.json()], [200, await memberOf('max', 'manager')]);
    const last = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${olive}`, { role: 'viewer' });
    assert.deepEqual([last.statusCode, last.json()], [409, LAST_OWNER_DEMOTED]);
    assert.deepEqual(await activeOwners(t, org.id), [people.olive.id]);
  });

  test('removing a member: 204, and their session answers 401 at once', async () => {
    const dora = await t.signIn(people.dora.email, people.dora.password);
    assert.equal((await t.dash(dora, 'GET', '/dashboard/v1/session')).statusCode, 200);
    const id = (await memberOf('dora')).id;
    const res = await t.dash(owner, 'DELETE', `/dashboard/v1/members/${id}`);
    assert.deepEqual([res.statusCode, res.body], [204, '']);
    const after = await t.dash(dora, 'GET', '/dashboard/v1/session');
    assert.deepEqual([after.statusCode, after.json()], [401, SIGN_IN_FIRST]);
    const remaining = await sessionIdsOf(t, people.dora.id);
    assert.deepEqual(remaining, [], 'the sessions are gone, not only refused');
    const list = (await t.dash(owner, 'GET', '/dashboard/v1/members')).json().data as { id: string }[];
    assert.equal(
      list.some((m) => m.id === id),
      false,
    );
    const again = await t.dash(owner, 'DELETE', `/dashboard/v1/members/${id}`);
    assert.deepEqual([again.statusCode, again.json()], [404, MEMBER_NOT_FOUND]);
  });

  test('withdrawing an invitation: 204, and its link answers 400', async () => {
    const invited = await t.dash(owner, 'POST', '/dashboard/v1/members', { email: 'wanda@example.com', role: 'door' });
    assert.equal(invited.statusCode, 201);
    const token = await latestToken(t, 'wanda@example.com');
    assert.equal((await preview(t, token)).statusCode, 200);
    const res = await t.dash(owner, 'DELETE', `/dashboard/v1/members/${invited.json().id}`);
    assert.deepEqual([res.statusCode, res.body], [204, '']);
    const gone = await preview(t, token);
    assert.deepEqual([gone.statusCode, gone.json()], [400, INVITATION_REFUSED]);
    const accept = await post(t, '/dashboard/v1/invitation/accept', { token, name: 'Wanda', password: PASSWORD });
    assert.deepEqual([accept.statusCode, accept.json()], [400, INVITATION_REFUSED]);
  });

  test('bad input: a malformed address, an unknown role, a missing role, an unknown member', async () => {
    const cases: [unknown, number, ReturnType<typeof problemOf>][] = [
      [
        { email: 'not-an-address', role: 'viewer' },
        400,
        problemOf(400, '`email` must be a valid email.', 'parameter_invalid', 'email'),
      ],
      [
        { email: 'new@example.com', role: 'admin' },
        400,
        problemOf(400, '`role` must be one of: owner, manager, box_office, door, viewer.', 'parameter_invalid', 'role'),
      ],
      [
        { email: 'new@example.com' },
        400,
        problemOf(400, 'Missing required field `role` in body.', 'parameter_missing', 'role'),
      ],
    ];
    for (const [body, status, problem] of cases) {
      const res = await t.dash(owner, 'POST', '/dashboard/v1/members', body);
      assert.deepEqual([res.statusCode, res.json()], [status, problem], JSON.stringify(body));
    }
    assert.deepEqual(await jobsOf(t, 'new@example.com'), []);

    const unknownRole = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${(await memberOf('max')).id}`, {
      role: 'superuser',
    });
    assert.deepEqual(
      [unknownRole.statusCode, unknownRole.json()],
      [
        400,
        problemOf(400, '`role` must be one of: owner, manager, box_office, door, viewer.', 'parameter_invalid', 'role'),
      ],
    );
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, url, body] of [
      ['PATCH', `/dashboard/v1/members/${unknown}`, { role: 'viewer' }],
      ['DELETE', `/dashboard/v1/members/${unknown}`, undefined],
      ['PATCH', '/dashboard/v1/members/not-an-id', { role: 'viewer' }],
    ] as const) {
      const res = await t.dash(owner, method, url, body);
      assert.deepEqual([res.statusCode, res.json()], [404, MEMBER_NOT_FOUND], `${method} ${url}`);
    }
  });

  test('an invited owner is no owner yet; an owner of two may leave, and their session ends', async () => {
    const invited = await t.dash(owner, 'POST', '/dashboard/v1/members', { email: 'otis@example.com', role: 'owner' });
    assert.equal(invited.statusCode, 201);
    const olive = (await memberOf('olive')).id;
    const demoted = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${olive}`, { role: 'manager' });
    assert.deepEqual([demoted.statusCode, demoted.json()], [409, LAST_OWNER_DEMOTED], 'the invitation does not count');

    const max = (await memberOf('max')).id;
    assert.equal((await t.dash(owner, 'PATCH', `/dashboard/v1/members/${max}`, { role: 'owner' })).statusCode, 200);
    const maxSession = await t.signIn(people.max.email, people.max.password);
    const left = await t.dash(maxSession, 'DELETE', `/dashboard/v1/members/${max}`);
    assert.deepEqual([left.statusCode, left.body], [204, '']);
    const after = await t.dash(maxSession, 'GET', '/dashboard/v1/session');
    assert.deepEqual([after.statusCode, after.json()], [401, SIGN_IN_FIRST]);
    assert.deepEqual(await activeOwners(t, org.id), [people.olive.id]);
    // With no membership left, Max cannot sign in at all.
    const signIn = await post(t, '/dashboard/v1/session', { email: people.max.email, password: people.max.password });
    assert.deepEqual(
      [signIn.statusCode, signIn.json()],
      [
        403,
        problemOf(
          403,
          'This account is no longer a member of any organizer. Ask an owner of your organizer to invite you again.',
          'no_membership',
        ),
      ],
    );
  });

  test("a cursor that is not a member of this organizer's list answers 400 invalid_cursor", async () => {
    const id = (await foreignOwner(t)).memberId;
    const res = await t.dash(owner, 'GET', `/dashboard/v1/members?starting_after=${id}`);
    assert.deepEqual(
      [res.statusCode, res.json()],
      [
        400,
        problemOf(
          400,
          `starting_after \`${id}\` is not the id of an item in this list.`,
          'invalid_cursor',
          'starting_after',
        ),
      ],
    );
  });

  test("another organizer's member is no member here", async () => {
    const stranger = await foreignOwner(t);
    const id = stranger.memberId;
    const patched = await t.dash(owner, 'PATCH', `/dashboard/v1/members/${id}`, { role: 'viewer' });
    assert.deepEqual([patched.statusCode, patched.json()], [404, MEMBER_NOT_FOUND]);
    const removed = await t.dash(owner, 'DELETE', `/dashboard/v1/members/${id}`);
    assert.deepEqual([removed.statusCode, removed.json()], [404, MEMBER_NOT_FOUND]);
    assert.deepEqual(await activeOwners(t, stranger.organizerId), [stranger.userId]);
  });
});

describe(
  'two owners demoting each other at the same moment',
  { skip: !onPostgres && 'PGlite runs one statement at a time' },
  () => {
    const t = useTestApp({ env: RATE_LIMITS });
    const org = useOrganizer(t);
    let a: TestUser;
    let b: TestUser;
    const sessions: Record<string, DashboardSession> = {};
    const ids: Record<string, string> = {};

    before(async () => {
      a = await t.createUser({ organizerId: org.id, role: 'owner' });
      b = await t.createUser({ organizerId: org.id, role: 'owner' });
      for (const user of [a, b]) {
        sessions[user.id] = await t.signIn(user.email, user.password);
        ids[user.id] = (await membershipOf(t, org.id, user.id)).id;
      }
    });

    /** A demotes B while B demotes A; `gate` runs while both requests are in flight. */
    async function round(gate?: () => Promise<void>) {
      const sent = Promise.all([
        t.dash(sessions[a.id]!, 'PATCH', `/dashboard/v1/members/${ids[b.id]}`, { role: 'manager' }),
        t.dash(sessions[b.id]!, 'PATCH', `/dashboard/v1/members/${ids[a.id]}`, { role: 'manager' }),
      ]);
      if (gate) await gate();
      const [byA, byB] = await sent;
      const [winner, loser, refusal] = byA.statusCode === 200 ? [a, b, byB] : [b, a, byA];
      const outcome = `${byA.statusCode} ${byA.body} / ${byB.statusCode} ${byB.body}`;
      assert.deepEqual(await activeOwners(t, org.id), [winner.id], `one owner remains: ${outcome}`);
      const reset = await t.dash(sessions[winner.id]!, 'PATCH', `/dashboard/v1/members/${ids[loser.id]}`, {
        role: 'owner',
      });
      assert.equal(reset.statusCode, 200, outcome);
      return { statuses: [byA.statusCode, byB.statusCode].sort(), refusal: refusal.json(), outcome };
    }

    test('both authenticated as owners, then racing for the owner rows: one 200, one 409 last_owner', async () => {
      // A transaction of the test holds the owner rows until both PATCHes wait for them:
      // both passed the role check as owners, and the row locks alone decide.
      const holder = new pg.Client({ connectionString: t.database.url });
      await holder.connect();
      try {
        for (let i = 1; i <= 20; i++) {
          await holder.query('BEGIN');
          await holder.query(
            "SELECT id FROM memberships WHERE organizer_id = $1 AND role = 'owner' AND status = 'active' FOR UPDATE",
            [org.id],
          );
          const { statuses, refusal, outcome } = await round(async () => {
            for (let waited = 0; ; waited++) {
              const { rows } = await holder.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
              );
              if (rows[0]!.n === 2) break;
              assert.ok(waited < 500, 'both PATCHes wait for the owner rows');
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
            await holder.query('COMMIT');
          });
          assert.deepEqual(statuses, [200, 409], `round ${i}: ${outcome}`);
          assert.deepEqual(refusal, LAST_OWNER_DEMOTED, `round ${i}`);
        }
      } finally {
        await holder.end();
      }
    });

    test('racing freely: never two demotions; the loser hears 409 last_owner, or 403 once demoted', async () => {
      // Without the gate, the loser's request may be authenticated after the winner's
      // demotion committed: it then comes from a manager, and the role check refuses it.
      const demoted = problemOf(
        403,
        'Your role (manager) does not include the `team` permission this operation needs. An owner can change your role.',
        'role_forbidden',
        'team',
      );
      for (let i = 1; i <= 20; i++) {
        const { statuses, refusal, outcome } = await round();
        assert.ok(statuses[0] === 200 && [403, 409].includes(statuses[1]!), `round ${i}: ${outcome}`);
        assert.deepEqual(refusal, statuses[1] === 409 ? LAST_OWNER_DEMOTED : demoted, `round ${i}`);
      }
    });
  },
);
