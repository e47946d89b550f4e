/**
 * The Devices and Attendance screens of the console (docs/console.md, "Devices",
 * "Attendance"; docs/door.md), in a real browser. A manager adds a door device: the
 * pairing QR code, the `mqd_` code, the link and the expiry are shown, and the list says
 * "Waiting for pairing"; a new code replaces it (the first one is then refused); the
 * device claims it over HTTP and syncs, and the list's own refresh (the page's clock
 * moved forward, not waited for) shows it "Active", synced an exact number of seconds
 * ago; revoking asks once, the row says "Revoked" and the device's key answers 401. A
 * door steward has no Devices. Attendance: tickets sold over the API, one admitted by the
 * console's API and one uploaded by a device, one scanned again: "Admitted 2 of 3 sold",
 * each gate, the minutes as the API answers them and the double entry; a third admission
 * shows on the next poll.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { createEvent, performanceIdsOf } from '../helpers/catalog.ts';
import { MANAGER_NAVIGATION, navigation, signIn, useConsoleService } from '../helpers/console.ts';
import { BUYER } from '../helpers/orders.ts';
import type { DashboardSession } from '../helpers/app.ts';

const ZONE = 'Europe/Berlin';
const DAY_MS = 24 * 60 * 60 * 1000;

/** An instant as the screens show it in `ZONE` (en-US), as lib/format.ts's dateTime does. */
const shownAt = (iso: string, seconds = false) =>
  new Intl.DateTimeFormat('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    timeZone: ZONE,
    timeZoneName: 'short',
  }).format(new Date(iso));

/** A time of day as lib/ages.ts's timeOfDay shows it. */
const timeOfDay = (iso: string) =>
  new Intl.DateTimeFormat('en-US', {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: ZONE,
    timeZoneName: 'short',
  }).format(new Date(iso));

/** The cells of a table's body rows, header cell first (innerText, trimmed). */
const rowsOf = (page: Page, selector: string) =>
  page
    .locator(`${selector} tbody tr`)
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText.trim())),
    );

interface Device {
  id: string;
  name: string;
  status: string;
  provisioning_expires_at: string | null;
  last_seen_at: string | null;
  last_synced_at: string | null;
  scans_today: number;
  online_only: boolean;
  performances: { id: string; starts_at: string }[];
}

