/**
 * The workers' network I/O holds no database connection (docs/operations.md, "No network
 * I/O inside a transaction"): while e-mails wait on SMTP and webhooks on their receivers
 * (here: until the test opens a gate), another organizer's reads answer at once, on
 * PGlite (one connection) and on PostgreSQL with a pool of 4.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import type { WebhookSender } from '../../src/webhooks/sender.ts';
import type { Mailer } from '../../src/mail/transport.ts';
import { deliverDue } from '../../src/webhooks/pump.ts';
import { createTestApp, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { placeOrder, setupSale } from '../helpers/orders.ts';
import { inThreadRenderer } from '../helpers/mail-renderer.ts';
import { fakeResolver, silentLogger } from '../webhooks/helpers.ts';

/**
 * A read that waited on the held call would not answer before the gate opens (the 2 s
 * "late" race below decides that); this bound only adds that it did not crawl, with room
 * for a loaded machine running other test files at the same time.
 */
const FAST_MS = 1_000;

/** Calls that wait until open() (counted as they start). */
function gate() {
  let opened = false;
  let started = 0;
  const waiting: Array<() => void> = [];
  return {
    get started() {
      return started;
    },
    async pass(): Promise<void> {
      started++;
      if (!opened) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    async waitForStarted(n: number) {
      const deadline = performance.now() + 5000;
      while (started < n) {
        if (performance.now() > deadline) throw new Error(`expected ${n} sends to start, saw ${started}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    open() {
      opened = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}

describe('worker sends hold no database connection', () => {
  let t: TestApp;
  let reader: TestOrganizer;
  before(async () => {
    const database = await createTestDatabase({ poolSize: 4 });
    t = await createTestApp({ database, appOptions: { webhookResolver: fakeResolver } });
    reader = await t.createOrganizer();
    for (let i = 0; i < 3; i++) assert.equal((await t.api(reader.key, 'GET', '/v1/events')).statusCode, 200);
  });
  after(async () => {
    await t.close();
    await t.database.close();
  });

  async function assertReadsAnswerFast(label: string) {
    const started = performance.now();
    const reads = Promise.all(Array.from({ length: 3 }, () => t.api(reader.key, 'GET', '/v1/events')));
    const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000).unref());
    const result = await Promise.race([reads, late]);
    const elapsed = performance.now() - started;
    assert.notEqual(result, 'late', `${label}: reads waited on the send`);
    for (const res of result as Awaited<typeof reads>) assert.equal(res.statusCode, 200);
    assert.ok(elapsed < FAST_MS, `${label}: reads took ${elapsed.toFixed(1)} ms`);
  }

  test('an e-mail waiting on SMTP', async () => {
    const sale = await setupSale(t);
    await placeOrder(t, sale); // queues the receipt and the e-tickets
    const smtp = gate();
    const send = async () => {
      await smtp.pass();
      return { messageId: `<${smtp.started}@test>` };
    };
    const mailer: Mailer = { send, sendComposed: send, close() {} };
    const renderer = inThreadRenderer('Marquee <no-reply@localhost>');
    const pass = runEmailJobsOnce({ db: t.database.db, mailer, renderer, clock: t.clock });
    try {
      await smtp.waitForStarted(1);
      await assertReadsAnswerFast('e-mail');
    } finally {
      smtp.open();
    }
    assert.equal(await pass, 2);
  });

  test('a dozen webhooks waiting on their receivers', async () => {
    const org = await t.createOrganizer();
    const created = await t.api(org.key, 'POST', '/v1/webhook_endpoints', {
      url: 'https://hooks.test.localhost/in',
      event_types: ['order.created'],
    });
    assert.equal(created.statusCode, 201, created.body);
    for (let i = 0; i < 12; i++) {
      assert.equal((await t.admin('POST', `/admin/v1/webhook_endpoints/${created.json().id}/test`)).statusCode, 201);
    }
    const receivers = gate();
    const sender: WebhookSender = {
      async send() {
        await receivers.pass();
        return { ok: true, status: 200, responseMs: 1, error: null, gone: false, response: null };
      },
      async close() {},
    };
    const deps = { config: t.config, db: t.database.db, clock: t.clock, logger: silentLogger };
    const delivering = deliverDue(deps, 1000, sender);
    try {
      // Deliveries to one endpoint go a few at a time; at least one send is waiting.
      await receivers.waitForStarted(1);
      await assertReadsAnswerFast('webhooks');
    } finally {
      receivers.open();
    }
    const outcomes = await delivering;
    assert.equal(outcomes.filter((o) => o.status === 'success' && o.recorded).length, 12);
  });
});
