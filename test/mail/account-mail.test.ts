/**
 * Account e-mails (docs/dashboard.md, "One-time links"): an invitation and a password
 * reset go through the durable mail jobs like an order's receipt. They are queued in the
 * caller's transaction, rendered in the render pool, sent over SMTP, logged by id and
 * kind, listed in the organizer's mail log (the invitation; a reset is no organizer's),
 * and their one-time link is erased from the job once it is sent or has finally failed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enqueueAccountEmail } from '../../src/mail/account-mail.ts';
import { EMAIL_RETRY_DELAYS_MS, runEmailJobsOnce, type MailOutcomeLogger } from '../../src/mail/jobs.ts';
import { createRenderPool, type MailRenderer } from '../../src/mail/render-pool.ts';
import type { ComposedMail } from '../../src/mail/compose.ts';
import { createMailer, type Mailer } from '../../src/mail/transport.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { createTestApp, problemOf, type TestApp } from '../helpers/app.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { inThreadRenderer } from '../helpers/mail-renderer.ts';
import { header, parseMime, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';

const FROM = 'Marquee <no-reply@localhost>';
const ORGANIZER_NAME = 'Tom & Jerry <Hall>';
const INVITE_LINK = 'http://127.0.0.1:3000/app/invite?token=Qm9vLWludml0ZS10b2tlbi0xMjM0NTY3ODk';
const RESET_LINK = 'http://127.0.0.1:3000/app/reset?token=UmVzZXQtdG9rZW4tXy1hYmNkZWZnaGlqa2w';

/** A mailer that fails every send, as an unreachable SMTP server does. */
const failingMailer: Mailer = {
  send: () => Promise.reject(new Error('SMTP server unreachable')),
  sendComposed: () => Promise.reject(new Error('SMTP server unreachable')),
  close() {},
};

