/**
 * The door's queue and check-in flow (packages/console/src/door/scan-queue.ts,
 * check-in-flow.ts, scan-store.ts) against a live Marquee on loopback, through the SDK,
 * with IndexedDB provided by fake-indexeddb: each verdict, scans kept in order while the
 * API cannot be reached (a loopback proxy cut for real), a check-in made elsewhere
 * meanwhile, a lost answer replayed under the scan's own key (one admission, one
 * `ticket.checked_in`), and a 429 that keeps the scan queued until its retry-after.
 */
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Marquee, type Ticket } from '../../packages/sdk/src/index.ts';
import { ScanQueue, type QueueStatus } from '../../packages/console/src/door/scan-queue.ts';
import { openScanStore, scanStoreName, type StoredScan } from '../../packages/console/src/door/scan-store.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { eventsOfType, orderBody, placeOrder, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return (t.app.server.address() as AddressInfo).port;
}

const opened: Array<{ close(): void }> = [];
// A failed assertion must not leave a queue's retry timer holding the process open.
after(() => {
  for (const handle of opened) handle.close();
});

/** A queue on a fresh store, recording every status and every scan it reports. */
async function queueFor(api: Marquee, name: string) {
  const statuses: QueueStatus[] = [];
  const reported: StoredScan[] = [];
  const store = await openScanStore(name);
  const queue = new ScanQueue({
    store,
    api,
    performanceLabel: async (ticket) => `performance ${ticket.performance_id}`,
    onScan: (scan) => reported.push(structuredClone(scan)),
    onStatus: (status) => statuses.push(status),
    probeEveryMs: 60_000,
  });
  opened.push(queue, store);
  return { queue, store, statuses, reported };
}

