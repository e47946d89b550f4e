/**
 * The events screens in a real browser (docs/console.md, "Events"): create an event with
 * a performance and two ticket types in one form (a refusal of the API shown beside its
 * field first), its detail with availability that refreshes by itself, editing and
 * archiving, and the list marking drafts and archived events, filtered by title. Each
 * screen passes axe-core with no serious or critical violation, and is photographed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';

describe('the events screens', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  test('create an event: a refusal beside its field, then the event with its live availability', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/events');
    await page.getByRole('link', { name: 'New event' }).click();
    await page.getByRole('heading', { level: 1, name: 'New event' }).waitFor();
    assert.equal(await page.getByLabel('Time zone').inputValue(), 'Europe/Berlin');
    await page.getByLabel('Title', { exact: true }).fill('Jazz at the Lighthouse');
    await page.getByLabel('Venue').fill('Lighthouse Hall');
    await page.getByLabel('Performance 1 starts').fill('2027-03-12T19:30');
    await page.getByLabel('Capacity', { exact: true }).fill('0');
    await page.getByLabel('Ticket type 1 name').fill('Standard');
    await page.getByLabel('Price (EUR)').fill('35.00');
    await page.getByLabel('Cap per performance (optional)').fill('250');
    await page.getByRole('button', { name: 'Add a ticket type' }).click();
    await page.getByLabel('Ticket type 2 name').fill('Student');
    await page.getByLabel('Price (EUR)').nth(1).fill('18');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'event-create');

    // Enter in a field submits the form; the API refuses capacity 0 and names the field.
    const refused = page.waitForResponse((r) => r.url().endsWith('/v1/events') && r.request().method() === 'POST');
    await page.getByLabel('Title', { exact: true }).press('Enter');
    const refusal = await refused;
    assert.equal(refusal.status(), 400);
    assert.equal((await refusal.json()).param, 'performances.0.capacity');
    const capacity = page.getByLabel('Capacity', { exact: true });
    const error = page.locator('#f-performances-0-capacity-error');
    await error.waitFor();
    assert.equal(await error.textContent(), '`performances.0.capacity` must be at least 1.');
    assert.equal(await capacity.getAttribute('aria-invalid'), 'true');
    assert.equal(await capacity.getAttribute('aria-describedby'), 'f-performances-0-capacity-error');
    // The field takes the focus once the error has rendered (a frame later).
    await page.waitForFunction(() => document.activeElement?.id === 'f-performances-0-capacity');
    await browser.screenshot(page, 'console', 'event-create-refused');

    await capacity.fill('300');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByRole('heading', { level: 1, name: 'Jazz at the Lighthouse' }).waitFor();
    const eventId = new URL(page.url()).pathname.split('/').at(-1)!;
    const created = (await service.t.api(service.org.key, 'GET', `/v1/events/${eventId}`)).json();
    assert.equal(created.title, 'Jazz at the Lighthouse');
    assert.deepEqual(
      created.ticket_types.map((t: any) => [t.name, t.prices[0].price_minor, t.prices[0].limited_quantity]),
      [
        ['Standard', 3500, 250],
        ['Student', 1800, null],
      ],
    );
    // 19:30 in Berlin in March is 18:30 UTC; the page shows it in the event's zone, named.
    const performance = (await service.t.api(service.org.key, 'GET', `/v1/events/${eventId}/performances`)).json()
      .data[0];
    assert.equal(performance.starts_at, '2027-03-12T18:30:00.000Z');
    const schedule = page.getByRole('table', { name: 'Performance of Mar 12, 2027, 07:30 PM GMT+1' });
    await schedule.waitFor();
    const rows = async () =>
      (await schedule.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((c) => c.trim()));
    await page.waitForFunction(() => !document.body.innerText.includes('Loading availability'));
    assert.deepEqual(await rows(), [
      ['Standard', '€35.00', '250'],
      ['Student', '€18.00', '300'],
    ]);

    // A sale elsewhere shows up without a reload (the page polls every 5 s).
    const sale = await service.t.api(service.org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: performance.id, ticket_type_id: created.ticket_types[0].id, quantity: 2 }],
      buyer: { first_name: 'Ada', email: 'ada@example.com' },
      tender: 'cash',
    });
    assert.equal(sale.statusCode, 201, sale.body);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="performance-remaining"]')?.textContent === '298',
      undefined,
      { timeout: 8000 },
    );
    assert.deepEqual(await rows(), [
      ['Standard', '€35.00', '248'],
      ['Student', '€18.00', '298'],
    ]);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'event-detail');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('edit title and contact e-mail (a refusal beside its field), archive; the list marks drafts and archived', async () => {
    const create = (title: string, publish: boolean) =>
      service.t.api(service.org.key, 'POST', '/v1/events', {
        title,
        venue: { name: 'Blue Room' },
        publish,
        performances: [{ starts_at: '2027-05-01T18:00:00Z', capacity: 50 }],
        ticket_types: [{ name: 'Entry', price_minor: 1000 }],
      });
    const draft = (await create('Late Night Draft', false)).json();
    const event = (await create('Sunday Matinee', true)).json();
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${event.id}`);
    await page.getByRole('heading', { level: 1, name: 'Sunday Matinee' }).waitFor();

    await page.getByLabel('Contact e-mail').fill('not-an-address');
    await page.getByLabel('Contact e-mail').press('Enter');
    const error = page.locator('#f-contact_email-error');
    await error.waitFor();
    const problem = (
      await service.t.api(service.org.key, 'PATCH', `/v1/events/${event.id}`, {
        contact_email: 'not-an-address',
      })
    ).json();
    assert.equal(problem.param, 'contact_email');
    assert.equal(await error.textContent(), problem.detail);

    await page.getByLabel('Title', { exact: true }).fill('Sunday Matinee: strings');
    await page.getByLabel('Contact e-mail').fill('boxoffice@example.com');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sunday Matinee: strings' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = (await service.t.api(service.org.key, 'GET', `/v1/events/${event.id}`)).json();
    assert.deepEqual([saved.title, saved.contact_email], ['Sunday Matinee: strings', 'boxoffice@example.com']);

    // Archiving is asked once (docs/console.md, "Asking before a destructive change").
    await page.getByRole('button', { name: 'Archive event' }).click();
    await page.getByRole('button', { name: 'Yes, archive Sunday Matinee: strings' }).click();
    await page.getByRole('button', { name: 'Restore from archive' }).waitFor();
    assert.equal((await service.t.api(service.org.key, 'GET', `/v1/events/${event.id}`)).json().is_archived, true);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    const stateOf = async (title: string) =>
      (
        await page
          .getByRole('row')
          .filter({ has: page.getByRole('link', { name: title, exact: true }) })
          .innerText()
      )
        .split('\t')[1]!
        .trim();
    await page.getByRole('link', { name: 'Late Night Draft' }).waitFor();
    assert.equal(await stateOf('Late Night Draft'), 'Draft');
    assert.equal(await stateOf('Sunday Matinee: strings'), 'Published Archived');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'events');

    // The search asks the API (GET /v1/events?title=matinee) once typing pauses.
    const searched = page.waitForRequest((r) => r.url().includes('/v1/events?') && r.url().includes('title=matinee'));
    await page.getByLabel('Search by title').fill('matinee');
    await searched;
    await page.getByRole('link', { name: 'Late Night Draft' }).waitFor({ state: 'detached' });
    // The old rows go before the answer's rows arrive: wait for the match, then read the list.
    await page.getByRole('link', { name: 'Sunday Matinee: strings', exact: true }).waitFor();
    assert.deepEqual(await page.locator('tbody tr td:first-child').allInnerTexts(), ['Sunday Matinee: strings']);
    await page.getByLabel('Search by title').fill('draft');
    await page.getByRole('link', { name: 'Late Night Draft' }).waitFor();
    assert.deepEqual(await page.locator('tbody tr td:first-child').allInnerTexts(), ['Late Night Draft']);
    assert.equal(await stateOf('Late Night Draft'), 'Draft');
    await page.goto(`${service.baseUrl}/app/events/${draft.id}`);
    await page.getByRole('heading', { level: 1, name: 'Late Night Draft' }).waitFor();
    assert.equal((await page.locator('.screen-head .states').innerText()).trim(), 'Draft');
  });
});
