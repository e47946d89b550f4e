/**
 * Every recorded webhook attempt is logged with its ids (docs/webhooks.md, "Logs"): debug
 * when delivered, warn when it failed (with the next try) and when no retry is left, and
 * a warn when an endpoint is auto-disabled; never the URL's query or the secret.
 */
import assert from 'node:assert/strict';
import { afterEach, before, describe, test } from 'node:test';
import { emitDomainEvent } from '../../src/outbox/emit.ts';
import type { WorkerDeps } from '../../src/workers/index.ts';
import { deliverDue } from '../../src/workers/webhook-delivery.ts';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { useWebhookFixture } from './helpers.ts';

describe('webhook outcome logs', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let receiver: HttpsReceiver;
  let deps: WorkerDeps;
  const fixture = useWebhookFixture();
  before(() => ({ t, org, receiver, deps } = fixture));
  afterEach(async () => {
    await t.database.db.deleteFrom('webhook_endpoints').execute();
  });

  async function endpointAt(path: string) {
    const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url(path),
      event_types: ['order.created'],
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string; secret: string }>();
  }

  const emit = () =>
    t.database.db.transaction().execute((trx) =>
      emitDomainEvent(trx, {
        organizerId: org.id,
        type: 'order.created',
        data: { order_id: 'o1' },
        at: t.clock.now(),
      }),
    );

  test('delivered: one debug line with the ids of the delivery, endpoint, organizer and event', async () => {
    const ep = await endpointAt('/hook?token=do-not-log');
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

  test('failed: a warn with the status and the next try; 410: a warn for the attempt and one for the disabling', async () => {
    receiver.setHandler((_req, res) => void res.writeHead(503).end());
    const failing = await endpointAt('/busy');
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
    const gone = await endpointAt('/gone');
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
