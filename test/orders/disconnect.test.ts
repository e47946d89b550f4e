/**
 * Clients that hang up mid-request, over a real socket: a sale either happens whole or
 * not at all (never an order without its tickets or a counter out of step), the server
 * stays up, and a body cut off before its end creates nothing.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '../helpers/app.ts';
import type { TestApp } from '../helpers/app.ts';
import { orderBody, setupSale, type Sale } from '../helpers/orders.ts';

/** Sends a raw HTTP/1.1 request (or the first `cutAt` bytes of it) and hangs up at once. */
function sendAndHangUp(port: number, key: string, body: string, cutAt?: number): Promise<void> {
  const request =
    `POST /v1/orders HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const bytes = Buffer.from(request);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(cutAt === undefined ? bytes : bytes.subarray(0, cutAt), () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}

describe('clients that disconnect mid-request', () => {
  let t: TestApp;
  let sale: Sale;
  let port: number;

  before(async () => {
    t = await createTestApp();
    sale = await setupSale(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await t.close();
  });

  async function state() {
    const db = t.database.db;
    const perf = await db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    const tickets = await db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('performance_id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    const orders = await db.selectFrom('orders').select(['id']).execute();
    const withoutTickets = await db
      .selectFrom('orders')
      .select('orders.id')
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('tickets').select('tickets.id').whereRef('tickets.order_id', '=', 'orders.id'))),
      )
      .execute();
    return {
      sold: Number(perf.sold_count),
      tickets: Number(tickets.n),
      orders: orders.length,
      withoutTickets: withoutTickets.length,
    };
  }

  /**
   * Waits until `orders` orders exist (the hung-up requests are still in the server's
   * hands for a while, longer on a loaded machine), then until nothing more moves.
   */
  async function reached(orders: number) {
    const deadline = Date.now() + 20_000;
    while ((await state()).orders < orders && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return settled();
  }

  /** Waits until the server has finished what the hung-up requests started. */
  async function settled() {
    let last = JSON.stringify(await state());
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = JSON.stringify(await state());
      if (now === last) return JSON.parse(now) as Awaited<ReturnType<typeof state>>;
      last = now;
    }
    throw new Error('the server kept writing');
  }

  test('hanging up after sending a whole order: each sale is whole (tickets = counter, every order has its tickets)', async () => {
    const body = JSON.stringify(orderBody(sale, {}, 2));
    await Promise.all(Array.from({ length: 10 }, () => sendAndHangUp(port, sale.org.key, body)));
    const after = await reached(10);
    // The server finishes what it had fully received: a hang-up does not cancel a sale.
    assert.equal(after.orders, 10, 'the hung-up requests were processed');
    assert.equal(after.withoutTickets, 0);
    assert.equal(after.tickets, after.sold, 'the counter moved exactly with the tickets written');
    assert.equal(after.tickets, 2 * after.orders, 'two tickets per order, none partial');
    const res = await t.api(sale.org.key, 'GET', `/v1/performances/${sale.performanceId}/availability`);
    assert.equal(res.statusCode, 200, 'the server still answers');
  });

  test('hanging up halfway through the body creates nothing and leaves the server up', async () => {
    const before = await settled();
    const body = JSON.stringify(orderBody(sale, {}, 1));
    const headerBytes = 200; // headers are ~170 bytes: the cut falls inside the body
    await Promise.all(Array.from({ length: 10 }, () => sendAndHangUp(port, sale.org.key, body, headerBytes + 20)));
    const after = await settled();
    assert.deepEqual(after, before);
    const res = await t.api(sale.org.key, 'POST', '/v1/orders', orderBody(sale, {}, 1));
    assert.equal(res.statusCode, 201, 'and sells normally afterwards');
  });
});
