/**
 * Fair delivery between organizers (docs/webhooks.md, "Fair delivery"): a claim offers
 * each organizer its share, its endpoints in turn; the worker starts sends organizers
 * first, endpoints second, and never has more than WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZER
 * sends of one organizer in flight, so a tenant whose endpoints hang cannot hold up
 * another's delivery.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, afterEach, before, describe, test } from 'node:test';
import { claimDueDeliveries } from '../../src/db/repositories/webhook-deliveries.ts';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import { deliverDue, type WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { createWebhookTestApp, workerDepsFor } from './helpers.ts';

const SHARE = 2;

describe('fair webhook delivery', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;
  let deps: WebhookWorkerDeps;
  before(async () => {
    receiver = await startHttpsReceiver();
    t = await createWebhookTestApp({ env: { WEBHOOK_MAX_IN_FLIGHT_PER_ORGANIZER: String(SHARE) } });
    deps = workerDepsFor(t, receiver);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });
  afterEach(async () => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    receiver.requests.length = 0;
  });

  async function endpoint(org: TestOrganizer, path: string): Promise<string> {
    const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url(path),
      event_types: ['order.created'],
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string }>().id;
  }

  const emit = (org: TestOrganizer, orderId: string) =>
    emitDomainEvent(t.database.db, {
      organizerId: org.id,
      type: 'order.created',
      data: { order_id: orderId },
      at: t.clock.now(),
    });

  test('a claim offers each organizer its share, the endpoints of each in turn', async () => {
    const noisy = await t.createOrganizer();
    const quiet = await t.createOrganizer();
    const [a, b, c] = [await endpoint(noisy, '/a'), await endpoint(noisy, '/b'), await endpoint(noisy, '/c')];
    for (let i = 0; i < 10; i++) {
      await emit(noisy, `n${i}`); // 10 rows on each of a, b, c, one millisecond apart
      t.clock.advance(1);
    }
    t.clock.advance(1000);
    const q = await endpoint(quiet, '/q');
    await emit(quiet, 'q0'); // due after all of the noisy organizer's rows

    const now = t.clock.now();
    // A claim of 6 with a share of 2: each of the two organizers may offer 6 ÷ 2 = 3.
    const claimed = await claimDueDeliveries(t.database.db, {
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      limit: 6,
      perEndpointCap: 128,
      perOrganizerClaim: SHARE,
    });
    const byEndpoint = (id: string) => claimed.filter((row) => row.endpoint_id === id).length;
    assert.deepEqual(
      [byEndpoint(a), byEndpoint(b), byEndpoint(c), byEndpoint(q)],
      [1, 1, 1, 1],
      'one row of each noisy endpoint, and the quiet row',
    );
    assert.equal(claimed.length, 4);
    assert.deepEqual(
      claimed.filter((row) => row.endpoint_id !== q).map((row) => row.event_data_json),
      ['{"order_id":"n0"}', '{"order_id":"n0"}', '{"order_id":"n0"}'],
      'each endpoint offers its first due row first',
    );
    await t.database.db.updateTable('webhook_deliveries').set({ locked_until: null }).execute();
  });

  test('an organizer whose endpoints hang holds only its share; another organizer is delivered meanwhile', async () => {
    const noisy = await t.createOrganizer();
    const quiet = await t.createOrganizer();
    for (const path of ['/hang-1', '/hang-2', '/hang-3']) await endpoint(noisy, path);
    await endpoint(quiet, '/quiet');
    for (let i = 0; i < 4; i++) await emit(noisy, `n${i}`); // 12 deliveries that hang
    await emit(quiet, 'q0');

    const held: ServerResponse[] = [];
    let mostHeld = 0;
    receiver.setHandler((req, res) => {
      if (req.path.startsWith('/hang')) {
        held.push(res);
        mostHeld = Math.max(mostHeld, held.length);
      } else res.writeHead(204).end();
    });
    const drain = deliverDue(deps, 100);
    const deadline = Date.now() + 10_000;
    while (!receiver.requests.some((r) => r.path === '/quiet')) {
      assert.ok(Date.now() < deadline, 'the quiet organizer was never delivered');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The quiet organizer's delivery arrived while the noisy one's sends hang (none was
    // answered yet), and the noisy one never has more than its share in flight.
    while (held.length < SHARE) {
      assert.ok(Date.now() < deadline, `only ${held.length} of the noisy sends arrived`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(held.length, SHARE, 'no more sends of the noisy organizer while its share is taken');

    // Release them one at a time: each answer lets exactly one more start.
    while (held.length > 0) {
      held.shift()!.writeHead(204).end();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    receiver.setHandler((_req, res) => {
      res.writeHead(204).end();
    });
    const outcomes = await drain;
    assert.equal(outcomes.filter((o) => o.status === 'success').length, 13);
    assert.equal(mostHeld, SHARE);
  });
});