describe('door devices and attendance in the console', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  const deviceOverApi = async (session: DashboardSession, id: string) => {
    const res = await service.t.dash(session, 'GET', `/dashboard/v1/door_devices/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Device>();
  };

  const claim = async (token: string) => {
    const res = await service.t.inject({
      method: 'POST',
      url: '/v1/device_claims',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token }),
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ api_key: string; device: { id: string; name: string } }>().api_key;
  };

  test('a manager adds a device, pairs it, sees it sync and revokes it; a door steward has no Devices', async () => {
    const { t, org } = service;
    const event = await createEvent(t, org.key, {
      title: 'Harbour Nights',
      performances: [
        { starts_at: new Date(t.clock.now().getTime() + 7 * DAY_MS).toISOString(), capacity: 50 },
        { starts_at: new Date(t.clock.now().getTime() + 8 * DAY_MS).toISOString(), capacity: 50 },
      ],
    });
    const [first] = performanceIdsOf(event) as [string, string];
    const manager = await t.createUser({ organizerId: org.id, role: 'manager', name: 'Max Manager' });
    const session = await t.signIn(manager.email, manager.password);

    const page = await browser.newPage();
    // The page's clock starts at the service's (which stands still unless the test moves it) and runs.
    await page.clock.install({ time: t.clock.now() });
    await signIn(page, service.baseUrl, manager, '/app/devices');
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    assert.deepEqual(await navigation(page), MANAGER_NAVIGATION);
    await page.getByText('No door devices yet.').waitFor();

    // Nothing chosen: refused beside the performances before anything is sent.
    await page.getByLabel('Name', { exact: true }).fill('Main entrance');
    await page.getByRole('button', { name: 'Add device' }).click();
    const choiceError = page.locator('#f-performance_ids-error');
    await choiceError.waitFor();
    assert.equal(await choiceError.textContent(), 'Choose at least one performance.');

    const group = page.getByRole('group', { name: 'Harbour Nights' });
    assert.equal(await group.getByRole('checkbox').count(), 2);
    await group.getByRole('checkbox').first().check();
    await page.getByRole('button', { name: 'Add device' }).click();

    const pairing = page.getByRole('region', { name: 'Pair Main entrance' });
    const qr = pairing.getByRole('img', { name: 'QR code to pair Main entrance' });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src'))!, /^data:image\/svg\+xml[;,]/);
    const code = (await pairing.getByTestId('pairing-code').textContent())!;
    assert.match(code, /^mqd_[A-Za-z0-9_-]{43}$/);
    const link = (await pairing.getByTestId('pairing-link').textContent())!;
    assert.ok(link.endsWith(`/app/device#pair=${code}`), link);
    const id = (await pairing.getAttribute('data-device'))!;
    const created = await deviceOverApi(session, id);
    assert.equal(created.status, 'awaiting_pairing');
    assert.equal(
      await pairing.getByTestId('pairing-expiry').textContent(),
      `Valid until ${timeOfDay(created.provisioning_expires_at!)}, 10 minutes.`,
    );
    const row = page.locator(`table.door-devices tr[data-device="${id}"]`);
    assert.deepEqual(
      created.performances.map((p) => p.id),
      [first],
    );
    assert.deepEqual(
      (await rowsOf(page, 'table.door-devices')).map((cells) => cells.slice(0, 6)),
      [
        [
          'Main entrance',
          `Harbour Nights · ${shownAt(created.performances[0]!.starts_at)}`,
          'Waiting for pairing',
          'Never',
          'Not synced yet',
          '0',
        ],
      ],
    );
    assert.deepEqual(await row.getByRole('button').allTextContents(), [
      'New pairing code',
      'Make online only',
      'Revoke',
    ]);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'devices-pairing');

    // A new code for the unpaired device: shown again, another code.
    await row.getByRole('button', { name: 'New pairing code for Main entrance' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'A new pairing code for Main entrance is shown above.' })
      .waitFor();
    const renewed = (await pairing.getByTestId('pairing-code').textContent())!;
    assert.match(renewed, /^mqd_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(renewed, code);

    // The first code no longer works; the device claims the new one over HTTP and syncs once.
    const stale = await t.inject({
      method: 'POST',
      url: '/v1/device_claims',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token: code }),
    });
    assert.equal(stale.statusCode, 400, stale.body);
    assert.equal(stale.json<{ param: string }>().param, 'token');
    const key = await claim(renewed);
    const sync = await t.api(key, 'GET', '/v1/door_tickets');
    assert.equal(sync.statusCode, 200, sync.body);
    const synced = await deviceOverApi(session, id);
    assert.equal(synced.status, 'active');
    assert.ok(synced.last_synced_at !== null && synced.last_seen_at !== null, JSON.stringify(synced));

    // The list reads itself again every 10 s: the page's clock (a few seconds past the
    // service's, which stands still) jumps to 30 s after the sync and stops there.
    await page.clock.pauseAt(Date.parse(synced.last_synced_at) + 30_000);
    await row.getByText('Active', { exact: true }).waitFor();
    assert.deepEqual((await rowsOf(page, 'table.door-devices'))[0]!.slice(2, 6), [
      'Active',
      shownAt(synced.last_seen_at),
      'synced 30 s ago',
      '0',
    ]);
    assert.deepEqual(await row.getByRole('button').allTextContents(), ['Make online only', 'Revoke']);
    // Paired, its code is no longer shown.
    assert.equal(await pairing.count(), 0);
    await page.clock.resume();

    // The online-only setting, both ways; the device reads it with its next refresh.
    await row.getByRole('button', { name: 'Make online only Main entrance' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Main entrance is online only: offline, its scans wait for the network.' })
      .waitFor();
    await row.getByText('Online only', { exact: true }).waitFor();
    assert.equal((await t.api(key, 'GET', '/v1/door_device')).json<{ online_only: boolean }>().online_only, true);
    await row.getByRole('button', { name: 'Allow offline verdicts on Main entrance' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Main entrance decides offline scans from its copy again.' })
      .waitFor();
    assert.equal((await deviceOverApi(session, id)).online_only, false);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'devices-active');

    // Revoke asks once, then the key stops working.
    await row.getByRole('button', { name: 'Revoke Main entrance' }).click();
    assert.equal(
      await row.getByRole('alert').textContent(),
      'Revoke Main entrance? Its key stops working at once; scans it has not uploaded are lost.',
    );
    assert.equal((await deviceOverApi(session, id)).status, 'active');
    await row.getByRole('button', { name: 'Yes, revoke Main entrance' }).click();
    await page.getByRole('status').filter({ hasText: 'Main entrance was revoked.' }).waitFor();
    await row.getByText('Revoked', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button').count(), 0);
    assert.equal((await deviceOverApi(session, id)).status, 'revoked');
    assert.equal((await t.api(key, 'GET', '/v1/door_device')).statusCode, 401);
    assert.deepEqual(browser.errorsOf(page), []);

    // A door steward has neither Devices nor Attendance.
    const steward = await t.createUser({ organizerId: org.id, role: 'door', name: 'Sam Steward' });
    const door = await browser.newPage();
    await signIn(door, service.baseUrl, steward);
    await door.getByRole('heading', { level: 1, name: 'Door' }).waitFor();
    assert.deepEqual(await navigation(door), ['Door']);
    await door.goto(`${service.baseUrl}/app/devices`);
    await door.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    assert.deepEqual(browser.errorsOf(door), []);
  });

  test('attendance: admitted of sold, per gate, per minute and a double entry, polled', async () => {
    const { t, org } = service;
    const event = await createEvent(t, org.key, { title: 'Quayside Quartet' });
    const [performanceId] = performanceIdsOf(event) as [string];
    const order = await t.api(org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: performanceId, ticket_type_id: event.ticket_types[0]!.id, quantity: 3 }],
      buyer: BUYER,
      tender: 'cash',
    });
    assert.equal(order.statusCode, 201, order.body);
    const listed = await t.api(org.key, 'GET', `/v1/tickets?order_id=${order.json<{ id: string }>().id}&limit=100`);
    assert.equal(listed.statusCode, 200, listed.body);
    const [a, b, c] = listed.json<{ data: { id: string; ticket_no: string }[] }>().data as [
      { id: string; ticket_no: string },
      { id: string; ticket_no: string },
      { id: string; ticket_no: string },
    ];

    // A device for the performance, paired over HTTP.
    const session = await t.signIn(service.owner.email, service.owner.password);
    const made = await t.dash(session, 'POST', '/dashboard/v1/door_devices', {
      name: 'Gate A',
      performance_ids: [performanceId],
    });
    assert.equal(made.statusCode, 201, made.body);
    const gate = made.json<Device & { provisioning_token: string }>();
    const key = await claim(gate.provisioning_token);

    // Ticket a admitted through the API; ticket b uploaded by the device a minute ago, and a scanned there again.
    const viaApi = await t.api(org.key, 'POST', `/v1/tickets/${a.id}/check_in`, {});
    assert.equal(viaApi.statusCode, 200, viaApi.body);
    const scannedAt = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const upload = await t.api(key, 'POST', '/v1/check_ins', {
      data: [
        { ticket_id: b.id, scanned_at: scannedAt, device_scan_id: 'scan-1' },
        { ticket_id: a.id, scanned_at: scannedAt, device_scan_id: 'scan-2' },
      ],
    });
    assert.equal(upload.statusCode, 200, upload.body);
    assert.deepEqual(
      upload.json<{ data: { outcome: string }[] }>().data.map((s) => s.outcome),
      ['admitted', 'already_checked_in'],
    );
    const overApi = async () => {
      const res = await t.dash(session, 'GET', `/dashboard/v1/performances/${performanceId}/attendance`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{
        sold: number;
        admitted: number;
        gates: { device_id: string | null; name: string; admitted: number; last_admitted_at: string | null }[];
        per_minute: { minute: string; admitted: number }[];
        double_entries: {
          ticket_no: string;
          first: { device_name: string | null; checked_in_at: string };
          second: { device_name: string | null; scanned_at: string; received_at: string };
        }[];
      }>();
    };
    const expected = await overApi();
    assert.equal(expected.sold, 3);
    assert.equal(expected.admitted, 2);

    const page = await browser.newPage();
    await page.clock.install({ time: t.clock.now() });
    await signIn(page, service.baseUrl, service.owner, '/app/attendance');
    await page.getByRole('heading', { level: 1, name: 'Attendance' }).waitFor();
    await page.getByLabel('Event').locator('option', { hasText: 'Quayside Quartet' }).waitFor({ state: 'attached' });
    await page.getByLabel('Event').selectOption({ label: 'Quayside Quartet' });
    const performance = page.getByLabel('Performance');
    await performance.locator(`option[value="${performanceId}"]`).waitFor({ state: 'attached' });
    await performance.selectOption(performanceId);

    const count = page.getByTestId('attendance-count');
    await count.waitFor();
    assert.equal(await count.textContent(), 'Admitted 2 of 3 sold');
    const lastOf = (name: string) => expected.gates.find((g) => g.name === name)!.last_admitted_at!;
    assert.deepEqual(
      (await rowsOf(page, 'table.attendance-gates')).sort((x, y) => x[0]!.localeCompare(y[0]!)),
      [
        ['Console and API', '1', shownAt(lastOf('Console and API'), true)],
        ['Gate A', '1', shownAt(lastOf('Gate A'), true)],
      ],
    );
    assert.equal(lastOf('Gate A'), scannedAt);
    // The minutes as the API counts them: 16, oldest first, both admissions among them.
    assert.equal(expected.per_minute.length, 16);
    assert.deepEqual(
      await rowsOf(page, 'table.attendance-minutes'),
      expected.per_minute.map((m) => [timeOfDay(m.minute), String(m.admitted)]),
    );
    assert.equal(
      expected.per_minute.reduce((sum, m) => sum + m.admitted, 0),
      2,
    );
    assert.equal(await page.locator('.bar-chart svg .bars rect').count(), 16);
    const entry = expected.double_entries[0]!;
    assert.deepEqual(await rowsOf(page, 'table.double-entries'), [
      [
        a.ticket_no,
        'Console and API',
        shownAt(entry.first.checked_in_at, true),
        'Gate A',
        shownAt(scannedAt, true),
        shownAt(entry.second.received_at, true),
      ],
    ]);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'attendance');

    // A third admission shows on the next poll, 5 s later on the page's clock.
    const third = await t.api(org.key, 'POST', `/v1/tickets/${c.id}/check_in`, {});
    assert.equal(third.statusCode, 200, third.body);
    await page.clock.fastForward(5_000);
    await page.getByTestId('attendance-count').filter({ hasText: 'Admitted 3 of 3 sold' }).waitFor();
    await page.locator('table.attendance-gates tr[data-gate="console"] td.num', { hasText: '2' }).waitFor();
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
