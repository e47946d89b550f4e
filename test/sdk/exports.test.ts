/**
 * The SDK's CSV exports (docs/sdk.md, docs/exports.md) against a real Marquee on loopback:
 * the Response read whole and streamed as a Node stream, the BOM and performance options,
 * a typed error for a refused export, and a download that lasts longer than `timeoutMs`
 * (the timeout covers the wait for the headers, not the download).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { Marquee, MarqueeApiError, type EventDetail, type OrderDetail } from '../../packages/sdk/src/index.ts';
import { createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';

const TICKETS = 12;

/**
 * Delays every statement's result after the first `fast` ones (authentication, the plan
 * and the first batch: the headers go out at once), so an export of TICKETS one-row
 * batches then lasts well beyond the client's timeout.
 */
class SlowAfter implements KyselyPlugin {
  #seen = 0;
  constructor(
    private readonly fast: number,
    private readonly ms: number,
  ) {}
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    if (++this.#seen > this.fast) await new Promise((resolve) => setTimeout(resolve, this.ms));
    return args.result;
  }
}

describe('SDK: CSV exports', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let client: Marquee;
  let baseUrl: string;
  let event: EventDetail;
  let order: OrderDetail;

  before(async () => {
    t = await createTestApp({ appOptions: { exportBatchSize: 1 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    org = await t.createOrganizer();
    client = new Marquee({ apiKey: org.key, baseUrl, sleep: async () => {} });
    event = await client.events.create({
      title: 'Jazz at the Lighthouse',
      venue: { name: 'Lighthouse Hall' },
      performances: [{ starts_at: '2027-03-12T18:30:00Z', capacity: 300 }],
      ticket_types: [{ name: 'Standard', price_minor: 3500, quantity: null }],
    });
    order = await client.orders.create({
      items: [
        {
          performance_id: event.ticket_types[0]!.prices[0]!.performance_id,
          ticket_type_id: event.ticket_types[0]!.id,
          quantity: TICKETS,
        },
      ],
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      tender: 'cash',
    });
  });
  after(async () => {
    await t.close();
  });

  test('exportTickets: the Response, read as text', async () => {
    const res = await client.events.exportTickets(event.id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename=Jazz-at-the-Lighthouse-tickets.csv');
    const lines = (await res.text()).split('\r\n');
    assert.equal(lines.length, 1 + TICKETS + 1);
    assert.ok(lines[0]!.startsWith('ticket_no,ticket_id,serial_no,status,checked_in_at,'));
    assert.deepEqual(
      lines.slice(1, -1).map((l) => l.split(',')[0]),
      order.transactions[0]!.items!.map((ticket) => ticket.ticket_no),
    );
  });

  test('exportOrders with bom and performance_id, streamed through a Node stream', async () => {
    const performanceId = event.ticket_types[0]!.prices[0]!.performance_id;
    const res = await client.events.exportOrders(event.id, { bom: true, performance_id: performanceId });
    assert.ok(res.body);
    const chunks: Buffer[] = [];
    for await (const chunk of Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>))
      chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    assert.equal(lines.length, 3);
    assert.ok(lines[1]!.startsWith(`${order.order_no},${order.id},placed,box_office,`));
  });

  test('a refused export throws a MarqueeApiError with the code and param', async () => {
    await assert.rejects(client.events.exportTickets('00000000-0000-4000-8000-000000000000'), (err) => {
      assert.ok(err instanceof MarqueeApiError);
      assert.equal(err.status, 404);
      assert.equal(err.code, 'resource_not_found');
      return true;
    });
    await assert.rejects(client.events.exportOrders(event.id, { performance_id: event.id }), (err) => {
      assert.ok(err instanceof MarqueeApiError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'parameter_invalid');
      assert.equal(err.param, 'performance_id');
      return true;
    });
  });

  test('timeoutMs covers the wait for the headers, not a download that lasts longer', async () => {
    const normal = t.app.deps.db;
    t.app.deps.db = t.database.db.withPlugin(new SlowAfter(4, 80));
    try {
      const patient = new Marquee({ apiKey: org.key, baseUrl, timeoutMs: 300, maxRetries: 0 });
      const started = Date.now();
      const res = await patient.events.exportTickets(event.id);
      const text = await res.text();
      assert.ok(
        Date.now() - started > 300,
        `the download took ${Date.now() - started} ms, not longer than the timeout`,
      );
      assert.equal(text.split('\r\n').length, 1 + TICKETS + 1);
    } finally {
      t.app.deps.db = normal;
    }
  });
});
