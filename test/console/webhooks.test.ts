/**
 * Webhooks in a real browser (docs/console.md, "Webhooks"): an endpoint on a loopback
 * receiver (plain http, allowed by WEBHOOK_ALLOW_LOOPBACK and WEBHOOK_ALLOW_INSECURE_LOOPBACK,
 * docs/webhooks.md "Local development") created with its secret shown once, a refusal beside
 * its field, edited; a delivery that arrives signed with that secret and shows with the
 * receiver's answer; redeliver, rotate the secret, recover a failure, delete.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';
import { deliver, useReceiver, type Received } from '../helpers/receiver.ts';

describe('the webhooks screens', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService({ env: { WEBHOOK_ALLOW_INSECURE_LOOPBACK: 'true' } });
  const browser = useBrowser();
  let answer = 200;
  const receiver = useReceiver('/hook', () => ({ status: answer, body: JSON.stringify({ received: answer === 200 }) }));
  const { received } = receiver;
  const sell = async () => {
    const event = await service.t.api(service.org.key, 'POST', '/v1/events', {
      title: `Hook night ${received.length}-${Date.now()}`,
      venue: 'online',
      performances: [{ starts_at: '2027-06-01T18:00:00Z', capacity: 10 }],
      ticket_types: [{ name: 'Entry', price_minor: 500 }],
    });
    const { id, prices } = event.json().ticket_types[0];
    const order = await service.t.api(service.org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: prices[0].performance_id, ticket_type_id: id, quantity: 1 }],
      buyer: { first_name: 'Ada', email: 'ada@example.com' },
      tender: 'cash',
    });
    assert.equal(order.statusCode, 201, order.body);
    return order.json();
  };
  const verify = (secret: string, delivery: Received) =>
    new Webhook(secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    });

  test('create, edit, a delivery with its answer, redeliver, rotate, recover, delete', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();

    // Without an event type the API refuses; its detail shows beside the event types.
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('Box office sync');
    await page.getByLabel('URL').press('Enter');
    const typesError = page.locator('#f-event_types .field-error');
    await typesError.waitFor();
    const refusal = (
      await service.t.api(service.org.key, 'POST', '/v1/webhook_endpoints', { url: receiver.url, event_types: [] })
    ).json();
    assert.equal(refusal.param, 'event_types');
    assert.equal(await typesError.textContent(), refusal.detail);

    await page.getByLabel('order.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('secret').textContent())!;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    await page.getByRole('link', { name: receiver.url }).waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'webhooks');

    await page.getByRole('link', { name: 'Open the new endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Endpoint' }).waitFor();
    await page.getByLabel('Description (optional)').fill('Box office sync (CRM)');
    await page.getByLabel('Description (optional)').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const [endpoint] = (await service.t.api(service.org.key, 'GET', '/v1/webhook_endpoints')).json().data;
    assert.equal(endpoint.description, 'Box office sync (CRM)');
    assert.equal(secret.startsWith(endpoint.secret_preview.split('…')[0]), true);

    // A sale, delivered by the worker: signed with the secret the page showed.
    const order = await sell();
    await deliver(service.t);
    assert.equal(received.length, 1);
    const event = verify(secret, received[0]!) as { type: string; data: { order_id: string } };
    assert.deepEqual([event.type, event.data.order_id], ['order.created', order.id]);
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    const row = page.locator('tbody tr').filter({ hasText: 'order.created' });
    await row.waitFor();
    const cells = (await row.innerText()).split('\t').map((c) => c.trim());
    assert.deepEqual([cells[1], cells[2], cells[3]], ['order.created', 'success', '1']);
    assert.match(cells[4]!, /^HTTP 200 in \d+ ms$/);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'webhook-endpoint');

    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Delivery of order.created' }).waitFor();
    const attempt = page.getByRole('region', { name: 'Attempt 1' });
    assert.match((await attempt.getByRole('heading').textContent())!, /^Attempt 1: HTTP 200 in \d+ ms$/);
    assert.equal(await attempt.getByLabel('Answer body of attempt 1').textContent(), '{"received":true}');
    assert.equal(JSON.parse((await page.locator('pre').first().textContent())!).data.order_id, order.id);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'webhook-delivery');

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued again as a new delivery (pending).' }).waitFor();
    await deliver(service.t);
    assert.equal(received.length, 2);
    assert.equal(received[1]!.headers['webhook-id'], received[0]!.headers['webhook-id']);
    verify(secret, received[1]!);

    // Rotate: a new secret, shown once; the next delivery is signed with it.
    await page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    assert.equal(
      await page.locator('.confirm [role="alert"]').textContent(),
      'Rotate: the current secret stops verifying at once. The new one is shown here once; deploy it to your receiver right away.',
    );
    await page.getByRole('button', { name: 'Yes, rotate the secret' }).click();
    const rotated = page.getByTestId('secret');
    await rotated.waitFor();
    const newSecret = (await rotated.textContent())!;
    assert.notEqual(newSecret, secret);

    // A failure, then recover it from the page once the receiver is back.
    answer = 500;
    await sell();
    await deliver(service.t);
    assert.equal(received.length, 3);
    verify(newSecret, received[2]!);
    assert.throws(() => verify(secret, received[2]!));
    answer = 200;
    const hourAgo = new Date(service.t.clock.now().getTime() - 3_600_000);
    const local = hourAgo.toLocaleString('sv-SE', { timeZone: 'Europe/Berlin' }).slice(0, 16).replace(' ', 'T');
    await page.getByLabel('Failed or exhausted since (Europe/Berlin)').fill(local);
    await page.getByRole('button', { name: 'Recover' }).click();
    await page.getByRole('status').filter({ hasText: 'Sent again: 1; already pending: 0.' }).waitFor();
    await deliver(service.t);
    assert.equal(received.length, 4);
    assert.equal(received[3]!.headers['webhook-id'], received[2]!.headers['webhook-id']);

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    assert.equal(
      await page.locator('.confirm [role="alert"]').textContent(),
      'Delete: the endpoint receives nothing more, and its delivery log goes with it. This cannot be undone.',
    );
    await page.getByRole('button', { name: 'Yes, delete this endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    assert.deepEqual((await service.t.api(service.org.key, 'GET', '/v1/webhook_endpoints')).json().data, []);
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
