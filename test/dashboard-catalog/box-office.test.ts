/**
 * The dashboard's box-office operations (docs/dashboard.md, "Resend e-tickets" and
 * "Settle a card refund"): the resent e-ticket mail really reaches an SMTP server, the
 * job row is exact, and ticket.issued stays once per order; a card refund settles with
 * its order.refunded; and the bad inputs of the operations on an order (a settle of a
 * placed order, a refund of a checked-in or refunded ticket, a transfer to a malformed
 * address, a resend of an order without valid tickets) answer a problem with code and
 * param and change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import { createMailer, type Mailer } from '../../src/mail/transport.ts';
import { createTestApp, problemOf, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { inThreadRenderer } from '../helpers/mail-renderer.ts';
import { eventsOfType, placeOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';
import { header, parseMime, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';

const FROM = 'Marquee <no-reply@localhost>';

async function sessionOf(t: TestApp, organizerId: string, role = 'manager'): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role });
  return t.signIn(user.email, user.password);
}

/** What an operation on an order may change: its rows, its tickets, refunds, payments, mails, events. */
async function orderState(t: TestApp, orderId: string) {
  const db = t.database.db;
  return {
    order: await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow(),
    tickets: await db.selectFrom('tickets').selectAll().where('order_id', '=', orderId).orderBy('position').execute(),
    refunds: await db.selectFrom('refunds').selectAll().where('order_id', '=', orderId).orderBy('id').execute(),
    payments: await db.selectFrom('payments').selectAll().where('order_id', '=', orderId).orderBy('id').execute(),
    emails: await db.selectFrom('email_jobs').selectAll().where('order_id', '=', orderId).orderBy('id').execute(),
    events: await db
      .selectFrom('domain_events')
      .select(['id', 'type', 'data'])
      .where(sql<boolean>`data->>'order_id' = ${orderId}`)
      .orderBy('id')
      .execute(),
  };
}

function ticketsOf(t: TestApp, sale: Sale, orderId: string) {
  return t
    .api(sale.org.key, 'GET', `/v1/tickets?order_id=${orderId}`)
    .then((res) => res.json().data as { id: string; ticket_no: string; serial_no: string }[]);
}

