/**
 * Local webhook development (docs/webhooks.md, "Local development"):
 * WEBHOOK_ALLOW_INSECURE_LOOPBACK, accepted only beside WEBHOOK_ALLOW_LOOPBACK=true, lets
 * plain http:// through to a loopback address, and only there. Without it HTTPS stays
 * required, WEBHOOK_ALLOW_LOOPBACK=true alone included.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import { deliverDue } from '../../src/webhooks/pump.ts';
import type { FastifyBaseLogger } from 'fastify';
import { problemOf, type TestApp } from '../helpers/app.ts';
import { createWebhookTestApp, fakeResolver, verifyDelivery } from './helpers.ts';

const HTTPS_ONLY = 'Webhook URL must use https.';

describe('plain http:// to loopback, for local development', () => {
  test('WEBHOOK_ALLOW_INSECURE_LOOPBACK is refused without WEBHOOK_ALLOW_LOOPBACK=true', () => {
    assert.throws(
      () => loadConfig({ WEBHOOK_ALLOW_INSECURE_LOOPBACK: 'true' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message ===
          'Invalid configuration: WEBHOOK_ALLOW_INSECURE_LOOPBACK needs WEBHOOK_ALLOW_LOOPBACK=true: it only lets plain http:// through to loopback addresses.',
    );
    assert.equal(
      loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_ALLOW_INSECURE_LOOPBACK: 'true' })
        .webhookAllowInsecureLoopback,
      true,
    );
    assert.equal(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'true' }).webhookAllowInsecureLoopback, false);
  });

  describe('with WEBHOOK_ALLOW_LOOPBACK=true alone', () => {
    let t: TestApp;
    before(async () => {
      t = await createWebhookTestApp();
    });
    after(() => t.close());

    test('http:// is refused, even to loopback', async () => {
      const org = await t.createOrganizer();
      const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
        url: 'http://127.0.0.1:9/hook',
        event_types: ['order.created'],
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), problemOf(400, HTTPS_ONLY, 'parameter_invalid', 'url'));
    });
  });

  describe('with both settings', () => {
    let t: TestApp;
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    let port = 0;
    before(async () => {
      t = await createWebhookTestApp({ env: { WEBHOOK_ALLOW_INSECURE_LOOPBACK: 'true' } });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      await t.close();
      await new Promise((resolve) => server.close(resolve));
    });

    test('http:// to a non-loopback address is still refused, with a sentence that says why', async () => {
      const org = await t.createOrganizer();
      const create = (url: string) =>
        t.api(org.key, 'POST', '/v1/webhook_endpoints', { url, event_types: ['order.created'] });
      const literal = await create('http://93.184.216.34/hook');
      assert.equal(literal.statusCode, 400);
      assert.deepEqual(
        literal.json(),
        problemOf(
          400,
          'Webhook URL may use http only for a loopback address (WEBHOOK_ALLOW_INSECURE_LOOPBACK); 93.184.216.34 is 93.184.216.34: use https.',
          'parameter_invalid',
          'url',
        ),
      );
      const named = await create('http://mixed.test/hook');
      assert.equal(named.statusCode, 400);
      assert.equal(
        named.json<{ detail: string }>().detail.startsWith('Webhook URL host mixed.test resolves to 192.168.0.10'),
        true,
        named.body,
      );
    });

    test('http:// to loopback is accepted, and a real delivery arrives over plain HTTP and verifies', async () => {
      const org = await t.createOrganizer();
      const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
        url: `http://localhost:${port}/hook`,
        event_types: ['order.created'],
      });
      assert.equal(created.statusCode, 201, created.body);
      const { secret } = created.json<{ secret: string }>();
      await emitDomainEvent(t.database.db, {
        organizerId: org.id,
        type: 'order.created',
        data: { order_id: 'local-1' },
        at: t.clock.now(),
      });
      const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
      const outcomes = await deliverDue({
        config: t.config,
        db: t.database.db,
        clock: t.clock,
        logger,
        webhookResolver: fakeResolver,
      });
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['success'],
      );
      assert.equal(received.length, 1);
      const delivery = received[0]!;
      const event = verifyDelivery(secret, {
        method: 'POST',
        path: '/hook',
        headers: delivery.headers,
        body: delivery.body,
      });
      assert.deepEqual(event, {
        type: 'order.created',
        timestamp: t.clock.now().toISOString(),
        data: { order_id: 'local-1' },
      });
    });
  });
});
