/**
 * The side effects of a sale by mail: durable receipt and e-ticket jobs, sent by the
 * e-mail job core (runEmailJobsOnce) to a local SMTP server or the .eml outbox;
 * ticket.issued with etickets_sent_at once the e-tickets are delivered; retries.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closedPort } from '../helpers/ports.ts';
import { EMAIL_RETRY_DELAYS_MS, runEmailJobsOnce, type MailOutcomeLogger } from '../../src/mail/jobs.ts';
import { createRenderPool, type MailRenderer } from '../../src/mail/render-pool.ts';
import { createMailer, type Mailer } from '../../src/mail/transport.ts';
import { createTestApp, problemOf, type TestApp } from '../helpers/app.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { eventsOfType, placeOrder, postOrder, orderBody, setupSale, type Sale } from '../helpers/orders.ts';
import { header, parseMime, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';

const FROM = 'Marquee <no-reply@localhost>';

describe('order e-mails', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let mailer: Mailer;
  let renderer: MailRenderer;
  let outbox: string;
  let sale: Sale;
  before(async () => {
    smtp = await startSmtpReceiver();
    t = await createTestApp({ env: { SMTP_URL: smtp.url } });
    mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent' });
    // The worker's own pool: mails render in a worker thread, as in production.
    renderer = createRenderPool({ from: FROM, threads: 1 });
    outbox = await mkdtemp(path.join(os.tmpdir(), 'marquee-outbox-'));
    sale = await setupSale(t, { settings: { box_office_fee_minor: 100 } });
  });
  after(async () => {
    mailer.close();
    await renderer.close();
    await smtp.close();
    await t.close();
    await rm(outbox, { recursive: true, force: true });
  });

  const run = (m = mailer, log?: MailOutcomeLogger) =>
    runEmailJobsOnce({ db: t.database.db, mailer: m, renderer, clock: t.clock, ...(log ? { log } : {}) });

  test('receipt and e-tickets reach the buyer; ticket.issued, etickets_sent_at and fulfilled follow delivery', async () => {
    const order = await placeOrder(t, sale, {}, 2);
    const tickets = order.transactions[0].items;
    t.clock.advance(1000);
    const mailLog = captureLog();
    assert.equal(await run(mailer, mailLog.logger), 2);
    const [receipt, etickets] = await smtp.waitFor(2);
    // One info line per mail sent, with ids, never the recipient's address.
    assert.deepEqual(
      mailLog.withMessage('e-mail sent').map((l) => [l.levelName, l.orderId, l.organizerId, l.kind, l.attempt]),
      [
        ['info', order.id, sale.org.id, 'receipt', 1],
        ['info', order.id, sale.org.id, 'etickets', 1],
      ],
    );
    assert.equal(JSON.stringify(mailLog.lines).includes('ada@example.test'), false);
    assert.deepEqual(receipt!.to, ['ada@example.test']);
    const r = parseMime(receipt!.raw);
    assert.equal(header(r.headers, 'subject'), `Your receipt for order ${order.order_no}`);
    const receiptText = r.parts.find((p) => p.contentType === 'text/plain')!.text;
    assert.match(receiptText, new RegExp(`Order:  ${order.order_no}`));
    assert.match(receiptText, /2 x General at €25\.00 = €50\.00/);
    assert.match(receiptText, /Fees: €2\.00/);
    assert.match(receiptText, /Total: €52\.00/);

    const e = parseMime(etickets!.raw);
    assert.equal(header(e.headers, 'subject'), `Your tickets for order ${order.order_no}`);
    const text = e.parts.find((p) => p.contentType === 'text/plain')!.text;
    for (const ticket of tickets) {
      assert.match(text, new RegExp(`Ticket ${ticket.ticket_no}`));
      assert.match(text, new RegExp(`Serial: ${ticket.serial_no}`));
    }
    const images = e.parts.filter((p) => p.contentType === 'image/png');
    assert.deepEqual(
      images.map((p) => p.filename),
      tickets.map((x: any) => `ticket-${x.ticket_no}.png`),
    );
    for (const image of images) assert.ok(image.content.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])));

    const sentAt = t.clock.now().toISOString();
    const detail = (await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}`)).json();
    assert.equal(detail.etickets_sent_at, sentAt);
    assert.equal(detail.status, 'fulfilled');
    assert.deepEqual(await eventsOfType(t, sale.org.id, 'ticket.issued'), [
      {
        order_id: order.id,
        order_no: order.order_no,
        ticket_ids: tickets.map((x: any) => x.id),
        ticket_ids_truncated: false,
        ticket_count: 2,
      },
    ]);
    // A fulfilled order's tickets still check in.
    assert.equal((await t.api(sale.org.key, 'POST', `/v1/tickets/${tickets[0].id}/check_in`)).statusCode, 200);

    const log = await t.admin('GET', `/admin/v1/organizers/${sale.org.id}/emails`);
    assert.equal(log.statusCode, 200);
    const created = new Date(order.created_at).getTime();
    assert.deepEqual(log.json(), {
      object: 'list',
      has_more: false,
      data: [
        {
          id: log.json().data[0].id,
          object: 'email',
          order_id: order.id,
          kind: 'etickets',
          recipient: 'ada@example.test',
          subject: `Your tickets for order ${order.order_no}`,
          status: 'sent',
          attempts: 1,
          last_error: null,
          notes: null,
          next_attempt_at: null,
          sent_at: sentAt,
          created_at: new Date(created + 1).toISOString(),
          updated_at: sentAt,
        },
        {
          id: log.json().data[1].id,
          object: 'email',
          order_id: order.id,
          kind: 'receipt',
          recipient: 'ada@example.test',
          subject: `Your receipt for order ${order.order_no}`,
          status: 'sent',
          attempts: 1,
          last_error: null,
          notes: null,
          next_attempt_at: null,
          sent_at: sentAt,
          created_at: order.created_at,
          updated_at: sentAt,
        },
      ],
    });
    const page = (await t.admin('GET', `/admin/v1/organizers/${sale.org.id}/emails?limit=1`)).json();
    assert.deepEqual([page.data.length, page.has_more], [1, true]);
    assert.deepEqual(
      (await t.admin('GET', '/admin/v1/organizers/00000000-0000-4000-8000-000000000000/emails')).json(),
      problemOf(404, 'Organizer not found.', 'resource_not_found'),
    );
    assert.equal(await run(), 0, 'nothing left to send');
  });

  test('a mail failure never fails the sale: the job retries with backoff, then fails after max attempts', async () => {
    const s = await setupSale(t);
    const res = await postOrder(t, s.org.key, orderBody(s, { tender: 'pay_later' }));
    assert.equal(res.statusCode, 201);
    const broken = createMailer({
      smtpUrl: `smtp://127.0.0.1:${await closedPort()}`,
      from: FROM,
      outboxDir: '/nonexistent',
    });
    const log = captureLog();
    try {
      for (let attempt = 1; attempt <= EMAIL_RETRY_DELAYS_MS.length + 1; attempt++) {
        assert.equal(await run(broken, log.logger), 1, `attempt ${attempt} claims the job`);
        const job = await t.database.db
          .selectFrom('email_jobs')
          .selectAll()
          .where('order_id', '=', res.json().id)
          .executeTakeFirstOrThrow();
        assert.equal(job.attempts, attempt);
        assert.match(job.last_error ?? '', /ECONNREFUSED|connect/i);
        if (attempt <= EMAIL_RETRY_DELAYS_MS.length) {
          assert.equal(job.status, 'pending');
          const delay = EMAIL_RETRY_DELAYS_MS[attempt - 1]!;
          assert.equal(job.next_attempt_at.getTime(), t.clock.now().getTime() + delay);
          assert.equal(await run(broken), 0, 'not due before its backoff');
          t.clock.advance(delay);
        } else {
          assert.equal(job.status, 'failed');
        }
      }
    } finally {
      broken.close();
    }
    const retrying = log.withMessage('e-mail attempt failed; retrying later');
    assert.deepEqual(
      retrying.map((l) => [l.levelName, l.orderId, l.kind, l.attempt]),
      EMAIL_RETRY_DELAYS_MS.map((_, i) => ['warn', res.json().id, 'receipt', i + 1]),
    );
    const gaveUp = log.withMessage('e-mail failed; no attempt is left');
    assert.deepEqual(
      gaveUp.map((l) => [l.levelName, l.orderId, l.attempt]),
      [['warn', res.json().id, EMAIL_RETRY_DELAYS_MS.length + 1]],
    );
    assert.equal((await t.api(s.org.key, 'GET', `/v1/orders/${res.json().id}`)).json().status, 'unpaid');
  });

  test("with several orders in flight, each order's receipt still goes before its e-tickets", async () => {
    const s = await setupSale(t);
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await placeOrder(t, s));
    const before = smtp.messages.length;
    assert.equal(await runEmailJobsOnce({ db: t.database.db, mailer, renderer, clock: t.clock, concurrency: 3 }), 8);
    const subjects = (await smtp.waitFor(before + 8))
      .slice(before)
      .map((m) => header(parseMime(m.raw).headers, 'subject'));
    for (const order of orders) {
      const receipt = subjects.indexOf(`Your receipt for order ${order.order_no}`);
      const etickets = subjects.indexOf(`Your tickets for order ${order.order_no}`);
      assert.ok(receipt >= 0 && etickets > receipt, `${order.order_no}: receipt ${receipt}, e-tickets ${etickets}`);
    }
  });

  test('a job whose lease ran out (dead worker) is claimed again', async () => {
    const s = await setupSale(t);
    const order = await placeOrder(t, s, { tender: 'pay_later' });
    await t.database.db
      .updateTable('email_jobs')
      .set({ status: 'sending', attempts: 1, locked_until: new Date(t.clock.now().getTime() + 60_000) })
      .where('order_id', '=', order.id)
      .execute();
    assert.equal(await run(), 0);
    t.clock.advance(60_000);
    assert.equal(await run(), 1);
    const job = await t.database.db
      .selectFrom('email_jobs')
      .select(['status', 'attempts'])
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(job, { status: 'sent', attempts: 2 });
  });

  test("mails show a show's time in its event's zone, not the organizer's", async () => {
    // The organizer keeps its default zone (UTC); the event plays in Berlin at 19:30 local.
    const s = await setupSale(t, {
      event: { timezone: 'Europe/Berlin', performances: [{ starts_at: '2027-07-01T17:30:00Z', capacity: 10 }] },
    });
    const before = smtp.messages.length;
    await placeOrder(t, s);
    assert.equal(await run(), 2);
    const mails = (await smtp.waitFor(before + 2))
      .slice(before)
      .map((m) => parseMime(m.raw).parts.find((p) => p.contentType === 'text/plain')!.text);
    for (const text of mails) assert.match(text, /Thursday, July 1, 2027 at 7:30\sPM\sGMT\+2 \(Europe\/Berlin\)/);
  });

  test('ticket.issued caps ticket_ids at 100 and reports the real count (150 tickets, .eml outbox)', async () => {
    const s = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2027-07-01T19:00:00Z', capacity: 200 }],
        ticket_types: [
          { name: 'Aa', price_minor: 100 },
          { name: 'Bb', price_minor: 200 },
          { name: 'Cc', price_minor: 300 },
        ],
      },
    });
    const order = await placeOrder(t, s, {
      items: s.ticketTypeIds.map((id) => ({ performance_id: s.performanceId, ticket_type_id: id, quantity: 50 })),
    });
    const outboxMailer = createMailer({ from: FROM, outboxDir: outbox, clock: t.clock });
    assert.equal(await run(outboxMailer), 2);
    outboxMailer.close();
    assert.equal((await readdir(outbox)).filter((f) => f.endsWith('.eml')).length, 2);
    const [issued] = await eventsOfType(t, s.org.id, 'ticket.issued');
    const ids = order.transactions[0].items.map((x: any) => x.id);
    assert.deepEqual(issued, {
      order_id: order.id,
      order_no: order.order_no,
      ticket_ids: ids.slice(0, 100),
      ticket_ids_truncated: true,
      ticket_count: 150,
    });
  });
});
