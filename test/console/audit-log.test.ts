/**
 * The audit log in the console (docs/console.md, "Screens"; docs/dashboard.md, "Audit
 * log"), in a real browser: an owner signs in, renames the organizer and creates an API
 * key, and the log shows exactly those entries, newest first, with the times in the
 * organizer's zone, the person, the action, the target and what changed; the filters
 * narrow it and are the page's address (a reload keeps them); "Download CSV" links to the
 * export with the same filters and downloads those rows; "Load more" pages on.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';

const ZONE = 'Europe/Berlin';

interface Entry {
  id: string;
  occurred_at: string;
  actor: { type: string; id: string | null; label: string };
  action: string;
  target: { type: string; id: string | null };
  changes: Record<string, { before: unknown; after: unknown }>;
  ip: string | null;
}

/** An instant as the log shows it, to the second, in the organizer's zone (en-US). */
const shownAt = (iso: string) =>
  new Intl.DateTimeFormat('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone: ZONE,
    timeZoneName: 'short',
  }).format(new Date(iso));

/** A day in the organizer's zone, as a date input holds it. */
const dayIn = (date: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(date);

/** The rows of the log's table, cell by cell (the changes cell one line per change). */
const rowsOf = (page: Page) =>
  page
    .locator('table.audit-log tbody tr[data-entry]')
    .evaluateAll((rows) =>
      rows.map((row) => [
        row.getAttribute('data-entry'),
        ...[...row.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim()),
      ]),
    );

describe('the audit log in the console', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  /** GET /dashboard/v1/audit_log as the owner, with an existing session (a sign-in is an entry too). */
  const logOverApi = async (cookie: string, query: string) => {
    const res = await service.t.inject({
      method: 'GET',
      url: `/dashboard/v1/audit_log${query}`,
      headers: { cookie },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: Entry[]; has_more: boolean }>();
  };

  const cookieOf = async (page: Page) => {
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'marquee_session');
    assert.ok(session, 'the page has a session cookie');
    return `marquee_session=${session.value}`;
  };

  const filter = async (page: Page, fill: (form: Locator) => Promise<unknown>) => {
    const form = page.getByRole('search', { name: 'Filter the audit log' });
    await fill(form);
    await form.getByRole('button', { name: 'Filter' }).click();
  };

  test('two actions, the log shows them newest first; filters narrow it; the CSV carries them', async () => {
    // The test's clock stands still unless moved: a second between entries orders them.
    service.t.clock.advance(1000);
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/settings');
    service.t.clock.advance(1000);

    // Action 1: rename the organizer.
    const name = page.getByLabel('Name', { exact: true });
    await name.waitFor();
    await name.fill('Lighthouse Jazz Hall');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();

    service.t.clock.advance(1000);

    // Action 2: create an API key.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developer' }).click();
    await page.getByLabel('Name').fill('Audit sync');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('secret').waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.locator('table.audit-log tbody tr[data-entry]').first().waitFor();

    // What the API answers for the person's entries: the sign-in that opened this page and the two actions.
    const cookie = await cookieOf(page);
    const mine = (await logOverApi(cookie, '?actor_type=user')).data;
    assert.deepEqual(
      mine.map((e) => e.action),
      ['createApiKey', 'updateOrganizerSettings', 'signIn'],
    );
    const [keyEntry, renameEntry, signInEntry] = mine as [Entry, Entry, Entry];
    assert.deepEqual(renameEntry.changes.name, { before: 'Lighthouse Jazz Club', after: 'Lighthouse Jazz Hall' });
    assert.equal(keyEntry.target.type, 'api_key');

    // Newest first, as the page shows them: the person's three entries come first, before the operator's set-up.
    const rows = await rowsOf(page);
    const expected = (e: Entry, changes: string) => [
      e.id,
      shownAt(e.occurred_at),
      `${service.owner.email} Person`,
      e.action,
      `${e.target.type}${e.target.id === null ? '' : ` ${e.target.id}`}`,
      changes,
      e.ip ?? '—',
    ];
    assert.deepEqual(rows.slice(0, 2), [
      expected(keyEntry, rows[0]![5]!),
      expected(renameEntry, 'name: Lighthouse Jazz Club → Lighthouse Jazz Hall'),
    ]);
    const keyChanges = rows[0]![5]!.split('\n');
    assert.ok(keyChanges.includes('name: — → Audit sync'), String(rows[0]![5]));
    assert.ok(keyChanges.includes('scopes: — → read'), String(rows[0]![5]));
    assert.equal(rows[0]![5]!.includes('key_hash'), false, 'no hash is shown');
    assert.equal(rows[2]![0], signInEntry.id);
    assert.ok(
      rows.slice(3).every((r) => r[2] !== `${service.owner.email} Person`),
      'the rest are not the person’s',
    );
    assert.equal(rows[0]![6], '127.0.0.1');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'audit-log');

    // Filter: a person's entries only, in the address.
    await filter(page, async (form) => {
      await form.getByLabel('Actor type').selectOption({ label: 'Person' });
    });
    await page.waitForURL((url) => url.search === '?actor_type=user');
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 3);
    assert.deepEqual(
      (await rowsOf(page)).map((r) => r[0]),
      mine.map((e) => e.id),
    );

    // Narrower: one action. The CSV link carries the same filters.
    await filter(page, (form) => form.getByLabel('Action').fill('createApiKey'));
    await page.waitForURL((url) => url.search === '?actor_type=user&action=createApiKey');
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 1);
    assert.deepEqual((await rowsOf(page))[0], expected(keyEntry, rows[0]![5]!));
    const csv = page.getByRole('link', { name: 'Download CSV' });
    const href = await csv.getAttribute('href');
    assert.equal(href, '/dashboard/v1/audit_log/export?actor_type=user&action=createApiKey');
    const download = await page.context().request.get(`${service.baseUrl}${href}`);
    assert.equal(download.status(), 200);
    assert.equal(download.headers()['content-type'], 'text/csv; charset=utf-8');
    const lines = (await download.text()).trim().split(/\r?\n/);
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.ok(lines[1]!.startsWith(`${keyEntry.id},${keyEntry.occurred_at},user,`), lines[1]);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'audit-log-filtered');

    // The address is the filter: a reload keeps it, and the form shows it.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 1);
    assert.equal(await page.getByLabel('Actor type').inputValue(), 'user');
    assert.equal(await page.getByLabel('Action').inputValue(), 'createApiKey');

    // Days in the organizer's zone: today keeps the entry, and the CSV's range is those days' instants.
    const today = dayIn(new Date(keyEntry.occurred_at));
    await filter(page, async (form) => {
      await form.getByLabel('From', { exact: true }).fill(today);
      await form.getByLabel('To', { exact: true }).fill(today);
    });
    await page.waitForURL((url) => url.searchParams.get('to') === today);
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 1);
    const ranged = new URL((await csv.getAttribute('href'))!, service.baseUrl).searchParams;
    assert.equal(ranged.get('action'), 'createApiKey');
    const gte = Date.parse(ranged.get('occurred_gte')!);
    const lt = Date.parse(ranged.get('occurred_lt')!);
    assert.ok(gte <= Date.parse(keyEntry.occurred_at) && Date.parse(keyEntry.occurred_at) < lt);
    assert.equal(dayIn(new Date(gte)), today);
    assert.equal(dayIn(new Date(lt)) > today, true);
    assert.equal(dayIn(new Date(lt - 1)), today);

    // A day before: nothing.
    const before = dayIn(new Date(Date.parse(keyEntry.occurred_at) - 36 * 3600 * 1000));
    await filter(page, async (form) => {
      await form.getByLabel('From', { exact: true }).fill(before);
      await form.getByLabel('To', { exact: true }).fill(before);
    });
    await page.getByRole('cell', { name: 'No entry matches.' }).waitFor();

    // Clear filters: the whole log again.
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.pathname === '/app/audit' && url.search === '');
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length > 3);

    // An actor's name filters by that actor: the person's three entries.
    await page.locator(`tr[data-entry="${keyEntry.id}"]`).getByRole('link', { name: service.owner.email }).click();
    await page.waitForURL((url) => url.search === `?actor_id=${keyEntry.actor.id}`);
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 3);
    assert.deepEqual(
      (await rowsOf(page)).map((r) => r[0]),
      mine.map((e) => e.id),
    );
    assert.equal(await page.getByLabel('Actor id').inputValue(), keyEntry.actor.id);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('Load more: the next page, until there is none', async () => {
    const { t } = service;
    const session = await t.signIn(service.owner.email, service.owner.password);
    for (let i = 0; i < 55; i++) {
      t.clock.advance(1000);
      const res = await t.dash(session, 'PATCH', '/dashboard/v1/organizer', { tax_rate_bps: i % 2 === 0 ? 100 : 200 });
      assert.equal(res.statusCode, 200, res.body);
    }
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/audit?action=updateOrganizerSettings');
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 50);
    const first = await rowsOf(page);
    assert.equal(first[0]![5], 'tax_rate_bps: 200 → 100');
    assert.equal(first[1]![5], 'tax_rate_bps: 100 → 200');
    await page.getByRole('button', { name: 'Load more' }).click();
    // 55 tax changes and the rename of the first test.
    await page.waitForFunction(() => document.querySelectorAll('table.audit-log tr[data-entry]').length === 56);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
    const all = await rowsOf(page);
    assert.equal(new Set(all.map((r) => r[0])).size, 56, 'no entry twice');
    assert.equal(all.at(-1)![5], 'name: Lighthouse Jazz Club → Lighthouse Jazz Hall');
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
