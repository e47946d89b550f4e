/**
 * An event's report in the console (docs/console.md, "Screens"; docs/dashboard.md,
 * "Reports"), in a real browser: an event with two performances and two ticket types is
 * sold over HTTP on two days (one ticket refunded, one checked in, three seats held);
 * the report, opened from the event's page, shows the totals, revenue by tender and per
 * performance a table by ticket type with exactly those numbers, the money in the
 * organizer's currency; sales over time is a bar chart with one bar per period and a
 * table of the same numbers, per day or, switched, per hour. A viewer may read it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { createEvent, type CreatedEvent } from '../helpers/catalog.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';
import { BUYER } from '../helpers/orders.ts';

const ZONE = 'Europe/Berlin';
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

interface Report {
  currency: string;
  timezone: string;
  totals: Record<string, number>;
  by_tender: { tender: string; orders: number; amount_minor: number }[];
  performances: {
    performance_id: string;
    starts_at: string;
    capacity: number;
    sold: number;
    remaining: number;
    checked_in: number;
    held: number;
    ticket_types: {
      ticket_type_id: string;
      name: string;
      price_minor: number;
      cap: number | null;
      sold: number;
      remaining: number | null;
      checked_in: number;
      refunded: number;
      cancelled: number;
      revenue_minor: number;
    }[];
  }[];
  sales_over_time: { period_start: string; orders: number; tickets: number; revenue_minor: number }[];
}

const hourIn = (ms: number) =>
  Number(new Intl.DateTimeFormat('en-US', { hour: 'numeric', hourCycle: 'h23', timeZone: ZONE }).format(ms));

/** A period's start as the report shows it (screens/reports.tsx periodLabel, en-US). */
const periodLabel = (iso: string, interval: 'day' | 'hour') =>
  new Intl.DateTimeFormat(
    'en-US',
    interval === 'day'
      ? { year: 'numeric', month: 'short', day: 'numeric', timeZone: ZONE }
      : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: ZONE },
  ).format(new Date(iso));

/** A table's rows, cell by cell (header cells included), as the page shows them. */
const cellsOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluate((table) =>
      [...table.querySelectorAll('tbody tr, tfoot tr')].map((row) =>
        [...row.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText.trim()),
      ),
    );

