/**
 * The door's lookup (docs/door.md, "Lookup"): GET /v1/tickets?serial_no= and ?ticket_no=,
 * exact matches among the calling organizer's tickets only, combinable with the other
 * filters, and a clear 400 for a blank or over-long value.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { placeOrder, setupSale, type Sale } from '../helpers/orders.ts';

describe('GET /v1/tickets by serial_no and ticket_no', () => {
  const t = useTestApp();
  let s: Sale;
  let other: Sale;
  let mine: any[];
  let theirs: any;
  before(async () => {
    const nights = ['2027-05-01', '2027-05-02'];
    s = await setupSale(t, {
      event: { performances: nights.map((day) => ({ starts_at: `${day}T19:00:00Z`, capacity: 100 })) },
    });
    other = await setupSale(t);
    const order = await placeOrder(t, s, {}, 2);
    mine = (await t.api(s.org.key, 'GET', `/v1/tickets?order_id=${order.id}`)).json().data;
    const theirOrder = await placeOrder(t, other);
    theirs = (await t.api(other.org.key, 'GET', `/v1/tickets?order_id=${theirOrder.id}`)).json().data[0];
  });
  const list = (query: string, key = s.org.key) => t.api(key, 'GET', `/v1/tickets?${query}`);
  const ticketNosOf = async (query: string) => {
    const res = await list(query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.map((ticket: any) => ticket.ticket_no);
  };

  test('a serial finds exactly its ticket, the whole resource', async () => {
    const wanted = mine[1];
    assert.match(wanted.serial_no, /^[A-Z2-7]{32}$/);
    const res = await list(`serial_no=${wanted.serial_no}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { object: 'list', data: [wanted], has_more: false });
  });

  test('another organizer’s serial, an unknown one and a different case find nothing', async () => {
    assert.deepEqual((await list(`serial_no=${theirs.serial_no}`)).json(), {
      object: 'list',
      data: [],
      has_more: false,
    });
    assert.deepEqual(await ticketNosOf('serial_no=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), []);
    assert.deepEqual(await ticketNosOf(`serial_no=${mine[0].serial_no.toLowerCase()}`), []);
    // The owner finds it.
    assert.deepEqual(
      (await list(`serial_no=${theirs.serial_no}`, other.org.key)).json().data.map((x: any) => x.id),
      [theirs.id],
    );
  });

  test('a ticket number finds its ticket; another organizer’s finds nothing', async () => {
    assert.deepEqual(await ticketNosOf(`ticket_no=${mine[0].ticket_no}`), [mine[0].ticket_no]);
    assert.deepEqual(await ticketNosOf(`ticket_no=${theirs.ticket_no}`), []);
    assert.deepEqual(await ticketNosOf(`ticket_no=${mine[0].order_no}`), []);
  });

  test('combines with performance_id, status and ticket_no', async () => {
    const serial = mine[0].serial_no;
    const [p1, p2] = s.event.ticket_types[0]!.prices.map((p) => p.performance_id);
    assert.equal(mine[0].performance_id, p1);
    assert.deepEqual(await ticketNosOf(`serial_no=${serial}&performance_id=${p1}`), [mine[0].ticket_no]);
    assert.deepEqual(await ticketNosOf(`serial_no=${serial}&performance_id=${p2}`), []);
    assert.deepEqual(await ticketNosOf(`serial_no=${serial}&status=purchased`), [mine[0].ticket_no]);
    assert.deepEqual(await ticketNosOf(`serial_no=${serial}&status=checked_in`), []);
    assert.deepEqual(await ticketNosOf(`serial_no=${serial}&ticket_no=${mine[0].ticket_no}`), [mine[0].ticket_no]);
    assert.deepEqual(await ticketNosOf(`serial_no=${serial}&ticket_no=${mine[1].ticket_no}`), []);
  });

  test('after a check-in the lookup shows the checked-in state', async () => {
    const ticket = mine[1];
    const admitted = await t.api(s.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`);
    assert.equal(admitted.statusCode, 200);
    const found = (await list(`serial_no=${ticket.serial_no}`)).json().data;
    assert.deepEqual(
      found.map((x: any) => [x.id, x.status, x.checked_in_at]),
      [[ticket.id, 'checked_in', admitted.json().checked_in_at]],
    );
  });

  test('a blank or over-long value answers 400 naming the parameter', async () => {
    for (const name of ['serial_no', 'ticket_no']) {
      assert.deepEqual(
        (await list(`${name}=`)).json(),
        problemOf(400, `\`${name}\` must be at least 1 character.`, 'parameter_invalid', name),
      );
      const blank = await list(`${name}=%20%20`);
      assert.equal(blank.statusCode, 400);
      assert.deepEqual(blank.json(), problemOf(400, `\`${name}\` must not be blank.`, 'parameter_invalid', name));
      assert.deepEqual(
        (await list(`${name}=${'A'.repeat(65)}`)).json(),
        problemOf(400, `\`${name}\` must be at most 64 characters.`, 'parameter_invalid', name),
      );
    }
    assert.equal((await list(`serial_no=${'A'.repeat(64)}`)).statusCode, 200);
  });
});
