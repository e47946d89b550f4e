/**
 * The delivery log (docs/webhooks.md, "The delivery log" and "Recovering"): each
 * attempt's bounded response copy and the delivery's payload on
 * GET /v1/webhook_deliveries/{id}, the status and time filters of an endpoint's log with
 * the cursor, and POST /v1/webhook_endpoints/{id}/recover.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { WebhookDeliveryStatus } from '../../src/db/schema.ts';
import { RECOVERY_CAP } from '../../src/webhooks/deliveries.ts';
import { emitDomainEvent } from '../../src/outbox/domain-events.ts';
import { deliverDue, type WebhookWorkerDeps } from '../../src/webhooks/pump.ts';
import { problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { closedPort } from '../helpers/ports.ts';
import { useWebhookFixture } from './helpers.ts';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

interface Attempt {
  attempt: number;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_body_truncated: boolean;
  created_at: string;
}

describe('webhook delivery log', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let receiver: HttpsReceiver;
  let deps: WebhookWorkerDeps;
  const fixture = useWebhookFixture({ freshEndpoints: true });
  before(() => ({ t, org, receiver, deps } = fixture));

  async function endpoint(url = receiver.url('/hook')): Promise<string> {
    const res = await t.api(org.key, 'POST', '/v1/webhook_endpoints', { url, event_types: ['order.created'] });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string }>().id;
  }

  function emit(data: Record<string, unknown> = { order_id: 'o1' }) {
    return t.database.db
      .transaction()
      .execute((trx) => emitDomainEvent(trx, { organizerId: org.id, type: 'order.created', data, at: t.clock.now() }));
  }

  /** The only delivery of an event. */
  async function deliveryOf(eventId: string): Promise<string> {
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', eventId)
      .execute();
    assert.equal(rows.length, 1);
    return rows[0]!.id;
  }

  async function detail(id: string) {
    const res = await t.api(org.readKey, 'GET', `/v1/webhook_deliveries/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ id: string; payload: string; attempts: Attempt[]; status: string; attempt: number }>();
  }

  describe('response copy and payload', () => {
    test('a 500 with a 5 KB body: status, the allowed headers, exactly the first 1,024 bytes', async () => {
      // 5,120 ASCII bytes, each 1 KB block different, so a wrong cut shows.
      const body = Array.from({ length: 5120 }, (_, i) => String.fromCharCode(65 + ((i >> 10) % 26))).join('');
      receiver.setHandler((_req, res) => {
        res
          .writeHead(500, {
            'content-type': 'text/plain; charset=utf-8',
            'content-length': String(Buffer.byteLength(body)),
            'Retry-After': '120',
            date: 'Wed, 25 Nov 2026 10:00:00 GMT',
            Server: 'loopback-receiver/1.0',
            'x-request-id': 'not-kept',
            'set-cookie': 'session=secret',
          })
          .end(body);
      });
      const ep = await endpoint();
      const eventAt = t.clock.now();
      const eventId = await emit({ order_id: 'o-500', total_minor: 4200 });
      t.clock.advance(SECOND);
      const [outcome] = await deliverDue(deps);
      assert.equal(outcome!.status, 'failed');
      const id = await deliveryOf(eventId);

      const shown = await detail(id);
      assert.equal(shown.attempts.length, 1);
      const [attempt] = shown.attempts;
      assert.ok(Number.isInteger(attempt!.response_ms) && attempt!.response_ms! >= 0);
      assert.deepEqual(
        { ...attempt, response_ms: 0 },
        {
          attempt: 1,
          response_status: 500,
          response_ms: 0,
          error: 'HTTP 500',
          response_headers: {
            'content-type': 'text/plain; charset=utf-8',
            'content-length': '5120',
            'retry-after': '120',
            date: 'Wed, 25 Nov 2026 10:00:00 GMT',
            server: 'loopback-receiver/1.0',
          },
          response_body: 'A'.repeat(1024),
          response_body_truncated: true,
          created_at: t.clock.now().toISOString(),
        },
      );
      // The payload is what the receiver got, byte for byte.
      assert.equal(receiver.requests.length, 1);
      assert.equal(shown.payload, receiver.requests[0]!.body);
      assert.equal(
        shown.payload,
        `{"type":"order.created","timestamp":"${eventAt.toISOString()}","data":{"order_id":"o-500","total_minor":4200}}`,
      );
      // The list stays compact: neither payload nor attempts.
      const list = await t.api(org.key, 'GET', `/v1/webhook_endpoints/${ep}/deliveries`);
      const { payload, attempts, ...rest } = shown;
      assert.equal(typeof payload, 'string');
      assert.equal(attempts.length, 1);
      assert.deepEqual(list.json<{ data: unknown[] }>().data, [rest]);
    });

    test('a retry appends an attempt; a body cut inside a character drops it; binary bytes show as U+FFFD', async () => {
      const cutBody = Buffer.from('x' + 'é'.repeat(600)); // byte 1,024 is the first half of an é
      receiver.setHandler((_req, res) => {
        res.writeHead(503, { 'content-type': 'text/plain' }).end(cutBody);
      });
      await endpoint();
      const eventId = await emit();
      await deliverDue(deps);
      receiver.setHandler((_req, res) => {
        res
          .writeHead(200, { 'content-type': 'application/octet-stream', date: 'Wed, 25 Nov 2026 10:00:31 GMT' })
          .end(Buffer.from([0x00, 0xff, 0x41, 0xc3]));
      });
      t.clock.advance(31 * SECOND);
      await deliverDue(deps);
      const shown = await detail(await deliveryOf(eventId));
      assert.equal(shown.status, 'success');
      assert.deepEqual(
        shown.attempts.map((a) => [a.attempt, a.response_status, a.error, a.response_body, a.response_body_truncated]),
        [
          [1, 503, 'HTTP 503', 'x' + 'é'.repeat(511), true],
          [2, 200, null, '\uFFFD\uFFFDA\uFFFD', false],
        ],
      );
      assert.deepEqual(shown.attempts[1]!.response_headers, {
        'content-type': 'application/octet-stream',
        date: 'Wed, 25 Nov 2026 10:00:31 GMT',
      });
    });

    test('a refused connection and a timeout keep the error and no response', async () => {
      const refusedPort = await closedPort();
      await endpoint(`https://localhost:${refusedPort}/hook`);
      const refusedEvent = await emit();
      await deliverDue(deps);
      const refused = await detail(await deliveryOf(refusedEvent));
      await t.database.db.deleteFrom('webhook_endpoints').execute();

      receiver.setHandler(() => {
        /* never answers */
      });
      await endpoint();
      const slowEvent = await emit();
      await deliverDue({ ...deps, config: { ...deps.config, webhookTimeoutMs: 300 } });
      const timedOut = await detail(await deliveryOf(slowEvent));

      for (const [shown, error] of [
        [refused, `connect ECONNREFUSED 127.0.0.1:${refusedPort}`],
        [timedOut, 'timeout after 300ms'],
      ] as const) {
        assert.deepEqual(
          shown.attempts.map((a) => ({ ...a, response_ms: null })),
          [
            {
              attempt: 1,
              response_status: null,
              response_ms: null,
              error,
              response_headers: null,
              response_body: null,
              response_body_truncated: false,
              created_at: t.clock.now().toISOString(),
            },
          ],
        );
      }
    });

    test('an unknown, foreign or malformed delivery id answers 404', async () => {
      const other = await t.createOrganizer();
      await endpoint();
      const id = await deliveryOf(await emit());
      for (const [key, path] of [
        [other.key, `/v1/webhook_deliveries/${id}`],
        [org.key, '/v1/webhook_deliveries/00000000-0000-4000-8000-000000000000'],
        [org.key, '/v1/webhook_deliveries/nope'],
      ] as const) {
        const res = await t.api(key, 'GET', path);
        assert.equal(res.statusCode, 404, path);
      }
    });
  });

  describe('filters', () => {
    /** Seven deliveries an hour apart, oldest first, with the given statuses. */
    async function seededLog(statuses: WebhookDeliveryStatus[]) {
      const ep = await endpoint();
      const start = t.clock.now();
      const ids: string[] = [];
      for (const status of statuses) {
        const id = await deliveryOf(await emit());
        await t.database.db.updateTable('webhook_deliveries').set({ status }).where('id', '=', id).execute();
        ids.push(id);
        t.clock.advance(HOUR);
      }
      return { ep, start, ids };
    }

    const page = async (path: string) => {
      const res = await t.api(org.readKey, 'GET', path);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ data: Array<{ id: string }>; has_more: boolean }>();
      return { ids: body.data.map((d) => d.id), has_more: body.has_more };
    };

    test('status (one or several) and created_gte/created_lt, paged with the cursor', async () => {
      const statuses: WebhookDeliveryStatus[] = [
        'failed',
        'success',
        'exhausted',
        'pending',
        'failed',
        'exhausted',
        'failed',
      ];
      const { ep, start, ids } = await seededLog(statuses);
      const base = `/v1/webhook_endpoints/${ep}/deliveries`;
      const at = (hours: number) => new Date(start.getTime() + hours * HOUR).toISOString();
      const newestFirst = (keep: (i: number) => boolean) =>
        ids
          .flatMap((id, i) => (keep(i) ? [{ id, i }] : []))
          .reverse()
          .map((x) => x.id);

      assert.deepEqual(await page(`${base}?status=success`), { ids: [ids[1]], has_more: false });
      const failing = newestFirst((i) => statuses[i] === 'failed' || statuses[i] === 'exhausted');
      assert.equal(failing.length, 5);
      // Several statuses, two to a page, each page continuing after the previous one's last id.
      const first = await page(`${base}?status=failed&status=exhausted&limit=2`);
      assert.deepEqual(first, { ids: failing.slice(0, 2), has_more: true });
      const second = await page(`${base}?status=failed&status=exhausted&limit=2&starting_after=${first.ids[1]}`);
      assert.deepEqual(second, { ids: failing.slice(2, 4), has_more: true });
      const third = await page(`${base}?status=failed&status=exhausted&limit=2&starting_after=${second.ids[1]}`);
      assert.deepEqual(third, { ids: failing.slice(4), has_more: false });

      // Time: [1h, 5h) holds deliveries 1 to 4; with a status, 2 and 4.
      assert.deepEqual(await page(`${base}?created_gte=${at(1)}&created_lt=${at(5)}`), {
        ids: newestFirst((i) => i >= 1 && i < 5),
        has_more: false,
      });
      assert.deepEqual(
        await page(
          `${base}?created_gte=${encodeURIComponent(at(1))}&created_lt=${at(5)}&status=exhausted&status=failed`,
        ),
        {
          ids: [ids[4], ids[2]],
          has_more: false,
        },
      );
      assert.deepEqual(await page(`${base}?created_gte=${at(6)}`), { ids: [ids[6]], has_more: false });
      assert.deepEqual(await page(`${base}?created_lt=${at(1)}`), { ids: [ids[0]], has_more: false });
      // A time zone offset is the same instant.
      assert.deepEqual(await page(`${base}?created_gte=${encodeURIComponent(at(6).replace('Z', '+00:00'))}`), {
        ids: [ids[6]],
        has_more: false,
      });

      // The cursor may be a delivery the filter does not match (its status changed since).
      assert.deepEqual(await page(`${base}?status=failed&starting_after=${ids[5]}`), {
        ids: [ids[4], ids[0]],
        has_more: false,
      });
    });

    test('invalid filters answer 400 naming the parameter', async () => {
      const ep = await endpoint();
      const base = `/v1/webhook_endpoints/${ep}/deliveries`;
      const cases: Array<[string, string]> = [
        ['status=sent', 'status.0'],
        ['status=failed,exhausted', 'status.0'],
        ['status=failed&status=bogus', 'status.1'],
        ['status=failed&status=failed', 'status'],
        ['limit=0', 'limit'],
        ['created_gte=yesterday', 'created_gte'],
        ['created_lt=2026-02-30T00:00:00Z', 'created_lt'],
        ['created_gte=2026-06-01T00:00:00Z&created_lt=2026-06-01T00:00:00Z', 'created_lt'],
        ['statuses=failed', 'statuses'],
      ];
      for (const [query, param] of cases) {
        const res = await t.api(org.readKey, 'GET', `${base}?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/, query);
        assert.equal(res.json<{ param?: string }>().param, param, `${query}: ${res.body}`);
      }
      const empty = await t.api(
        org.readKey,
        'GET',
        `${base}?created_gte=2026-06-01T00:00:00Z&created_lt=2026-05-01T00:00:00Z`,
      );
      assert.deepEqual(
        empty.json(),
        problemOf(
          400,
          'created_lt (2026-05-01T00:00:00.000Z) must be later than created_gte (2026-06-01T00:00:00.000Z).',
          'parameter_invalid',
          'created_lt',
        ),
      );
    });
  });

  describe('recover', () => {
    const recover = (ep: string, body: unknown, headers: Record<string, string> = {}, key = org.writeKey) =>
      t.api(key, 'POST', `/v1/webhook_endpoints/${ep}/recover`, body, headers);

    /** Sets a delivery's status as the worker would have left it. */
    const setStatus = (id: string, status: WebhookDeliveryStatus) =>
      t.database.db.updateTable('webhook_deliveries').set({ status, attempt: 7 }).where('id', '=', id).execute();

    test('re-sends exactly the failed and exhausted deliveries since the time, once, under the same webhook-id', async () => {
      const ep = await endpoint();
      const earlier = await emit(); // failed, but before `since`
      await setStatus(await deliveryOf(earlier), 'failed');
      t.clock.advance(HOUR);
      const since = t.clock.now();
      const failed = await emit();
      await setStatus(await deliveryOf(failed), 'failed');
      t.clock.advance(SECOND);
      const exhausted = await emit();
      await setStatus(await deliveryOf(exhausted), 'exhausted');
      t.clock.advance(SECOND);
      const succeeded = await emit();
      await setStatus(await deliveryOf(succeeded), 'success');
      t.clock.advance(SECOND);
      const queuedAgain = await emit(); // failed, and already redelivered by hand (pending)
      const queuedAgainId = await deliveryOf(queuedAgain);
      await setStatus(queuedAgainId, 'exhausted');
      t.clock.advance(SECOND);
      assert.equal((await t.api(org.key, 'POST', `/v1/webhook_deliveries/${queuedAgainId}/redeliver`)).statusCode, 201);
      t.clock.advance(SECOND);
      const deliveredAgain = await emit(); // failed, then a redelivery succeeded
      const deliveredAgainId = await deliveryOf(deliveredAgain);
      await setStatus(deliveredAgainId, 'failed');
      t.clock.advance(SECOND);
      const redelivered = await t.api(org.key, 'POST', `/v1/webhook_deliveries/${deliveredAgainId}/redeliver`);
      await setStatus(redelivered.json<{ id: string }>().id, 'success');
      t.clock.advance(SECOND);
      const stillNew = await emit(); // pending, never tried: not a failure
      t.clock.advance(SECOND);

      const res = await recover(ep, { since: since.toISOString() });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        object: 'webhook_recovery',
        endpoint_id: ep,
        since: since.toISOString(),
        redelivered: 2,
        already_pending: 1,
        has_more: false,
      });
      // The new rows: one pending redelivery of each, attempt 0; the originals unchanged.
      const rows = await t.database.db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'status', 'attempt', 'created_at'])
        .where('endpoint_id', '=', ep)
        .where('created_at', '=', t.clock.now())
        .orderBy('event_id')
        .execute();
      assert.deepEqual(
        rows,
        [failed, exhausted]
          .sort()
          .map((event_id) => ({ event_id, status: 'pending', attempt: 0, created_at: t.clock.now() })),
      );
      const originals = await t.database.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempt'])
        .where('event_id', 'in', [failed, exhausted])
        .where('created_at', '<', t.clock.now())
        .orderBy('created_at')
        .execute();
      assert.deepEqual(originals, [
        { status: 'failed', attempt: 7 },
        { status: 'exhausted', attempt: 7 },
      ]);

      // Again: nothing new is queued; the two are now pending, beside the hand-made one.
      const again = await recover(ep, { since: since.toISOString() });
      assert.deepEqual(again.json<{ redelivered: number; already_pending: number }>().redelivered, 0);
      assert.deepEqual(again.json<{ already_pending: number }>().already_pending, 3);

      // The worker sends each once more, under its event id.
      await deliverDue(deps);
      assert.deepEqual(
        receiver.requests.map((r) => r.headers['webhook-id']).sort(),
        [failed, exhausted, queuedAgain, stillNew].sort(),
      );
      // Delivered now: a third call has nothing to do.
      const third = await recover(ep, { since: since.toISOString() });
      assert.deepEqual(third.json<{ redelivered: number; already_pending: number; has_more: boolean }>(), {
        object: 'webhook_recovery',
        endpoint_id: ep,
        since: since.toISOString(),
        redelivered: 0,
        already_pending: 0,
        has_more: false,
      });
      assert.equal(
        (await t.database.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', earlier).execute())
          .length,
        1,
      );
    });

    test('a redelivery that failed again is recovered again; an Idempotency-Key replays the answer', async () => {
      const ep = await endpoint();
      const since = t.clock.now();
      const eventId = await emit();
      await setStatus(await deliveryOf(eventId), 'exhausted');
      t.clock.advance(SECOND);
      const headers = { 'idempotency-key': 'recover-1' };
      const first = await recover(ep, { since: since.toISOString() }, headers);
      assert.equal(first.json<{ redelivered: number }>().redelivered, 1);
      const replay = await recover(ep, { since: since.toISOString() }, headers);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
      // The redelivery fails for good too: the event is recovered once more.
      await t.database.db
        .updateTable('webhook_deliveries')
        .set({ status: 'exhausted' })
        .where('event_id', '=', eventId)
        .where('status', '=', 'pending')
        .execute();
      t.clock.advance(SECOND);
      assert.equal((await recover(ep, { since: since.toISOString() })).json<{ redelivered: number }>().redelivered, 1);
      const rows = await t.database.db
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('event_id', '=', eventId)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.status),
        ['exhausted', 'exhausted', 'pending'],
      );
    });

    test('a redelivery made in the same millisecond as its original still counts as queued', async () => {
      const ep = await endpoint();
      const since = t.clock.now();
      const eventId = await emit();
      // The largest id: on a created_at tie, no redelivery's id sorts after it.
      await t.database.db
        .updateTable('webhook_deliveries')
        .set({ id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', status: 'exhausted' })
        .where('event_id', '=', eventId)
        .execute();
      const body = { since: since.toISOString() };
      const counts = async () => {
        const res = await recover(ep, body);
        const json = res.json<{ redelivered: number; already_pending: number }>();
        return [json.redelivered, json.already_pending];
      };
      assert.deepEqual(await counts(), [1, 0]);
      assert.deepEqual(await counts(), [0, 1]);
    });

    test(`at most ${RECOVERY_CAP} a call, has_more says so; concurrent calls queue each event once`, async () => {
      const ep = await endpoint();
      const since = t.clock.now();
      const total = RECOVERY_CAP + 5;
      // Failed deliveries of as many events, a millisecond apart.
      await sql`
        WITH events AS (
          INSERT INTO domain_events (organizer_id, type, data, created_at)
          SELECT ${org.id}::uuid, 'order.created', '{}'::json, ${since}::timestamptz + g * interval '1 millisecond'
          FROM generate_series(1, ${total}) g
          RETURNING id, created_at
        )
        INSERT INTO webhook_deliveries (organizer_id, endpoint_id, event_id, event_type, status, attempt, created_at, updated_at)
        SELECT ${org.id}::uuid, ${ep}::uuid, id, 'order.created', 'failed', 1, created_at, created_at FROM events
      `.execute(t.database.db);
      t.clock.advance(HOUR);
      const body = { since: since.toISOString() };
      const first = await recover(ep, body);
      assert.deepEqual(first.json<{ redelivered: number; already_pending: number; has_more: boolean }>(), {
        object: 'webhook_recovery',
        endpoint_id: ep,
        since: since.toISOString(),
        redelivered: RECOVERY_CAP,
        already_pending: 0,
        has_more: true,
      });
      // The oldest went first.
      const newest = await t.database.db
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where('endpoint_id', '=', ep)
        .where('status', '=', 'failed')
        .orderBy('created_at', 'desc')
        .limit(5)
        .execute();
      const queuedNewest = await t.database.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where(
          'event_id',
          'in',
          newest.map((r) => r.event_id),
        )
        .where('status', '=', 'pending')
        .execute();
      assert.equal(queuedNewest.length, 0);

      // Two at once: the remaining five are queued by exactly one of them.
      const [a, b] = await Promise.all([recover(ep, body), recover(ep, body)]);
      const results = [
        a.json<{ redelivered: number; already_pending: number; has_more: boolean }>(),
        b.json<{ redelivered: number; already_pending: number; has_more: boolean }>(),
      ];
      assert.deepEqual(
        results.map((r) => [r.redelivered, r.already_pending, r.has_more]).sort((x, y) => Number(x[0]) - Number(y[0])),
        [
          [0, total, false],
          [5, RECOVERY_CAP, false],
        ],
      );
      const pendingPerEvent = await t.database.db
        .selectFrom('webhook_deliveries')
        .select(['event_id', (eb) => eb.fn.countAll<string>().as('n')])
        .where('endpoint_id', '=', ep)
        .where('status', '=', 'pending')
        .groupBy('event_id')
        .execute();
      assert.equal(pendingPerEvent.length, total);
      assert.ok(pendingPerEvent.every((r) => Number(r.n) === 1));
    });

    test('validation, scope and unknown endpoints', async () => {
      const ep = await endpoint();
      const cases: Array<[unknown, string]> = [
        [{}, 'since'],
        [{ since: 'last week' }, 'since'],
        [{ since: '2026-13-01T00:00:00Z' }, 'since'],
        [{ since: 1780315200 }, 'since'],
        [{ since: '2026-06-01T00:00:00Z', status: 'failed' }, 'status'],
      ];
      for (const [body, param] of cases) {
        const res = await recover(ep, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json<{ param?: string }>().param, param, res.body);
      }
      const since = { since: '2026-06-01T00:00:00Z' };
      assert.equal((await recover(ep, since, {}, org.readKey)).statusCode, 403);
      const other = await t.createOrganizer();
      assert.equal((await recover(ep, since, {}, other.key)).statusCode, 404);
      assert.equal((await recover('00000000-0000-4000-8000-000000000000', since)).statusCode, 404);
      assert.equal((await recover('not-a-uuid', since)).statusCode, 404);
    });
  });
});
