/**
 * The dashboard's cross-site defences (docs/dashboard.md, "Sessions and their defences",
 * CSRF): every POST, PATCH and DELETE to /dashboard/v1 needs the service's own Origin (or,
 * without one, Sec-Fetch-Site: same-origin), a Sec-Fetch-Site of cross-site or same-site is
 * refused whatever the Origin, and a signed-in write needs the session's own x-csrf-token.
 * Each failure is 403 csrf_failed with the detail of the check that failed, and changes
 * nothing. Reads need none of it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { DASHBOARD_ORIGIN, problemOf, type DashboardSession, useOrganizer, useTestApp } from '../helpers/app.ts';
import { PROBLEM, sessionIdsOf, UNTHROTTLED } from '../helpers/people.ts';
import { rowCounts } from '../helpers/row-counts.ts';

const csrf = (detail: string) => problemOf(403, detail, 'csrf_failed');
const FOREIGN_ORIGIN = (origin: string) =>
  csrf(`The Origin ${origin} is not this service; the dashboard API takes writes from its own pages only.`);
const NO_ORIGIN = csrf(
  'A write to the dashboard API needs an Origin header naming this service (browsers send it); none was sent.',
);
const FETCH_SITE = (site: string) =>
  csrf(
    `This request came from another site (Sec-Fetch-Site: ${site}); the dashboard API takes writes from its own pages only.`,
  );
const NO_TOKEN = csrf(
  'A write to the dashboard API needs the x-csrf-token header: the csrf_token of the session body.',
);
const WRONG_TOKEN = csrf(
  'The x-csrf-token header is not this session’s token (it changes at every sign-in): read it again from GET /dashboard/v1/session.',
);

function assertRefused(res: LightMyRequestResponse, expected: ReturnType<typeof csrf>, what: string): void {
  assert.equal(res.statusCode, 403, `${what}: ${res.body}`);
  assert.equal(res.headers['content-type'], PROBLEM, what);
  assert.equal(res.headers['set-cookie'], undefined, what);
  assert.deepEqual(res.json(), expected, what);
}

describe('CSRF on /dashboard/v1 writes', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  /** A raw request with the cookie and exactly these headers (no Origin or token unless given). */
  const raw = (
    session: DashboardSession,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    t.inject({
      method,
      url,
      headers: {
        cookie: session.cookie,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /**
   * Sends each refused write (a rename, a sign-out everywhere, a switch of organizer) with
   * these headers and checks the refusal; then that the session lives, unrenamed, and that
   * no row of any table changed.
   */
  async function assertEveryWriteRefused(
    session: DashboardSession,
    headers: Record<string, string>,
    expected: ReturnType<typeof csrf>,
    what: string,
  ): Promise<void> {
    const counts = await rowCounts(t.database.db);
    assertRefused(await raw(session, 'PATCH', '/dashboard/v1/profile', headers, { name: 'Mallory' }), expected, what);
    assertRefused(await raw(session, 'DELETE', '/dashboard/v1/session?everywhere=true', headers), expected, what);
    assertRefused(
      await raw(session, 'POST', '/dashboard/v1/session/organizer', headers, { organizer_id: org.id }),
      expected,
      what,
    );
    assertRefused(
      await raw(session, 'POST', '/dashboard/v1/members', headers, { email: 'mallory@example.com', role: 'owner' }),
      expected,
      what,
    );
    const after = await t.dash(session, 'GET', '/dashboard/v1/session');
    assert.equal(after.statusCode, 200, `${what}: the session lives`);
    assert.equal(after.json().user.name, 'Test Person', `${what}: not renamed`);
    assert.deepEqual(await rowCounts(t.database.db), counts, `${what}: no row changed`);
  }

  /** The writes of `session`, from its own page but with a token that is not its own. */
  const assertTokenRefused = (session: DashboardSession, token: string, what: string) =>
    assertEveryWriteRefused(session, { origin: DASHBOARD_ORIGIN, 'x-csrf-token': token }, WRONG_TOKEN, what);

  const signedIn = async () => {
    const user = await t.createUser({ organizerId: org.id, role: 'owner' });
    return { user, session: await t.signIn(user.email, user.password) };
  };

  test('the console’s own write passes: its Origin and its token', async () => {
    const { session } = await signedIn();
    const res = await t.dash(session, 'PATCH', '/dashboard/v1/profile', { name: 'Ada' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().user.name, 'Ada');
  });

  test('without Origin, Sec-Fetch-Site: same-origin and the token pass', async () => {
    const { session } = await signedIn();
    const res = await raw(
      session,
      'PATCH',
      '/dashboard/v1/profile',
      { 'sec-fetch-site': 'same-origin', 'x-csrf-token': session.csrf },
      { name: 'Ada' },
    );
    assert.equal(res.statusCode, 200, res.body);
  });

  test('a foreign Origin → 403, nothing changed', async () => {
    const { session } = await signedIn();
    await assertEveryWriteRefused(
      session,
      { origin: 'https://evil.example', 'x-csrf-token': session.csrf },
      FOREIGN_ORIGIN('https://evil.example'),
      'foreign Origin',
    );
  });

  test('origins that only look like this service → 403', async () => {
    const { session } = await signedIn();
    for (const origin of [
      'null',
      'https://localhost',
      'http://localhost:8080',
      'http://localhost.evil.example',
      'http://evil.example#http://localhost',
      'not a url',
    ])
      await assertEveryWriteRefused(session, { origin, 'x-csrf-token': session.csrf }, FOREIGN_ORIGIN(origin), origin);
  });

  test('no Origin and no Sec-Fetch-Site → 403', async () => {
    const { session } = await signedIn();
    await assertEveryWriteRefused(session, { 'x-csrf-token': session.csrf }, NO_ORIGIN, 'no Origin');
  });

  test('Sec-Fetch-Site: cross-site or same-site → 403 even with the right Origin and token', async () => {
    const { session } = await signedIn();
    for (const site of ['cross-site', 'same-site', 'none'])
      await assertEveryWriteRefused(
        session,
        { origin: DASHBOARD_ORIGIN, 'sec-fetch-site': site, 'x-csrf-token': session.csrf },
        FETCH_SITE(site),
        `Sec-Fetch-Site: ${site}`,
      );
  });

  test('a missing or empty x-csrf-token → 403', async () => {
    const { session } = await signedIn();
    await assertEveryWriteRefused(session, { origin: DASHBOARD_ORIGIN }, NO_TOKEN, 'no token');
    await assertEveryWriteRefused(session, { origin: DASHBOARD_ORIGIN, 'x-csrf-token': '' }, NO_TOKEN, 'empty token');
  });

  test('a stale token, from an earlier session of the same user, → 403', async () => {
    const { user, session: earlier } = await signedIn();
    const current = await t.signIn(user.email, user.password);
    assert.notEqual(current.csrf, earlier.csrf);
    await assertTokenRefused(current, earlier.csrf, 'stale token');
    // The earlier session signed out: its token still opens nothing of the current one.
    assert.equal((await t.dash(earlier, 'DELETE', '/dashboard/v1/session')).statusCode, 204);
    await assertTokenRefused(current, earlier.csrf, 'token of a signed-out session');
  });

  test('the right token of another user’s session → 403', async () => {
    const { session: mine } = await signedIn();
    const { session: theirs } = await signedIn();
    await assertTokenRefused(mine, theirs.csrf, 'another user’s token');
  });

  test('a token that differs in case, or with its own prefix only → 403', async () => {
    const { session } = await signedIn();
    for (const token of [
      session.csrf.toUpperCase() === session.csrf ? session.csrf.toLowerCase() : session.csrf.toUpperCase(),
      session.csrf.slice(0, 16),
      `${session.csrf}x`,
      ` ${session.csrf}`,
    ])
      await assertTokenRefused(session, token, token);
  });

  test('a GET needs neither Origin nor token', async () => {
    const { session } = await signedIn();
    const variants: Record<string, string>[] = [
      {},
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
    ];
    for (const headers of variants) {
      const res = await raw(session, 'GET', '/dashboard/v1/session', headers);
      assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
      const events = await raw(session, 'GET', '/dashboard/v1/events', headers);
      assert.equal(events.statusCode, 200, `${JSON.stringify(headers)}: ${events.body}`);
    }
  });

  test('another origin cannot read a signed-in answer: CORS never allows credentials', async () => {
    const { session } = await signedIn();
    const res = await raw(session, 'GET', '/dashboard/v1/session', { origin: 'https://evil.example' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.notEqual(res.headers['access-control-allow-origin'], 'https://evil.example');
    const preflight = await t.inject({
      method: 'OPTIONS',
      url: '/dashboard/v1/session',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'DELETE',
        'access-control-request-headers': 'x-csrf-token',
      },
    });
    assert.equal(preflight.headers['access-control-allow-credentials'], undefined);
    assert.notEqual(preflight.headers['access-control-allow-origin'], 'https://evil.example');
  });

  test('sign-in itself: a foreign Origin, no Origin, or a cross-site fetch → 403 and no session', async () => {
    const user = await t.createUser({ organizerId: org.id, role: 'viewer' });
    const cases: [Record<string, string>, ReturnType<typeof csrf>][] = [
      [{ origin: 'https://evil.example' }, FOREIGN_ORIGIN('https://evil.example')],
      [{}, NO_ORIGIN],
      [{ origin: DASHBOARD_ORIGIN, 'sec-fetch-site': 'cross-site' }, FETCH_SITE('cross-site')],
      [{ 'sec-fetch-site': 'same-site' }, FETCH_SITE('same-site')],
    ];
    for (const [headers, expected] of cases) {
      const res = await t.inject({
        method: 'POST',
        url: '/dashboard/v1/session',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({ email: user.email, password: user.password }),
      });
      assertRefused(res, expected, JSON.stringify(headers));
    }
    assert.deepEqual(await sessionIdsOf(t, user.id), []);
    // From the service's own page (or same-origin fetch metadata alone), it works.
    const ok = await t.inject({
      method: 'POST',
      url: '/dashboard/v1/session',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      payload: JSON.stringify({ email: user.email, password: user.password }),
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  test('the one-time link routes (no session) are checked for their origin too', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/dashboard/v1/password_resets',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      payload: JSON.stringify({ email: 'someone@example.com' }),
    });
    assertRefused(res, FOREIGN_ORIGIN('https://evil.example'), 'password reset from a foreign origin');
  });

  test('a cross-site write without a session is refused as cross-site before anything else', async () => {
    const res = await t.inject({
      method: 'DELETE',
      url: '/dashboard/v1/session',
      headers: { origin: 'https://evil.example' },
    });
    assertRefused(res, FOREIGN_ORIGIN('https://evil.example'), 'no session, foreign origin');
    const sameOrigin = await t.inject({
      method: 'DELETE',
      url: '/dashboard/v1/session',
      headers: { origin: DASHBOARD_ORIGIN },
    });
    assert.equal(sameOrigin.statusCode, 401);
  });
});
