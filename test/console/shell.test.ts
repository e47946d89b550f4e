/**
 * The console's shell in a real browser (docs/console.md): sign-in with an API key kept
 * in sessionStorage only (never a cookie), a key the API refuses shown with its detail
 * and request id, deep links, the navigation, sign-out clearing the key, and no CSP
 * violation or uncaught error on the way.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';

const STORAGE_KEY = 'marquee.console.apiKey';

/** Waits until the page's title is `title` (a screen sets it in an effect, after it renders); fails after 5 s. */
async function titled(page: Page, title: string): Promise<void> {
  await page.waitForFunction((expected) => document.title === expected, title, { timeout: 5000 });
  assert.equal(await page.title(), title);
}

describe('the console shell', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  test('sign in keeps the key in sessionStorage only; sign out forgets it', async () => {
    const page = await browser.newPage();
    const served = await page.goto(`${service.baseUrl}/app/`);
    assert.match(served!.headers()['content-security-policy']!, /^default-src 'none'; script-src 'self';/);
    await titled(page, 'Sign in · Marquee console');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'sign-in');
    await signIn(page, service.baseUrl, service.org.key);

    // Home is the events list; the organizer and the navigation are shown.
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/events');
    assert.equal(await page.locator('.who > span').first().textContent(), 'Lighthouse Jazz Club');
    assert.deepEqual(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents(), [
      'Events',
      'Sell',
      'Orders',
      'Webhooks',
      'Door',
    ]);
    assert.equal(await page.evaluate((k) => sessionStorage.getItem(k), STORAGE_KEY), service.org.key);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    assert.deepEqual(await page.context().cookies(), []);
    assert.equal(await page.evaluate(() => document.cookie), '');

    // A reload in the same tab stays signed in (sessionStorage survives it).
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    assert.equal(await page.evaluate((k) => sessionStorage.getItem(k), STORAGE_KEY), null);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('a refused key shows the API detail and the request id, and is not kept', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/app/`);
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/api_key'));
    await page.getByLabel('API key').fill('mqk_not-a-real-key-at-all-000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const response = await answer;
    assert.equal(response.status(), 401);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const requestId = response.headers()['x-request-id']!;
    assert.equal(await alert.innerText(), `${(await response.json()).detail}\n\nRequest id: ${requestId}`);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  });

  test('a deep link opens its screen after sign-in; an unknown path says so', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.org.key, '/app/events');
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await page.goto(`${service.baseUrl}/app/no/such/screen`);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    await titled(page, 'Not found · Marquee console');
  });

  test('a read-only key sees every screen and no write action', async () => {
    const { t, org } = service;
    const created = await t.api(org.key, 'POST', '/v1/events', {
      title: 'Read-only evening',
      venue: { name: 'Hall' },
      performances: [{ starts_at: '2027-04-01T18:00:00Z', capacity: 20 }],
      ticket_types: [{ name: 'Entry', price_minor: 900 }],
    });
    const event = created.json();
    const hook = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: 'https://127.0.0.1:9/hook',
      event_types: ['order.created'],
    });
    assert.equal(hook.statusCode, 201, hook.body);

    const page = await browser.newPage();
    await signIn(page, service.baseUrl, org.readKey, '/app/events');
    await page.getByText('Read-only key').waitFor();
    assert.deepEqual(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents(), [
      'Events',
      'Orders',
      'Webhooks',
    ]);
    await page.getByRole('link', { name: 'Read-only evening' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'New event' }).count(), 0);

    await page.getByRole('link', { name: 'Read-only evening' }).click();
    await page.getByRole('heading', { level: 1, name: 'Read-only evening' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Performances and availability' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Edit' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Archive event' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Sell' }).count(), 0);
    assert.equal(await page.locator('form').count(), 0);

    await page.goto(`${service.baseUrl}/app/webhooks`);
    await page.getByRole('link', { name: 'https://127.0.0.1:9/hook' }).click();
    await page.getByRole('heading', { level: 2, name: 'Deliveries' }).waitFor();
    for (const name of ['Rotate secret', 'Delete endpoint', 'Save endpoint', 'Recover']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    await page.goto(`${service.baseUrl}/app/webhooks`);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).count(), 0);

    // A write screen opened by its address is not there for this key.
    for (const path of ['/app/sell', '/app/events/new']) {
      await page.goto(`${service.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    }
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'not-found');
    assert.ok(event.id);
  });
});
