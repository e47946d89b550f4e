/**
 * The box office's actions in a real browser (docs/console.md, "Order", "Event", "Asking
 * before a destructive change"): settle an unpaid order (a double click settles once: one
 * `order.paid`), resend its e-tickets, refund two of three tickets (their seats back on
 * sale), cancel an order with the keyboard alone (Tab, Enter, Escape through the question),
 * transfer a ticket, publish a draft and archive it; and what each role is offered: a box
 * office settles and resends but neither refunds, cancels nor transfers; a viewer does
 * nothing. Every screen passes axe-core with no serious or critical violation.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';
import { eventsOfType } from '../helpers/orders.ts';

describe('the box office on an order and an event', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();
  let event: any;
  let performanceId = '';

  before(async () => {
    if (BROWSER_SKIP) return;
    const created = await service.t.api(service.org.key, 'POST', '/v1/events', {
      title: 'Harbour Lights Quartet',
      venue: { name: 'Harbour Hall' },
      timezone: 'Europe/Berlin',
      performances: [{ starts_at: '2027-03-12T18:30:00Z', capacity: 100 }],
      ticket_types: [{ name: 'Standard', price_minor: 2000 }],
    });
    assert.equal(created.statusCode, 201, created.body);
    event = created.json();
    performanceId = event.ticket_types[0].prices[0].performance_id;
  });

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    service.t.api(service.org.key, method, url, body);
  const sell = async (quantity: number, tender: 'cash' | 'pay_later', first_name = 'Ada') => {
    const res = await api('POST', '/v1/orders', {
      items: [{ performance_id: performanceId, ticket_type_id: event.ticket_types[0].id, quantity }],
      buyer: { first_name, last_name: 'Lovelace', email: 'ada@example.com' },
      tender,
    });
    assert.equal(res.statusCode, 201, res.body);
    return (await api('GET', `/v1/orders/${res.json().id}?expand[]=items`)).json();
  };
  const remaining = async () =>
    (await api('GET', `/v1/performances/${performanceId}/availability`)).json().performance_remaining as number;
  const openOrder = async (page: Page, order: { id: string; order_no: string }) => {
    await page.goto(`${service.baseUrl}/app/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${order.order_no}` }).waitFor();
  };
  const statusOf = (page: Page) => page.locator('.facts dd').nth(1).textContent();
  const ticketStates = (page: Page) => page.locator('.ticket-status').allTextContents();
  const focusedClass = (page: Page) => page.evaluate(() => document.activeElement?.className);
  const mainButtons = (page: Page) => page.getByRole('main').getByRole('button').allTextContents();
  const ticketChoices = async (page: Page) =>
    (await page.getByRole('group', { name: 'Refund', exact: true }).locator('label.check').allInnerTexts()).map((l) =>
      l.trim(),
    );

  test('the order screen downloads what the buyer carries: the PDF and a calendar file, no pass unconfigured', async () => {
    const order = await sell(2, 'cash');
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/orders/${order.id}`);
    const section = page.getByRole('region', { name: 'What the buyer carries' });
    await section.waitFor();
    const links = section.getByRole('link');
    await page.waitForLoadState('networkidle');
    const [pdfLink, calendarLink, ...more] = await links.evaluateAll((as) =>
      as.map((a) => [a.textContent ?? '', a.getAttribute('href')] as const),
    );
    assert.deepEqual(pdfLink, ['PDF tickets (2 pages)', `/dashboard/v1/orders/${order.id}/tickets.pdf`]);
    assert.equal(calendarLink?.[1], `/dashboard/v1/performances/${performanceId}/calendar.ics`);
    assert.match(calendarLink?.[0] ?? '', new RegExp(`^Calendar file: ${event.title}, \\w{3} \\d{1,2}, \\d{4}`));
    assert.deepEqual(more, []);
    const pdf = await page.request.get(`${service.baseUrl}/dashboard/v1/orders/${order.id}/tickets.pdf`);
    assert.equal(pdf.status(), 200);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
    await page.close();
  });

  test('settle an unpaid order by card: a double click settles once, one order.paid; resend the e-tickets', async () => {
    const order = await sell(2, 'pay_later');
    assert.equal(order.status, 'unpaid');
    const page = await browser.newPage();
    const settles: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/orders/${order.id}/settle`))
        settles.push(r.headers()['idempotency-key']!);
    });
    await signIn(page, service.baseUrl, service.owner, `/app/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${order.order_no}` }).waitFor();
    assert.equal(await statusOf(page), 'unpaid');
    assert.equal(
      await page.getByRole('group', { name: 'Settle', exact: true }).locator('.hint').textContent(),
      'The buyer pays €40.00 now; the order becomes placed.',
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-unpaid');

    await page.getByLabel('Paid by').selectOption({ label: 'Card' });
    await page.getByRole('button', { name: 'Settle order' }).dblclick();
    const done = page.getByRole('status').filter({ hasText: 'settled' });
    await done.waitFor();
    assert.equal(await done.textContent(), `Order ${order.order_no} settled: €40.00 paid by card. It is placed.`);
    assert.equal(await focusedClass(page), 'outcome');
    assert.equal(await statusOf(page), 'placed');
    // Settled, the order offers no settle any more.
    assert.equal(await page.getByRole('button', { name: 'Settle order' }).count(), 0);
    assert.equal(settles.length, 1, 'the second click found the button disabled');
    assert.match(settles[0]!, /^[0-9a-f-]{36}$/);

    const after = (await api('GET', `/v1/orders/${order.id}`)).json();
    assert.equal(after.status, 'placed');
    const paid = (await eventsOfType(service.t, service.org.id, 'order.paid')).filter(
      (d: any) => d.order_id === order.id,
    );
    assert.equal(paid.length, 1);

    const etickets = () =>
      service.t.database.db
        .selectFrom('email_jobs')
        .select(['recipient', 'status'])
        .where('order_id', '=', order.id)
        .where('kind', '=', 'etickets')
        .execute();
    const mailed = (await etickets()).length;
    await page.getByRole('button', { name: 'Resend e-tickets' }).click();
    const resent = page.getByRole('status').filter({ hasText: 'e-tickets' });
    await resent.waitFor();
    assert.equal(
      await resent.textContent(),
      `The e-tickets of order ${order.order_no} are on their way to ada@example.com.`,
    );
    assert.equal(await focusedClass(page), 'outcome');
    const jobs = await etickets();
    assert.equal(jobs.length, mailed + 1);
    assert.deepEqual(jobs.at(-1), { recipient: 'ada@example.com', status: 'pending' });
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-settled');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('refund 2 of 3 tickets in cash: said before, done once, their seats back on sale', async () => {
    const order = await sell(3, 'cash');
    const tickets = order.transactions[0].items.sort((a: any, b: any) => a.ticket_no.localeCompare(b.ticket_no));
    const before = await remaining();
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${order.order_no}` }).waitFor();
    const refund = page.getByRole('group', { name: 'Refund', exact: true });
    const boxes = refund.getByRole('checkbox');
    assert.deepEqual(
      await ticketChoices(page),
      tickets.map((t: any) => `Ticket ${t.ticket_no} · Standard · Ada Lovelace · €20.00`),
    );
    assert.equal(await boxes.count(), 3);
    await refund.getByRole('button', { name: 'Refund all 3 tickets' }).waitFor();
    await boxes.nth(2).uncheck();
    await refund.getByRole('button', { name: 'Refund 2 tickets' }).click();
    const question = refund.getByRole('alert');
    assert.equal(
      await question.textContent(),
      'Refund 2 tickets, €40.00 back in cash now. Their seats return to sale; the tickets no longer admit.',
    );
    // The question takes the focus.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Yes, refund 2 tickets');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-refund-asked');
    await page.getByRole('button', { name: 'Yes, refund 2 tickets' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Refunded' });
    await done.waitFor();
    assert.equal(await done.textContent(), `Refunded 2 tickets of order ${order.order_no}: €40.00 back in cash.`);
    assert.deepEqual(await ticketStates(page), ['Refunded', 'Refunded', 'Valid']);

    const now = (await api('GET', `/v1/tickets?order_id=${order.id}`)).json().data;
    const statusById = Object.fromEntries(now.map((t: any) => [t.id, t.status]));
    assert.deepEqual(
      tickets.map((t: any) => statusById[t.id]),
      ['refunded', 'refunded', 'purchased'],
    );
    assert.equal(await remaining(), before + 2);
    // What is left to refund is the third ticket.
    assert.deepEqual(await ticketChoices(page), [`Ticket ${tickets[2].ticket_no} · Standard · Ada Lovelace · €20.00`]);
    const refunded = (await eventsOfType(service.t, service.org.id, 'order.refunded')).filter(
      (d: any) => d.order_id === order.id,
    );
    assert.deepEqual(
      refunded.map((d: any) => [d.refunded_items, d.total_refunded_minor]),
      [[2, 4000]],
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-refunded');

    // The third to the card: recorded as pending until the card refund is settled.
    await page.getByLabel('Money back').selectOption({ label: 'To the card (settled later)' });
    await page.getByRole('button', { name: 'Refund 1 ticket' }).click();
    assert.equal(
      await page.getByRole('group', { name: 'Refund', exact: true }).getByRole('alert').textContent(),
      'Refund 1 ticket, €20.00 back to the card (pending until the card refund is settled). Their seats return to sale; the tickets no longer admit.',
    );
    await page.getByRole('button', { name: 'Yes, refund 1 ticket' }).click();
    const card = page.getByRole('status').filter({ hasText: 'to the card' });
    await card.waitFor();
    assert.equal(
      await card.textContent(),
      `Refunded 1 ticket of order ${order.order_no}: €20.00 to the card, pending until it is settled.`,
    );
    assert.deepEqual(await ticketStates(page), ['Refunded', 'Refunded', 'Refunded']);
    // Nothing is left to refund.
    assert.equal(await page.getByRole('group', { name: 'Refund', exact: true }).count(), 0);
    assert.equal(await remaining(), before + 3);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('cancel an order with the keyboard only: Tab to it, Enter, Escape backs out, Enter twice cancels', async () => {
    const order = await sell(3, 'cash');
    const before = await remaining();
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${order.order_no}` }).waitFor();
    await page.getByRole('button', { name: 'Cancel order' }).waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    let presses = 0;
    while ((await focused()) !== 'Cancel order') {
      assert.ok(++presses < 80, 'Tab never reached "Cancel order"');
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    const question = page.getByRole('group', { name: 'Cancel', exact: true }).getByRole('alert');
    await question.waitFor();
    assert.equal(
      await question.textContent(),
      `Cancel order ${order.order_no}: its 3 valid tickets stop admitting and their seats return to sale. No money is refunded by cancelling: refund the tickets first if it goes back. This cannot be undone.`,
    );
    await page.waitForFunction(
      (name) => document.activeElement?.textContent === name,
      `Yes, cancel order ${order.order_no}`,
    );
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    // Backing out returns the focus to the button (set once the button is back).
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel order');
    assert.equal((await api('GET', `/v1/orders/${order.id}`)).json().status, 'placed');

    await page.keyboard.press('Enter');
    await question.waitFor();
    await page.waitForFunction(
      (name) => document.activeElement?.textContent === name,
      `Yes, cancel order ${order.order_no}`,
    );
    await page.keyboard.press('Enter');
    const done = page.getByRole('status').filter({ hasText: 'cancelled' });
    await done.waitFor();
    assert.equal(
      await done.textContent(),
      `Order ${order.order_no} cancelled: 3 tickets cancelled, their seats back on sale.`,
    );
    assert.equal(await focusedClass(page), 'outcome');
    assert.equal(await statusOf(page), 'cancelled');
    assert.deepEqual(await ticketStates(page), ['Cancelled', 'Cancelled', 'Cancelled']);
    // A cancelled order offers nothing more.
    assert.equal(await page.getByRole('heading', { name: 'Actions', exact: true }).count(), 0);
    assert.equal((await api('GET', `/v1/orders/${order.id}`)).json().status, 'cancelled');
    assert.equal(await remaining(), before + 3);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-cancelled');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('transfer a ticket: the new holder is shown and kept; a refusal is said in words', async () => {
    const order = await sell(2, 'cash');
    const [first] = order.transactions[0].items.sort((a: any, b: any) => a.ticket_no.localeCompare(b.ticket_no));
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${order.order_no}` }).waitFor();
    const form = page.getByRole('form', { name: 'Transfer a ticket' });
    assert.equal(await form.getByRole('button', { name: 'Transfer ticket' }).isDisabled(), true);
    await form.getByLabel('Ticket').selectOption({ label: `${first.ticket_no} · Ada Lovelace` });
    await form.getByLabel("New holder's first name").fill('Grace');
    await form.getByLabel('Last name (optional)').fill('Hopper');
    await form.getByLabel('E-mail').fill('grace@example.com');
    await form.getByRole('button', { name: 'Transfer ticket' }).click();
    assert.equal(
      await form.getByRole('alert').textContent(),
      `Ticket ${first.ticket_no} goes to Grace Hopper (grace@example.com): the same QR code now admits them, no longer Ada Lovelace.`,
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-transfer-asked');
    await form.getByRole('button', { name: `Yes, transfer ticket ${first.ticket_no}` }).click();
    const done = page.getByRole('status').filter({ hasText: 'now belongs to' });
    await done.waitFor();
    assert.equal(
      await done.textContent(),
      `Ticket ${first.ticket_no} now belongs to Grace Hopper (grace@example.com).`,
    );
    assert.equal(
      await page.locator(`li[data-ticket-no="${first.ticket_no}"] .holder`).textContent(),
      'Grace Hopper · grace@example.com',
    );
    const ticket = (await api('GET', `/v1/tickets/${first.id}`)).json();
    assert.deepEqual(ticket.holder, { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' });
    assert.equal(ticket.serial_no, first.serial_no);
    // The form starts afresh after a transfer.
    assert.equal(await form.getByLabel("New holder's first name").inputValue(), '');

    // The ticket is checked in elsewhere meanwhile: the transfer is refused, and the page says why.
    const [, second] = order.transactions[0].items.sort((a: any, b: any) => a.ticket_no.localeCompare(b.ticket_no));
    await form.getByLabel('Ticket').selectOption({ label: `${second.ticket_no} · Ada Lovelace` });
    const checkIn = await api('POST', `/v1/tickets/${second.id}/check_in`);
    assert.equal(checkIn.statusCode, 200, checkIn.body);
    await form.getByLabel("New holder's first name").fill('Alan');
    await form.getByLabel('E-mail').fill('alan@example.com');
    await form.getByRole('button', { name: 'Transfer ticket' }).click();
    await form.getByRole('button', { name: `Yes, transfer ticket ${second.ticket_no}` }).click();
    const refusal = page.locator('.outcome').getByRole('alert');
    await refusal.waitFor();
    assert.equal(
      await refusal.locator('p').first().textContent(),
      `Ticket ${second.ticket_no} is checked in and cannot be transferred; only a purchased ticket can.`,
    );
    assert.equal((await api('GET', `/v1/tickets/${second.id}`)).json().holder.first_name, 'Ada');
    assert.equal(await focusedClass(page), 'outcome');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('a box office settles and resends but is offered no refund, cancel or transfer; a viewer nothing', async () => {
    const unpaid = await sell(1, 'pay_later', 'Bo');
    const placed = await sell(1, 'cash', 'Pat');
    const boxOffice = await service.t.createUser({ organizerId: service.org.id, role: 'box_office', name: 'Bo Box' });
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, boxOffice, `/app/orders/${unpaid.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${unpaid.order_no}` }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Actions', exact: true }).waitFor();
    // Unpaid, there is nothing to resend yet: the e-tickets go once it is settled.
    assert.deepEqual(await mainButtons(page), ['Settle order', 'Print tickets']);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-box-office');
    await page.getByRole('button', { name: 'Settle order' }).click();
    await page.getByRole('status').filter({ hasText: 'settled' }).waitFor();
    assert.equal((await api('GET', `/v1/orders/${unpaid.id}`)).json().status, 'placed');
    assert.deepEqual(await mainButtons(page), ['Resend e-tickets', 'Print tickets']);
    // To another address, for a buyer whose mail did not arrive.
    await page.getByLabel('Send to (optional)').fill('bo.lovelace@example.org');
    await page.getByRole('button', { name: 'Resend e-tickets' }).click();
    const resent = page.getByRole('status').filter({ hasText: 'on their way' });
    await resent.waitFor();
    assert.equal(
      await resent.textContent(),
      `The e-tickets of order ${unpaid.order_no} are on their way to bo.lovelace@example.org.`,
    );
    const jobs = await service.t.database.db
      .selectFrom('email_jobs')
      .select(['recipient', 'status'])
      .where('order_id', '=', unpaid.id)
      .where('kind', '=', 'etickets')
      .where('recipient', '=', 'bo.lovelace@example.org')
      .execute();
    assert.deepEqual(jobs, [{ recipient: 'bo.lovelace@example.org', status: 'pending' }]);

    await openOrder(page, placed);
    await page.getByRole('heading', { level: 2, name: 'Actions', exact: true }).waitFor();
    assert.deepEqual(await mainButtons(page), ['Resend e-tickets', 'Print tickets']);
    // The event's header offers a box office no publish or archive.
    await page.goto(`${service.baseUrl}/app/events/${event.id}`);
    await page.getByRole('heading', { level: 1, name: 'Harbour Lights Quartet' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Performances and availability' }).waitFor();
    for (const name of ['Publish event', 'Archive event', 'Restore from archive'])
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    assert.deepEqual(browser.errorsOf(page), []);

    const viewer = await service.t.createUser({ organizerId: service.org.id, role: 'viewer', name: 'Vic Viewer' });
    const other = await browser.newPage();
    await signIn(other, service.baseUrl, viewer, `/app/orders/${unpaid.id}`);
    await other.getByRole('heading', { level: 1, name: `Order ${unpaid.order_no}` }).waitFor();
    await other.getByRole('list', { name: 'Tickets' }).waitFor();
    assert.equal(await other.getByRole('heading', { name: 'Actions', exact: true }).count(), 0);
    assert.deepEqual(await mainButtons(other), ['Print tickets']);
    assert.equal(await other.locator('main form').count(), 0);
    assert.deepEqual(await browser.seriousViolations(other), []);
    assert.deepEqual(browser.errorsOf(other), []);
  });

  test('publish a draft (asked once: N performances go on sale), then archive and restore it', async () => {
    const created = await api('POST', '/v1/events', {
      title: 'Winter Draft',
      venue: { name: 'Blue Room' },
      publish: false,
      performances: [
        { starts_at: '2027-12-01T18:00:00Z', capacity: 40 },
        { starts_at: '2027-12-02T18:00:00Z', capacity: 40 },
      ],
      ticket_types: [{ name: 'Entry', price_minor: 1000 }],
    });
    assert.equal(created.statusCode, 201, created.body);
    const draft = created.json();
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${draft.id}`);
    await page.getByRole('heading', { level: 1, name: 'Winter Draft' }).waitFor();
    assert.equal((await page.locator('.screen-head .states').innerText()).trim(), 'Draft');
    await page.getByRole('button', { name: 'Publish event' }).click();
    const question = page.locator('.event-actions').getByRole('alert');
    assert.equal(
      await question.textContent(),
      'Publish: 2 performances go on sale now, and each sends one event.published webhook. A published event cannot go back to draft.',
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'event-publish-asked');
    await page.getByRole('button', { name: 'Yes, publish Winter Draft' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Published' });
    await done.waitFor();
    assert.equal(await done.textContent(), 'Published: 2 performances on sale.');
    await page.waitForFunction(() => document.querySelector('.screen-head .states')?.textContent === 'Published');
    assert.equal(await page.getByRole('button', { name: 'Publish event' }).count(), 0);
    const performances = (await api('GET', `/v1/events/${draft.id}/performances`)).json().data;
    assert.deepEqual(
      performances.map((p: any) => p.status),
      ['published', 'published'],
    );
    const published = (await eventsOfType(service.t, service.org.id, 'event.published')).filter(
      (d: any) => d.event_id === draft.id,
    );
    assert.equal(published.length, 2);
    // Each published performance has its Sell link now.
    assert.equal(await page.getByRole('main').getByRole('link', { name: 'Sell' }).count(), 2);

    await page.getByRole('button', { name: 'Archive event' }).click();
    assert.equal(
      await page.locator('.event-actions').getByRole('alert').textContent(),
      'Archive: the event is marked archived and the console offers no Sell link for it. It stays listed and readable, its tickets stay valid, and it can be restored.',
    );
    await page.getByRole('button', { name: 'Yes, archive Winter Draft' }).click();
    await page.getByRole('status').filter({ hasText: 'Archived.' }).waitFor();
    assert.equal((await api('GET', `/v1/events/${draft.id}`)).json().is_archived, true);
    assert.equal(await page.getByRole('main').getByRole('link', { name: 'Sell' }).count(), 0);
    await page.getByRole('button', { name: 'Restore from archive' }).click();
    await page.getByRole('button', { name: 'Yes, restore Winter Draft' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored from the archive.' }).waitFor();
    assert.equal((await api('GET', `/v1/events/${draft.id}`)).json().is_archived, false);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'event-published');
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
