/**
 * Editing an event's catalog in a real browser (docs/console.md, "Event"): registration
 * questions (a required per-attendee select with two options, one of every other type, a
 * label changed, a key the event already has refused beside the key field), performances
 * and ticket types added to an existing event (shown with their prices), hold allocations
 * beside the live availability (held seats leave it, released ones come back; that flow
 * by keyboard alone), and what a box office and a viewer see: the lists, no editing.
 * Each screen passes axe-core with no serious or critical violation, and is photographed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';

describe('editing an event: questions, performances, ticket types, holds', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  /** A published event in Berlin with one performance (capacity 100) and one ticket type "Entry" at €10. */
  async function event(title: string): Promise<{ id: string; performanceId: string; ticketTypeId: string }> {
    const created = await service.t.api(service.org.key, 'POST', '/v1/events', {
      title,
      timezone: 'Europe/Berlin',
      venue: { name: 'Blue Room' },
      performances: [{ starts_at: '2027-06-01T18:00:00Z', capacity: 100 }],
      ticket_types: [{ name: 'Entry', price_minor: 1000 }],
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    return {
      id: body.id,
      performanceId: body.ticket_types[0].prices[0].performance_id,
      ticketTypeId: body.ticket_types[0].id,
    };
  }

  const questionsOf = async (eventId: string) =>
    (await service.t.api(service.org.key, 'GET', `/v1/events/${eventId}/questions`))
      .json()
      .data.map(({ key, label, type, options, required, per_attendee }: Record<string, unknown>) => ({
        key,
        label,
        type,
        options,
        required,
        per_attendee,
      }));

  const remainingOf = async (performanceId: string) =>
    (await service.t.api(service.org.key, 'GET', `/v1/performances/${performanceId}/availability`)).json()
      .performance_remaining;

  test('questions: a required per-attendee select, every other type, a label changed, a duplicate key refused', async () => {
    const { id } = await event('Question night');
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${id}`);
    await page.getByRole('heading', { level: 2, name: 'Registration questions' }).waitFor();
    await page.getByText('No questions: a sale asks only for the buyer.').waitFor();

    const form = page.getByRole('form', { name: 'Add a question' });
    await form.getByLabel('Key', { exact: true }).fill('diet');
    await form.getByLabel('Label', { exact: true }).fill('Dietary needs');
    await form.getByLabel('Answer type').selectOption('select');
    await form.getByLabel('Option 1 key').fill('vegan');
    await form.getByLabel('Option 1 label').fill('Vegan');
    await form.getByLabel('Option 2 key').fill('none');
    await form.getByLabel('Option 2 label').fill('No preference');
    // A third row, added and removed again.
    await form.getByRole('button', { name: 'Add an option' }).click();
    await form.getByLabel('Option 3 key').fill('halal');
    await form.getByRole('button', { name: 'Remove option 3' }).click();
    assert.equal(await form.getByLabel('Option 3 key').count(), 0);
    await form.getByLabel(/Required online/).check();
    await form.getByLabel('Per attendee (once for every ticket)').check();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'question-new');

    const sent = page.waitForRequest(
      (r) => r.url().endsWith(`/dashboard/v1/events/${id}/questions`) && r.method() === 'POST',
    );
    await form.getByRole('button', { name: 'Add question' }).click();
    assert.deepEqual((await sent).postDataJSON(), {
      key: 'diet',
      label: 'Dietary needs',
      type: 'select',
      options: [
        { key: 'vegan', label: 'Vegan' },
        { key: 'none', label: 'No preference' },
      ],
      required: true,
      per_attendee: true,
    });
    await page.getByRole('status').filter({ hasText: 'The question “diet” was added.' }).waitFor();
    const row = page.locator('tr[data-question="diet"]');
    await row.waitFor();
    assert.deepEqual(
      (await row.innerText()).split('\t').map((c) => c.trim()),
      [
        'diet',
        'Dietary needs',
        'One of a list (select)',
        'Vegan (vegan), No preference (none)',
        'Yes',
        'Per attendee',
        'Change',
      ],
    );
    const diet = {
      key: 'diet',
      label: 'Dietary needs',
      type: 'select',
      options: [
        { key: 'vegan', label: 'Vegan' },
        { key: 'none', label: 'No preference' },
      ],
      required: true,
      per_attendee: true,
    };
    assert.deepEqual(await questionsOf(id), [diet]);
    // The form is empty again, for the next question.
    assert.equal(await form.getByLabel('Key', { exact: true }).inputValue(), '');

    // Change the label only: only the label is sent; answers given before keep theirs.
    await page.getByRole('button', { name: 'Change question diet' }).click();
    const change = page.getByRole('form', { name: 'Change the question diet' });
    await change.getByText('Answers already given keep the label they were given').waitFor();
    // The label field takes the focus once the form has rendered (an effect, after the paint).
    await page.waitForFunction(() => document.activeElement?.id === 'f-question-change-label');
    assert.equal(await change.getByLabel('Option 2 label').inputValue(), 'No preference');
    await change.getByLabel('Label', { exact: true }).fill('Dietary requirements');
    const patched = page.waitForRequest((r) => r.url().includes('/dashboard/v1/questions/') && r.method() === 'PATCH');
    await change.getByRole('button', { name: 'Save question' }).click();
    assert.deepEqual((await patched).postDataJSON(), { label: 'Dietary requirements' });
    await page.getByRole('status').filter({ hasText: 'The question “diet” was saved.' }).waitFor();
    await row.getByRole('cell', { name: 'Dietary requirements' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Change question diet');
    assert.equal(await change.count(), 0);
    assert.deepEqual(await questionsOf(id), [{ ...diet, label: 'Dietary requirements' }]);

    // A key the event already has: the API's 409, shown beside the key field, which takes the focus.
    await form.getByLabel('Key', { exact: true }).fill('diet');
    await form.getByLabel('Label', { exact: true }).fill('Allergies');
    const refused = page.waitForResponse(
      (r) => r.url().endsWith(`/dashboard/v1/events/${id}/questions`) && r.request().method() === 'POST',
    );
    await form.getByLabel('Label', { exact: true }).press('Enter');
    const refusal = await refused;
    assert.equal(refusal.status(), 409);
    const problem = await refusal.json();
    assert.equal(problem.code, 'resource_exists');
    const error = page.locator('#f-question-key-error');
    await error.waitFor();
    assert.equal(await error.textContent(), problem.detail);
    assert.equal(problem.detail, 'This event already has a question with the key "diet".');
    const key = form.getByLabel('Key', { exact: true });
    assert.equal(await key.getAttribute('aria-invalid'), 'true');
    assert.match((await key.getAttribute('aria-describedby')) ?? '', /f-question-key-error/);
    // The field takes the focus once the error has rendered (a frame later).
    await page.waitForFunction(() => document.activeElement?.id === 'f-question-key');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'question-refused');

    // One question of every other type, each per order and optional.
    const others = [
      ['company', 'text'],
      ['age', 'number'],
      ['birthday', 'date'],
      ['work-email', 'email'],
      ['mobile', 'phone'],
    ] as const;
    for (const [k, type] of others) {
      await form.getByLabel('Key', { exact: true }).fill(k);
      await form.getByLabel('Label', { exact: true }).fill(`The ${type}`);
      await form.getByLabel('Answer type').selectOption(type);
      // The list is in the order the questions were made: the test's clock moves on between them.
      service.t.clock.advance(1000);
      await form.getByRole('button', { name: 'Add question' }).click();
      await page.locator(`tr[data-question="${k}"]`).waitFor();
    }
    await form.getByLabel('Key', { exact: true }).fill('sessions');
    await form.getByLabel('Label', { exact: true }).fill('Workshops');
    await form.getByLabel('Answer type').selectOption('multi_select');
    await form.getByLabel('Option 1 key').fill('am');
    await form.getByLabel('Option 1 label').fill('Morning');
    await form.getByLabel('Option 2 key').fill('pm');
    await form.getByLabel('Option 2 label').fill('Afternoon');
    service.t.clock.advance(1000);
    await form.getByRole('button', { name: 'Add question' }).click();
    await page.locator('tr[data-question="sessions"]').waitFor();
    assert.deepEqual(await questionsOf(id), [
      { ...diet, label: 'Dietary requirements' },
      ...others.map(([k, type]) => ({
        key: k,
        label: `The ${type}`,
        type,
        options: [],
        required: false,
        per_attendee: false,
      })),
      {
        key: 'sessions',
        label: 'Workshops',
        type: 'multi_select',
        options: [
          { key: 'am', label: 'Morning' },
          { key: 'pm', label: 'Afternoon' },
        ],
        required: false,
        per_attendee: false,
      },
    ]);

    // Options changed: a third one added; a duplicate option key is refused beside the options.
    await page.getByRole('button', { name: 'Change question sessions' }).click();
    const options = page.getByRole('form', { name: 'Change the question sessions' });
    await options.getByRole('button', { name: 'Add an option' }).click();
    await options.getByLabel('Option 3 key').fill('am');
    await options.getByLabel('Option 3 label').fill('Evening');
    await options.getByRole('button', { name: 'Save question' }).click();
    const optionsError = page.locator('#f-question-change-options-error');
    await optionsError.waitFor();
    assert.equal(await optionsError.textContent(), '`options` has the key "am" twice; option keys must be unique.');
    await options.getByLabel('Option 3 key').fill('eve');
    await options.getByRole('button', { name: 'Save question' }).click();
    await page.getByRole('status').filter({ hasText: 'The question “sessions” was saved.' }).waitFor();
    assert.deepEqual((await questionsOf(id)).at(-1).options, [
      { key: 'am', label: 'Morning' },
      { key: 'pm', label: 'Afternoon' },
      { key: 'eve', label: 'Evening' },
    ]);
    await browser.screenshot(page, 'console', 'questions');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('add a performance and a ticket type to an existing event: the detail shows them, priced', async () => {
    const { id, performanceId } = await event('Growing season');
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${id}`);
    await page.getByRole('heading', { level: 2, name: 'Add performances' }).waitFor();

    await page.getByLabel('New performance 1 starts').fill('2027-06-02T20:00');
    // The API refuses capacity 0 and names the field: its detail beside it, which takes the focus.
    await page.getByLabel('Capacity', { exact: true }).fill('0');
    const refused = page.waitForResponse(
      (r) => r.url().endsWith(`/dashboard/v1/events/${id}/performances`) && r.request().method() === 'POST',
    );
    await page.getByLabel('Capacity', { exact: true }).press('Enter');
    const refusal = await refused;
    assert.equal(refusal.status(), 400);
    const problem = await refusal.json();
    assert.equal(problem.param, 'performances.0.capacity');
    const capacityError = page.locator('#f-performances-0-capacity-error');
    await capacityError.waitFor();
    assert.equal(await capacityError.textContent(), problem.detail);
    // The field takes the focus once the error has rendered (a frame later).
    await page.waitForFunction(() => document.activeElement?.id === 'f-performances-0-capacity');
    await browser.screenshot(page, 'console', 'performance-refused');
    await page.getByLabel('Capacity', { exact: true }).fill('80');
    await page.getByLabel('Performance title (optional)').fill('Late show');
    const sent = page.waitForRequest(
      (r) => r.url().endsWith(`/dashboard/v1/events/${id}/performances`) && r.method() === 'POST',
    );
    await page.getByRole('button', { name: 'Add performances' }).click();
    // 20:00 in Berlin in June is 18:00 UTC.
    assert.deepEqual((await sent).postDataJSON(), {
      performances: [{ starts_at: '2027-06-02T18:00:00.000Z', capacity: 80, title: 'Late show' }],
    });
    await page.getByRole('status').filter({ hasText: 'The performance was added.' }).waitFor();
    const late = page.getByRole('table', { name: 'Performance of Jun 2, 2027, 08:00 PM GMT+2' });
    await late.waitFor();
    assert.match(await late.locator('caption').innerText(), /Late show · published · capacity 80/);
    assert.equal(await page.getByLabel('New performance 1 starts').inputValue(), '');

    // A price that is not one is refused beside its field before anything is sent.
    await page.getByLabel('New ticket type 1 name').fill('Balcony');
    await page.getByLabel('Price (EUR)').fill('24.505');
    await page.getByRole('button', { name: 'Add ticket types' }).click();
    const priceError = page.locator('#f-ticket_types-0-price_minor-error');
    await priceError.waitFor();
    assert.equal(await priceError.textContent(), 'Enter the price in EUR, e.g. 12.50.');
    // The field takes the focus once the error has rendered (a frame later).
    await page.waitForFunction(() => document.activeElement?.id === 'f-ticket_types-0-price_minor');
    await page.getByLabel('Price (EUR)').fill('24.50');
    await page.getByLabel('Cap per performance (optional)').fill('30');
    await page.getByLabel('Ticket type description (optional)').fill('Upstairs, unreserved');
    const typed = page.waitForRequest(
      (r) => r.url().endsWith(`/dashboard/v1/events/${id}/ticket_types`) && r.method() === 'POST',
    );
    await page.getByRole('button', { name: 'Add ticket types' }).click();
    assert.deepEqual((await typed).postDataJSON(), {
      ticket_types: [{ name: 'Balcony', description: 'Upstairs, unreserved', price_minor: 2450, quantity: 30 }],
    });
    await page.getByRole('status').filter({ hasText: 'The ticket type was added.' }).waitFor();

    const first = page.getByRole('table', { name: 'Performance of Jun 1, 2027, 08:00 PM GMT+2' });
    const rows = async (table: ReturnType<Page['getByRole']>) =>
      (await table.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((c) => c.trim()));
    await late.getByRole('rowheader', { name: 'Balcony' }).waitFor();
    // Every number read (none still loading, the new type on sale at both performances).
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('table[aria-label^="Performance of"]')].every(
          (table) => !/…|Not on sale/.test((table as HTMLElement).innerText),
        ),
      undefined,
      { timeout: 8000 },
    );
    assert.deepEqual(await rows(first), [
      ['Entry', '€10.00', '100'],
      ['Balcony', '€24.50', '30'],
    ]);
    assert.deepEqual(await rows(late), [
      ['Entry', '€10.00', '80'],
      ['Balcony', '€24.50', '30'],
    ]);

    const saved = (await service.t.api(service.org.key, 'GET', `/v1/events/${id}`)).json();
    const schedule = (await service.t.api(service.org.key, 'GET', `/v1/events/${id}/performances`)).json().data;
    assert.deepEqual(
      schedule.map((p: any) => [p.starts_at, p.capacity, p.title, p.status]),
      [
        ['2027-06-01T18:00:00.000Z', 100, null, 'published'],
        ['2027-06-02T18:00:00.000Z', 80, 'Late show', 'published'],
      ],
    );
    const lateId = schedule[1].id;
    assert.deepEqual(
      saved.ticket_types.map((t: any) => [
        t.name,
        t.description,
        t.prices.map((p: any) => [p.performance_id, p.price_minor, p.limited_quantity]),
      ]),
      [
        [
          'Entry',
          null,
          [
            [performanceId, 1000, null],
            [lateId, 1000, null],
          ],
        ],
        [
          'Balcony',
          'Upstairs, unreserved',
          [
            [performanceId, 2450, 30],
            [lateId, 2450, 30],
          ],
        ],
      ],
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'event-added');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('holds: 5 seats held leave the availability, released they come back; by keyboard alone', async () => {
    const { id, performanceId, ticketTypeId } = await event('Hold night');
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${id}`);
    await page.getByRole('heading', { level: 2, name: 'Holds' }).waitFor();
    const remaining = page.getByTestId('holds-remaining');
    const summary = page.locator(`details[data-performance="${performanceId}"] > summary`);
    assert.equal(await summary.innerText(), 'Holds of Jun 1, 2027, 08:00 PM GMT+2');

    // Keyboard only from here: the disclosure opens with Enter, Tab reaches the form, Enter sends it.
    await summary.focus();
    await page.keyboard.press('Enter');
    await page.getByText('No active holds.').waitFor();
    assert.equal(await remaining.textContent(), '100');
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('id')),
      `f-hold-${performanceId}-quantity`,
    );
    await page.keyboard.type('5');
    const held = page.waitForResponse(
      (r) => r.url().endsWith(`/dashboard/v1/performances/${performanceId}/holds`) && r.request().method() === 'POST',
    );
    await page.keyboard.press('Enter');
    const hold = await (await held).json();
    assert.deepEqual(
      [hold.object, hold.kind, hold.quantity, hold.ticket_type_id, hold.released_at],
      ['hold', 'allocation', 5, null, null],
    );
    await page.getByRole('status').filter({ hasText: 'Held 5 seats (Any ticket type).' }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="holds-remaining"]')?.textContent === '95');
    assert.equal(await page.getByTestId('holds-held').textContent(), '5');
    assert.equal(await remainingOf(performanceId), 95);
    const row = page.locator(`tr[data-hold="${hold.id}"]`);
    assert.deepEqual(
      (await row.innerText()).split('\t').map((c) => c.trim()),
      [(await row.locator('td').first().innerText()).trim(), '5', 'Any ticket type', 'Release'],
    );
    // The schedule's own live numbers follow within their 5 s.
    await page.waitForFunction(
      () => document.querySelector('[data-testid="performance-remaining"]')?.textContent === '95',
      undefined,
      { timeout: 8000 },
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'holds');

    // More than remains: the API's refusal, in words.
    const session = await service.t.signIn(service.owner.email, service.owner.password);
    const tooMany = await service.t.dash(session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 96,
    });
    assert.equal(tooMany.statusCode, 400, tooMany.body);
    const quantity = page.locator(`#f-hold-${performanceId}-quantity`);
    await quantity.fill('96');
    await quantity.press('Enter');
    await page.getByText(tooMany.json().detail).waitFor();

    // Release, asked once more: Enter on "Release", then Enter on the "Yes" button, which takes the focus.
    await row.getByRole('button', { name: 'Release the hold of 5 seats (Any ticket type)' }).focus();
    await page.keyboard.press('Enter');
    await row.getByRole('alert').filter({ hasText: 'The 5 seats go back on sale at once.' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Yes, release 5 seats');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Released 5 seats: back on sale.' }).waitFor();
    // The row is gone; the focus is on the sentence that says so, still in the panel.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Released 5 seats: back on sale.');
    await page.waitForFunction(() => document.querySelector('[data-testid="holds-remaining"]')?.textContent === '100');
    await page.getByText('No active holds.').waitFor();
    assert.equal(await remainingOf(performanceId), 100);
    const active = await service.t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/holds`);
    assert.deepEqual(active.json().data, []);

    // A hold of one ticket type, made elsewhere, shows up by itself while the panel is open.
    const elsewhere = await service.t.dash(session, 'POST', `/dashboard/v1/performances/${performanceId}/holds`, {
      kind: 'allocation',
      quantity: 3,
      ticket_type_id: ticketTypeId,
    });
    assert.equal(elsewhere.statusCode, 201, elsewhere.body);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="holds-remaining"]')?.textContent === '97',
      undefined,
      {
        timeout: 8000,
      },
    );
    await page
      .locator(`tr[data-hold="${elsewhere.json().id}"]`)
      .getByRole('cell', { name: 'Entry', exact: true })
      .waitFor();

    // Closed, the panel stops asking.
    await summary.click();
    await page.waitForTimeout(200);
    let asked = 0;
    page.on('request', (r) => {
      if (r.url().includes('/holds')) asked++;
    });
    await page.waitForTimeout(4000);
    assert.equal(asked, 0);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  for (const role of ['box_office', 'viewer'] as const) {
    test(`a ${role} sees the questions and holds, and no editing`, async () => {
      const { id, performanceId } = await event(`Look, do not touch (${role})`);
      const question = await service.t.admin('POST', `/admin/v1/events/${id}/questions`, {
        key: 'diet',
        label: 'Dietary needs',
        type: 'select',
        options: [{ key: 'vegan', label: 'Vegan' }],
        required: true,
      });
      assert.equal(question.statusCode, 201, question.body);
      const hold = await service.t.admin('POST', `/admin/v1/performances/${performanceId}/holds`, {
        kind: 'allocation',
        quantity: 4,
      });
      assert.equal(hold.statusCode, 201, hold.body);
      const person = await service.t.createUser({ organizerId: service.org.id, role, name: `Rita ${role}` });

      const page = await browser.newPage();
      await signIn(page, service.baseUrl, person, `/app/events/${id}`);
      await page.getByRole('heading', { level: 2, name: 'Registration questions' }).waitFor();
      const row = page.locator('tr[data-question="diet"]');
      await row.waitFor();
      assert.deepEqual(
        (await row.innerText()).split('\t').map((c) => c.trim()),
        ['diet', 'Dietary needs', 'One of a list (select)', 'Vegan (vegan)', 'Yes', 'Per order'],
      );
      await page.locator(`details[data-performance="${performanceId}"] > summary`).click();
      await page.waitForFunction(() => document.querySelector('[data-testid="holds-remaining"]')?.textContent === '96');
      await page.locator(`tr[data-hold="${hold.json().id}"]`).waitFor();

      for (const name of ['Add performances', 'Add ticket types', 'Add question', 'Hold seats', 'Release', 'Change']) {
        assert.equal(await page.getByRole('button', { name }).count(), 0, name);
      }
      for (const name of ['Add performances', 'Add ticket types']) {
        assert.equal(await page.getByRole('heading', { name }).count(), 0, name);
      }
      assert.equal(await page.locator('main form').count(), 0);
      assert.deepEqual(await browser.seriousViolations(page), []);
      await browser.screenshot(page, 'console', `event-read-only-${role}`);
      assert.deepEqual(browser.errorsOf(page), []);
    });
  }
});
