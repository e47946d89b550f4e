/**
 * GET /v1/door_tickets (docs/check-ins.md, "The copy"): the compact items, a device's reach,
 * paging in the sync order with the horizon (docs/sync.md), the changes a poll picks up (a
 * settle makes `paid` true, a refund, an uploaded admission) and the device's sync stamp.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { problemOf, useBefore, useTestApp } from '../helpers/app.ts';
import { placeOrder, setupSale } from '../helpers/orders.ts';
import { scanOf, setupDoor, ticketIn, uploaded } from './helpers.ts';

interface DoorTicketBody {
  id: string;
  updated_at: string;
  status: string;
  paid: boolean;
  [field: string]: unknown;
}

describe('GET /v1/door_tickets', () => {
  const t = useTestApp();
  const door = useBefore(() => setupDoor(t), 'setupDoor');

  const page = async (key: string, query = '') => {
    const res = await t.api(key, 'GET', `/v1/door_tickets${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ object: 'list'; data: DoorTicketBody[]; has_more: boolean }>();
  };

  /** Polls from the cursor until has_more is false, `limit` items a page; returns what it saw and the cursor. */
  const poll = async (key: string, limit: number, cursor?: { updated_at: string; id: string }) => {
    const seen: DoorTicketBody[] = [];
    let at = cursor;
    for (;;) {
      const query = `?limit=${limit}${at ? `&updated_gte=${encodeURIComponent(at.updated_at)}&starting_after=${at.id}` : ''}`;
      const body = await page(key, query);
      seen.push(...body.data);
      if (body.data.length > 0) at = body.data.at(-1)!;
      if (!body.has_more) return { seen, cursor: at };
    }
  };

  test('the compact item, exactly; a device lists its performances only', async () => {
    const order = await placeOrder(t, door.sale, {
      tender: 'pay_later',
      buyer: { first_name: 'Bo', email: 'bo@example.test' },
    });
    const ticket = order.transactions[0].items[0];
    t.clock.advance(1000);
    const { seen } = await poll(door.north.key, 1000);
    assert.deepEqual(
      seen.find((item) => item.id === ticket.id),
      {
        id: ticket.id,
        serial_no: ticket.serial_no,
        ticket_no: ticket.ticket_no,
        performance_id: door.performances[0],
        ticket_type_id: door.sale.ticketTypeId,
        ticket_type_name: 'General',
        holder_name: 'Bo',
        status: 'purchased',
        paid: false,
        order_cancelled: false,
        checked_in_at: null,
        checked_in_device_id: null,
        updated_at: ticket.updated_at,
      },
    );
    const other = await ticketIn(t, door, 'paid', door.performances[1]);
    t.clock.advance(1000);
    assert.ok(seen.every((item) => item.performance_id === door.performances[0]));
    assert.deepEqual((await page(door.north.key, `?performance_id=${door.performances[1]}`)).data, []);
    const all = await poll(door.org.key, 1000);
    assert.ok(all.seen.some((item) => item.id === other.id));
    assert.deepEqual(
      (await page(door.org.key, `?performance_id=${door.performances[1]}`)).data.map((item) => item.id).sort(),
      all.seen
        .filter((item) => item.performance_id === door.performances[1])
        .map((item) => item.id)
        .sort(),
    );
    const stranger = await setupSale(t);
    assert.deepEqual((await page(stranger.org.key)).data, []);
  });

  test('pages in (updated_at, id) order; a poll from the cursor sees a settle, a refund and an upload', async () => {
    const unpaid = await ticketIn(t, door, 'unpaid');
    const paid = await ticketIn(t, door, 'paid');
    const scanned = await ticketIn(t, door, 'paid');
    t.clock.advance(1000);
    const whole = await poll(door.north.key, 1000);
    const paged = await poll(door.north.key, 3);
    assert.deepEqual(paged.seen, whole.seen);
    const sorted = [...whole.seen].sort((a, b) =>
      a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1,
    );
    assert.deepEqual(
      whole.seen.map((item) => item.id),
      sorted.map((item) => item.id),
    );
    assert.equal(whole.seen.find((item) => item.id === unpaid.id)?.paid, false);
    // Nothing changed: the next poll is empty.
    assert.deepEqual((await poll(door.north.key, 3, whole.cursor)).seen, []);

    assert.equal((await t.admin('POST', `/admin/v1/orders/${unpaid.order_id}/settle`, {})).statusCode, 200);
    t.clock.advance(1000);
    assert.equal(
      (await t.admin('POST', `/admin/v1/orders/${paid.order_id}/refund`, { ticket_ids: [paid.id] })).statusCode,
      201,
    );
    t.clock.advance(1000);
    const [admission] = await uploaded(t, door.south.key, [scanOf(t, scanned.id)]);
    t.clock.advance(1000);
    const next = await poll(door.north.key, 2, whole.cursor);
    const changed = (id: string) => next.seen.filter((item) => item.id === id);
    // The settled order's tickets (both), now paid; the refunded one; the admitted one: four changes.
    assert.deepEqual(changed(unpaid.id), [
      {
        ...whole.seen.find((item) => item.id === unpaid.id)!,
        paid: true,
        updated_at: changed(unpaid.id)[0]!.updated_at,
      },
    ]);
    assert.equal(changed(paid.id)[0]?.status, 'refunded');
    assert.deepEqual(
      { ...changed(scanned.id)[0] },
      {
        ...whole.seen.find((item) => item.id === scanned.id)!,
        status: 'checked_in',
        checked_in_at: admission!.checked_in_at,
        checked_in_device_id: door.south.id,
        updated_at: changed(scanned.id)[0]!.updated_at,
      },
    );
    assert.equal(next.seen.length, 4, JSON.stringify(next.seen.map((item) => item.ticket_no)));
  });

  test('rows stamped at the horizon wait for the next poll', async () => {
    const { cursor } = await poll(door.north.key, 1000);
    const fresh = await ticketIn(t, door, 'paid');
    // Stamped at the clock's current reading: held back until the clock moves.
    assert.deepEqual((await poll(door.north.key, 1000, cursor)).seen, []);
    t.clock.advance(1);
    assert.deepEqual((await poll(door.north.key, 1000, cursor)).seen.map((item) => item.id).includes(fresh.id), true);
  });

  test('limits and cursors', async () => {
    assert.equal((await page(door.north.key, '?limit=1000')).object, 'list');
    for (const [query, param] of [
      ['?limit=1001', 'limit'],
      ['?limit=0', 'limit'],
      ['?updated_gte=soon', 'updated_gte'],
      ['?order=created_desc', 'order'],
    ] as const) {
      const res = await t.api(door.north.key, 'GET', `/v1/door_tickets${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().param, param, query);
    }
    const stranger = await setupSale(t);
    const foreign = (await placeOrder(t, stranger)).transactions[0].items[0];
    assert.deepEqual(
      (await t.api(door.north.key, 'GET', `/v1/door_tickets?starting_after=${foreign.id}`)).json(),
      problemOf(
        400,
        `starting_after \`${foreign.id}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ),
    );
  });

  test("a device's poll stamps its last_synced_at, at most once per 5 seconds; another key's does not", async () => {
    const stamp = async () =>
      (
        await t.database.db
          .selectFrom('door_devices')
          .select('last_synced_at')
          .where('id', '=', door.east.id)
          .executeTakeFirstOrThrow()
      ).last_synced_at;
    const first = t.clock.now();
    await page(door.east.key);
    assert.deepEqual(await stamp(), first);
    t.clock.advance(4999);
    await page(door.east.key);
    assert.deepEqual(await stamp(), first);
    t.clock.advance(1);
    await page(door.east.key);
    assert.deepEqual(await stamp(), t.clock.now());
    t.clock.advance(60_000);
    await page(door.org.key);
    await page(door.north.key);
    assert.deepEqual(await stamp(), new Date(first.getTime() + 5000));
    assert.equal((await t.api(door.org.writeKey, 'GET', '/v1/door_tickets')).statusCode, 403);
  });
});
