/**
 * One mechanism for every POST and PATCH under /v1: every such
 * route of the OpenAPI document enforces the key length, and check-in (the door's retry
 * case) replays instead of answering "already checked in".
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { type Method, problemOf, useOrganizer, useTestApp } from '../helpers/app.ts';
import { orderBody, setupSale } from '../helpers/orders.ts';
import { countRows, isReplayOf, newKey, withKey } from './helpers.ts';

describe('idempotency covers every /v1 POST and PATCH', () => {
  const t = useTestApp();
  const org = useOrganizer(t);

  function v1Operations(): Array<{ method: Method; path: string }> {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const ops: Array<{ method: Method; path: string }> = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(methods))
        // A public operation (`security: []`, the device claim) has no API key to own a key.
        if (op.security?.length !== 0)
          ops.push({ method: method.toUpperCase() as Method, path: path.replace(/\{id\}/g, randomUUID()) });
    }
    return ops;
  }

  test('every POST and PATCH answers 400 for a 256-character key, before anything else', async () => {
    const writes = v1Operations().filter((op) => op.method === 'POST' || op.method === 'PATCH');
    // events, event PATCH, webhook endpoints create/PATCH/rotate_secret, redeliver, orders, check-in
    assert.ok(writes.length >= 8, `found ${writes.length} POST/PATCH routes`);
    for (const { method, path } of writes) {
      const res = await t.api(org.key, method, path, {}, withKey('x'.repeat(256)));
      assert.equal(res.statusCode, 400, `${method} ${path}`);
      assert.deepEqual(
        res.json(),
        problemOf(400, 'Idempotency-Key must be at most 255 characters; this one has 256.', 'idempotency_key_invalid'),
        `${method} ${path}`,
      );
    }
    assert.equal(await countRows(t, 'idempotency_keys', org.id), 0);
  });

  test('every GET and DELETE ignores the header, even an over-long one', async () => {
    const others = v1Operations().filter((op) => op.method === 'GET' || op.method === 'DELETE');
    assert.ok(others.some((op) => op.method === 'DELETE'));
    for (const { method, path } of others) {
      const res = await t.api(org.key, method, path, undefined, withKey('x'.repeat(256)));
      assert.notEqual(res.statusCode, 400, `${method} ${path}: ${res.body}`);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.equal(await countRows(t, 'idempotency_keys', org.id), 0);
  });

  test('check-in retried with its key replays the 200; ticket.checked_in is emitted once', async () => {
    const order = await t.api(org.key, 'POST', '/v1/orders', orderBody(await setupSale(t, { org: org })));
    assert.equal(order.statusCode, 201, order.body);
    const ticketId = order.json().transactions[0].items[0].id as string;
    const key = newKey();
    const first = await t.api(org.key, 'POST', `/v1/tickets/${ticketId}/check_in`, undefined, withKey(key));
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().status, 'checked_in');
    const retry = await t.api(org.key, 'POST', `/v1/tickets/${ticketId}/check_in`, undefined, withKey(key));
    assert.equal(isReplayOf(retry, first), undefined);
    // Without the key, a second admit is the domain's 409.
    const again = await t.api(org.key, 'POST', `/v1/tickets/${ticketId}/check_in`);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().detail, 'Ticket is already checked in.');
    assert.equal(again.json().code, 'invalid_state');
    const events = await t.database.db
      .selectFrom('domain_events')
      .select('id')
      .where('organizer_id', '=', org.id)
      .where('type', '=', 'ticket.checked_in')
      .execute();
    assert.equal(events.length, 1);
  });
});
