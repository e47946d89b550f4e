/**
 * Developer settings in the console (docs/console.md, "Screens"; docs/dashboard.md,
 * "Developer settings"), in a real browser: an owner creates an API key, sees it once,
 * the key reads the API over real HTTP, the list shows who made it, revoking it (after a
 * confirming click) makes it answer 401; a manager has no such screen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

describe('developer settings in the console', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  const eventsWith = (key: string) =>
    fetch(`${service.baseUrl}/v1/events`, { headers: { authorization: `Bearer ${key}` } });

  test('an owner creates a key, sees it once, it works; revoked, it answers 401', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/developer');
    await page.getByRole('heading', { level: 1, name: 'Developer' }).waitFor();
    assert.ok((await navigation(page)).includes('Developer'));
    await page.locator('table.api-keys tbody tr').first().waitFor();
    assert.equal(await page.getByLabel('Read', { exact: true }).isChecked(), true);
    assert.equal(await page.getByLabel('Write', { exact: true }).isChecked(), false);
    await page.getByText('In Europe/Berlin, the organizer').waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'developer');

    await page.getByLabel('Name').fill('Box office sync');
    await page.getByLabel('Write', { exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('secret');
    await secret.waitFor();
    const key = (await secret.textContent())!.trim();
    assert.ok(key.length > 20, key);
    await page.getByText('It will not be shown again.').waitFor();
    await page.getByRole('button', { name: 'Copy to clipboard' }).waitFor();
    const row = page.locator('table.api-keys tbody tr', { hasText: 'Box office sync' });
    await row.waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'developer-key-created');

    // The key answers the API over real HTTP.
    const before = await eventsWith(key);
    assert.equal(before.status, 200);
    await before.body?.cancel();

    const cells = await row.locator('td').allTextContents();
    assert.equal(cells[0], 'Box office sync');
    assert.ok(key.startsWith(cells[1]!.replace('…', '')), `${cells[1]} is a preview of the key`);
    assert.equal(cells[2], 'Read, Write');
    assert.equal(cells[3], 'Olive Owner');
    assert.equal(cells[6], 'Never');
    assert.equal(cells[7], 'Active');

    // Shown once: a reload lists the key's preview, never the key.
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByTestId('secret').count(), 0);
    assert.equal(await page.getByText(key).count(), 0);

    // Revoke, after the confirming step.
    await row.getByRole('button', { name: 'Revoke Box office sync' }).click();
    await row.getByText('Revoke Box office sync? Programs using it stop working at once.').waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByRole('status').filter({ hasText: 'Box office sync was revoked.' }).waitFor();
    await row.locator('td', { hasText: 'Revoked' }).waitFor();
    assert.equal(await row.getByRole('button').count(), 0);

    const after = await eventsWith(key);
    assert.equal(after.status, 401);
    await after.body?.cancel();
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('a manager has no developer settings', async () => {
    const manager = await service.t.createUser({ organizerId: service.org.id, role: 'manager', name: 'Max Manager' });
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, manager);
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal((await navigation(page)).includes('Developer'), false);
    await page.goto(`${service.baseUrl}/app/developer`);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Developer' }).count(), 0);
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
