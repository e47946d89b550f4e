/**
 * Concurrency: 20 identical concurrent POST /v1/orders with one key mint
 * exactly one order; every other answer is the replay or a 409 (in flight). Meaningful on
 * PostgreSQL (real parallel connections); on PGlite the requests serialize on its one
 * connection and the others all replay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { problemOf, createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { orderBody, setupSale } from '../helpers/orders.ts';
import { eventBody } from '../helpers/catalog.ts';
import { onPostgres } from '../helpers/database.ts';
import { IDEMPOTENCY_DETAILS } from '../../src/http/plugins/idempotency.ts';
import { countRows, isReplayOf, newKey, withKey } from './helpers.ts';

const N = 20;

describe(`idempotency under concurrency (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let org: TestOrganizer;
  before(async () => {
    t = await createTestApp();
    org = await t.createOrganizer();
  });
  after(async () => {
    // pg-pool's end() resolves before its connections have actually closed; with the 20
    // connections this file opens, the helper's DROP DATABASE ... WITH (FORCE) can then
    // terminate one still closing, an uncaught "administrator command" error. Let them close.
    await t.database.db.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.close();
  });

  function classify(responses: Awaited<ReturnType<TestApp['api']>>[]) {
    const originals = responses.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    assert.equal(
      originals.length,
      1,
      `exactly one execution, got statuses ${responses.map((r) => r.statusCode).join(',')}`,
    );
    const original = originals[0]!;
    let replays = 0;
    let inFlight = 0;
    for (const res of responses) {
      if (res === original) continue;
      if (res.statusCode === 409) {
        assert.deepEqual(res.json(), problemOf(409, IDEMPOTENCY_DETAILS.inFlight, 'idempotency_key_in_flight'));
        inFlight++;
      } else {
        assert.equal(isReplayOf(res, original), undefined);
        replays++;
      }
    }
    assert.equal(1 + replays + inFlight, N);
    return { original, replays, inFlight };
  }

  test(`${N} identical concurrent POST /v1/orders with one key mint exactly one order`, async () => {
    const body = orderBody(await setupSale(t, { org: org }), {}, 2);
    const before = await countRows(t, 'orders', org.id);
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: N }, () => t.api(org.key, 'POST', '/v1/orders', body, withKey(key))),
    );
    const { original, replays, inFlight } = classify(responses);
    t.app.log.info({ replays, inFlight }, 'concurrency outcome');
    assert.equal(await countRows(t, 'orders', org.id), before + 1);
    const tickets = await t.database.db
      .selectFrom('tickets')
      .select('id')
      .where('order_id', '=', original.json().id)
      .execute();
    assert.equal(tickets.length, 2, 'one order, its two tickets, once');
    // After the dust settles every retry is a replay.
    assert.equal(isReplayOf(await t.api(org.key, 'POST', '/v1/orders', body, withKey(key)), original), undefined);
  });

  test(`${N} identical concurrent POST /v1/events with one key create exactly one event`, async () => {
    const body = eventBody(t);
    const before = await countRows(t, 'events', org.id);
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: N }, () => t.api(org.key, 'POST', '/v1/events', body, withKey(key))),
    );
    classify(responses);
    assert.equal(await countRows(t, 'events', org.id), before + 1);
  });

  test(`${N} concurrent POST /v1/orders with ${N} different keys mint ${N} orders`, async () => {
    const body = orderBody(await setupSale(t, { org: org }));
    const before = await countRows(t, 'orders', org.id);
    const responses = await Promise.all(
      Array.from({ length: N }, () => t.api(org.key, 'POST', '/v1/orders', body, withKey(newKey()))),
    );
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      Array(N).fill(201),
    );
    assert.equal(new Set(responses.map((r) => r.json().id)).size, N);
    assert.equal(await countRows(t, 'orders', org.id), before + N);
  });
});