describe('resend e-tickets', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let mailer: Mailer;
  let sale: Sale;
  const renderer = inThreadRenderer(FROM);
  before(async () => {
    smtp = await startSmtpReceiver();
    t = await createTestApp({ env: { ...UNTHROTTLED, SMTP_URL: smtp.url } });
    mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent' });
    sale = await setupSale(t);
  });
  after(async () => {
    mailer.close();
    await smtp.close();
    await t.close();
  });
  const run = () => runEmailJobsOnce({ db: t.database.db, mailer, renderer, clock: t.clock });

  test('a box-office user resends to another address: 202, one exact job, the mail arrives, no second ticket.issued', async () => {
    const session = await sessionOf(t, sale.org.id, 'box_office');
    const order = await placeOrder(t, sale, {}, 2);
    const tickets = await ticketsOf(t, sale, order.id);
    // The sale's own receipt and e-tickets go first.
    await run();
    await smtp.waitFor(2);
    const firstSent = (await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}`)).json();
    assert.equal(firstSent.status, 'fulfilled');
    const issued = await eventsOfType(t, sale.org.id, 'ticket.issued');
    assert.equal(issued.length, 1);

    t.clock.advance(60_000);
    const res = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/resend_tickets`, {
      email: 'Grace@Example.test',
    });
    assert.equal(res.statusCode, 202, res.body);
    const queuedAt = t.clock.now();
    const id = res.json().id as string;
    assert.deepEqual(res.json(), {
      object: 'email',
      id,
      kind: 'etickets',
      recipient: 'Grace@Example.test',
      status: 'pending',
      created_at: queuedAt.toISOString(),
    });
    const job = await t.database.db.selectFrom('email_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(job, {
      id,
      organizer_id: sale.org.id,
      order_id: order.id,
      kind: 'etickets',
      recipient: 'Grace@Example.test',
      subject: `Your tickets for order ${order.order_no}`,
      status: 'pending',
      attempts: 0,
      max_attempts: job.max_attempts,
      next_attempt_at: queuedAt,
      locked_until: null,
      last_error: null,
      message_id: null,
      sent_at: null,
      link: null,
      account_data: null,
      notes: null,
      created_at: queuedAt,
      updated_at: queuedAt,
    });
    assert.ok(job.max_attempts > 1);

    // The mail log shows it, newest first.
    const log = await t.admin('GET', `/admin/v1/organizers/${sale.org.id}/emails?limit=1`);
    assert.deepEqual(
      log.json().data.map((e: Record<string, unknown>) => [e.id, e.kind, e.recipient, e.status]),
      [[id, 'etickets', 'Grace@Example.test', 'pending']],
    );

    const before = smtp.messages.length;
    assert.equal(await run(), 1);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    // The envelope spells the domain in lower case, as domains are.
    assert.deepEqual(mail!.to, ['Grace@example.test']);
    const parsed = parseMime(mail!.raw);
    assert.equal(header(parsed.headers, 'subject'), `Your tickets for order ${order.order_no}`);
    const text = parsed.parts.find((p) => p.contentType === 'text/plain')!.text;
    for (const ticket of tickets) assert.match(text, new RegExp(`Serial: ${ticket.serial_no}`));
    const sent = await t.database.db
      .selectFrom('email_jobs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([sent.status, sent.attempts, sent.sent_at], ['sent', 1, t.clock.now()]);
    // The tickets were issued once: no second ticket.issued, the order keeps its first time.
    assert.deepEqual(await eventsOfType(t, sale.org.id, 'ticket.issued'), issued);
    const after = (await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}`)).json();
    assert.deepEqual([after.etickets_sent_at, after.updated_at], [firstSent.etickets_sent_at, firstSent.updated_at]);
  });

  test('without a body the buyer gets them; an order whose first e-ticket mail failed gets ticket.issued from the resend', async () => {
    const session = await sessionOf(t, sale.org.id);
    const order = await placeOrder(t, sale);
    // The sale's mails never went out (say, they failed for good).
    await t.database.db.updateTable('email_jobs').set({ status: 'failed' }).where('order_id', '=', order.id).execute();
    const res = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/resend_tickets`);
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().recipient, 'ada@example.test');
    const before = smtp.messages.length;
    assert.equal(await run(), 1);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.to, ['ada@example.test']);
    const tickets = await ticketsOf(t, sale, order.id);
    const issued = (await eventsOfType(t, sale.org.id, 'ticket.issued')).filter(
      (e) => (e as { order_id: string }).order_id === order.id,
    );
    assert.deepEqual(issued, [
      {
        order_id: order.id,
        order_no: order.order_no,
        ticket_ids: tickets.map((x) => x.id),
        ticket_ids_truncated: false,
        ticket_count: 1,
      },
    ]);
    const detail = (await t.api(sale.org.key, 'GET', `/v1/orders/${order.id}`)).json();
    assert.deepEqual([detail.status, detail.etickets_sent_at], ['fulfilled', t.clock.now().toISOString()]);
  });

  test('an unpaid, cancelled or wholly refunded order, a malformed address, another organizer: refused, nothing queued', async () => {
    const session = await sessionOf(t, sale.org.id);
    const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
    const cancelled = await placeOrder(t, sale);
    assert.equal((await t.dash(session, 'POST', `/dashboard/v1/orders/${cancelled.id}/cancel`)).statusCode, 200);
    const refunded = await placeOrder(t, sale);
    assert.equal((await t.dash(session, 'POST', `/dashboard/v1/orders/${refunded.id}/refund`, {})).statusCode, 201);
    const placed = await placeOrder(t, sale);
    const other = await t.createOrganizer();
    const stranger = await sessionOf(t, other.id, 'owner');

    const cases: [DashboardSession, string, unknown, number, ReturnType<typeof problemOf>][] = [
      [
        session,
        unpaid.id,
        undefined,
        409,
        problemOf(
          409,
          `Order ${unpaid.order_no} is unpaid; its e-tickets are sent once it is settled.`,
          'invalid_state',
        ),
      ],
      [
        session,
        cancelled.id,
        {},
        409,
        problemOf(409, `Order ${cancelled.order_no} is cancelled; it has no e-tickets to send.`, 'invalid_state'),
      ],
      [
        session,
        refunded.id,
        {},
        409,
        problemOf(
          409,
          `Order ${refunded.order_no} has no valid tickets to send: each is refunded or cancelled.`,
          'invalid_state',
        ),
      ],
      [
        session,
        placed.id,
        { email: 'not-an-address' },
        400,
        problemOf(400, '`email` must be a valid email.', 'parameter_invalid', 'email'),
      ],
      [
        session,
        placed.id,
        { email: 'a@example.test', bcc: 'eve@example.test' },
        400,
        problemOf(400, 'Unknown field `bcc` in body.', 'parameter_unknown', 'bcc'),
      ],
      [stranger, placed.id, {}, 404, problemOf(404, 'Order not found.', 'resource_not_found')],
    ];
    for (const [who, orderId, body, status, problem] of cases) {
      const state = await orderState(t, orderId);
      const res = await t.dash(who, 'POST', `/dashboard/v1/orders/${orderId}/resend_tickets`, body);
      assert.deepEqual([res.statusCode, res.json()], [status, problem], JSON.stringify(body));
      assert.deepEqual(await orderState(t, orderId), state);
    }
    // A door user may not resend.
    const door = await sessionOf(t, sale.org.id, 'door');
    const refused = await t.dash(door, 'POST', `/dashboard/v1/orders/${placed.id}/resend_tickets`);
    assert.deepEqual([refused.statusCode, refused.json().param], [403, 'sell']);
  });
});