describe('account e-mails', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let mailer: Mailer;
  let renderer: MailRenderer;
  let organizerId: string;
  before(async () => {
    smtp = await startSmtpReceiver();
    t = await createTestApp({ env: { SMTP_URL: smtp.url } });
    mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent' });
    // The worker's own pool: account mails render in a worker thread, as receipts do.
    renderer = createRenderPool({ from: FROM, threads: 1 });
    const created = await t.admin('POST', '/admin/v1/organizers', { name: ORGANIZER_NAME });
    assert.equal(created.statusCode, 201);
    organizerId = created.json().id;
  });
  after(async () => {
    mailer.close();
    await renderer.close();
    await smtp.close();
    await t.close();
  });

  const run = (
    deps: { mailer?: Mailer; log?: MailOutcomeLogger; renderer?: MailRenderer; concurrency?: number } = {},
  ) =>
    runEmailJobsOnce({
      db: t.database.db,
      mailer: deps.mailer ?? mailer,
      renderer: deps.renderer ?? renderer,
      clock: t.clock,
      ...(deps.concurrency ? { concurrency: deps.concurrency } : {}),
      ...(deps.log ? { log: deps.log } : {}),
    });

  const jobOf = (recipient: string) =>
    t.database.db.selectFrom('email_jobs').selectAll().where('recipient', '=', recipient).executeTakeFirstOrThrow();

  const invitation = (recipient: string, link = INVITE_LINK) => ({
    kind: 'invitation' as const,
    organizerId,
    recipient,
    link,
    data: { organizer_name: ORGANIZER_NAME, inviter_name: 'Grace Hopper', role: 'box_office' },
  });
  const reset = (recipient: string, link = RESET_LINK) => ({
    kind: 'password_reset' as const,
    organizerId: null,
    recipient,
    link,
    data: { name: 'Ada Lovelace' },
  });

  test('an invitation and a reset reach their recipients; sent, their links are erased', async () => {
    const queuedAt = t.clock.now();
    await withTransaction(t.database.db, async (trx) => {
      await enqueueAccountEmail(trx, invitation('invitee@example.test'), queuedAt);
      await enqueueAccountEmail(trx, reset('ada@example.test'), queuedAt);
    });
    const queued = await jobOf('invitee@example.test');
    assert.equal(queued.link, INVITE_LINK, 'the link waits in the job until the mail is sent');
    assert.deepEqual(queued.account_data, {
      organizer_name: ORGANIZER_NAME,
      inviter_name: 'Grace Hopper',
      role: 'box_office',
    });

    t.clock.advance(1000);
    const mailLog = captureLog();
    assert.equal(await run({ log: mailLog.logger }), 2);
    const messages = await smtp.waitFor(2);
    const invite = messages.find((m) => m.to[0] === 'invitee@example.test')!;
    const resetMail = messages.find((m) => m.to[0] === 'ada@example.test')!;
    assert.deepEqual(invite.to, ['invitee@example.test']);
    assert.deepEqual(resetMail.to, ['ada@example.test']);

    const i = parseMime(invite.raw);
    assert.equal(header(i.headers, 'subject'), 'You are invited to join Tom & Jerry <Hall> on Marquee');
    assert.equal(header(i.headers, 'to'), 'invitee@example.test');
    const iText = i.parts.find((p) => p.contentType === 'text/plain')!.text;
    assert.equal(
      iText,
      [
        'Hello,',
        '',
        'Grace Hopper invited you to join Tom & Jerry <Hall> on Marquee.',
        'Your role: box office.',
        '',
        'Accept the invitation here:',
        INVITE_LINK,
        '',
        'This link can be used only once, within 72 hours.',
        '',
      ].join('\n'),
    );
    const iHtml = i.parts.find((p) => p.contentType === 'text/html')!.text;
    assert.ok(iHtml.includes(`<a href="${INVITE_LINK}"`), 'the link is the button target');
    assert.ok(iHtml.includes(`>${INVITE_LINK}</p>`), 'and is shown as text');
    assert.ok(iHtml.includes('Grace Hopper invited you to join Tom &amp; Jerry &lt;Hall&gt; on Marquee.'));
    assert.ok(iHtml.includes('<title>You are invited to join Tom &amp; Jerry &lt;Hall&gt; on Marquee</title>'));
    assert.ok(!iHtml.includes('<Hall>'), 'the organizer name is never markup');
    assert.ok(iHtml.includes('Your role: <strong>box office</strong>.'));
    assert.ok(iHtml.includes('This link can be used only once, within 72 hours.'));

    const r = parseMime(resetMail.raw);
    assert.equal(header(r.headers, 'subject'), 'Reset your Marquee password');
    const rText = r.parts.find((p) => p.contentType === 'text/plain')!.text;
    assert.equal(
      rText,
      [
        'Hello Ada Lovelace,',
        '',
        'someone asked to reset the password of your Marquee account (ada@example.test).',
        '',
        'Choose a new password here:',
        RESET_LINK,
        '',
        'This link can be used only once, within 1 hour.',
        '',
        'If you did not ask for this, ignore this e-mail: your password stays as it is.',
        '',
      ].join('\n'),
    );
    const rHtml = r.parts.find((p) => p.contentType === 'text/html')!.text;
    assert.ok(rHtml.includes(`<a href="${RESET_LINK}"`));
    assert.ok(rHtml.includes(`>${RESET_LINK}</p>`));
    assert.ok(rHtml.includes('This link can be used only once, within 1 hour.'));
    assert.ok(rHtml.includes('If you did not ask for this, ignore this e-mail: your password stays as it is.'));

    const sentAt = t.clock.now();
    for (const [recipient, organizer, kind, subject] of [
      ['invitee@example.test', organizerId, 'invitation', 'You are invited to join Tom & Jerry <Hall> on Marquee'],
      ['ada@example.test', null, 'password_reset', 'Reset your Marquee password'],
    ] as const) {
      const job = await jobOf(recipient);
      assert.deepEqual(
        {
          organizer_id: job.organizer_id,
          order_id: job.order_id,
          kind: job.kind,
          subject: job.subject,
          status: job.status,
          attempts: job.attempts,
          link: job.link,
          sent_at: job.sent_at,
          last_error: job.last_error,
        },
        {
          organizer_id: organizer,
          order_id: null,
          kind,
          subject,
          status: 'sent',
          attempts: 1,
          link: null,
          sent_at: sentAt,
          last_error: null,
        },
      );
      assert.match(job.message_id ?? '', /^<.+>$/);
    }

    // Logged like a receipt: ids and kind, orderId null; never an address or a link.
    assert.deepEqual(
      mailLog
        .withMessage('e-mail sent')
        .map((l) => [l.levelName, l.orderId, l.organizerId, l.kind, l.attempt])
        .sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
      [
        ['info', null, organizerId, 'invitation', 1],
        ['info', null, null, 'password_reset', 1],
      ],
    );
    const logged = JSON.stringify(mailLog.lines);
    for (const secret of ['invitee@example.test', 'ada@example.test', 'token=']) {
      assert.equal(logged.includes(secret), false, `${secret} is not logged`);
    }
    assert.equal(await run(), 0, 'nothing left to send');
  });

  test("the organizer's mail log lists its invitations with order_id null; a reset is in no log", async () => {
    const log = await t.admin('GET', `/admin/v1/organizers/${organizerId}/emails`);
    assert.equal(log.statusCode, 200);
    const invite = await jobOf('invitee@example.test');
    assert.deepEqual(log.json(), {
      object: 'list',
      has_more: false,
      data: [
        {
          id: invite.id,
          object: 'email',
          order_id: null,
          kind: 'invitation',
          recipient: 'invitee@example.test',
          subject: 'You are invited to join Tom & Jerry <Hall> on Marquee',
          status: 'sent',
          attempts: 1,
          last_error: null,
          notes: null,
          next_attempt_at: null,
          sent_at: invite.sent_at!.toISOString(),
          created_at: invite.created_at.toISOString(),
          updated_at: invite.updated_at.toISOString(),
        },
      ],
    });
    const next = await t.admin('GET', `/admin/v1/organizers/${organizerId}/emails?starting_after=${invite.id}`);
    assert.deepEqual(next.json(), { object: 'list', has_more: false, data: [] });
    // A reset's id is no cursor of an organizer's log: it belongs to none.
    const resetJob = await jobOf('ada@example.test');
    const cursor = await t.admin('GET', `/admin/v1/organizers/${organizerId}/emails?starting_after=${resetJob.id}`);
    assert.deepEqual(
      cursor.json(),
      problemOf(
        400,
        `starting_after \`${resetJob.id}\` is not the id of an item in this list.`,
        'invalid_cursor',
        'starting_after',
      ),
    );
  });

  test('a failed send keeps the link for the retry; the final failure erases it', async () => {
    await withTransaction(t.database.db, (trx) =>
      enqueueAccountEmail(trx, reset('retry@example.test', `${RESET_LINK}-retry`), t.clock.now()),
    );
    const log = captureLog();
    for (let attempt = 1; attempt <= EMAIL_RETRY_DELAYS_MS.length + 1; attempt++) {
      assert.equal(await run({ mailer: failingMailer, log: log.logger }), 1, `attempt ${attempt} claims the job`);
      const job = await jobOf('retry@example.test');
      assert.equal(job.attempts, attempt);
      assert.equal(job.last_error, 'SMTP server unreachable');
      if (attempt <= EMAIL_RETRY_DELAYS_MS.length) {
        assert.equal(job.status, 'pending');
        assert.equal(job.link, `${RESET_LINK}-retry`, 'the retry still has its link');
        const delay = EMAIL_RETRY_DELAYS_MS[attempt - 1]!;
        assert.equal(job.next_attempt_at.getTime(), t.clock.now().getTime() + delay);
        t.clock.advance(delay);
      } else {
        assert.equal(job.status, 'failed');
        assert.equal(job.link, null, 'no attempt is left: the link is erased');
        assert.deepEqual(job.account_data, { name: 'Ada Lovelace' });
      }
    }
    assert.deepEqual(
      log.withMessage('e-mail attempt failed; retrying later').map((l) => [l.orderId, l.kind, l.attempt]),
      EMAIL_RETRY_DELAYS_MS.map((_, i) => [null, 'password_reset', i + 1]),
    );
    assert.deepEqual(
      log.withMessage('e-mail failed; no attempt is left').map((l) => [l.levelName, l.orderId, l.kind, l.attempt]),
      [['warn', null, 'password_reset', EMAIL_RETRY_DELAYS_MS.length + 1]],
    );
    assert.equal(await run({ mailer: failingMailer }), 0, 'a failed job is not claimed again');
  });

  test('account mails have no order to share: each is its own group, sent side by side', async () => {
    await withTransaction(t.database.db, async (trx) => {
      await enqueueAccountEmail(trx, invitation('side-1@example.test'), t.clock.now());
      await enqueueAccountEmail(trx, reset('side-2@example.test'), t.clock.now());
    });
    // Each send waits (up to 2 s) until the other is in flight too: only mails in
    // different groups can be, so one group for both would show a peak of 1.
    let inFlight = 0;
    let peak = 0;
    const waiting = new Set<() => void>();
    const sent: ComposedMail[] = [];
    const barrier: Mailer = {
      send: () => Promise.reject(new Error('not used')),
      async sendComposed(mail) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        for (const wake of waiting) wake();
        await new Promise<void>((resolve) => {
          if (inFlight >= 2) return resolve();
          const timer = setTimeout(resolve, 2_000);
          waiting.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        inFlight--;
        sent.push(mail);
        return { messageId: mail.messageId };
      },
      close() {},
    };
    assert.equal(await run({ mailer: barrier, renderer: inThreadRenderer(FROM), concurrency: 2 }), 2);
    assert.equal(peak, 2);
    assert.deepEqual(sent.map((m) => m.envelope.to).sort(), [['side-1@example.test'], ['side-2@example.test']]);
    for (const recipient of ['side-1@example.test', 'side-2@example.test']) {
      const job = await jobOf(recipient);
      assert.deepEqual([job.status, job.link], ['sent', null]);
    }
  });

  test('a rolled-back transaction queues nothing', async () => {
    await assert.rejects(
      withTransaction(t.database.db, async (trx) => {
        await enqueueAccountEmail(trx, reset('rolled-back@example.test'), t.clock.now());
        throw new Error('the link was not stored after all');
      }),
      /the link was not stored after all/,
    );
    const rows = await t.database.db
      .selectFrom('email_jobs')
      .select('id')
      .where('recipient', '=', 'rolled-back@example.test')
      .execute();
    assert.deepEqual(rows, []);
  });

  test('a malformed account mail is refused before it is queued', async () => {
    const now = t.clock.now();
    const db = t.database.db;
    await assert.rejects(
      enqueueAccountEmail(db, { ...invitation('x@example.test'), organizerId: null }, now),
      /an invitation needs its organizer/,
    );
    await assert.rejects(
      enqueueAccountEmail(db, { ...reset('x@example.test'), organizerId }, now),
      /a password reset belongs to no organizer/,
    );
    await assert.rejects(
      enqueueAccountEmail(db, { ...reset('x@example.test'), data: {} }, now),
      /password_reset e-mail data must have exactly name \(has none\)/,
    );
    await assert.rejects(
      enqueueAccountEmail(
        db,
        { ...invitation('x@example.test'), data: { organizer_name: 'X', inviter_name: 'Y', role: 'admin' } },
        now,
      ),
      /unknown role admin/,
    );
    const rows = await db.selectFrom('email_jobs').select('id').where('recipient', '=', 'x@example.test').execute();
    assert.deepEqual(rows, []);
  });

  test("a role reads in words, given as its code or as its words; an inviter's name may be missing", async () => {
    const renderer = inThreadRenderer(FROM);
    const roles = [
      ['owner', 'owner'],
      ['manager', 'manager'],
      ['box_office', 'box office'],
      ['box office', 'box office'],
      ['door', 'door'],
      ['viewer', 'viewer'],
    ] as const;
    const recipientOf = (role: string) => `role-${role.replace(' ', '-')}@example.test`;
    await withTransaction(t.database.db, async (trx) => {
      for (const [role] of roles) {
        const data = { organizer_name: 'Hall', inviter_name: '', role };
        await enqueueAccountEmail(trx, { ...invitation(recipientOf(role)), data }, t.clock.now());
      }
    });
    const sent: ComposedMail[] = [];
    const capture: Mailer = {
      send: () => Promise.reject(new Error('not used')),
      sendComposed: async (mail) => {
        sent.push(mail);
        return { messageId: mail.messageId };
      },
      close() {},
    };
    assert.equal(await run({ mailer: capture, renderer }), roles.length);
    for (const [role, words] of roles) {
      const mail = sent.find((m) => m.envelope.to[0] === recipientOf(role))!;
      const text = parseMime(mail.raw.toString('latin1')).parts.find((p) => p.contentType === 'text/plain')!.text;
      assert.match(text, new RegExp(`^Your role: ${words}\\.$`, 'm'), role);
      assert.match(text, /^You are invited to join Hall on Marquee\.$/m);
    }
  });
});
