/**
 * The runnable examples of examples/ (docs/sdk.md, "Examples") against a live service:
 * each runs as its own Node process, as a reader would run it, and its output is read.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { deliverDue } from '../../src/webhooks/pump.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { closedPort } from '../helpers/ports.ts';
import { createWebhookTestApp, fakeResolver, silentLogger } from '../webhooks/helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const exampleArgs = (name: string) => ['--conditions=source', '--import', 'tsx', path.join('examples', name)];

describe('the examples, run against a live service', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let env: Record<string, string>;
  let eventId: string;
  let performanceId: string;

  before(async () => {
    t = await createWebhookTestApp({ env: { WEBHOOK_ALLOW_INSECURE_LOOPBACK: 'true' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    org = await t.createOrganizer();
    env = {
      PATH: process.env.PATH ?? '',
      MARQUEE_BASE_URL: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
      MARQUEE_API_KEY: org.key,
    };
    const event = await t.api(org.key, 'POST', '/v1/events', {
      title: 'Jazz at the Lighthouse',
      venue: { name: 'Lighthouse Hall' },
      performances: [{ starts_at: '2027-03-12T18:30:00Z', capacity: 300 }],
      ticket_types: [{ name: 'Standard', price_minor: 3500, quantity: 250 }],
    });
    eventId = event.json().id;
    performanceId = event.json().ticket_types[0].prices[0].performance_id;
    const question = await t.admin('POST', `/admin/v1/events/${eventId}/questions`, {
      key: 'dietary',
      label: 'Dietary requirements',
      type: 'text',
      per_attendee: true,
    });
    assert.equal(question.statusCode, 201);
  });
  after(() => t.close());

  test('box-office-sale sells two tickets with an answer; door-check-in admits them', async () => {
    const sale = await run(process.execPath, exampleArgs('box-office-sale.ts'), {
      cwd: ROOT,
      env: { ...env, EVENT_ID: eventId },
    });
    const lines = sale.stdout.trim().split('\n');
    assert.equal(lines[0], 'Jazz at the Lighthouse: 300 left');
    assert.match(lines[1] ?? '', /^order [A-Z0-9]{8}: 70 \w{3}$/);
    assert.equal(lines.filter((line) => /^ticket [A-Z0-9]{8}-00[12] \([A-Z2-7]{32}\)$/.test(line)).length, 2);
    const orders = (await t.api(org.key, 'GET', '/v1/orders')).json().data;
    const answers = (await t.api(org.key, 'GET', `/v1/orders/${orders[0].id}`)).json().registration_answers;
    assert.deepEqual(
      answers.map((a: { key: string; value: string }) => [a.key, a.value]),
      [['dietary', 'vegetarian']],
    );

    const door = await run(process.execPath, exampleArgs('door-check-in.ts'), {
      cwd: ROOT,
      env: { ...env, PERFORMANCE_ID: performanceId },
    });
    const doorLines = door.stdout.trim().split('\n');
    assert.equal(doorLines.at(-1), '2 admitted, 0 refused');
    assert.equal(doorLines.filter((line) => line.startsWith('admitted ')).length, 2);
  });

  test('webhook-consumer verifies and handles a real delivery, and refuses a forged one', async () => {
    const port = await closedPort();
    const endpoint = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: `http://127.0.0.1:${port}/`,
      event_types: ['order.created'],
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const consumer = spawn(process.execPath, exampleArgs('webhook-consumer.ts'), {
      cwd: ROOT,
      env: { ...env, PORT: String(port), MARQUEE_WEBHOOK_SECRET: endpoint.json().secret },
    });
    let output = '';
    consumer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 200 && !pattern.test(output); i++) await new Promise((r) => setTimeout(r, 50));
      assert.match(output, pattern);
    };
    try {
      await waitFor(/listening/);
      const order = await t.api(org.key, 'POST', '/v1/orders', {
        items: [{ performance_id: performanceId, ticket_type_id: (await ticketTypeId()) ?? '', quantity: 1 }],
        buyer: { first_name: 'Grace', email: 'grace@example.com' },
        tender: 'cash',
      });
      assert.equal(order.statusCode, 201);
      const outcomes = await deliverDue({
        config: t.config,
        db: t.database.db,
        clock: { now: () => new Date() },
        logger: silentLogger,
        webhookResolver: fakeResolver,
      });
      assert.deepEqual(
        outcomes.map((o) => o.recorded),
        [true],
      );
      await waitFor(new RegExp(`order ${order.json().order_no}: 3500 \\w{3}`));
      const forged = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: {
          'webhook-id': 'x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: '{}',
      });
      assert.equal(forged.status, 400);
    } finally {
      consumer.kill();
    }
  });

  async function ticketTypeId(): Promise<string | undefined> {
    return (await t.api(org.key, 'GET', `/v1/events/${eventId}`)).json().ticket_types[0]?.id;
  }
});
