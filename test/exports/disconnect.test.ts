/**
 * A client that hangs up mid-export, over a real socket: the export's database reads stop
 * (docs/exports.md, "Streaming"), counted by a Kysely plugin that also slows every
 * statement down so the export is still reading when the client goes; the server keeps
 * answering. The same export read to its end runs every batch, so the count can tell.
 */
import assert from 'node:assert/strict';
import { get as httpGet, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { placeOrder, setupSale, type Sale } from '../helpers/orders.ts';

const STATEMENT_DELAY_MS = 25;
const TICKETS = 40;
const BATCH = 2;

/** Counts statements and delays each result, so that an export takes a while. */
class SlowCounter implements KyselyPlugin {
  queries = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    this.queries++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    await new Promise((resolve) => setTimeout(resolve, STATEMENT_DELAY_MS));
    return args.result;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a client that disconnects mid-export', () => {
  let t: TestApp;
  let sale: Sale;
  let port: number;
  let counter: SlowCounter;

  before(async () => {
    t = await createTestApp({ appOptions: { exportBatchSize: BATCH } });
    sale = await setupSale(t);
    await placeOrder(t, sale, {}, TICKETS);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    counter = new SlowCounter();
    t.app.deps.db = t.database.db.withPlugin(counter);
  });
  after(async () => {
    await t.close();
  });

  const request = (onResponse: (res: IncomingMessage, hangUp: () => void) => void) =>
    new Promise<void>((resolve, reject) => {
      const req = httpGet(
        {
          host: '127.0.0.1',
          port,
          path: `/v1/events/${sale.event.id}/exports/tickets.csv`,
          headers: { authorization: `Bearer ${sale.org.readKey}` },
        },
        (res) =>
          onResponse(res, () => {
            req.destroy();
            resolve();
          }),
      );
      req.on('error', (err) => ((err as { code?: string }).code === 'ECONNRESET' ? resolve() : reject(err)));
      req.on('close', () => resolve());
    });

  /** Waits until the statement count has not moved for a while; returns it. */
  async function settledCount(): Promise<number> {
    let last = counter.queries;
    for (let i = 0; i < 40; i++) {
      await sleep(STATEMENT_DELAY_MS * 8);
      if (counter.queries === last) return last;
      last = counter.queries;
    }
    throw new Error('the reads never stopped');
  }

  test('read to the end, the export runs one statement per batch', async () => {
    const before = counter.queries;
    let body = '';
    await request((res, hangUp) => {
      assert.equal(res.statusCode, 200);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', hangUp);
    });
    assert.equal(body.split('\r\n').length, 1 + TICKETS + 1, 'header, every ticket, and the final line end');
    const reads = (await settledCount()) - before;
    // Auth and plan reads, then TICKETS / BATCH + 1 batches (the last one finds nothing).
    assert.ok(reads >= TICKETS / BATCH + 1, `${reads} statements`);
  });

  test('hanging up after the first chunk stops the reads; the server goes on answering', async () => {
    const before = counter.queries;
    let chunks = 0;
    await request((res, hangUp) => {
      assert.equal(res.statusCode, 200);
      res.once('data', () => {
        chunks++;
        hangUp();
      });
    });
    assert.equal(chunks, 1);
    const reads = (await settledCount()) - before;
    // The plan's reads, the first batch, at most the one in flight when the client went
    // (and the auth reads): far fewer than the whole export's.
    assert.ok(reads <= 8, `${reads} statements after the hang-up; the whole export takes ${TICKETS / BATCH + 1}`);
    const res = await t.api(sale.org.readKey, 'GET', `/v1/events/${sale.event.id}/exports/tickets.csv`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body.split('\r\n').length, 1 + TICKETS + 1);
  });
});
