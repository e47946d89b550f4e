/**
 * The webhook test button in a real browser (docs/console.md, "Webhooks"): "Send test.ping"
 * on a disabled endpoint queues one `test.ping` to it alone, the page links the delivery it
 * made, the worker delivers it signed, and the delivery screen shows it; a viewer is not
 * offered the button. Each screen passes axe-core with no serious or critical violation.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';
import { deliver, useReceiver } from '../helpers/receiver.ts';

describe('the webhook test button', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService({ env: { WEBHOOK_ALLOW_INSECURE_LOOPBACK: 'true' } });
  const browser = useBrowser();
  const receiver = useReceiver('/ping', () => ({ status: 200, body: '{"ok":true}' }));
  const { received } = receiver;

  test('a disabled endpoint: one test.ping, its delivery linked, delivered signed; a viewer has no button', async () => {
    const { t, org } = service;
    const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url,
      event_types: ['order.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id, secret } = created.json();
    // A second endpoint that must not receive the ping.
    const other = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: `${receiver.url}/other`,
      event_types: ['order.created'],
    });
    assert.equal(other.statusCode, 201, other.body);
    const disabled = await t.api(org.key, 'PATCH', `/v1/webhook_endpoints/${id}`, { status: 'disabled' });
    assert.equal(disabled.statusCode, 200, disabled.body);

    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, `/app/webhooks/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Endpoint' }).waitFor();
    assert.equal(await page.locator('.screen-head .badge').textContent(), 'disabled');
    assert.equal(
      await page.locator('.test-ping .hint').textContent(),
      'One test.ping to this endpoint only, sent even though it is disabled; no other endpoint receives it.',
    );
    await page.getByText('No deliveries.').waitFor();

    await page.getByRole('button', { name: 'Send test.ping' }).click();
    const done = page.getByRole('status').filter({ hasText: 'test.ping queued' });
    await done.waitFor();
    assert.equal(
      await done.textContent(),
      'test.ping queued for this endpoint (delivery pending). Open the test delivery',
    );
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'outcome');
    const deliveries = (await t.api(org.key, 'GET', `/v1/webhook_endpoints/${id}/deliveries`)).json().data;
    assert.deepEqual(
      deliveries.map((d: any) => [d.event_type, d.status]),
      [['test.ping', 'pending']],
    );
    assert.equal(
      await page.getByRole('link', { name: 'Open the test delivery' }).getAttribute('href'),
      `/app/webhooks/deliveries/${deliveries[0].id}`,
    );
    // The list below shows it at once.
    const row = page.locator('tbody tr').filter({ hasText: 'test.ping' });
    await row.waitFor();
    assert.deepEqual(
      (await row.innerText())
        .split('\t')
        .slice(1, 3)
        .map((c) => c.trim()),
      ['test.ping', 'pending'],
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'webhook-test-ping');

    await deliver(service.t);
    assert.equal(received.length, 1, 'the ping went to this endpoint only');
    const event = new Webhook(secret).verify(received[0]!.body, {
      'webhook-id': received[0]!.headers['webhook-id']!,
      'webhook-timestamp': received[0]!.headers['webhook-timestamp']!,
      'webhook-signature': received[0]!.headers['webhook-signature']!,
    }) as { type: string; data: Record<string, unknown> };
    assert.equal(event.type, 'test.ping');
    assert.deepEqual(Object.keys(event.data).sort(), ['endpoint_id', 'message']);
    assert.equal(event.data.endpoint_id, id);

    await page.getByRole('link', { name: 'Open the test delivery' }).click();
    await page.getByRole('heading', { level: 1, name: 'Delivery of test.ping' }).waitFor();
    assert.equal(await page.locator('.screen-head .badge').textContent(), 'success');
    assert.equal(JSON.parse((await page.locator('pre').first().textContent())!).data.endpoint_id, id);
    assert.deepEqual(await browser.seriousViolations(page), []);
    assert.deepEqual(browser.errorsOf(page), []);

    const viewer = await t.createUser({ organizerId: org.id, role: 'viewer', name: 'Vic Viewer' });
    const other2 = await browser.newPage();
    await signIn(other2, service.baseUrl, viewer, `/app/webhooks/${id}`);
    await other2.getByRole('heading', { level: 2, name: 'Deliveries' }).waitFor();
    assert.equal(await other2.getByRole('button', { name: 'Send test.ping' }).count(), 0);
    assert.deepEqual(browser.errorsOf(other2), []);
  });
});
