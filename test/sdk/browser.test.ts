/**
 * The SDK is usable outside Node (docs/sdk.md): bundled for browsers by esbuild (which
 * refuses any Node built-in), its inputs are its own sources and its one dependency with
 * that dependency's own two, and the bundle runs in a realm that has the Web platform's
 * globals only (fetch, Headers, URL, AbortSignal, TextEncoder, Web Crypto, timers; no
 * process, Buffer or require) against a live service: a sale, a list iterated, a typed
 * error, a webhook verified.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import vm from 'node:vm';
import { build } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import type * as Sdk from '../../packages/sdk/src/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { orderBody, setupSale, type Sale } from '../helpers/orders.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What a browser page has, and nothing Node adds. */
function webRealm(): vm.Context {
  return vm.createContext({
    fetch,
    Headers,
    Request,
    Response,
    URL,
    URLSearchParams,
    AbortController,
    AbortSignal,
    TextEncoder,
    TextDecoder,
    crypto: globalThis.crypto,
    setTimeout,
    clearTimeout,
    console,
  });
}

describe('the SDK bundled for browsers, run with Web globals only, against a live service', () => {
  let t: TestApp;
  let sale: Sale;
  let baseUrl: string;
  let bundle: string;
  let inputs: string[];

  before(async () => {
    const result = await build({
      entryPoints: [path.join(ROOT, 'packages/sdk/src/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'MarqueeSdk',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    bundle = result.outputFiles[0]!.text;
    inputs = Object.keys(result.metafile.inputs);
    t = await createTestApp();
    sale = await setupSale(t);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  test('the bundle holds the SDK sources and standardwebhooks with its two dependencies, nothing else', () => {
    const packages = new Set<string>();
    for (const input of inputs) {
      const inPackage = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (inPackage) packages.add(inPackage[1]!);
      else assert.match(input, /^packages\/sdk\/src\/[\w/.-]+\.ts$/);
    }
    assert.deepEqual([...packages].sort(), ['@stablelib/base64', 'fast-sha256', 'standardwebhooks']);
  });

  test('in a realm without Node globals: a sale, a list, a typed error and a verified webhook', async () => {
    const realm = webRealm();
    vm.runInContext(bundle, realm);
    assert.equal(
      vm.runInContext('[typeof process, typeof Buffer, typeof require].join()', realm),
      'undefined,undefined,undefined',
    );
    const sdk = (realm as { MarqueeSdk: typeof Sdk }).MarqueeSdk;
    const client = new sdk.Marquee({ apiKey: sale.org.key, baseUrl });

    const order = await client.orders.create(orderBody(sale, {}, 2) as unknown as Sdk.CreateOrderRequest, {
      idempotencyKey: 'browser-order-1',
    });
    assert.deepEqual(
      [order.status, order.total_minor],
      ['placed', 2 * sale.event.ticket_types[0]!.prices[0]!.price_minor],
    );
    const tickets: string[] = [];
    for await (const ticket of client.tickets.list({ order_id: order.id, limit: 1 })) tickets.push(ticket.id);
    assert.deepEqual(tickets.sort(), order.transactions[0]!.items!.map((item) => item.id).sort());
    assert.deepEqual(
      await client.orders.create(orderBody(sale, {}, 2) as unknown as Sdk.CreateOrderRequest, {
        idempotencyKey: 'browser-order-1',
      }),
      order,
    );

    const missing = await client.tickets.get('00000000-0000-4000-8000-000000000000').catch((err: unknown) => err);
    assert.ok(missing instanceof sdk.MarqueeApiError, 'the bundle’s own error class');
    assert.deepEqual([missing.status, missing.code, missing.detail], [404, 'resource_not_found', 'Ticket not found.']);

    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = JSON.stringify({ type: 'test.ping', data: { endpoint_id: 'we_1' } });
    const sentAt = new Date();
    const headers = new Headers({
      'webhook-id': 'msg_browser_1',
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_browser_1', sentAt, body),
    });
    const event = sdk.verifyWebhook(body, headers, secret);
    assert.equal(event.type, 'test.ping');
    assert.equal(JSON.stringify(event), body); // an object of the bundle's realm: compared as text
    assert.throws(() => sdk.verifyWebhook(body.replace('we_1', 'we_2'), headers, secret), /signature/i);
  });
});
