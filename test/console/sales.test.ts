/**
 * Selling and finding orders in a real browser (docs/console.md, "Sell", "Orders"): the
 * event's registration questions as a form whose required question the browser enforces,
 * a sale sent once (a double click, and a resend after a lost answer, reuse the form's
 * Idempotency-Key: one order), the result with its totals in the order's currency and
 * printable tickets whose QR codes hold their serials, then the order found by e-mail
 * and opened with its transactions, tickets and answers.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import QRCode from 'qrcode';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { addQuestions, COMPANY_AND_DIET_QUESTIONS } from '../helpers/catalog.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';

describe('sell and find the order', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();
  let event: any;

  before(async () => {
    if (BROWSER_SKIP) return;
    const { t, org } = service;
    // A fee per ticket and a tax, so the totals have every part.
    assert.equal(
      (await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, { box_office_fee_minor: 150, tax_rate_bps: 1900 }))
        .statusCode,
      200,
    );
    const created = await t.api(org.key, 'POST', '/v1/events', {
      title: 'Jazz at the Lighthouse',
      venue: { name: 'Lighthouse Hall' },
      timezone: 'Europe/Berlin',
      performances: [{ starts_at: '2027-03-12T18:30:00Z', capacity: 300 }],
      ticket_types: [
        { name: 'Standard', price_minor: 3500, quantity: 250 },
        { name: 'Student', price_minor: 1800 },
      ],
    });
    assert.equal(created.statusCode, 201, created.body);
    event = created.json();
    await addQuestions(t, event.id, COMPANY_AND_DIET_QUESTIONS);
  });

  test('a sale with a required question, sent once, with its totals and printable tickets', async () => {
    const page = await browser.newPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/orders'))
        posts.push(request.headers()['idempotency-key']!);
    });
    await signIn(page, service.baseUrl, service.owner, '/app/sell');
    await page.getByLabel('Event').selectOption({ label: 'Jazz at the Lighthouse' });
    await page.getByLabel('Performance').selectOption({ label: 'Mar 12, 2027, 07:30 PM GMT+1' });
    await page.getByRole('form', { name: 'Sale' }).waitFor();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="remaining-Standard"]')?.textContent === '250',
    );
    assert.equal(await page.getByTestId('remaining-Student').textContent(), '300');

    await page.getByLabel('Standard').fill('2');
    assert.equal(await page.getByTestId('subtotal').textContent(), '€70.00');
    await page.getByLabel('First name (required)').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('E-mail (required)').fill('ada@example.com');
    await page.getByLabel('Company').fill('Analytical Engines Ltd');
    await page.getByLabel('Ticket 1: Dietary requirements (required)').selectOption('vegan');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'sell');

    // Ticket 2's required answer is missing: the browser refuses the form, nothing is sent.
    await page.getByRole('button', { name: 'Sell tickets' }).click();
    const second = page.getByLabel('Ticket 2: Dietary requirements (required)');
    assert.equal(await second.evaluate((el: HTMLSelectElement) => el.validity.valueMissing), true);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-answer-dietary-2');
    assert.deepEqual(posts, []);
    await second.selectOption('none');

    // The first two answers are lost on the way back (the sale is made, the page does not
    // hear of it; the client's own retry too): the page says so, and sending again replays.
    let lost = 0;
    await page.route('**/v1/orders', async (route) => {
      if (route.request().method() !== 'POST' || lost >= 2) return route.continue();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Sell tickets' }).click();
    await page.getByRole('alert').filter({ hasText: 'No answer from Marquee' }).waitFor();
    assert.equal(posts.length, 2);
    await page.getByRole('button', { name: 'Sell tickets' }).dblclick();
    await page.getByRole('heading', { level: 1, name: /^Sold: order / }).waitFor();
    // The second click of the double click found the form busy: one more POST, not two.
    assert.equal(posts.length, 3);
    assert.equal(new Set(posts).size, 1, 'every attempt carried the form key');

    const orders = (await service.t.api(service.org.key, 'GET', '/v1/orders?email=ada@example.com')).json().data;
    assert.equal(orders.length, 1);
    const order = (await service.t.api(service.org.key, 'GET', `/v1/orders/${orders[0].id}?expand[]=items`)).json();
    const [transaction] = order.transactions;
    // 2 × 35.00, fees 2 × 1.50, tax 19 % of 73.00 = 13.87.
    assert.deepEqual(
      [transaction.items_total_minor, transaction.service_fees_minor, transaction.taxes_minor, order.total_minor],
      [7000, 300, 1387, 8687],
    );
    assert.equal(await page.locator('.order-no').textContent(), order.order_no);
    assert.equal(await page.locator('.order-total').textContent(), '€86.87');
    const cells = (await page.locator('table').first().locator('tbody tr').innerText()).split('\t');
    assert.deepEqual(
      cells.slice(2).map((c) => c.trim()),
      ['€70.00', '€3.00', '€0.00', '€13.87', '€86.87'],
    );

    const tickets = transaction.items;
    assert.equal(tickets.length, 2);
    const images = page.getByRole('list', { name: 'Tickets' }).getByRole('img');
    await page.waitForFunction(() => document.querySelectorAll('img.qr').length === 2);
    for (const [i, ticket] of tickets.entries()) {
      const img = images.nth(i);
      assert.equal(await img.getAttribute('alt'), `QR code of ticket ${ticket.ticket_no}`);
      const svg = await QRCode.toString(ticket.serial_no, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
      assert.equal(await img.getAttribute('src'), `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    }
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'sale-done');

    // Printed, only the tickets and the order remain: no navigation, forms or buttons.
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('header.top').isVisible(), false);
    assert.equal(await page.getByRole('button', { name: 'New sale' }).isVisible(), false);
    assert.equal(await images.first().isVisible(), true);
    await browser.screenshot(page, 'console', 'tickets-print');
    await page.emulateMedia({ media: 'screen' });
    assert.deepEqual(browser.errorsOf(page), []);

    // A new sale starts a new form: a new key.
    await page.getByRole('button', { name: 'New sale' }).click();
    await page.getByRole('form', { name: 'Sale' }).waitFor();
    await page.getByLabel('Student').fill('1');
    await page.getByLabel('First name (required)').fill('Grace');
    await page.getByLabel('E-mail (required)').fill('grace@example.com');
    await page.getByLabel('Ticket 1: Dietary requirements (required)').selectOption('none');
    await page.getByLabel('Pay later (unpaid)').check();
    await page.getByLabel('E-mail (required)').press('Enter');
    await page.getByRole('heading', { level: 1, name: /^Sold: order / }).waitFor();
    assert.equal(new Set(posts).size, 2);
  });

  test('find the order by e-mail and open it: transactions, tickets and answers', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/orders');
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    await page.getByLabel('Buyer e-mail').fill('ADA@example.com');
    await page.getByLabel('Buyer e-mail').press('Enter');
    const rows = page.locator('tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    const [order] = (await service.t.api(service.org.key, 'GET', '/v1/orders?email=ada@example.com')).json().data;
    assert.deepEqual(
      (await rows.innerText())
        .split('\t')
        .map((c) => c.trim())
        .slice(0, 4),
      [order.order_no, 'Ada Lovelace · ada@example.com', 'placed', '€86.87'],
    );
    await page.getByLabel('Status').selectOption('unpaid');
    await page.getByLabel('Event').selectOption({ label: 'Jazz at the Lighthouse' });
    await page.getByLabel('Buyer e-mail').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('cell', { name: 'Grace · grace@example.com' }).waitFor();
    assert.equal(await rows.count(), 1);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'orders');

    await page.goto(`${service.baseUrl}/app/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order ${order.order_no}` }).waitFor();
    const answers = page.getByRole('table').filter({ hasText: 'Question' });
    const tickets = (await service.t.api(service.org.key, 'GET', `/v1/tickets?order_id=${order.id}`)).json().data;
    const [first, second] = tickets.map((t: { ticket_no: string }) => t.ticket_no).sort();
    assert.deepEqual(
      (await answers.locator('tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim())),
      [
        ['Company', 'Order', 'Analytical Engines Ltd'],
        ['Dietary requirements', first, 'vegan'],
        ['Dietary requirements', second, 'none'],
      ],
    );
    await page.waitForFunction(() => document.querySelectorAll('img.qr').length === 2);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'order-detail');
  });
});