describe('settle a card refund, and the refusals of the order operations', () => {
  let t: TestApp;
  let sale: Sale;
  before(async () => {
    t = await createTestApp({ env: UNTHROTTLED });
    sale = await setupSale(t);
  });
  after(async () => {
    await t.close();
  });

  test('a pending card refund settles once, with the small order.refunded; not across organizers', async () => {
    const session = await sessionOf(t, sale.org.id);
    const order = await placeOrder(t, sale, {}, 2);
    const refund = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/refund`, { mode: 'card' });
    assert.equal(refund.statusCode, 201, refund.body);
    assert.equal(refund.json().status, 'pending');
    const refundId = refund.json().id as string;

    const other = await t.createOrganizer();
    const stranger = await sessionOf(t, other.id, 'owner');
    const state = await orderState(t, order.id);
    const foreign = await t.dash(stranger, 'POST', `/dashboard/v1/refunds/${refundId}/settle`, { status: 'refunded' });
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [404, problemOf(404, 'Refund not found.', 'resource_not_found')],
    );
    const bad = await t.dash(session, 'POST', `/dashboard/v1/refunds/${refundId}/settle`, { status: 'done' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual([bad.json().code, bad.json().param], ['parameter_invalid', 'status']);
    assert.deepEqual(await orderState(t, order.id), state);

    t.clock.advance(5000);
    const settled = await t.dash(session, 'POST', `/dashboard/v1/refunds/${refundId}/settle`, { status: 'refunded' });
    assert.equal(settled.statusCode, 200, settled.body);
    assert.deepEqual(settled.json(), {
      ...refund.json(),
      status: 'refunded',
      settled_at: t.clock.now().toISOString(),
    });
    const refundedEvents = (await eventsOfType(t, sale.org.id, 'order.refunded')).filter(
      (e) => (e as { order_id: string }).order_id === order.id,
    );
    assert.deepEqual(refundedEvents, [
      {
        order_id: order.id,
        refund_id: refundId,
        status: 'pending',
        refunded_items: 2,
        total_refunded_minor: 5000,
        currency: 'EUR',
        mode: 'card',
      },
      { order_id: order.id, refund_id: refundId, status: 'refunded' },
    ]);
    const settledState = await orderState(t, order.id);
    const again = await t.dash(session, 'POST', `/dashboard/v1/refunds/${refundId}/settle`, { status: 'failed' });
    assert.deepEqual(
      [again.statusCode, again.json()],
      [
        409,
        problemOf(
          409,
          `Refund ${refundId} is already refunded; only a pending card refund can be settled.`,
          'invalid_state',
        ),
      ],
    );
    assert.deepEqual(await orderState(t, order.id), settledState);
  });

  test('a settle of a placed order, a refund of a checked-in or refunded ticket, a transfer to a malformed e-mail: 4xx with code and param, nothing changes', async () => {
    const session = await sessionOf(t, sale.org.id);
    const order = await placeOrder(t, sale, {}, 3);
    const [a, b, c] = await ticketsOf(t, sale, order.id);
    const checkedIn = await t.dash(session, 'POST', `/dashboard/v1/tickets/${a!.id}/check_in`, {});
    assert.equal(checkedIn.statusCode, 200, checkedIn.body);
    const firstRefund = await t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/refund`, {
      ticket_ids: [b!.id],
    });
    assert.equal(firstRefund.statusCode, 201, firstRefund.body);

    const cases: [string, unknown, number, ReturnType<typeof problemOf>][] = [
      [
        `/dashboard/v1/orders/${order.id}/settle`,
        {},
        409,
        problemOf(409, `Order ${order.order_no} is placed; only an unpaid order can be settled.`, 'invalid_state'),
      ],
      [
        `/dashboard/v1/orders/${order.id}/refund`,
        { ticket_ids: [a!.id] },
        409,
        problemOf(409, `Ticket ${a!.ticket_no} is checked in and cannot be refunded.`, 'invalid_state', 'ticket_ids'),
      ],
      [
        `/dashboard/v1/orders/${order.id}/refund`,
        { ticket_ids: [b!.id] },
        409,
        problemOf(409, `Ticket ${b!.ticket_no} is refunded and cannot be refunded.`, 'invalid_state', 'ticket_ids'),
      ],
      [
        `/dashboard/v1/orders/${order.id}/refund`,
        { ticket_ids: [c!.id, c!.id] },
        400,
        problemOf(400, '`ticket_ids` lists a ticket twice.', 'parameter_invalid', 'ticket_ids'),
      ],
      [
        `/dashboard/v1/tickets/${c!.id}/transfer`,
        { first_name: 'Grace', email: 'grace-at-example.test' },
        400,
        problemOf(400, '`email` must be a valid email.', 'parameter_invalid', 'email'),
      ],
      [
        `/dashboard/v1/tickets/${c!.id}/transfer`,
        { first_name: '  ', email: 'grace@example.test' },
        400,
        problemOf(400, '`first_name` must not be blank.', 'parameter_invalid', 'first_name'),
      ],
    ];
    for (const [url, body, status, problem] of cases) {
      const state = await orderState(t, order.id);
      const res = await t.dash(session, 'POST', url, body);
      assert.deepEqual([res.statusCode, res.json()], [status, problem], `${url} ${JSON.stringify(body)}`);
      assert.deepEqual(await orderState(t, order.id), state, `${url}: nothing changed`);
    }
  });
});
