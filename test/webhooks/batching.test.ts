/**
 * The worker's batching: claims of many rows capped per endpoint, outcomes of a group of
 * sends recorded in one statement (each row by its own lease), a 410 handing back the
 * endpoint's queued rows, queued rows handed back when their lease is too short, and the
 * sender's short DNS reuse for the pre-send vetting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CLAIM_BATCH, PER_ENDPOINT_LEASED, claimDeliveries, leaseMs } from '../../src/webhooks/dispatch.ts';
import { claimDueDeliveries, releaseDeliveries } from '../../src/db/repositories/webhook-deliveries.ts';
import { createWebhookSender } from '../../src/webhooks/sender.ts';
import { vettedUrlCache, type Resolver } from '../../src/webhooks/url-vetting.ts';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import {
  DeliveryPump,
  MAX_IN_FLIGHT,
  RECORD_MARGIN_MS,
  createSenderFor,
  deliverDue,
  type WebhookWorkerDeps,
} from '../../src/webhooks/pump.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { attemptLogOf, silentLogger, useWebhookFixture } from './helpers.ts';

const SECOND = 1000;

describe('webhook delivery in batches', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let receiver: HttpsReceiver;
  let deps: WebhookWorkerDeps;
  const fixture = useWebhookFixture({ freshEndpoints: true });
  before(() => ({ t, org, receiver, deps } = fixture));

  async function endpoint(path: string) {
    const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url(path),
      event_types: ['order.created'],
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string; secret: string }>();
  }

  async function emit(count: number) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        await emitDomainEvent(t.database.db, {
          organizerId: org.id,
          type: 'order.created',
          data: { order_id: `o${i}` },
          at: t.clock.now(),
        }),
      );
    }
    return ids;
  }

  const rowsOf = (endpointId: string) =>
    t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('id')
      .execute();

  const attemptsOf = (deliveryId: string) => attemptLogOf(t.database.db, deliveryId);

  test("a batch with mixed outcomes records each row by its own outcome, and a 410 hands back the endpoint's queued rows", async () => {
    receiver.setHandler((req, res) => {
      const status = req.path === '/ok' ? 200 : req.path === '/fail' ? 503 : 410;
      // The 410s answer last, so the other outcomes are in hand when the endpoint goes.
      setTimeout(() => res.writeHead(status).end(), status === 410 ? 30 : 0);
    });
    const ok = await endpoint('/ok');
    const fail = await endpoint('/fail');
    const gone = await endpoint('/gone');
    await emit(6);

    const outcomes = await deliverDue(deps);
    // 6 + 6 sent; of the gone endpoint's 6, the 4 in flight were sent and the 2 queued handed back.
    assert.equal(outcomes.length, 16);
    assert.ok(outcomes.every((o) => o.recorded));
    const now = t.clock.now();

    for (const row of await rowsOf(ok.id)) {
      assert.deepEqual(
        [row.status, row.attempt, row.response_status, row.error, row.next_retry_at, row.locked_until, row.updated_at],
        ['success', 1, 200, null, null, null, now],
      );
      assert.deepEqual(
        (await attemptsOf(row.id)).map((a) => [a.attempt, a.response_status, a.error, a.at]),
        [[1, 200, null, now]],
      );
    }
    for (const row of await rowsOf(fail.id)) {
      assert.deepEqual(
        [row.status, row.attempt, row.response_status, row.error, row.next_retry_at, row.locked_until],
        ['failed', 1, 503, 'HTTP 503', new Date(now.getTime() + 30 * SECOND), null],
      );
      assert.deepEqual(
        (await attemptsOf(row.id)).map((a) => [a.attempt, a.response_status, a.error]),
        [[1, 503, 'HTTP 503']],
      );
    }
    const goneRows = await rowsOf(gone.id);
    const sent = goneRows.filter((r) => r.attempt === 1);
    const handedBack = goneRows.filter((r) => r.attempt === 0);
    assert.equal(sent.length, 4);
    assert.ok(
      sent.every(
        (r) =>
          r.status === 'failed' && r.response_status === 410 && r.next_retry_at === null && r.locked_until === null,
      ),
    );
    assert.equal(handedBack.length, 2);
    assert.ok(handedBack.every((r) => r.status === 'pending' && r.response_status === null && r.locked_until === null));
    for (const r of handedBack) assert.deepEqual(await attemptsOf(r.id), []);
    assert.equal(receiver.requests.filter((r) => r.path === '/gone').length, 4);

    const shown = async (id: string) => (await t.api(org.key, 'GET', `/v1/webhook_endpoints/${id}`)).json();
    assert.deepEqual(
      [(await shown(gone.id)).status, (await shown(gone.id)).disabled_reason],
      ['auto_disabled', `Endpoint answered 410 Gone on ${now.toISOString()}.`],
    );
    assert.equal((await shown(ok.id)).status, 'enabled');
    assert.equal((await shown(fail.id)).status, 'enabled');
    // The handed-back rows wait while the endpoint is disabled.
    assert.deepEqual(await deliverDue(deps), []);
  });

  test('a row whose lease was lost mid-send is not recorded; the rest of its group is', async () => {
    const stolenLease = new Date(t.clock.now().getTime() + 3_600_000);
    const ep = await endpoint('/steal');
    const [stolenEvent] = await emit(3);
    receiver.setHandler(async (req, res) => {
      if (req.headers['webhook-id'] === stolenEvent) {
        // Another worker took this row over (as after an expired lease) while we were sending.
        await t.database.db
          .updateTable('webhook_deliveries')
          .set({ locked_until: stolenLease })
          .where('event_id', '=', stolenEvent!)
          .execute();
      }
      res.writeHead(200).end();
    });
    const outcomes = await deliverDue(deps);
    assert.equal(outcomes.length, 3);
    const rows = await rowsOf(ep.id);
    for (const row of rows) {
      const outcome = outcomes.find((o) => o.deliveryId === row.id)!;
      if (row.event_id === stolenEvent) {
        assert.equal(outcome.recorded, false);
        assert.deepEqual([row.status, row.attempt, row.locked_until], ['pending', 0, stolenLease]);
        assert.deepEqual(await attemptsOf(row.id), []);
      } else {
        assert.equal(outcome.recorded, true);
        assert.deepEqual([row.status, row.attempt, row.locked_until], ['success', 1, null]);
        assert.equal((await attemptsOf(row.id)).length, 1);
      }
    }
  });

  test('a claim takes many rows but at most PER_ENDPOINT_LEASED leased per endpoint, so a backlog cannot starve another endpoint', async () => {
    const busy = await endpoint('/busy');
    await emit(PER_ENDPOINT_LEASED + 6);
    t.clock.advance(SECOND);
    const quiet = await endpoint('/quiet');
    // Due after every row of the busy endpoint.
    await emitDomainEvent(t.database.db, {
      organizerId: org.id,
      type: 'order.created',
      data: { order_id: 'late' },
      at: t.clock.now(),
    });
    const sender = createSenderFor(deps);
    try {
      const ctx = { db: deps.db, clock: deps.clock, config: deps.config, sender, log: deps.logger };
      const first = await claimDeliveries(ctx, CLAIM_BATCH);
      assert.equal(first.filter((r) => r.endpoint_id === busy.id).length, PER_ENDPOINT_LEASED);
      assert.equal(first.filter((r) => r.endpoint_id === quiet.id).length, 1);
      // In due order.
      assert.equal(first.at(-1)!.endpoint_id, quiet.id);
      // The busy endpoint is at its cap: nothing more of it until leases are given back.
      assert.deepEqual(await claimDeliveries(ctx, CLAIM_BATCH), []);
    } finally {
      await sender.close();
    }
    // The claimed rows' leases run out; everything is then delivered.
    t.clock.advance(leaseMs(deps.config));
    const outcomes = await deliverDue(deps);
    // The busy endpoint's 6 + 64 + 1 (the late event fans out to it too), and the quiet one's.
    assert.equal(outcomes.length, PER_ENDPOINT_LEASED + 8);
    assert.ok(outcomes.every((o) => o.status === 'success' && o.recorded));
  });

  test('an endpoint at its cap is skipped whatever its backlog, and a lease given back is taken again first', async () => {
    const busy = await endpoint('/busy');
    await emit(20); // 20 rows of the busy endpoint, due first
    t.clock.advance(SECOND);
    await t.database.db
      .updateTable('webhook_endpoints')
      .set({ event_types: ['order.paid'] })
      .where('id', '=', busy.id)
      .execute();
    const quiet = await endpoint('/quiet');
    await emit(1); // one row of the quiet endpoint, due after all of them
    const leaseUntil = () => new Date(t.clock.now().getTime() + leaseMs(deps.config));
    // limit 2; cap 2 per endpoint.
    const claim = () =>
      claimDueDeliveries(t.database.db, {
        now: t.clock.now(),
        leaseUntil: leaseUntil(),
        limit: 2,
        perEndpointCap: 2,
        perOrganizerClaim: 100,
      });
    const first = await claim();
    assert.deepEqual(
      first.map((r) => r.endpoint_id),
      [busy.id, busy.id],
    );
    // The busy endpoint is at its cap: its 18 remaining rows, ahead in due order, are skipped.
    assert.deepEqual(
      (await claim()).map((r) => r.endpoint_id),
      [quiet.id],
    );
    assert.deepEqual(await claim(), []);
    // One lease handed back: that same row is the one taken again, and the cap still holds.
    assert.equal(
      await releaseDeliveries(t.database.db, [{ id: first[0]!.id, lockedUntil: first[0]!.locked_until }]),
      1,
    );
    assert.deepEqual(
      (await claim()).map((r) => r.id),
      [first[0]!.id],
    );
    assert.deepEqual(await claim(), []);
  });

  test('a queued row whose lease is too short for a whole attempt is handed back, not sent', async () => {
    const ep = await endpoint('/late');
    await emit(2);
    const sender = createSenderFor(deps);
    try {
      const ctx = { db: deps.db, clock: deps.clock, config: deps.config, sender, log: deps.logger };
      const rows = await claimDeliveries(ctx, 10);
      assert.equal(rows.length, 2);
      // Less than WEBHOOK_TIMEOUT + RECORD_MARGIN_MS of the lease is left.
      t.clock.advance(leaseMs(deps.config) - deps.config.webhookTimeoutMs - RECORD_MARGIN_MS + 1);
      const pump = new DeliveryPump(ctx, silentLogger, { maxInFlight: MAX_IN_FLIGHT, keepOutcomes: true });
      pump.enqueue(rows);
      await pump.settled();
      assert.deepEqual(pump.outcomes, []);
    } finally {
      await sender.close();
    }
    assert.equal(receiver.requests.length, 0);
    assert.ok((await rowsOf(ep.id)).every((r) => r.status === 'pending' && r.attempt === 0 && r.locked_until === null));
    // Handed back, so claimable again at once (no waiting for the lease to run out).
    const outcomes = await deliverDue(deps);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['success', 'success'],
    );
  });
});

describe('webhook sender: DNS reuse for the pre-send vetting', () => {
  let receiver: HttpsReceiver;
  before(async () => {
    receiver = await startHttpsReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  test("the pre-send vetting reuses a URL's verdict within the TTL; new connections resolve afresh", async () => {
    const lookups: string[] = [];
    let answer = '127.0.0.1';
    const resolver: Resolver = async (host) => {
      lookups.push(host);
      return [{ address: answer, family: 4 }];
    };
    const sender = createWebhookSender({
      allowLoopback: true,
      resolver,
      timeoutMs: 5000,
      ca: receiver.ca,
      dnsCacheMs: 200,
    });
    try {
      const post = () => sender.send({ url: receiver.url('/dns'), headers: {}, body: '{}' });
      assert.equal((await post()).ok, true);
      assert.equal(lookups.length, 2, 'the vetting, then the new connection');
      await new Promise((r) => setTimeout(r, 20)); // the connection back in the pool
      assert.equal((await post()).ok, true);
      assert.equal(lookups.length, 2, 'cached answer and a reused connection: no lookup');
      await new Promise((r) => setTimeout(r, 250));
      // Expired: the vetting resolves again, and a now-private answer is refused.
      answer = '10.0.0.1';
      const refused = await post();
      assert.equal(lookups.length, 3);
      assert.equal(
        refused.error,
        'Webhook URL host localhost resolves to 10.0.0.1, a private address; only public addresses are allowed.',
      );
    } finally {
      await sender.close();
    }
  });

  test('vettedUrlCache: failures are not reused; concurrent callers share one vetting; a settled hit is synchronous; ttl 0 is no cache', async () => {
    let calls = 0;
    let fail = true;
    const base: Resolver = async () => {
      calls++;
      if (fail) throw new Error('ENOTFOUND');
      return [{ address: '93.184.216.34', family: 4 }];
    };
    const vetted = vettedUrlCache({ allowLoopback: false, resolver: base }, 60_000);
    await assert.rejects(Promise.resolve(vetted('https://a.test/x')), {
      message: 'Webhook URL host could not be resolved.',
    });
    fail = false;
    const [x, y] = await Promise.all([vetted('https://a.test/x'), vetted('https://a.test/x')]);
    assert.equal(String(x), 'https://a.test/x');
    assert.equal(x, y);
    assert.equal(calls, 2);
    const hit = vetted('https://a.test/x');
    assert.ok(hit instanceof URL, 'a settled verdict is returned without a promise');
    assert.equal(calls, 2);
    await vetted('https://a.test/y');
    assert.equal(calls, 3, 'per URL');
    const uncached = vettedUrlCache({ allowLoopback: false, resolver: base }, 0);
    await uncached('https://a.test/x');
    await uncached('https://a.test/x');
    assert.equal(calls, 5);
  });
});
