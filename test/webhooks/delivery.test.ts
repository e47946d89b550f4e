import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { claimDeliveries, leaseMs } from '../../src/webhooks/dispatch.ts';
import type { Resolver } from '../../src/webhooks/url-vetting.ts';
import { emitDomainEvent, type DomainEventType } from '../../src/outbox/domain-events.ts';
import { createSenderFor, deliverDue, webhookDeliveryJob, type WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import { purgeExpired } from '../../src/workers/retention-purge.ts';
import { problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import type { HttpsReceiver, ReceiverHandler } from '../helpers/https-receiver.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { attemptLogOf, fakeResolver, useWebhookFixture, verifyDelivery } from './helpers.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const respond =
  (status: number, headers: Record<string, string> = {}): ReceiverHandler =>
  (_req, res) => {
    res.writeHead(status, headers).end();
  };

describe('webhook delivery', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let receiver: HttpsReceiver;
  let deps: WebhookWorkerDeps;
  const fixture = useWebhookFixture({ freshEndpoints: true });
  before(() => ({ t, org, receiver, deps } = fixture));

  async function endpoint(opts: { types?: string[]; path?: string; org?: TestOrganizer; url?: string } = {}) {
    const res = await t.api((opts.org ?? org).key, 'POST', '/v1/webhook_endpoints', {
      url: opts.url ?? receiver.url(opts.path ?? '/hook'),
      event_types: opts.types ?? ['order.created'],
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string; secret: string }>();
  }

  function emit(
    type: DomainEventType = 'order.created',
    data: Record<string, unknown> = { order_id: 'o1' },
    organizerId = org.id,
  ) {
    return t.database.db
      .transaction()
      .execute((trx) => emitDomainEvent(trx, { organizerId, type, data, at: t.clock.now() }));
  }

  const deliveryRows = (endpointId: string) =>
    t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  test("fan-out: one pending delivery per enabled endpoint subscribed to the type, in the event's transaction", async () => {
    const other = await t.createOrganizer();
    const subscribed = await endpoint({ types: ['order.created', 'order.paid'] });
    const alsoSubscribed = await endpoint({ types: ['order.created'] });
    const unsubscribed = await endpoint({ types: ['order.paid'] });
    const disabled = await endpoint();
    await t.api(org.key, 'PATCH', `/v1/webhook_endpoints/${disabled.id}`, { status: 'disabled' });
    const autoDisabled = await endpoint();
    await t.database.db
      .updateTable('webhook_endpoints')
      .set({ status: 'auto_disabled' })
      .where('id', '=', autoDisabled.id)
      .execute();
    const foreign = await endpoint({ org: other });

    const eventId = await emit();
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', eventId)
      .execute();
    assert.deepEqual(rows.map((r) => r.endpoint_id).sort(), [subscribed.id, alsoSubscribed.id].sort());
    for (const row of rows) {
      assert.equal(row.status, 'pending');
      assert.equal(row.attempt, 0);
      assert.equal(row.event_type, 'order.created');
      assert.equal(row.organizer_id, org.id);
      assert.deepEqual(row.created_at, t.clock.now());
      assert.equal(row.next_retry_at, null);
      assert.equal(row.locked_until, null);
    }
    for (const ep of [unsubscribed, disabled, autoDisabled, foreign])
      assert.equal((await deliveryRows(ep.id)).length, 0);

    // A rolled-back change queues nothing.
    await assert.rejects(
      t.database.db.transaction().execute(async (trx) => {
        await emitDomainEvent(trx, { organizerId: org.id, type: 'order.created', data: {}, at: t.clock.now() });
        throw new Error('rollback');
      }),
    );
    assert.equal((await deliveryRows(subscribed.id)).length, 1);
  });

  test('delivery contract: signed POST of {type, timestamp, data}, verified with standardwebhooks', async () => {
    const ep = await endpoint();
    const data = {
      order_id: 'b3c1',
      order_no: 'M-1001',
      status: 'placed',
      total_minor: 4200,
      currency: 'EUR',
      channel: 'boxOffice',
    };
    const eventAt = t.clock.now();
    const eventId = await emit('order.created', data);
    t.clock.advance(2 * SECOND);

    const outcomes = await deliverDue(deps);
    assert.equal(outcomes.length, 1);
    assert.equal(receiver.requests.length, 1);
    const req = receiver.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/hook');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['user-agent'], 'Marquee-Webhooks/1');
    assert.equal(req.headers['webhook-id'], eventId);
    assert.equal(req.headers['webhook-timestamp'], String(Math.floor(t.clock.now().getTime() / 1000)));
    assert.match(String(req.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    // The stored data exactly (jsonb keeps its own key order), compact JSON.
    assert.deepEqual(JSON.parse(req.body), { type: 'order.created', timestamp: eventAt.toISOString(), data });
    assert.equal(req.body, JSON.stringify(JSON.parse(req.body)));
    assert.ok(Buffer.byteLength(req.body) < 20 * 1024);
    // The official library, against the real clock (the test clock started at real time).
    const verified = new Webhook(ep.secret).verify(req.body, {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    });
    assert.deepEqual(verified, { type: 'order.created', timestamp: eventAt.toISOString(), data });
    // A stale timestamp is rejected by the library (consumers must check freshness).
    assert.throws(() => verifyDelivery(ep.secret, req, t.clock.now().getTime() + 6 * MINUTE), /too old/);

    const [row] = await deliveryRows(ep.id);
    const list = await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep.id}/deliveries`);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json(), {
      object: 'list',
      has_more: false,
      data: [
        {
          id: row!.id,
          object: 'webhook_delivery',
          endpoint_id: ep.id,
          event_id: eventId,
          event_type: 'order.created',
          status: 'success',
          attempt: 1,
          response_status: 200,
          response_ms: row!.response_ms,
          error: null,
          next_retry_at: null,
          created_at: eventAt.toISOString(),
          updated_at: t.clock.now().toISOString(),
        },
      ],
    });
    assert.ok(Number.isInteger(row!.response_ms) && row!.response_ms! >= 0);
    const attempts = await attemptLogOf(t.database.db, row!.id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.response_status, a.error, a.at]),
      [[1, 200, null, t.clock.now()]],
    );
    assert.equal(typeof attempts[0]!.response_ms, 'number');
    // Nothing more is due.
    assert.deepEqual(await deliverDue(deps), []);
  });

  test('every 2xx acknowledges', async () => {
    const ep = await endpoint();
    for (const status of [201, 202, 204, 299]) {
      receiver.setHandler(respond(status));
      t.clock.advance(SECOND);
      await emit();
      const [outcome] = await deliverDue(deps);
      assert.equal(outcome!.status, 'success', String(status));
    }
    assert.deepEqual(
      (await deliveryRows(ep.id)).map((r) => r.response_status),
      [201, 202, 204, 299],
    );
  });

  test('rotate_secret: the old secret stops verifying at once, the new one verifies', async () => {
    const ep = await endpoint();
    await emit();
    const rotated = (await t.api(org.key, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`)).json();
    await deliverDue(deps);
    const req = receiver.requests[0]!;
    assert.throws(() => verifyDelivery(ep.secret, req), /No matching signature/);
    assert.deepEqual((verifyDelivery(rotated.secret, req) as { type: string }).type, 'order.created');
  });

  test('the full retry schedule: 7 attempts at 30s, 2m, 10m, 1h, 6h, 24h, then exhausted', async () => {
    receiver.setHandler(respond(500));
    const ep = await endpoint();
    const eventId = await emit();
    const delays = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR, DAY];
    const timestamps: string[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      const [outcome, ...rest] = await deliverDue(deps);
      assert.equal(rest.length, 0);
      assert.equal(outcome!.attempt, attempt);
      const [row] = await deliveryRows(ep.id);
      assert.equal(row!.attempt, attempt);
      assert.equal(row!.response_status, 500);
      assert.equal(row!.error, 'HTTP 500');
      const req = receiver.requests[attempt - 1]!;
      assert.equal(req.headers['webhook-id'], eventId);
      assert.equal(req.headers['webhook-timestamp'], String(Math.floor(t.clock.now().getTime() / 1000)));
      verifyDelivery(ep.secret, req);
      timestamps.push(String(req.headers['webhook-timestamp']));
      if (attempt < 7) {
        const delay = delays[attempt - 1]!;
        assert.equal(row!.status, 'failed');
        assert.deepEqual(row!.next_retry_at, new Date(t.clock.now().getTime() + delay));
        // Not a moment early.
        t.clock.advance(delay - 1);
        assert.deepEqual(await deliverDue(deps), []);
        t.clock.advance(1);
      } else {
        assert.equal(row!.status, 'exhausted');
        assert.equal(row!.next_retry_at, null);
      }
    }
    assert.equal(new Set(timestamps).size, 7, 'webhook-timestamp is fresh per attempt');
    t.clock.advance(7 * DAY);
    assert.deepEqual(await deliverDue(deps), []);
    assert.equal(receiver.requests.length, 7);
    const attempts = await attemptLogOf(t.database.db, (await deliveryRows(ep.id))[0]!.id);
    assert.deepEqual(
      attempts.map((a) => a.attempt),
      [1, 2, 3, 4, 5, 6, 7],
    );
  });

  test('a 3xx is a failure and is never followed', async () => {
    receiver.setHandler((req, res) => {
      if (req.path === '/hook') res.writeHead(302, { location: receiver.url('/elsewhere') }).end();
      else res.writeHead(200).end();
    });
    const ep = await endpoint();
    await emit();
    const [outcome] = await deliverDue(deps);
    assert.equal(outcome!.status, 'failed');
    assert.deepEqual(
      receiver.requests.map((r) => r.path),
      ['/hook'],
    );
    const [row] = await deliveryRows(ep.id);
    assert.equal(row!.response_status, 302);
    assert.equal(row!.error, 'HTTP 302: redirects are not followed');
    assert.deepEqual(row!.next_retry_at, new Date(t.clock.now().getTime() + 30 * SECOND));
  });

  test('a timeout (WEBHOOK_TIMEOUT) is a failure and is retried', async () => {
    receiver.setHandler(() => {
      /* never answers */
    });
    const ep = await endpoint();
    await emit();
    const started = performance.now();
    const [outcome] = await deliverDue({ ...deps, config: { ...deps.config, webhookTimeoutMs: 300 } });
    const elapsed = performance.now() - started;
    assert.equal(outcome!.status, 'failed');
    assert.ok(elapsed >= 290 && elapsed < 3000, `took ${elapsed}ms`);
    const [row] = await deliveryRows(ep.id);
    assert.equal(row!.error, 'timeout after 300ms');
    assert.equal(row!.response_status, null);
    assert.deepEqual(row!.next_retry_at, new Date(t.clock.now().getTime() + 30 * SECOND));
  });

  test('a connection error is a failure and is retried', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const ep = await endpoint({ url: `https://localhost:${closed}/hook` });
    await emit();
    const [outcome] = await deliverDue(deps);
    assert.equal(outcome!.status, 'failed');
    const [row] = await deliveryRows(ep.id);
    assert.match(row!.error!, /ECONNREFUSED/);
    assert.equal(row!.response_status, null);
  });

  test('the URL is vetted again at send: a host now resolving to a private address is never contacted', async () => {
    const ep = await endpoint({ url: receiver.url('/hook').replace('localhost', 'hooks.test.localhost') });
    await emit();
    const rebound: Resolver = async (host) =>
      host === 'hooks.test.localhost' ? [{ address: '10.1.2.3', family: 4 }] : fakeResolver(host);
    const connections = receiver.connectionCount();
    const [outcome] = await deliverDue({ ...deps, webhookResolver: rebound });
    assert.equal(outcome!.status, 'failed');
    assert.equal(receiver.connectionCount(), connections);
    const [row] = await deliveryRows(ep.id);
    assert.equal(
      row!.error,
      'Webhook URL host hooks.test.localhost resolves to 10.1.2.3, a private address; only public addresses are allowed.',
    );
    // With loopback no longer allowed, the same endpoint is refused too.
    t.clock.advance(30 * SECOND);
    const [again] = await deliverDue({ ...deps, config: { ...deps.config, webhookAllowLoopback: false } });
    assert.equal(again!.status, 'failed');
    assert.equal(receiver.connectionCount(), connections);
    assert.match((await deliveryRows(ep.id))[0]!.error!, /loopback address/);
  });

  test('410 Gone auto-disables the endpoint; the delivery is not retried and nothing more is sent', async () => {
    receiver.setHandler(respond(410));
    const ep = await endpoint();
    await emit();
    await emit();
    const outcomes = await deliverDue(deps, 1);
    assert.equal(outcomes[0]!.status, 'failed');
    const goneAt = t.clock.now().toISOString();
    const shown = (await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep.id}`)).json();
    assert.equal(shown.status, 'auto_disabled');
    assert.equal(shown.disabled_reason, `Endpoint answered 410 Gone on ${goneAt}.`);
    const rows = await deliveryRows(ep.id);
    const gone = rows.find((r) => r.attempt === 1)!;
    assert.deepEqual([gone.status, gone.response_status, gone.next_retry_at], ['failed', 410, null]);
    // The other pending delivery waits; a new event does not fan out to it.
    t.clock.advance(2 * DAY);
    await emit();
    assert.deepEqual(await deliverDue(deps), []);
    assert.equal(receiver.requests.length, 1);
    assert.equal((await deliveryRows(ep.id)).length, 2);
    // Re-enabling clears the reason and resumes the waiting delivery.
    receiver.setHandler(respond(200));
    const reenabled = (await t.api(org.key, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, { status: 'enabled' })).json();
    assert.deepEqual([reenabled.status, reenabled.disabled_reason], ['enabled', null]);
    const resumed = await deliverDue(deps);
    assert.deepEqual(
      resumed.map((o) => o.status),
      ['success'],
    );
  });

  test('sustained failure: the last 20 deliveries all failed over at least 3 days auto-disables', async () => {
    receiver.setHandler(respond(503));
    const ep = await endpoint();
    const show = async () => (await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep.id}`)).json();
    const firstAt = t.clock.now();
    // 20 deliveries, 4 hours apart: 76 hours from the first to the last.
    for (let i = 0; i < 20; i++) {
      if (i > 0) t.clock.advance(4 * HOUR);
      await emit();
      await deliverDue(deps);
      if (i < 19) assert.equal((await show()).status, 'enabled', `after ${i + 1} deliveries`);
    }
    const shown = await show();
    assert.equal(shown.status, 'auto_disabled');
    assert.equal(
      shown.disabled_reason,
      `The last 20 deliveries all failed, from ${firstAt.toISOString()} to ${t.clock.now().toISOString()}.`,
    );

    // Re-enabled, it gets a fresh window: one more failure does not disable it again.
    await t.api(org.key, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, { status: 'enabled' });
    t.clock.advance(HOUR);
    await emit();
    await deliverDue(deps);
    assert.equal((await show()).status, 'enabled');
  });

  test('sustained failure needs both 20 failures and a 3-day span', async () => {
    receiver.setHandler(respond(500));
    const ep = await endpoint();
    // 25 failures within 2 days: not disabled.
    for (let i = 0; i < 25; i++) {
      t.clock.advance(2 * HOUR);
      await emit();
      await deliverDue(deps);
    }
    const show = async () => (await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep.id}`)).json().status;
    assert.equal(await show(), 'enabled');
    // One success among the last 20, then failures for days: not disabled until 20 straight failures span 3 days.
    receiver.setHandler(respond(200));
    t.clock.advance(DAY); // retries of the earlier ones become due
    await emit();
    const okOutcomes = await deliverDue(deps);
    assert.ok(okOutcomes.every((o) => o.status === 'success'));
    receiver.setHandler(respond(500));
    for (let i = 0; i < 19; i++) {
      t.clock.advance(5 * HOUR);
      await emit();
      await deliverDue(deps);
    }
    assert.equal(await show(), 'enabled');
  });

  test('a disabled endpoint gets no sends, except the admin test.ping', async () => {
    const ep = await endpoint();
    await emit();
    await t.api(org.key, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, { status: 'disabled' });
    assert.deepEqual(await deliverDue(deps), []);

    t.clock.advance(SECOND);
    const res = await t.admin('POST', `/admin/v1/webhook_endpoints/${ep.id}/test`);
    assert.equal(res.statusCode, 201);
    const ping = res.json();
    assert.deepEqual(ping, {
      id: ping.id,
      object: 'webhook_delivery',
      endpoint_id: ep.id,
      event_id: ping.event_id,
      event_type: 'test.ping',
      status: 'pending',
      attempt: 0,
      response_status: null,
      response_ms: null,
      error: null,
      next_retry_at: null,
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
    const outcomes = await deliverDue(deps);
    assert.deepEqual(
      outcomes.map((o) => [o.deliveryId, o.status]),
      [[ping.id, 'success']],
    );
    assert.equal(receiver.requests.length, 1);
    const req = receiver.requests[0]!;
    assert.equal(req.headers['webhook-id'], ping.event_id);
    assert.deepEqual(verifyDelivery(ep.secret, req), {
      type: 'test.ping',
      timestamp: t.clock.now().toISOString(),
      data: { message: 'This is a test event from Marquee.', endpoint_id: ep.id },
    });

    const missing = await t.admin('POST', '/admin/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000/test');
    assert.deepEqual(missing.json(), problemOf(404, 'Webhook endpoint not found.', 'resource_not_found'));
    assert.equal((await t.admin('POST', '/admin/v1/webhook_endpoints/x/test')).statusCode, 404);
    assert.equal(
      (await t.inject({ method: 'POST', url: `/admin/v1/webhook_endpoints/${ep.id}/test` })).statusCode,
      401,
    );
  });

  test('redeliver: a new row with attempt 0 and a fresh budget, same webhook-id, the original untouched', async () => {
    receiver.setHandler(respond(500));
    const ep = await endpoint();
    const eventId = await emit();
    // Exhaust the original.
    for (const delay of [0, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR, DAY]) {
      t.clock.advance(delay);
      await deliverDue(deps);
    }
    const [original] = await deliveryRows(ep.id);
    assert.equal(original!.status, 'exhausted');

    receiver.setHandler(respond(200));
    t.clock.advance(MINUTE);
    const res = await t.api(org.key, 'POST', `/v1/webhook_deliveries/${original!.id}/redeliver`);
    assert.equal(res.statusCode, 201);
    const fresh = res.json();
    assert.notEqual(fresh.id, original!.id);
    assert.deepEqual(fresh, {
      id: fresh.id,
      object: 'webhook_delivery',
      endpoint_id: ep.id,
      event_id: eventId,
      event_type: 'order.created',
      status: 'pending',
      attempt: 0,
      response_status: null,
      response_ms: null,
      error: null,
      next_retry_at: null,
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
    const outcomes = await deliverDue(deps);
    assert.deepEqual(
      outcomes.map((o) => [o.deliveryId, o.status, o.attempt]),
      [[fresh.id, 'success', 1]],
    );
    assert.equal(receiver.requests.at(-1)!.headers['webhook-id'], eventId);
    const after = await t.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', original!.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(after, original);

    // The log lists both, newest first; a cursor from another endpoint's log is refused.
    const list = (await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep.id}/deliveries?limit=1`)).json();
    assert.deepEqual([list.data.map((d: { id: string }) => d.id), list.has_more], [[fresh.id], true]);
    const next = (
      await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep.id}/deliveries?limit=1&starting_after=${fresh.id}`)
    ).json();
    assert.deepEqual([next.data.map((d: { id: string }) => d.id), next.has_more], [[original!.id], false]);
    const otherEp = await endpoint();
    const wrong = await t.api(
      org.key,
      'GET',
      `/v1/webhook_endpoints/${otherEp.id}/deliveries?starting_after=${fresh.id}`,
    );
    assert.deepEqual(
      wrong.json(),
      problemOf(
        400,
        `starting_after \`${fresh.id}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ),
    );
    assert.equal((await t.api(org.readKey, 'POST', `/v1/webhook_deliveries/${fresh.id}/redeliver`)).statusCode, 403);
  });

  test('redeliver with an Idempotency-Key: the retry replays the same 201 and queues no second row', async () => {
    const ep = await endpoint();
    await emit();
    await deliverDue(deps);
    const [original] = await deliveryRows(ep.id);
    const headers = { 'idempotency-key': 'redeliver-once' };
    const first = await t.api(org.key, 'POST', `/v1/webhook_deliveries/${original!.id}/redeliver`, undefined, headers);
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    t.clock.advance(MINUTE);
    const again = await t.api(org.key, 'POST', `/v1/webhook_deliveries/${original!.id}/redeliver`, undefined, headers);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const rows = await deliveryRows(ep.id);
    assert.deepEqual(
      rows.map((r) => r.id).sort(),
      [original!.id, first.json().id].sort(),
      'the original and one redelivery',
    );
  });

  test('lease: a claimed row whose worker died is claimed again once the lease has run out', async () => {
    const ep = await endpoint();
    await emit();
    const sender = createSenderFor(deps);
    try {
      const claimed = await claimDeliveries(
        { db: deps.db, clock: deps.clock, config: deps.config, sender, log: deps.logger },
        10,
      );
      assert.equal(claimed.length, 1);
    } finally {
      await sender.close();
    }
    // The "dead" worker never sends or records. While its lease runs, nobody else takes the row.
    assert.deepEqual(await deliverDue(deps), []);
    t.clock.advance(leaseMs(deps.config) - 1);
    assert.deepEqual(await deliverDue(deps), []);
    t.clock.advance(1);
    const [outcome] = await deliverDue(deps);
    assert.equal(outcome!.status, 'success');
    assert.equal(outcome!.attempt, 1);
    assert.equal(receiver.requests.length, 1);
    const [row] = await deliveryRows(ep.id);
    assert.deepEqual([row!.status, row!.locked_until], ['success', null]);
  });

  test('the worker job sends new deliveries promptly, keeps a slow endpoint from holding up others, and drains on stop', async () => {
    const slowDeps = { ...deps, config: { ...deps.config, webhookTimeoutMs: 1500 } };
    receiver.setHandler((req, res) => {
      if (req.path === '/slow') return; // hangs until the sender's deadline
      res.writeHead(200).end();
    });
    const slow = await endpoint({ path: '/slow', types: ['order.paid'] });
    const fast = await endpoint({ path: '/fast', types: ['order.created'] });
    for (let i = 0; i < 12; i++) await emit('order.paid');
    const job = webhookDeliveryJob(slowDeps);
    try {
      await waitFor(() => receiver.requests.filter((r) => r.path === '/slow').length >= 4, 2000);
      const started = performance.now();
      await emit('order.created');
      await waitFor(() => receiver.requests.some((r) => r.path === '/fast'), 1000);
      const latency = performance.now() - started;
      assert.ok(latency < 1000, `fast endpoint waited ${latency}ms`);
      const fastRows = await deliveryRows(fast.id);
      await waitFor(async () => (await deliveryRows(fast.id))[0]!.status === 'success', 1000);
      assert.equal(fastRows.length, 1);
      // Per-endpoint cap: never more than 4 of the slow endpoint's deliveries at once.
      assert.ok(receiver.requests.filter((r) => r.path === '/slow').length <= 4);
    } finally {
      await job.stop();
    }
    // stop() waited for the in-flight sends: their outcomes are recorded, no lease is left.
    const slowRows = await deliveryRows(slow.id);
    assert.equal(slowRows.filter((r) => r.locked_until !== null).length, 0);
    assert.equal(slowRows.filter((r) => r.attempt === 1).length, 4);
    assert.ok(
      slowRows.filter((r) => r.attempt === 1).every((r) => r.status === 'failed' && r.error === 'timeout after 1500ms'),
    );
  });

  test('retention: deliveries and domain events older than 30 days are purged', async () => {
    await t.database.db.deleteFrom('domain_events').execute(); // earlier tests' events
    const ep = await endpoint();
    const oldEvent = await emit();
    await deliverDue(deps);
    t.clock.advance(20 * DAY);
    const newEvent = await emit();
    await deliverDue(deps);
    t.clock.advance(10 * DAY);
    assert.deepEqual(await purgeExpired(deps), { deliveries: 0, domainEvents: 0 });
    t.clock.advance(1);
    const purged = await purgeExpired(deps);
    assert.equal(purged.deliveries, 1);
    assert.ok(purged.domainEvents >= 1);
    const events = await t.database.db
      .selectFrom('domain_events')
      .select('id')
      .where('id', 'in', [oldEvent, newEvent])
      .execute();
    assert.deepEqual(
      events.map((e) => e.id),
      [newEvent],
    );
    assert.deepEqual(
      (await deliveryRows(ep.id)).map((d) => d.event_id),
      [newEvent],
    );
  });

  test('outcome log, delivered: one debug line with the ids of the delivery, endpoint, organizer and event', async () => {
    const ep = await endpoint({ path: '/hook?token=do-not-log' });
    const eventId = await emit();
    const log = captureLog();
    const [outcome] = await deliverDue({ ...deps, logger: log.logger });
    const lines = log.withMessage('webhook delivered');
    assert.equal(lines.length, 1);
    const { deliveryId, endpointId, organizerId, eventType, attempt, responseStatus, levelName } = lines[0]!;
    assert.deepEqual(
      {
        deliveryId,
        endpointId,
        organizerId,
        eventId: lines[0]!.eventId,
        eventType,
        attempt,
        responseStatus,
        levelName,
      },
      {
        deliveryId: outcome!.deliveryId,
        endpointId: ep.id,
        organizerId: org.id,
        eventId,
        eventType: 'order.created',
        attempt: 1,
        responseStatus: 200,
        levelName: 'debug',
      },
    );
    const text = JSON.stringify(log.lines);
    assert.equal(text.includes('do-not-log'), false, 'no URL in the logs');
    assert.equal(text.includes(ep.secret), false, 'no secret in the logs');
  });

  test('outcome log, failed: a warn with the status and the next try; 410: a warn for the attempt and one for the disabling', async () => {
    receiver.setHandler((_req, res) => void res.writeHead(503).end());
    const failing = await endpoint({ path: '/busy' });
    await emit();
    const log = captureLog();
    await deliverDue({ ...deps, logger: log.logger });
    const failed = log.withMessage('webhook attempt failed; retrying later');
    assert.equal(failed.length, 1);
    assert.deepEqual(
      [failed[0]!.levelName, failed[0]!.endpointId, failed[0]!.responseStatus, failed[0]!.attempt],
      ['warn', failing.id, 503, 1],
    );
    assert.equal(failed[0]!.nextRetryAt, new Date(t.clock.now().getTime() + 30_000).toISOString());
    await t.database.db.deleteFrom('webhook_endpoints').execute();

    receiver.setHandler((_req, res) => void res.writeHead(410).end());
    const gone = await endpoint({ path: '/gone' });
    await emit();
    await deliverDue({ ...deps, logger: log.logger });
    const last = log.withMessage('webhook attempt failed; no retry is left');
    assert.deepEqual(
      last.map((l) => [l.levelName, l.endpointId, l.responseStatus]),
      [['warn', gone.id, 410]],
    );
    const disabled = log.withMessage('webhook endpoint auto-disabled');
    assert.deepEqual(
      disabled.map((l) => [l.levelName, l.endpointId, l.organizerId, l.reason]),
      [['warn', gone.id, org.id, `Endpoint answered 410 Gone on ${t.clock.now().toISOString()}.`]],
    );
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