describe('an event report in the console', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  test('totals, tenders, ticket types and sales over time, exactly as sold', async () => {
    const { t, org } = service;
    // A box-office fee of €1.00 a ticket and 10 % tax (docs/orders.md, "Money").
    const patched = await t.admin('PATCH', `/admin/v1/organizers/${org.id}`, {
      box_office_fee_minor: 100,
      tax_rate_bps: 1000,
    });
    assert.equal(patched.statusCode, 200, patched.body);

    // The first sale at 10:00 in Berlin (the test's clock only moves forward: up to a day on).
    const now = t.clock.now().getTime();
    let start = Math.ceil(now / HOUR_MS) * HOUR_MS;
    while (hourIn(start) !== 10) start += HOUR_MS;
    t.clock.advance(start - now);

    const event: CreatedEvent = await createEvent(t, org.key, {
      title: 'Harbour Lights',
      timezone: ZONE,
      performances: [
        { starts_at: new Date(start + 7 * DAY_MS).toISOString(), capacity: 100 },
        { starts_at: new Date(start + 8 * DAY_MS).toISOString(), capacity: 50, title: 'Matinee' },
      ],
      ticket_types: [
        { name: 'General', price_minor: 2500, quantity: null },
        { name: 'Concession', price_minor: 1500, quantity: 20 },
      ],
    });
    const [general, concession] = event.ticket_types.map((tt) => tt.id) as [string, string];
    const [p1, p2] = event.ticket_types[0]!.prices.map((p) => p.performance_id) as [string, string];
    const order = async (items: { performance_id: string; ticket_type_id: string; quantity: number }[]) => {
      const res = await t.api(org.key, 'POST', '/v1/orders', { items, buyer: BUYER, tender: 'cash' });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ id: string; total_minor: number }>();
    };
    const ticketsOf = async (orderId: string) => {
      const res = await t.api(org.key, 'GET', `/v1/tickets?order_id=${orderId}&limit=100`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { id: string; ticket_type_id: string }[] }>().data;
    };

    // Day 1, 10:00: two General for the first performance. Items 5000, fees 200, tax 520.
    const o1 = await order([{ performance_id: p1, ticket_type_id: general, quantity: 2 }]);
    assert.equal(o1.total_minor, 5720);
    // Day 1, 11:00: one Concession. Items 1500, fees 100, tax 160.
    t.clock.advance(HOUR_MS);
    const o2 = await order([{ performance_id: p1, ticket_type_id: concession, quantity: 1 }]);
    assert.equal(o2.total_minor, 1760);
    // Day 2, 10:00: the matinee, one of each. Items 4000, fees 200, tax 420.
    t.clock.advance(DAY_MS - HOUR_MS);
    const o3 = await order([
      { performance_id: p2, ticket_type_id: general, quantity: 1 },
      { performance_id: p2, ticket_type_id: concession, quantity: 1 },
    ]);
    assert.equal(o3.total_minor, 4620);

    // One of the first order's tickets refunded in cash (2500 + 100 + its half of the tax, 260).
    const [refundedTicket] = await ticketsOf(o1.id);
    const refund = await t.admin('POST', `/admin/v1/orders/${o1.id}/refund`, {
      ticket_ids: [refundedTicket!.id],
      mode: 'cash',
    });
    assert.equal(refund.statusCode, 201, refund.body);
    // The Concession of the second order checked in; three seats of the first performance held.
    const [concessionTicket] = await ticketsOf(o2.id);
    const checkIn = await t.api(org.key, 'POST', `/v1/tickets/${concessionTicket!.id}/check_in`, {});
    assert.equal(checkIn.statusCode, 200, checkIn.body);
    const hold = await t.admin('POST', `/admin/v1/performances/${p1}/holds`, { kind: 'allocation', quantity: 3 });
    assert.equal(hold.statusCode, 201, hold.body);

    // The API's report agrees with the availability API on what remains.
    const session = await t.signIn(service.owner.email, service.owner.password);
    const fetched = async (interval: 'day' | 'hour') => {
      const res = await t.dash(session, 'GET', `/dashboard/v1/reports/events/${event.id}?interval=${interval}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<Report>();
    };
    const report = await fetched('day');
    const remainingOf = async (performanceId: string) => {
      const res = await t.api(org.key, 'GET', `/v1/performances/${performanceId}/availability`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{
        performance_remaining: number;
        ticket_types: { ticket_type_id: string; remaining: number }[];
      }>();
    };
    for (const p of report.performances) {
      const availability = await remainingOf(p.performance_id);
      assert.equal(p.remaining, availability.performance_remaining);
      for (const tt of p.ticket_types)
        assert.equal(
          tt.remaining,
          availability.ticket_types.find((a) => a.ticket_type_id === tt.ticket_type_id)?.remaining,
        );
    }

    // The owner opens the event, then its report.
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${event.id}`);
    await page.getByRole('heading', { level: 1, name: 'Harbour Lights' }).waitFor();
    await page.getByRole('link', { name: 'Sales report' }).click();
    await page.getByRole('heading', { level: 1, name: 'Report: Harbour Lights' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/app/events/${event.id}/report`);
    await page.locator('table.report-tickets').waitFor();

    // 150 seats; 4 tickets count as sold (2 + 1 − 1 refunded, and the matinee's 2); the
    // first performance keeps 100 − 2 − 3 held = 95, the matinee 50 − 2 = 48.
    assert.deepEqual(await cellsOf(page, 'table.report-tickets'), [
      ['Capacity', '150'],
      ['Sold', '4'],
      ['Remaining', '143'],
      ['Checked in', '1'],
      ['Held', '3'],
      ['Refunded', '1'],
      ['Cancelled', '0'],
      ['Orders', '3'],
    ]);
    // Paid 57.20 + 17.60 + 46.20; the refund returned 25.00 + 1.00 + 2.60. Fees and tax of what is kept.
    assert.deepEqual(await cellsOf(page, 'table.report-money'), [
      ['Gross', '€121.00'],
      ['Refunds', '€28.60'],
      ['Net', '€92.40'],
      ['Fees in net', '€4.00'],
      ['Taxes in net', '€8.40'],
    ]);
    assert.deepEqual(await cellsOf(page, 'table.report-tenders'), [['Cash', '3', '€121.00']]);

    // Per performance and ticket type: price, sold, remaining, checked in, held, refunded, cancelled, revenue.
    assert.deepEqual(await cellsOf(page, `table[data-performance="${p1}"]`), [
      ['General', '€25.00', '1', '95', '0', '0', '1', '0', '€28.60'],
      ['Concession', '€15.00', '1', '19', '1', '0', '0', '0', '€17.60'],
      ['All ticket types', '', '2', '95', '1', '3', '1', '0', '€46.20'],
    ]);
    assert.deepEqual(await cellsOf(page, `table[data-performance="${p2}"]`), [
      ['General', '€25.00', '1', '48', '0', '0', '0', '0', '€28.60'],
      ['Concession', '€15.00', '1', '19', '0', '0', '0', '0', '€17.60'],
      ['All ticket types', '', '2', '48', '0', '0', '0', '0', '€46.20'],
    ]);
    assert.match(
      (await page.locator(`table[data-performance="${p2}"] caption`).innerText()).trim(),
      / · Matinee · capacity 50$/,
    );

    // Sales per day: one bar per day with sales, and the table beside the chart with the same
    // numbers (day 2: the matinee's 46.20 in, the refund's 28.60 out).
    const day1 = periodLabel(new Date(start).toISOString(), 'day');
    const day2 = periodLabel(new Date(start + DAY_MS).toISOString(), 'day');
    const chart = page.getByRole('img', { name: 'Revenue per day' });
    await chart.waitFor();
    assert.equal(await chart.locator('rect').count(), 2);
    assert.deepEqual(await chart.locator('rect > title').allTextContents(), [
      `${day1}: €74.80, 2 tickets`,
      `${day2}: €17.60, 2 tickets`,
    ]);
    assert.deepEqual(await cellsOf(page, 'table.report-sales'), [
      [day1, '2', '2', '€74.80'],
      [day2, '1', '2', '€17.60'],
    ]);
    assert.equal(await page.getByRole('radio', { name: 'Day' }).isChecked(), true);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'report');

    // Per hour: the address says so, and chart and table follow.
    await page.getByRole('radio', { name: 'Hour' }).check();
    await page.waitForURL((url) => url.search === '?interval=hour');
    const hourly = page.getByRole('img', { name: 'Revenue per hour' });
    await hourly.waitFor();
    assert.equal(await hourly.locator('rect').count(), 3);
    const hour = (ms: number) => periodLabel(new Date(ms).toISOString(), 'hour');
    assert.deepEqual(await cellsOf(page, 'table.report-sales'), [
      [hour(start), '1', '1', '€57.20'],
      [hour(start + HOUR_MS), '1', '1', '€17.60'],
      [hour(start + DAY_MS), '1', '2', '€17.60'],
    ]);
    assert.equal(await page.getByRole('radio', { name: 'Hour' }).evaluate((el) => el === document.activeElement), true);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'report-hourly');

    // The switch is a radio group: the arrow key goes back to days.
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL((url) => url.search === '');
    await page.getByRole('img', { name: 'Revenue per day' }).waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Day' }).isChecked(), true);
    assert.equal(await page.locator('table.report-sales tbody tr').count(), 2);

    // A viewer reads the same report, from its address.
    const viewer = await t.createUser({ organizerId: org.id, role: 'viewer', name: 'Vera Viewer' });
    const other = await browser.newPage();
    await signIn(other, service.baseUrl, viewer, `/app/events/${event.id}/report?interval=hour`);
    await other.getByRole('img', { name: 'Revenue per hour' }).waitFor();
    assert.deepEqual(await cellsOf(other, 'table.report-tickets'), await cellsOf(page, 'table.report-tickets'));
    assert.deepEqual(browser.errorsOf(page), []);
    assert.deepEqual(browser.errorsOf(other), []);
  });
  test('an event with no sale, and an unknown event', async () => {
    const { t, org } = service;
    const event = await createEvent(t, org.key, { title: 'Quiet Night' });
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/events/${event.id}/report`);
    await page.getByRole('heading', { level: 1, name: 'Report: Quiet Night' }).waitFor();
    await page.getByText('Nothing sold yet.').waitFor();
    await page.getByText('No orders yet.').waitFor();
    assert.equal(await page.getByRole('img').count(), 0);
    assert.deepEqual((await cellsOf(page, 'table.report-tickets')).slice(0, 3), [
      ['Capacity', '100'],
      ['Sold', '0'],
      ['Remaining', '100'],
    ]);
    assert.deepEqual(await cellsOf(page, 'table.report-money'), [
      ['Gross', '€0.00'],
      ['Refunds', '€0.00'],
      ['Net', '€0.00'],
      ['Fees in net', '€0.00'],
      ['Taxes in net', '€0.00'],
    ]);
    assert.deepEqual(await browser.seriousViolations(page), []);

    // An id that is no event of this organizer: the API's words.
    await page.goto(`${service.baseUrl}/app/events/00000000-0000-4000-8000-000000000000/report`);
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /^Event not found\.\n\nRequest id: \S+$/);
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
