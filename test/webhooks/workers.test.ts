import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import type { Resolver } from '../../src/webhooks/url-vetting.ts';
import { claimDueDeliveries } from '../../src/db/repositories/webhook-deliveries.ts';
import { PER_ENDPOINT_LEASED, leaseMs } from '../../src/webhooks/dispatch.ts';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import { webhookDeliveryJob, type WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { createWebhookTestApp, fakeResolver, silentLogger, verifyDelivery } from './helpers.ts';

describe(`two delivery workers on one database (${onPostgres ? 'PostgreSQL, two pools' : 'PGlite, one handle'})`, () => {
  let t: TestApp;
  let org: TestOrganizer;
  let receiver: HttpsReceiver;
  // On PostgreSQL each worker gets its own pool, as two processes would.
  let pools: DatabaseHandle[] = [];

  before(async () => {
    receiver = await startHttpsReceiver((_req, res) => {
      // A little latency so the two workers genuinely overlap.
      setTimeout(() => res.writeHead(200).end(), 2);
    });
    t = await createWebhookTestApp();
    org = await t.createOrganizer();
    if (t.database.url) {
      pools = [
        await openDatabase({ databaseUrl: t.database.url, poolSize: 10 }),
        await openDatabase({ databaseUrl: t.database.url, poolSize: 10 }),
      ];
    }
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    // pg's pool.end() resolves before its sockets have closed; let them go before the
    // helper's DROP DATABASE ... WITH (FORCE) would terminate them under our feet.
    await new Promise((r) => setTimeout(r, 200));
    await t.close();
    await receiver.close();
  });

  test('200 deliveries drained by two workers: each delivered exactly once', async () => {
    const endpoints: Array<{ id: string; secret: string; path: string }> = [];
    for (let i = 0; i < 4; i++) {
      const path = `/hook-${i}`;
      const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
        url: receiver.url(path),
        event_types: ['ticket.checked_in'],
      });
      endpoints.push({ ...res.json(), path });
    }
    const eventIds: string[] = [];
    for (let i = 0; i < 50; i++) {
      eventIds.push(
        await emitDomainEvent(t.database.db, {
          organizerId: org.id,
          type: 'ticket.checked_in',
          data: { ticket_id: `t${i}`, ticket_no: String(i) },
          at: t.clock.now(),
        }),
      );
    }
    const sends = [0, 0]; // resolver calls per worker
    const counting =
      (worker: number): Resolver =>
      async (host) => {
        sends[worker]!++;
        return fakeResolver(host);
      };
    const depsFor = (worker: number, db: WebhookWorkerDeps['db']): WebhookWorkerDeps => ({
      config: t.config,
      db,
      clock: t.clock,
      logger: silentLogger,
      webhookResolver: counting(worker),
      webhookCa: receiver.ca,
    });
    const jobs = [0, 1].map((w) => webhookDeliveryJob(depsFor(w, (pools[w] ?? t.database).db)));
    const started = performance.now();
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const left = await t.database.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '<>', 'success')
          .execute();
        if (left.length === 0) break;
        assert.ok(Date.now() < deadline, `${left.length} deliveries still not sent`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
    }
    const elapsed = Math.round(performance.now() - started);

    assert.equal(receiver.requests.length, 200);
    const perPair = new Map<string, number>();
    for (const req of receiver.requests) {
      const key = `${String(req.headers['webhook-id'])} ${req.path}`;
      perPair.set(key, (perPair.get(key) ?? 0) + 1);
      const ep = endpoints.find((e) => e.path === req.path)!;
      verifyDelivery(ep.secret, req);
    }
    assert.equal(perPair.size, 200);
    assert.ok([...perPair.values()].every((n) => n === 1));
    for (const id of eventIds) for (const ep of endpoints) assert.equal(perPair.get(`${id} ${ep.path}`), 1);
    const rows = await t.database.db.selectFrom('webhook_deliveries').select(['attempt', 'locked_until']).execute();
    assert.ok(rows.every((r) => r.attempt === 1 && r.locked_until === null));
    const logs = await t.database.db.selectFrom('webhook_deliveries').select('attempt_log').execute();
    assert.equal(
      logs.reduce((sum, d) => sum + d.attempt_log.length, 0),
      200,
    );
    console.log(`# 200 deliveries by two workers in ${elapsed} ms (resolver calls ${sends.join(' + ')})`);
  });

  test('two claims at once take disjoint rows, each as many as it asked for (one skips what the other holds)', async () => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
    for (let i = 0; i < 2; i++) {
      const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
        url: receiver.url(`/claim-${i}`),
        event_types: ['ticket.checked_in'],
      });
      assert.equal(res.statusCode, 201);
    }
    for (let i = 0; i < 40; i++) {
      await emitDomainEvent(t.database.db, {
        organizerId: org.id,
        type: 'ticket.checked_in',
        data: { ticket_id: `c${i}` },
        at: t.clock.now(),
      });
    }
    const now = t.clock.now();
    const claim = (db: WebhookWorkerDeps['db']) =>
      claimDueDeliveries(db, {
        now,
        leaseUntil: new Date(now.getTime() + leaseMs(t.config)),
        limit: 30,
        perEndpointCap: PER_ENDPOINT_LEASED,
        perOrganizerClaim: 100,
      });
    const [first, second] = await Promise.all([0, 1].map((w) => claim((pools[w] ?? t.database).db)));
    assert.equal(first!.length, 30);
    assert.equal(second!.length, 30);
    const ids = new Set([...first!, ...second!].map((r) => r.id));
    assert.equal(ids.size, 60);
    const leased = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('locked_until', 'is not', null)
      .execute();
    assert.deepEqual(new Set(leased.map((r) => r.id)), ids);
  });
});
