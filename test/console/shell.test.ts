/**
 * The console's shell in a real browser (docs/console.md): sign-in as a person (the
 * session an HttpOnly cookie the page cannot read, nothing kept in sessionStorage or
 * localStorage), a refused password shown with the API's detail and request id, deep
 * links, the navigation filtered by the role's permissions (an owner, a viewer, a door
 * steward), sign-out, and no CSP violation or uncaught error on the way.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { navigation, OWNER_NAVIGATION, signIn, useConsoleService, VIEWER_NAVIGATION } from '../helpers/console.ts';

/** Waits until the page's title is `title` (a screen sets it in an effect, after it renders); fails after 5 s. */
async function titled(page: Page, title: string): Promise<void> {
  await page.waitForFunction((expected) => document.title === expected, title, { timeout: 5000 });
  assert.equal(await page.title(), title);
}

/** Everything the page's scripts can read of what the browser keeps for this origin. */
const readableStorage = (page: Page) =>
  page.evaluate(() => ({
    cookie: document.cookie,
    session: Object.fromEntries(Object.entries(sessionStorage)),
    local: Object.fromEntries(Object.entries(localStorage)),
  }));

describe('the console shell', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  test('sign in as a person: an HttpOnly session cookie, nothing in storage; sign out ends it', async () => {
    const page = await browser.newPage();
    const served = await page.goto(`${service.baseUrl}/app/`);
    assert.match(served!.headers()['content-security-policy']!, /^default-src 'none'; script-src 'self';/);
    await titled(page, 'Sign in · Marquee console');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'sign-in');
    await signIn(page, service.baseUrl, service.owner);

    // Home is the events list; the organizer, the person and the owner's whole navigation are shown.
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/events');
    assert.equal(await page.locator('.who .organizer').textContent(), 'Lighthouse Jazz Club');
    assert.equal(await page.locator('.who .user').textContent(), 'Olive Owner');
    assert.equal(await page.locator('.who .badge').textContent(), 'Owner');
    assert.deepEqual(await navigation(page), OWNER_NAVIGATION);
    await page.getByRole('link', { name: 'Profile' }).waitFor();

    // The session is a cookie the page's scripts cannot read; nothing else is kept.
    const cookies = await page.context().cookies();
    assert.deepEqual(
      cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path]),
      [['marquee_session', true, 'Strict', '/']],
    );
    assert.deepEqual(await readableStorage(page), { cookie: '', session: {}, local: {} });

    // A reload stays signed in: GET /dashboard/v1/session answers the session and its CSRF token again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.deepEqual(await readableStorage(page), { cookie: '', session: {}, local: {} });

    const signedOut = page.waitForResponse(
      (r) => r.url().endsWith('/dashboard/v1/session') && r.request().method() === 'DELETE',
    );
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    assert.equal((await signedOut).status(), 204);
    await page.getByLabel('E-mail address').waitFor();
    assert.deepEqual(await page.context().cookies(), []);
    // The old cookie is no use any more: the session ended on the server.
    const old = cookies[0]!;
    const replay = await service.t.inject({
      method: 'GET',
      url: '/dashboard/v1/session',
      headers: { cookie: `${old.name}=${old.value}` },
    });
    assert.equal(replay.statusCode, 401);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('a wrong password shows the API detail and the request id', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/app/`);
    const answer = page.waitForResponse(
      (r) => r.url().endsWith('/dashboard/v1/session') && r.request().method() === 'POST',
    );
    await page.getByLabel('E-mail address').fill(service.owner.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const response = await answer;
    assert.equal(response.status(), 401);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const requestId = response.headers()['x-request-id']!;
    assert.equal(await alert.innerText(), `The e-mail address or password is not correct.\n\nRequest id: ${requestId}`);
    assert.deepEqual(await page.context().cookies(), []);
    assert.deepEqual(await readableStorage(page), { cookie: '', session: {}, local: {} });
  });

  test('a deep link opens its screen after sign-in; an unknown path says so', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.goto(`${service.baseUrl}/app/no/such/screen`);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    await titled(page, 'Not found · Marquee console');
  });

  test('a viewer sees Events, Orders and Webhooks, and no write action', async () => {
    const { t, org } = service;
    const created = await t.api(org.key, 'POST', '/v1/events', {
      title: 'Read-only evening',
      venue: { name: 'Hall' },
      performances: [{ starts_at: '2027-04-01T18:00:00Z', capacity: 20 }],
      ticket_types: [{ name: 'Entry', price_minor: 900 }],
    });
    assert.equal(created.statusCode, 201, created.body);
    const hook = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/hook',
      event_types: ['order.created'],
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const viewer = await t.createUser({ organizerId: org.id, role: 'viewer', name: 'Vic Viewer' });

    const page = await browser.newPage();
    await signIn(page, service.baseUrl, viewer, '/app/events');
    assert.equal(await page.locator('.who .badge').textContent(), 'Viewer');
    assert.deepEqual(await navigation(page), VIEWER_NAVIGATION);
    await page.getByRole('link', { name: 'Read-only evening' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'New event' }).count(), 0);

    await page.getByRole('link', { name: 'Read-only evening' }).click();
    await page.getByRole('heading', { level: 1, name: 'Read-only evening' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Performances and availability' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Edit' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Archive event' }).count(), 0);
    assert.equal(await page.getByRole('main').getByRole('link', { name: 'Sell' }).count(), 0);
    assert.equal(await page.locator('main form').count(), 0);

    await page.goto(`${service.baseUrl}/app/webhooks`);
    await page.getByRole('link', { name: 'https://127.0.0.1:9/hook' }).click();
    await page.getByRole('heading', { level: 2, name: 'Deliveries' }).waitFor();
    for (const name of ['Rotate secret', 'Delete endpoint', 'Save endpoint', 'Recover']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    await page.goto(`${service.baseUrl}/app/webhooks`);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).count(), 0);

    // A screen the role lacks, opened by its address, is not there for it.
    for (const path of ['/app/sell', '/app/events/new', '/app/team', '/app/door']) {
      await page.goto(`${service.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    }
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'not-found');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('a door steward sees the door only, and lands on it', async () => {
    const { t, org } = service;
    const created = await t.api(org.key, 'POST', '/v1/events', {
      title: 'Door evening',
      venue: { name: 'Hall' },
      performances: [{ starts_at: '2027-04-02T18:00:00Z', capacity: 20 }],
      ticket_types: [{ name: 'Entry', price_minor: 900 }],
    });
    assert.equal(created.statusCode, 201, created.body);
    const steward = await t.createUser({ organizerId: org.id, role: 'door', name: 'Sam Steward' });
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, steward);
    await page.getByRole('heading', { level: 1, name: 'Door' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/door');
    assert.deepEqual(await navigation(page), ['Door']);
    // The door's event choice is open to `check_in` alone.
    await page.getByLabel('Event').locator('option', { hasText: 'Door evening' }).waitFor({ state: 'attached' });
    for (const path of ['/app/events', '/app/orders', '/app/webhooks', '/app/sell', '/app/team']) {
      await page.goto(`${service.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    }
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