describe('the door queue against a live service', () => {
  let t: TestApp;
  let s: Sale;
  let proxy: TcpProxy;
  let api: Marquee;
  let names = 0;
  const ticketsOf = async (order: { id: string }): Promise<Ticket[]> =>
    (await t.api(s.org.key, 'GET', `/v1/tickets?order_id=${order.id}`)).json().data.reverse();

  before(async () => {
    t = await createTestApp();
    s = await setupSale(t, {
      event: {
        performances: [
          { starts_at: '2027-05-01T19:00:00Z', capacity: 100 },
          { starts_at: '2027-05-02T19:00:00Z', capacity: 100 },
        ],
      },
    });
    proxy = await startTcpProxy(await listen(t));
    api = new Marquee({ apiKey: s.org.key, baseUrl: `http://127.0.0.1:${proxy.port}`, maxRetries: 0 });
  });
  after(async () => {
    await proxy.close();
    await t.close();
  });
  const storeName = () => `door-test-${++names}`;

  test('each verdict, online: admitted, again, unknown, another performance, refunded, unpaid', async () => {
    const [p1, p2] = s.event.ticket_types[0]!.prices.map((p) => p.performance_id);
    const paid = await ticketsOf(await placeOrder(t, s, {}, 2));
    const elsewhere = await ticketsOf(
      await placeOrder(t, s, { items: [{ performance_id: p2, ticket_type_id: s.ticketTypeId, quantity: 1 }] }),
    );
    const refundedOrder = await placeOrder(t, s);
    assert.equal((await t.admin('POST', `/admin/v1/orders/${refundedOrder.id}/refund`, {})).statusCode, 201);
    const refunded = await ticketsOf(refundedOrder);
    const unpaid = await ticketsOf(await placeOrder(t, s, { tender: 'pay_later' }));

    const { queue, store } = await queueFor(api, storeName());
    const verdict = async (code: string) => {
      const scan = await queue.scan(code, p1!);
      return (await store.recent(10)).find((x) => x.seq === scan.seq)!;
    };
    const admitted = await verdict(paid[0]!.serial_no);
    assert.equal(admitted.pending, 0);
    assert.equal(admitted.waited, false);
    assert.equal(admitted.ticketId, paid[0]!.id);
    assert.equal(admitted.outcome?.kind, 'admitted');
    const checkedIn = (await t.api(s.org.key, 'GET', `/v1/tickets/${paid[0]!.id}`)).json();
    assert.equal(checkedIn.status, 'checked_in');
    assert.deepEqual(admitted.outcome, { kind: 'admitted', ticket: checkedIn });

    assert.deepEqual((await verdict(paid[0]!.serial_no.toLowerCase())).outcome, {
      kind: 'refused',
      reason: 'already_checked_in',
      ticket: checkedIn,
      checkedInAt: checkedIn.checked_in_at,
    });
    assert.deepEqual((await verdict('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).outcome, {
      kind: 'refused',
      reason: 'unknown',
      code: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    assert.deepEqual((await verdict(elsewhere[0]!.serial_no)).outcome, {
      kind: 'refused',
      reason: 'other_performance',
      ticket: elsewhere[0],
      performanceLabel: `performance ${p2}`,
    });
    const refundedNow = (await t.api(s.org.key, 'GET', `/v1/tickets/${refunded[0]!.id}`)).json();
    assert.deepEqual((await verdict(refunded[0]!.ticket_no)).outcome, {
      kind: 'refused',
      reason: 'refunded',
      ticket: refundedNow,
    });
    // Unpaid shows only in the order: the check-in answers 409, then ticket and order are read.
    assert.deepEqual((await verdict(unpaid[0]!.serial_no)).outcome, {
      kind: 'refused',
      reason: 'unpaid',
      ticket: unpaid[0],
    });
    // The second paid ticket by its number, typed in lower case.
    assert.equal((await verdict(paid[1]!.ticket_no.toLowerCase())).outcome?.kind, 'admitted');
    assert.equal(await store.pendingCount(), 0);
    assert.deepEqual(
      (await eventsOfType(t, s.org.id, 'ticket.checked_in')).map((e: any) => e.ticket_id).sort(),
      [paid[0]!.id, paid[1]!.id].sort(),
    );
  });

  test('while the API cannot be reached, scans wait in order; back online they settle, a check-in made elsewhere included', async () => {
    const p1 = s.performanceId;
    const [a, b, c] = await ticketsOf(await placeOrder(t, s, {}, 3));
    const { queue, store, statuses, reported } = await queueFor(api, storeName());
    await proxy.cut();
    for (const ticket of [a!, b!, c!]) await queue.scan(ticket.serial_no, p1);
    assert.equal(await store.pendingCount(), 3);
    assert.deepEqual(await queue.status(), {
      network: 'offline',
      waitingUntil: undefined,
      waitCause: undefined,
      pending: 3,
    });
    assert.deepEqual(
      (await store.recent(3)).map((x) => [x.code, x.pending, x.waited, x.ticketId]),
      [
        [c!.serial_no, 1, true, undefined],
        [b!.serial_no, 1, true, undefined],
        [a!.serial_no, 1, true, undefined],
      ],
    );
    const keys = (await store.recent(3)).map((x) => x.idempotencyKey);
    assert.equal(new Set(keys).size, 3);

    // Another door admits b while this one is cut off.
    const otherDoor = await t.api(s.org.key, 'POST', `/v1/tickets/${b!.id}/check_in`);
    assert.equal(otherDoor.statusCode, 200);

    await proxy.restore();
    await queue.kick();
    const settled = reported.filter((x) => x.pending === 0);
    assert.deepEqual(
      settled.map((x) => [x.code, x.outcome?.kind, x.outcome?.kind === 'refused' ? x.outcome.reason : null]),
      [
        [a!.serial_no, 'admitted', null],
        [b!.serial_no, 'refused', 'already_checked_in'],
        [c!.serial_no, 'admitted', null],
      ],
    );
    const second = settled[1]!.outcome;
    assert.ok(second?.kind === 'refused' && second.reason === 'already_checked_in');
    assert.equal(second.checkedInAt, otherDoor.json().checked_in_at);
    assert.deepEqual(
      (await store.recent(3)).map((x) => x.idempotencyKey),
      keys,
    );
    assert.deepEqual(statuses.at(-1), { network: 'online', waitingUntil: undefined, waitCause: undefined, pending: 0 });
    assert.deepEqual(
      (await eventsOfType(t, s.org.id, 'ticket.checked_in'))
        .map((e: any) => e.ticket_id)
        .filter((id: string) => [a!.id, b!.id, c!.id].includes(id))
        .sort(),
      [a!.id, b!.id, c!.id].sort(),
    );
  });

  test('an answer lost on its way back: the retry replays the same key, one admission, one event', async () => {
    const [ticket] = await ticketsOf(await placeOrder(t, s));
    let dropNextCheckIn = true;
    const sentKeys: string[] = [];
    const losing = new Marquee({
      apiKey: s.org.key,
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      maxRetries: 0,
      fetch: async (input, init = {}) => {
        const response = await fetch(input, init);
        if (init.method === 'POST') {
          sentKeys.push((init.headers as Record<string, string>)['idempotency-key']!);
          if (dropNextCheckIn) {
            // The check-in ran; its answer never reaches the door.
            dropNextCheckIn = false;
            await response.body?.cancel();
            throw new TypeError('fetch failed');
          }
        }
        return response;
      },
    });
    const { queue, store } = await queueFor(losing, storeName());
    const scan = await queue.scan(ticket!.serial_no, s.performanceId);
    const waiting = (await store.recent(1))[0]!;
    assert.deepEqual([waiting.pending, waiting.waited, waiting.ticketId], [1, true, ticket!.id]);
    assert.equal((await queue.status()).network, 'offline');
    await queue.kick();
    const done = (await store.recent(1))[0]!;
    assert.equal(done.seq, scan.seq);
    assert.equal(done.outcome?.kind, 'admitted');
    assert.deepEqual(sentKeys, [scan.idempotencyKey, scan.idempotencyKey]);
    assert.equal(
      (await eventsOfType(t, s.org.id, 'ticket.checked_in')).filter((e: any) => e.ticket_id === ticket!.id).length,
      1,
    );
  });

  test('pruning deletes settled scans older than the cut-off and keeps pending ones', async () => {
    const store = await openScanStore(storeName());
    opened.push(store);
    const scan = (scannedAt: number, pending: 0 | 1) =>
      store.add({
        code: `C${scannedAt}`,
        performanceId: s.performanceId,
        idempotencyKey: `k${scannedAt}`,
        scannedAt,
        pending,
        waited: false,
      });
    await scan(1_000, 0);
    await scan(2_000, 1);
    await scan(3_000, 0);
    await scan(9_000, 0);
    assert.equal(await store.pruneSettled(5_000), 2);
    assert.deepEqual(
      (await store.recent(10)).map((x) => [x.code, x.pending]),
      [
        ['C9000', 0],
        ['C2000', 1],
      ],
    );
    assert.equal((await store.nextPending())?.code, 'C2000');
  });

  test('the store is named after a hash of the API key, never the key', async () => {
    const name = await scanStoreName('mqk_secret');
    assert.match(name, /^marquee-door-[0-9a-f]{16}$/);
    assert.equal(name, await scanStoreName('mqk_secret'));
    assert.notEqual(name, await scanStoreName('mqk_other'));
  });
});

describe('the door queue after a 429 (a write limit of 1 a minute)', () => {
  let t: TestApp;
  let s: Sale;
  before(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_WRITE_PER_MIN: '1' } });
    s = await setupSale(t);
  });
  after(() => t.close());

  test('the scan stays queued, and the queue waits the answer’s retry-after before trying again', async () => {
    const port = await listen(t);
    // setupSale's POST /v1/events spent the door key's one write of the minute; the sale
    // goes through the organizer's write-only key, a bucket of its own.
    const order = await postOrder(t, s.org.writeKey, orderBody(s));
    assert.equal(order.statusCode, 201, order.body);
    const [ticket] = (await t.api(s.org.key, 'GET', `/v1/tickets?order_id=${order.json().id}`)).json().data as Ticket[];
    const api = new Marquee({ apiKey: s.org.key, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const { queue, store } = await queueFor(api, 'door-test-429');
    const before = Date.now();
    await queue.scan(ticket!.serial_no, s.performanceId);
    const status = await queue.status();
    assert.equal(status.network, 'online');
    assert.equal(status.waitCause, 'rate_limited');
    assert.equal(status.pending, 1);
    const wait = status.waitingUntil! - before;
    assert.ok(wait >= 58_000 && wait <= 61_000, `waits ${wait} ms`);
    assert.deepEqual(
      (await store.recent(1)).map((x) => [x.pending, x.waited, x.ticketId]),
      [[1, true, ticket!.id]],
    );
    // A kick before the time is up sends nothing: the ticket is still purchased.
    await queue.kick();
    assert.equal((await t.api(s.org.key, 'GET', `/v1/tickets/${ticket!.id}`)).json().status, 'purchased');
  });
});
