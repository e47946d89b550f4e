/**
 * rotate_secret is exact (docs/webhooks.md, "Rotating the secret"): while a worker drains
 * a backlog to one endpoint, with rows claimed and queued before the rotation, every
 * attempt that starts after rotate_secret returned is signed with the new secret only.
 * Both ways a worker learns an endpoint's secret are run: a read as attempts start (the
 * embedded database) and, on PostgreSQL, the endpoint guard's lock.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import { openEndpointGuard, type EndpointGuard } from '../../src/db/repositories/webhook-endpoint-guard.ts';
import { deliverDue, type WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import { onPostgres } from '../helpers/database.ts';
import { silentLogger, useWebhookFixture, verifyDelivery, type WebhookFixture } from './helpers.ts';

const BACKLOG = 40;

/** True if the standardwebhooks package accepts the request with this secret. */
function verifiesWith(secret: string, req: Parameters<typeof verifyDelivery>[1]): boolean {
  try {
    verifyDelivery(secret, req);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The fixture's worker deps, on PostgreSQL with the endpoint guard (it needs the database URL). */
function depsFor(fixture: WebhookFixture, guard: boolean): WebhookWorkerDeps {
  const { t, deps } = fixture;
  return guard ? { ...deps, config: { ...deps.config, databaseUrl: t.database.url } } : deps;
}

const ways = [
  { name: 'read as attempts start', guard: false },
  { name: 'through the endpoint guard', guard: true, skip: !onPostgres && 'the guard is for PostgreSQL' },
];

describe('rotate_secret during a drain', () => {
  const fixture = useWebhookFixture();

  for (const way of ways)
    test(
      `no attempt that starts after rotate_secret returned is signed with the old secret (${way.name})`,
      { skip: way.skip },
      async () => {
        const { t, receiver } = fixture;
        const deps = depsFor(fixture, way.guard);
        const org = await t.createOrganizer();
        const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
          url: receiver.url('/slow'),
          event_types: ['order.created'],
        });
        assert.equal(created.statusCode, 201, created.body);
        const { id: endpointId, secret: oldSecret } = created.json<{ id: string; secret: string }>();
        for (let i = 0; i < BACKLOG; i++) {
          await emitDomainEvent(t.database.db, {
            organizerId: org.id,
            type: 'order.created',
            data: { order_id: `o${i}` },
            at: t.clock.now(),
          });
        }

        // A slow endpoint: each answer takes 10 ms, so the claimed backlog waits in the
        // worker's queue. On `hold`, answers are kept back until released.
        let holding = false;
        const held: ServerResponse[] = [];
        receiver.setHandler((_req, res) => {
          if (holding) held.push(res);
          else setTimeout(() => res.writeHead(204).end(), 10);
        });
        const drain = deliverDue(deps, 10 * BACKLOG);

        // Part way through, hold the answers until the endpoint's four in-flight slots are
        // all taken: from then on no attempt is in flight that has not arrived, and none can
        // start, so the rotation falls cleanly between two sets of attempts.
        await until('a few deliveries arrived', () => receiver.requests.length >= 8);
        holding = true;
        await until('four answers are held', () => held.length === 4);
        const beforeRotation = receiver.requests.length;
        const rotated = await t.api(org.key, 'POST', `/v1/webhook_endpoints/${endpointId}/rotate_secret`);
        assert.equal(rotated.statusCode, 200, rotated.body);
        const newSecret = rotated.json<{ secret: string }>().secret;
        assert.notEqual(newSecret, oldSecret);
        holding = false;
        for (const res of held) res.writeHead(204).end();

        const outcomes = await drain;
        assert.equal(outcomes.filter((o) => o.status === 'success').length, BACKLOG);
        assert.equal(receiver.requests.length, BACKLOG);
        assert.ok(beforeRotation < BACKLOG - 10, `${BACKLOG - beforeRotation} deliveries after the rotation`);

        const signedWith = receiver.requests.map((req) => [verifiesWith(oldSecret, req), verifiesWith(newSecret, req)]);
        assert.deepEqual(
          signedWith.slice(0, beforeRotation),
          Array.from({ length: beforeRotation }, () => [true, false]),
        );
        assert.deepEqual(
          signedWith.slice(beforeRotation),
          Array.from({ length: BACKLOG - beforeRotation }, () => [false, true]),
        );
      },
    );

  for (const way of ways)
    test(
      `a row claimed before its endpoint was deleted is handed back, not sent (${way.name})`,
      { skip: way.skip },
      async () => {
        const { t, receiver } = fixture;
        const deps = depsFor(fixture, way.guard);
        const org = await t.createOrganizer(); // none of the first test's endpoints
        const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
          url: receiver.url('/gone-later'),
          event_types: ['order.created'],
        });
        assert.equal(created.statusCode, 201, created.body);
        const endpointId = created.json<{ id: string }>().id;
        for (let i = 0; i < 12; i++) {
          await emitDomainEvent(t.database.db, {
            organizerId: org.id,
            type: 'order.created',
            data: { order_id: `d${i}` },
            at: t.clock.now(),
          });
        }
        let holding = true;
        const held: ServerResponse[] = [];
        receiver.setHandler((_req, res) => {
          if (holding) held.push(res);
          else res.writeHead(204).end();
        });
        const drain = deliverDue(deps, 100);
        await until('four answers are held', () => held.length === 4);
        const deleted = await t.api(org.key, 'DELETE', `/v1/webhook_endpoints/${endpointId}`);
        assert.equal(deleted.statusCode, 200, deleted.body);
        holding = false;
        for (const res of held) res.writeHead(204).end();
        await drain;
        assert.deepEqual(
          receiver.requests.map((r) => r.path),
          Array(4).fill('/gone-later'),
          'only the attempts started before the delete reached the receiver',
        );
      },
    );

  test(
    'the guard never starves a writer and never answers with a secret a returned rotation replaced',
    { skip: !onPostgres && 'the guard is for PostgreSQL' },
    async () => {
      const { t, receiver } = fixture;
      const org = await t.createOrganizer();
      const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
        url: receiver.url('/guarded'),
        event_types: ['order.created'],
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id, secret: oldSecret } = created.json<{ id: string; secret: string }>();
      const guard: EndpointGuard = openEndpointGuard(t.database.url!, silentLogger, { holdMs: 50 });
      try {
        assert.equal((await guard.read([id])).get(id)?.secret, oldSecret);
        assert.equal(guard.readNow([id])?.get(id)?.secret, oldSecret, 'known without a query while the lock is held');

        // A worker that never stops starting attempts: the guard renews its lock every hold.
        let rotatedAt = Infinity;
        const answers: Array<{ at: number; secret: string | undefined }> = [];
        let busy = true;
        const reading = (async () => {
          while (busy) {
            const now = guard.readNow([id]) ?? (await guard.read([id]));
            answers.push({ at: performance.now(), secret: now.get(id)?.secret });
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        })();
        await new Promise((resolve) => setTimeout(resolve, 120));
        const started = performance.now();
        const rotated = await t.api(org.key, 'POST', `/v1/webhook_endpoints/${id}/rotate_secret`);
        rotatedAt = performance.now();
        assert.equal(rotated.statusCode, 200, rotated.body);
        const newSecret = rotated.json<{ secret: string }>().secret;
        await new Promise((resolve) => setTimeout(resolve, 150));
        busy = false;
        await reading;

        assert.ok(rotatedAt - started < 1000, `the rotation waited ${Math.round(rotatedAt - started)} ms`);
        const after = answers.filter((a) => a.at > rotatedAt);
        assert.ok(after.length >= 5, `${after.length} answers after the rotation`);
        assert.deepEqual(new Set(after.map((a) => a.secret)), new Set([newSecret]));
        assert.ok(answers.some((a) => a.at < started && a.secret === oldSecret));
      } finally {
        await guard.close();
      }
    },
  );
});
