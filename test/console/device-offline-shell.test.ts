/**
 * The door device app starts with no network (docs/door.md, "Offline start"): once the
 * console's service worker controls /app/device (docs/console.md, "Offline shell"), the
 * page reloads offline, is still paired, admits a paid ticket from its copy and queues the
 * scan, which goes up when the network is back. In Chromium; skipped when
 * TEST_DATABASE_URL is set, like every browser test.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import type { DashboardSession } from '../helpers/app.ts';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { createEvent, type CreatedEvent } from '../helpers/catalog.ts';
import { useConsoleService } from '../helpers/console.ts';

/** The copy's sync sees rows as they are written only if the service's clock is the wall clock (docs/sync.md). */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('the door device app offline start', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService({ clock: new WallClock() });
  const browser = useBrowser();
  let session: DashboardSession;
  let event: CreatedEvent;
  let performanceId: string;

  before(async () => {
    if (BROWSER_SKIP) return;
    session = await service.t.signIn(service.owner.email, service.owner.password);
    event = await createEvent(service.t, service.org.key, {
      title: 'Harbour Lights',
      timezone: 'UTC',
      performances: [{ starts_at: '2027-05-01T23:00:00Z', capacity: 100 }],
    });
    performanceId = event.ticket_types[0]!.prices[0]!.performance_id;
  });

  test('reloads with no network, still paired, admits offline and uploads once back', async () => {
    const order = await service.t.api(service.org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: performanceId, ticket_type_id: event.ticket_types[0]!.id, quantity: 1 }],
      buyer: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test' },
      tender: 'cash',
    });
    assert.equal(order.statusCode, 201, order.body);
    const [ticket] = (await service.t.api(service.org.key, 'GET', `/v1/tickets?order_id=${order.json().id}`)).json()
      .data as { id: string; serial_no: string; ticket_no: string }[];
    const created = await service.t.dash(session, 'POST', '/dashboard/v1/door_devices', {
      name: 'Harbour gate',
      performance_ids: [performanceId],
    });
    assert.equal(created.statusCode, 201, created.body);
    const device: { id: string; provisioning_token: string } = created.json();

    const page = await browser.newPage();
    const heading = page.getByRole('heading', { level: 1, name: 'Door device: Harbour gate' });
    await page.goto(`${service.baseUrl}/app/device#pair=${device.provisioning_token}`);
    await heading.waitFor();
    await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('.device-sync')?.dataset.tickets) >= 1);
    // The worker installs (precaching the shell) and claims the page.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

    await page.context().setOffline(true);
    await page.reload();
    await heading.waitFor();

    const field = page.getByLabel('Serial or ticket number');
    await field.fill(ticket!.serial_no);
    await field.press('Enter');
    const entry = page.locator(`.door-log li[data-code="${ticket!.serial_no}"]`);
    await entry.waitFor();
    assert.match(
      squash(await entry.innerText()),
      new RegExp(`Admitted · offline: General · Grace Hopper · ${ticket!.ticket_no} \\(waiting to be uploaded\\)$`),
    );
    await page.getByRole('alert').filter({ hasText: '1 scan waiting to be uploaded.' }).waitFor();

    await page.context().setOffline(false);
    await page.locator(`.door-log li[data-code="${ticket!.serial_no}"][data-pending="0"]`).waitFor();
    const scans = await service.t.database.db
      .selectFrom('check_in_scans')
      .select(['ticket_id', 'device_id', 'outcome'])
      .where('device_id', '=', device.id)
      .execute();
    assert.deepEqual(scans, [{ ticket_id: ticket!.id, device_id: device.id, outcome: 'admitted' }]);
    const row = await service.t.database.db
      .selectFrom('tickets')
      .select(['status', 'checked_in_device_id'])
      .where('id', '=', ticket!.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'checked_in', checked_in_device_id: device.id });
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
