/**
 * The webhook payload schemas of the OpenAPI document (docs/webhooks.md, "Payload
 * schemas") against real deliveries: every event type is triggered through the API, sent
 * to a loopback HTTPS receiver, verified, and validated against its component and
 * against the WebhookEvent union.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import { addApiFormats } from '../../src/http/validation.ts';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import { createRenderPool, type MailRenderer } from '../../src/mail/render-pool.ts';
import { createMailer, type Mailer } from '../../src/mail/transport.ts';
import { deliverDue } from '../../src/webhooks/pump.ts';
import { placeOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { createWebhookTestApp, verifyDelivery, workerDepsFor } from './helpers.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import type { TestApp } from '../helpers/app.ts';

const FROM = 'Marquee <no-reply@localhost>';
const ALL_TYPES = [
  'order.created',
  'order.paid',
  'order.refunded',
  'ticket.issued',
  'ticket.checked_in',
  'event.published',
  'event.updated',
];

interface Received {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe('webhook payload schemas', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;
  let mailer: Mailer;
  let renderer: MailRenderer;
  let outbox: string;
  let sale: Sale;
  let secret: string;
  let validatorOf: (component: string) => ValidateFunction;

  before(async () => {
    receiver = await startHttpsReceiver();
    t = await createWebhookTestApp();
    outbox = await mkdtemp(path.join(os.tmpdir(), 'marquee-outbox-'));
    mailer = createMailer({ from: FROM, outboxDir: outbox });
    renderer = createRenderPool({ from: FROM, threads: 1 });
    sale = await setupSale(t, { event: { publish: false } });
    const endpoint = await t.api(sale.org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url('/hooks'),
      event_types: ALL_TYPES,
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    secret = endpoint.json().secret as string;
    const document = (await t.inject({ method: 'GET', url: '/v1/openapi.json' })).json<object>();
    const ajv = addApiFormats(new Ajv({ strict: false, validateSchema: false, allErrors: true }));
    ajv.addSchema(document, 'document');
    validatorOf = (component) => {
      const validate = ajv.getSchema(`document#/components/schemas/${component}`);
      assert.ok(validate, component);
      return validate;
    };
  });
  after(async () => {
    mailer.close();
    await renderer.close();
    await t.close();
    await receiver.close();
    await rm(outbox, { recursive: true, force: true });
  });

  /** Sends what is due and returns the verified bodies received since `from`. */
  async function deliveredSince(from: number): Promise<Received[]> {
    await deliverDue(workerDepsFor(t, receiver));
    return receiver.requests.slice(from).map((req) => verifyDelivery(secret, req) as Received);
  }

  test('every event type, as delivered, validates against its component and the union', async () => {
    const key = sale.org.key;
    const admin = async (url: string, body: unknown = {}) => {
      const res = await t.admin('POST', url, body);
      assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    await admin(`/admin/v1/events/${sale.event.id}/publish`);
    const patched = await t.api(key, 'PATCH', `/v1/events/${sale.event.id}`, { title: 'Renamed for the schema test' });
    assert.equal(patched.statusCode, 200);
    const paid = await placeOrder(t, sale, {}, 2);
    const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
    await admin(`/admin/v1/orders/${unpaid.id}/settle`, { tender: 'card' });
    await runEmailJobsOnce({ db: t.database.db, mailer, renderer, clock: t.clock });
    const ticket = paid.transactions[0].items[0];
    assert.equal((await t.api(key, 'POST', `/v1/tickets/${ticket.id}/check_in`)).statusCode, 200);
    const cardRefund = await admin(`/admin/v1/orders/${paid.id}/refund`, {
      ticket_ids: [paid.transactions[0].items[1].id],
      mode: 'card',
    });
    await admin(`/admin/v1/refunds/${cardRefund.id}/settle`, { status: 'refunded' });

    const received = await deliveredSince(0);
    const byType = new Map<string, Received[]>();
    for (const body of received) byType.set(body.type, [...(byType.get(body.type) ?? []), body]);
    assert.deepEqual([...byType.keys()].sort(), [...ALL_TYPES].sort());

    const union = validatorOf('WebhookEvent');
    const componentOf: Record<string, string> = {
      'order.created': 'OrderCreatedEvent',
      'order.paid': 'OrderPaidEvent',
      'order.refunded': 'OrderRefundedEvent',
      'ticket.issued': 'TicketIssuedEvent',
      'ticket.checked_in': 'TicketCheckedInEvent',
      'event.published': 'EventPublishedEvent',
      'event.updated': 'EventUpdatedEvent',
    };
    for (const body of received) {
      const validate = validatorOf(componentOf[body.type] ?? 'unknown');
      assert.equal(validate(body), true, `${body.type}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body)}`);
      assert.equal(union(body), true, `${body.type} as WebhookEvent: ${JSON.stringify(union.errors)}`);
    }
    // Both order.refunded shapes arrived: the initiation and the settlement of the card refund.
    assert.deepEqual(
      // Sent concurrently, so in either order: the longer one first.
      (byType.get('order.refunded') ?? [])
        .map((body) => Object.keys(body.data).sort())
        .sort((a, b) => b.length - a.length),
      [
        ['currency', 'mode', 'order_id', 'refund_id', 'refunded_items', 'status', 'total_refunded_minor'],
        ['order_id', 'refund_id', 'status'],
      ],
    );
    assert.deepEqual(byType.get('order.paid')?.[0]?.data, {
      order_id: unpaid.id,
      order_no: unpaid.order_no,
      status: 'placed',
      amount_minor: unpaid.total_minor,
      total_minor: unpaid.total_minor,
      currency: unpaid.currency,
      tender: 'card',
    });

    // A schema that cannot fail is no check: a changed field or an extra one is refused.
    const created = byType.get('order.created')?.[0];
    assert.ok(created);
    const validateCreated = validatorOf('OrderCreatedEvent');
    assert.equal(validateCreated({ ...created, data: { ...created.data, total_minor: '70.00' } }), false);
    assert.equal(validateCreated({ ...created, data: { ...created.data, note: 'extra' } }), false);
    assert.equal(union({ ...created, type: 'order.unknown' }), false);
  });

  test('test.ping, as delivered, validates against TestPingEvent and the union', async () => {
    const endpoints = await t.api(sale.org.key, 'GET', '/v1/webhook_endpoints');
    const endpointId = endpoints.json().data[0].id as string;
    const from = receiver.requests.length;
    const res = await t.admin('POST', `/admin/v1/webhook_endpoints/${endpointId}/test`);
    assert.equal(res.statusCode, 201);
    const [ping] = await deliveredSince(from);
    assert.deepEqual(ping?.data, { message: 'This is a test event from Marquee.', endpoint_id: endpointId });
    assert.equal(validatorOf('TestPingEvent')(ping), true);
    assert.equal(validatorOf('WebhookEvent')(ping), true);
  });
});
