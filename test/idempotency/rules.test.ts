/**
 * The ten rules of docs/idempotency.md, each with its own test, on real
 * routes: POST /v1/events, PATCH /v1/events/{id}, POST /v1/orders, POST and DELETE
 * /v1/webhook_endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { orderBody, setupSale } from '../helpers/orders.ts';
import { createEvent, eventBody } from '../helpers/catalog.ts';
import { createWebhookTestApp } from '../webhooks/helpers.ts';
import { IDEMPOTENCY_DETAILS } from '../../src/http/plugins/idempotency.ts';
import {
  countRows,
  IN_FLIGHT_LEASE_MS,
  isReplayOf,
  JSON_TYPE,
  keyInFlight,
  newKey,
  PROBLEM_TYPE,
  withKey,
} from './helpers.ts';

const HOOK_URL = 'https://hooks.test.localhost/marquee';

describe('idempotency rules', () => {
  let t: TestApp;
  let a: TestOrganizer;
  let b: TestOrganizer;
  /** When set, the next idempotent request's execution throws it (a real 5xx on a real route). */
  let failNext: Error | undefined;
  before(async () => {
    t = await createWebhookTestApp({
      appOptions: {
        idempotency: {
          beforeExecute: () => {
            const failure = failNext;
            failNext = undefined;
            if (failure) throw failure;
          },
        },
      },
    });
    a = await t.createOrganizer();
    b = await t.createOrganizer();
  });
  after(() => t.close());

  test('rule 1: a POST retried with the same key executes once; the retry is a replay', async () => {
    const key = newKey();
    const body = eventBody(t);
    const before = await countRows(t, 'events', a.id);
    const first = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const retry = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
    assert.equal(await countRows(t, 'events', a.id), before + 1);
    assert.notEqual(
      retry.headers['x-request-id'],
      first.headers['x-request-id'],
      'the replay is a new response with its own request id',
    );
  });

  test('rule 1: a PATCH retried with the same key replays, even after the resource changed since', async () => {
    const event = await createEvent(t, a.key);
    const key = newKey();
    const first = await t.api(a.key, 'PATCH', `/v1/events/${event.id}`, { description: 'Doors at 7' }, withKey(key));
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().description, 'Doors at 7');
    const changed = await t.api(a.key, 'PATCH', `/v1/events/${event.id}`, { description: 'Doors at 8' });
    assert.equal(changed.statusCode, 200);
    const retry = await t.api(a.key, 'PATCH', `/v1/events/${event.id}`, { description: 'Doors at 7' }, withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
    assert.equal(JSON.parse(retry.body).description, 'Doors at 7', 'the stored response, not a re-execution');
    const now = await t.api(a.key, 'GET', `/v1/events/${event.id}`);
    assert.equal(now.json().description, 'Doors at 8', 'the replay changed nothing');
  });

  test('rule 1: POSTs without a body (rotate_secret) are idempotent too', async () => {
    const endpoint = (
      await t.api(a.key, 'POST', '/v1/webhook_endpoints', { url: HOOK_URL, event_types: ['order.created'] })
    ).json();
    const key = newKey();
    const first = await t.api(
      a.key,
      'POST',
      `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`,
      undefined,
      withKey(key),
    );
    assert.equal(first.statusCode, 200, first.body);
    const retry = await t.api(
      a.key,
      'POST',
      `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`,
      undefined,
      withKey(key),
    );
    assert.equal(isReplayOf(retry, first), undefined);
    const stored = await t.database.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.secret, first.json().secret, 'rotated once: the replayed secret is the live one');
  });

  test('rule 1: GET ignores the header (even an over-long one) and stores nothing', async () => {
    const before = await countRows(t, 'idempotency_keys', a.id);
    const res = await t.api(a.key, 'GET', '/v1/events', undefined, withKey('g'.repeat(300)));
    assert.equal(res.statusCode, 200);
    const again = await t.api(a.key, 'GET', '/v1/events', undefined, withKey('g'.repeat(300)));
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.equal(await countRows(t, 'idempotency_keys', a.id), before);
  });

  test('rule 1: DELETE ignores the header: each call executes (200, then 404) and nothing is stored', async () => {
    const endpoint = (
      await t.api(a.key, 'POST', '/v1/webhook_endpoints', { url: HOOK_URL, event_types: ['order.created'] })
    ).json();
    const before = await countRows(t, 'idempotency_keys', a.id);
    const key = 'd'.repeat(300);
    const first = await t.api(a.key, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`, undefined, withKey(key));
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    const second = await t.api(a.key, 'DELETE', `/v1/webhook_endpoints/${endpoint.id}`, undefined, withKey(key));
    assert.equal(second.statusCode, 404);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.equal(await countRows(t, 'idempotency_keys', a.id), before);
  });

  test('rule 2: a 400 for an invalid body is stored and replayed (validation runs after the key is claimed)', async () => {
    const key = newKey();
    const first = await t.api(a.key, 'POST', '/v1/events', { title: 'No venue' }, withKey(key));
    assert.equal(first.statusCode, 400);
    assert.deepEqual(
      first.json(),
      problemOf(400, 'Missing required field `venue` in body.', 'parameter_missing', 'venue'),
    );
    const retry = await t.api(a.key, 'POST', '/v1/events', { title: 'No venue' }, withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
  });

  test('rule 2: a 404 and a 409 from the domain are stored and replayed', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const key404 = newKey();
    const first404 = await t.api(a.key, 'PATCH', `/v1/events/${missing}`, { description: 'x' }, withKey(key404));
    assert.equal(first404.statusCode, 404);
    assert.equal(
      isReplayOf(await t.api(a.key, 'PATCH', `/v1/events/${missing}`, { description: 'x' }, withKey(key404)), first404),
      undefined,
    );

    const taken = await createEvent(t, a.key);
    const key409 = newKey();
    const body = eventBody(t, { title: taken.title });
    const first409 = await t.api(a.key, 'POST', '/v1/events', body, withKey(key409));
    assert.equal(first409.statusCode, 409);
    assert.equal(isReplayOf(await t.api(a.key, 'POST', '/v1/events', body, withKey(key409)), first409), undefined);
  });

  test('rule 2 and 3: a 5xx is stored and replayed verbatim; a genuine retry needs a new key', async () => {
    const key = newKey();
    const body = eventBody(t);
    const before = await countRows(t, 'events', a.id);
    failNext = new Error('simulated crash inside the handler');
    const first = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(first.statusCode, 500);
    assert.equal(first.headers['content-type'], PROBLEM_TYPE);
    assert.deepEqual(
      first.json(),
      problemOf(
        500,
        `Internal server error. Quote request id ${String(first.headers['x-request-id'])} to support.`,
        'internal_error',
      ),
    );
    // The failure is gone, but the same key still answers the stored 500, byte for byte
    // (its detail quotes the first request's id).
    const retry = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
    assert.equal(await countRows(t, 'events', a.id), before, 'the failed request created nothing');
    const fresh = await t.api(a.key, 'POST', '/v1/events', body, withKey(newKey()));
    assert.equal(fresh.statusCode, 201);
    assert.equal(await countRows(t, 'events', a.id), before + 1);
  });

  test('rule 3: the replay is verbatim: status, body byte for byte, content type; the key row holds it', async () => {
    const key = newKey();
    // A body with unusual characters and key order, to compare bytes rather than values.
    const body = eventBody(t, { title: 'Ünïcödé “quotes” & <tags> 🎭', description: '<p>Line\u2028sep</p>' });
    const first = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['content-type'], JSON_TYPE);
    const retry = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.body, first.body);
    assert.equal(retry.rawPayload.equals(first.rawPayload), true);
    assert.equal(retry.headers['content-type'], JSON_TYPE);
    assert.equal(retry.headers['content-length'], first.headers['content-length']);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    const row = await t.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organizer_id', '=', a.id)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'completed');
    assert.equal(row.response_status, 201);
    assert.equal(row.response_body, first.body);
    assert.deepEqual(row.response_headers, { 'content-type': JSON_TYPE });
  });

  test('rule 3: the payload comparison ignores JSON key order and whitespace', async () => {
    const key = newKey();
    const body = eventBody(t);
    const first = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const retry = await t.api(a.key, 'POST', '/v1/events', JSON.stringify(reordered, null, 2), withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
  });

  test('rule 4: the same key with a different payload answers 409 and executes nothing', async () => {
    const key = newKey();
    const body = eventBody(t);
    assert.equal((await t.api(a.key, 'POST', '/v1/events', body, withKey(key))).statusCode, 201);
    const before = await countRows(t, 'events', a.id);
    const res = await t.api(
      a.key,
      'POST',
      '/v1/events',
      { ...body, title: `${body.title as string} (2)` },
      withKey(key),
    );
    assert.equal(res.statusCode, 409);
    assert.equal(res.headers['content-type'], PROBLEM_TYPE);
    assert.deepEqual(res.json(), problemOf(409, IDEMPOTENCY_DETAILS.otherRequest, 'idempotency_key_reused'));
    assert.equal(await countRows(t, 'events', a.id), before);
    // A different route or path with the same key and body is a different request too.
    const event = await createEvent(t, a.key);
    const other = await createEvent(t, a.key);
    const patchKey = newKey();
    assert.equal(
      (await t.api(a.key, 'PATCH', `/v1/events/${event.id}`, { description: 'x' }, withKey(patchKey))).statusCode,
      200,
    );
    const otherPath = await t.api(a.key, 'PATCH', `/v1/events/${other.id}`, { description: 'x' }, withKey(patchKey));
    assert.deepEqual(otherPath.json(), problemOf(409, IDEMPOTENCY_DETAILS.otherRequest, 'idempotency_key_reused'));
    const otherRoute = await t.api(a.key, 'POST', '/v1/webhook_endpoints', { description: 'x' }, withKey(patchKey));
    assert.deepEqual(otherRoute.json(), problemOf(409, IDEMPOTENCY_DETAILS.otherRequest, 'idempotency_key_reused'));
  });

  test('rule 5: the same key while the first request is still in flight answers 409', async () => {
    // A request is executing this very request: its row is in_progress under a live lease,
    // held by another instance (PostgreSQL), or by a running request of this process (PGlite,
    // whose embedded database has no other process; lease.test.ts holds a real one).
    const body = eventBody(t);
    const now = t.clock.now();
    const { key, held } = await keyInFlight(t, { organizerId: a.id, rawApiKey: a.key, body });
    try {
      const before = await countRows(t, 'events', a.id);
      const res = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
      assert.equal(res.statusCode, 409);
      assert.deepEqual(res.json(), problemOf(409, IDEMPOTENCY_DETAILS.inFlight, 'idempotency_key_in_flight'));
      assert.equal(await countRows(t, 'events', a.id), before);
      const row = await t.database.db
        .selectFrom('idempotency_keys')
        .select(['status', 'locked_until'])
        .where('organizer_id', '=', a.id)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        row,
        { status: 'in_progress', locked_until: new Date(now.getTime() + IN_FLIGHT_LEASE_MS) },
        'the 409 left the lease alone',
      );
    } finally {
      held?.end();
    }
  });

  test("rule 6: keys are scoped to the organizer: B may use A's key string independently", async () => {
    const key = newKey();
    const bodyA = eventBody(t);
    const bodyB = eventBody(t);
    const first = await t.api(a.key, 'POST', '/v1/events', bodyA, withKey(key));
    assert.equal(first.statusCode, 201);
    const otherOrg = await t.api(b.key, 'POST', '/v1/events', bodyB, withKey(key));
    assert.equal(otherOrg.statusCode, 201);
    assert.equal(otherOrg.headers['idempotent-replayed'], undefined);
    assert.notEqual(otherOrg.json().id, first.json().id);
    // Each organizer's retry replays its own response.
    assert.equal(isReplayOf(await t.api(a.key, 'POST', '/v1/events', bodyA, withKey(key)), first), undefined);
    assert.equal(isReplayOf(await t.api(b.key, 'POST', '/v1/events', bodyB, withKey(key)), otherOrg), undefined);
  });

  test('rule 6: keys are kept 24 hours: until then a retry replays, after that the key is free again', async () => {
    const key = newKey();
    const body = eventBody(t);
    const first = await t.api(a.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(first.statusCode, 201);
    t.clock.advance(24 * 60 * 60 * 1000 - 1);
    assert.equal(isReplayOf(await t.api(a.key, 'POST', '/v1/events', body, withKey(key)), first), undefined);
    t.clock.advance(1);
    // Expired (even before the purge job removes the row): a different request executes under it.
    const newBody = eventBody(t);
    const reused = await t.api(a.key, 'POST', '/v1/events', newBody, withKey(key));
    assert.equal(reused.statusCode, 201);
    assert.equal(reused.headers['idempotent-replayed'], undefined);
    // From now on the key belongs to the new request.
    assert.equal(isReplayOf(await t.api(a.key, 'POST', '/v1/events', newBody, withKey(key)), reused), undefined);
    assert.deepEqual(
      (await t.api(a.key, 'POST', '/v1/events', body, withKey(key))).json(),
      problemOf(409, IDEMPOTENCY_DETAILS.otherRequest, 'idempotency_key_reused'),
    );
  });

  test('rule 7: an identical retry from another API key of the same organizer answers 409', async () => {
    const key = newKey();
    const body = eventBody(t);
    assert.equal((await t.api(a.key, 'POST', '/v1/events', body, withKey(key))).statusCode, 201);
    const before = await countRows(t, 'events', a.id);
    const res = await t.api(a.writeKey, 'POST', '/v1/events', body, withKey(key));
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), problemOf(409, IDEMPOTENCY_DETAILS.otherApiKey, 'idempotency_key_reused'));
    assert.equal(await countRows(t, 'events', a.id), before);
    // The original key still replays.
    assert.equal((await t.api(a.key, 'POST', '/v1/events', body, withKey(key))).headers['idempotent-replayed'], 'true');
  });

  test('rule 8: a key of 256 characters answers 400 and does nothing; 255 is accepted', async () => {
    const before = await countRows(t, 'events', a.id);
    const keysBefore = await countRows(t, 'idempotency_keys', a.id);
    const tooLong = await t.api(a.key, 'POST', '/v1/events', eventBody(t), withKey('k'.repeat(256)));
    assert.equal(tooLong.statusCode, 400);
    assert.equal(tooLong.headers['content-type'], PROBLEM_TYPE);
    assert.deepEqual(
      tooLong.json(),
      problemOf(400, 'Idempotency-Key must be at most 255 characters; this one has 256.', 'idempotency_key_invalid'),
    );
    assert.equal(await countRows(t, 'events', a.id), before);
    assert.equal(await countRows(t, 'idempotency_keys', a.id), keysBefore);
    const patchTooLong = await t.api(
      a.key,
      'PATCH',
      `/v1/events/${(await createEvent(t, a.key)).id}`,
      { description: 'x' },
      withKey('p'.repeat(1000)),
    );
    assert.deepEqual(
      patchTooLong.json(),
      problemOf(400, 'Idempotency-Key must be at most 255 characters; this one has 1000.', 'idempotency_key_invalid'),
    );

    const longest = 'k'.repeat(255);
    const body = eventBody(t);
    const ok = await t.api(a.key, 'POST', '/v1/events', body, withKey(longest));
    assert.equal(ok.statusCode, 201);
    assert.equal(isReplayOf(await t.api(a.key, 'POST', '/v1/events', body, withKey(longest)), ok), undefined);
    const row = await t.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('organizer_id', '=', a.id)
      .where('key', '=', longest)
      .executeTakeFirst();
    assert.equal(row?.key, longest);
  });

  test('rule 8 (decision): an empty key answers 400', async () => {
    const res = await t.api(a.key, 'POST', '/v1/events', eventBody(t), withKey(''));
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), problemOf(400, IDEMPOTENCY_DETAILS.empty, 'idempotency_key_invalid'));
  });

  test('rule 9: replayed errors keep their problem body and application/problem+json; successes are application/json', async () => {
    const body = { ...eventBody(t), unknown_field: 1 };
    const key2 = newKey();
    const err = await t.api(a.key, 'POST', '/v1/events', body, withKey(key2));
    assert.equal(err.statusCode, 400);
    assert.equal(err.headers['content-type'], PROBLEM_TYPE);
    const replay = await t.api(a.key, 'POST', '/v1/events', body, withKey(key2));
    assert.equal(replay.statusCode, 400);
    assert.equal(replay.headers['content-type'], PROBLEM_TYPE);
    assert.deepEqual(
      replay.json(),
      problemOf(400, 'Unknown field `unknown_field` in body.', 'parameter_unknown', 'unknown_field'),
    );
    assert.equal(replay.body, err.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');

    const okBody = eventBody(t);
    const key3 = newKey();
    await t.api(a.key, 'POST', '/v1/events', okBody, withKey(key3));
    assert.equal((await t.api(a.key, 'POST', '/v1/events', okBody, withKey(key3))).headers['content-type'], JSON_TYPE);
  });

  test('rule 10: without a key, every identical POST /v1/orders mints a new order', async () => {
    const body = orderBody(await setupSale(t, { org: a }));
    const before = await countRows(t, 'orders', a.id);
    const first = await t.api(a.key, 'POST', '/v1/orders', body);
    const second = await t.api(a.key, 'POST', '/v1/orders', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(second.statusCode, 201);
    assert.notEqual(first.json().id, second.json().id);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.equal(await countRows(t, 'orders', a.id), before + 2);
    // Same for any other POST: two identical webhook endpoint creates make two endpoints.
    const hook = { url: HOOK_URL, event_types: ['order.created'] };
    const e1 = await t.api(a.key, 'POST', '/v1/webhook_endpoints', hook);
    const e2 = await t.api(a.key, 'POST', '/v1/webhook_endpoints', hook);
    assert.notEqual(e1.json().id, e2.json().id);
  });

  test('rule 10, with a key: one order, and the retry replays the same order', async () => {
    const body = orderBody(await setupSale(t, { org: a }));
    const before = await countRows(t, 'orders', a.id);
    const key = newKey();
    const first = await t.api(a.key, 'POST', '/v1/orders', body, withKey(key));
    assert.equal(first.statusCode, 201, first.body);
    const retry = await t.api(a.key, 'POST', '/v1/orders', body, withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
    assert.equal(await countRows(t, 'orders', a.id), before + 1);
  });

  test('atomicity: if the commit fails, the response is a 500, no order exists and nothing is stored; a retry executes', async () => {
    const body = orderBody(await setupSale(t, { org: a }));
    const before = await countRows(t, 'orders', a.id);
    const key = newKey();
    // A deferred foreign key violated inside the request's transaction fails its COMMIT.
    const original = t.app.deps.idempotency.beforeExecute;
    t.app.deps.idempotency.beforeExecute = async (request) => {
      t.app.deps.idempotency.beforeExecute = original;
      await sql`CREATE TEMP TABLE commit_breaker_parent (id int PRIMARY KEY)`.execute(request.db);
      await sql`CREATE TEMP TABLE commit_breaker_child (pid int REFERENCES commit_breaker_parent DEFERRABLE INITIALLY DEFERRED)`.execute(
        request.db,
      );
      await sql`INSERT INTO commit_breaker_child VALUES (1)`.execute(request.db);
    };
    try {
      const res = await t.api(a.key, 'POST', '/v1/orders', body, withKey(key));
      assert.equal(res.statusCode, 500);
      assert.equal(res.headers['content-type'], PROBLEM_TYPE);
      assert.deepEqual(
        res.json(),
        problemOf(
          500,
          `Internal server error. Quote request id ${String(res.headers['x-request-id'])} to support.`,
          'internal_error',
        ),
      );
    } finally {
      t.app.deps.idempotency.beforeExecute = original;
    }
    assert.equal(await countRows(t, 'orders', a.id), before, 'no order without its stored response');
    const row = await t.database.db
      .selectFrom('idempotency_keys')
      .select('status')
      .where('organizer_id', '=', a.id)
      .where('key', '=', key)
      .executeTakeFirst();
    assert.equal(row, undefined, 'nothing stored: the key was released');
    const retry = await t.api(a.key, 'POST', '/v1/orders', body, withKey(key));
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(await countRows(t, 'orders', a.id), before + 1);
  });

  test('atomicity: a stored success always has its change: each completed 201 row names an existing order', async () => {
    const rows = await t.database.db
      .selectFrom('idempotency_keys')
      .select(['response_body', 'path'])
      .where('organizer_id', '=', a.id)
      .where('status', '=', 'completed')
      .where('response_status', '=', 201)
      .where('path', '=', '/v1/orders')
      .execute();
    assert.ok(rows.length >= 2);
    for (const row of rows) {
      const id = JSON.parse(row.response_body!).id as string;
      assert.equal((await t.api(a.key, 'GET', `/v1/orders/${id}`)).statusCode, 200);
    }
  });

  test('a failed request leaves no transaction open: the next requests are served normally', async () => {
    failNext = new Error('boom');
    assert.equal((await t.api(a.key, 'POST', '/v1/events', eventBody(t), withKey(newKey()))).statusCode, 500);
    assert.equal((await t.api(a.key, 'GET', '/v1/events')).statusCode, 200);
    assert.equal((await t.api(a.key, 'POST', '/v1/events', eventBody(t))).statusCode, 201);
    assert.equal((await t.admin('GET', `/admin/v1/organizers/${a.id}`)).statusCode, 200);
  });
});
