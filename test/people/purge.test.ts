/**
 * The retention purge of people's records (docs/dashboard.md, "Sessions and their
 * defences"): ended sessions and one-time links 30 days past their expiry go; live ones
 * stay. On both engines, with the injectable clock.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { purgeEndedPeopleRecords } from '../../src/workers/people-purge.ts';
import { createTestApp, DASHBOARD_ORIGIN, type TestApp } from '../helpers/app.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let t: TestApp;

before(async () => {
  t = await createTestApp({ env: { SESSION_IDLE_TIMEOUT: '2h', SESSION_ABSOLUTE_TIMEOUT: '1d' } });
});
after(async () => {
  await t.close();
});

const count = async (table: 'user_sessions' | 'one_time_links') =>
  Number(
    (
      await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

test('ended sessions and links expired 30 days ago go; live ones stay', async () => {
  const org = await t.createOrganizer();
  const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
  const idle = await t.signIn(owner.email, owner.password);
  t.clock.advance(HOUR);
  const live = await t.signIn(owner.email, owner.password);
  // An invitation's link (72 h) and a reset link (1 h).
  assert.equal(
    (await t.dash(live, 'POST', '/dashboard/v1/members', { email: 'door@example.com', role: 'door' })).statusCode,
    201,
  );
  const reset = await t.inject({
    method: 'POST',
    url: '/dashboard/v1/password_resets',
    headers: { origin: DASHBOARD_ORIGIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ email: owner.email }),
  });
  assert.equal(reset.statusCode, 202);
  const deps = { db: t.database.db, clock: t.clock, sessions: t.config.sessions };

  // 1 h 30 min after the first sign-in: both sessions are within the 2 h idle timeout.
  t.clock.advance(30 * 60_000);
  assert.deepEqual(await purgeEndedPeopleRecords(deps), { sessions: 0, links: 0 });
  // 2 h 1 min after it: the first is idle, the second (signed in an hour later) is not.
  t.clock.advance(31 * 60_000);
  assert.deepEqual(await purgeEndedPeopleRecords(deps), { sessions: 1, links: 0 });
  assert.equal((await t.dash(idle, 'GET', '/dashboard/v1/session')).statusCode, 401);
  assert.equal((await t.dash(live, 'GET', '/dashboard/v1/session')).statusCode, 200);
  assert.equal(await count('user_sessions'), 1);

  // Kept alive by use, the second session still ends a day after its sign-in.
  for (let hours = 0; hours < 22; hours++) {
    t.clock.advance(HOUR);
    assert.equal((await t.dash(live, 'GET', '/dashboard/v1/session')).statusCode, 200, `hour ${hours}`);
  }
  t.clock.advance(HOUR);
  assert.deepEqual(await purgeEndedPeopleRecords(deps), { sessions: 1, links: 0 });
  assert.equal(await count('user_sessions'), 0);

  // The reset link (1 h) goes 30 days after it expired; the invitation (72 h) about three days later.
  assert.equal(await count('one_time_links'), 2);
  t.clock.advance(30 * DAY);
  assert.deepEqual(await purgeEndedPeopleRecords(deps), { sessions: 0, links: 1 });
  t.clock.advance(3 * DAY);
  assert.deepEqual(await purgeEndedPeopleRecords(deps), { sessions: 0, links: 1 });
  assert.equal(await count('one_time_links'), 0);
});
