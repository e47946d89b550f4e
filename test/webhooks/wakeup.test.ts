/**
 * Cross-process wakeups on PostgreSQL: the NOTIFY of queued deliveries reaches listening
 * workers when the transaction commits (never before, never for a rollback or an event
 * nobody is subscribed to, and for a redeliver too), and a ROLE=worker process sends a
 * delivery queued by another process at once rather than at its next poll.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { listenOnChannel, type ChannelListener } from '../../src/db/listen.ts';
import { insertDomainEventWithDeliveries } from '../../src/db/repositories/domain-events.ts';
import { DELIVERIES_QUEUED_CHANNEL } from '../../src/db/repositories/webhook-deliveries.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { webhookDeliveryJob } from '../../src/webhooks/pump.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { silentLogger, useWebhookFixture, workerDepsFor } from './helpers.ts';

const skip = !onPostgres && 'LISTEN/NOTIFY wakeups are for PostgreSQL (the embedded database is one process)';

/** Resolves when `count()` reaches `n`, or fails after `ms`. */
async function until(count: () => number, n: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (count() < n) {
    assert.ok(Date.now() < deadline, `${count()} of ${n} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('delivery wakeups across processes (LISTEN/NOTIFY)', { skip }, () => {
  let t: TestApp;
  let org: TestOrganizer;
  let receiver: HttpsReceiver;
  const fixture = useWebhookFixture();
  before(() => ({ t, org, receiver } = fixture));

  /** An event queued the way another process's sale queues it (no in-process wakeup). */
  const queue = (db = t.database.db, type = 'order.created') =>
    insertDomainEventWithDeliveries(db, {
      organizerId: org.id,
      type,
      data: '{"order_id":"x"}',
      at: t.clock.now(),
      fanOut: true,
    });

  test('queuing deliveries notifies at commit: not before it, not for a rollback, not when nothing was queued', async () => {
    let heard = 0;
    const listener: ChannelListener = listenOnChannel(
      t.database.url!,
      DELIVERIES_QUEUED_CHANNEL,
      () => heard++,
      silentLogger,
    );
    try {
      await listener.ready;
      const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
        url: receiver.url('/notify'),
        event_types: ['order.created'],
      });
      assert.equal(res.statusCode, 201);

      assert.equal((await queue(t.database.db, 'order.paid')).queued, 0); // nobody subscribed
      await assert.rejects(
        withTransaction(t.database.db, async (trx) => {
          assert.equal((await queue(trx)).queued, 1);
          throw new Error('roll back');
        }),
      );
      await withTransaction(t.database.db, async (trx) => {
        assert.equal((await queue(trx)).queued, 1);
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(heard, 0, 'nothing is heard before the commit');
      });
      await until(() => heard, 1, 5000);
      // Notifications arrive in commit order: once this one is heard, any earlier one would
      // have been too, so the two above (nothing queued, rolled back) sent none.
      assert.equal((await queue()).queued, 1);
      await until(() => heard, 2, 5000);
      assert.equal(heard, 2);
      // Every way a delivery is queued notifies, a redeliver through the API too.
      const [delivered] = await t.database.db.selectFrom('webhook_deliveries').select('id').execute();
      const redeliver = await t.api(org.key, 'POST', `/v1/webhook_deliveries/${delivered!.id}/redeliver`);
      assert.equal(redeliver.statusCode, 201, redeliver.body);
      await until(() => heard, 3, 5000);
    } finally {
      await listener.close();
      await t.database.db.deleteFrom('webhook_endpoints').execute();
    }
  });

  test('a worker with DATABASE_URL sends a delivery another process queued without waiting for its poll', async () => {
    const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url('/woken'),
      event_types: ['order.created'],
    });
    assert.equal(res.statusCode, 201);
    const deps = {
      ...workerDepsFor(t, receiver),
      // Through PgBouncer (scripts/test.mjs, --through-pgbouncer) the LISTEN takes the direct URL.
      config: { ...t.config, ...(t.database.urls ?? { databaseUrl: t.database.url }) },
      // A poll that never comes within the test: only the notification can wake the worker.
      webhookPollIntervalMs: 60_000,
    };
    const job = webhookDeliveryJob(deps);
    try {
      await new Promise((r) => setTimeout(r, 300)); // its first claim found nothing; it now waits
      const before = receiver.requests.length;
      await queue();
      await until(() => receiver.requests.length - before, 1, 5000);
      assert.equal(receiver.requests.at(-1)!.path, '/woken');
    } finally {
      await job.stop();
      await t.database.db.deleteFrom('webhook_endpoints').execute();
    }
  });
});
