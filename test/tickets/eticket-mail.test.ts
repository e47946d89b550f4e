/**
 * What rides with the e-ticket mail (docs/tickets.md, "What a buyer receives"): the PDF
 * tickets and a calendar file per performance always; a wallet pass that cannot be made
 * is left out, the mail goes anyway and the mail log says why.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sealSecret } from '../../src/lib/secret-box.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { sendDueMails } from '../helpers/mail-renderer.ts';
import { placeOrder, setupSale } from '../helpers/orders.ts';
import { header } from '../helpers/smtp-receiver.ts';

describe('the e-ticket mail carries the PDF tickets and the calendar files', () => {
  let t: TestApp;
  let dir: string;
  const walletSecretsKey = randomBytes(32);
  before(async () => {
    t = await createTestApp();
    dir = await mkdtemp(path.join(os.tmpdir(), 'marquee-eticket-mail-'));
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Sends what is due; the e-ticket mail of `orderNo`, parsed. */
  async function eticketMail(orderNo: string) {
    const mail = (await sendDueMails(t, dir, walletSecretsKey)).find(
      (m) => header(m.headers, 'subject') === `Your tickets for order ${orderNo}`,
    );
    if (!mail) throw new Error(`no e-ticket mail for ${orderNo}`);
    return mail;
  }

  async function loggedNotes(orderId: string) {
    const job = await t.database.db
      .selectFrom('email_jobs')
      .select(['status', 'notes'])
      .where('order_id', '=', orderId)
      .where('kind', '=', 'etickets')
      .executeTakeFirstOrThrow();
    return job;
  }

  test('two tickets: their QR codes inline, one PDF with a page each, one calendar file', async () => {
    const sale = await setupSale(t, {
      event: {
        title: 'Die Zauberflöte',
        timezone: 'Europe/Berlin',
        performances: [{ starts_at: '2027-07-03T17:30:00Z', capacity: 10 }],
      },
    });
    const order = await placeOrder(t, sale, {}, 2);
    const mail = await eticketMail(order.order_no);
    const tickets = order.transactions[0].items as Array<{ ticket_no: string; serial_no: string }>;

    const files = mail.parts.filter((p) => p.filename).map((p) => [p.filename, p.contentType, p.cid !== undefined]);
    assert.deepEqual(files, [
      [`ticket-${tickets[0]!.ticket_no}.png`, 'image/png', true],
      [`ticket-${tickets[1]!.ticket_no}.png`, 'image/png', true],
      [`tickets-${order.order_no}.pdf`, 'application/pdf', false],
      ['Die-Zauberflöte-2027-07-03-1930.ics', 'text/calendar', false],
    ]);

    const pdf = mail.parts.find((p) => p.contentType === 'application/pdf')!.content;
    const pdfPath = path.join(dir, `${order.order_no}.pdf`);
    await writeFile(pdfPath, pdf);
    const info = execFileSync('pdfinfo', [pdfPath], { encoding: 'utf8' });
    assert.match(info, /^Pages: +2$/m);
    const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' });
    for (const ticket of tickets) {
      assert.ok(text.includes(ticket.ticket_no), `the PDF names ticket ${ticket.ticket_no}`);
      assert.ok(text.includes(ticket.serial_no), `the PDF prints serial ${ticket.serial_no}`);
    }

    const ics = mail.parts.find((p) => p.contentType === 'text/calendar')!.text;
    assert.match(ics, /^DTSTART;TZID=Europe\/Berlin:20270703T193000\r$/m);
    assert.match(ics, /^SUMMARY:Die Zauberflöte\r$/m);

    assert.deepEqual(await loggedNotes(order.id), { status: 'sent', notes: null });
  });

  test('an Apple Wallet signer that cannot sign: the mail goes without passes, the log says why', async () => {
    const sale = await setupSale(t);
    await t.database.db
      .insertInto('apple_wallet_settings')
      .values({
        organizer_id: sale.org.id,
        pass_type_identifier: 'pass.test.marquee',
        team_identifier: 'TEAMID1234',
        // Stored before the certificate was replaced by something that is none.
        certificate_pem: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n',
        sealed_private_key: sealSecret(
          '-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n',
          walletSecretsKey,
        ),
        wwdr_certificate_pem: '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n',
        certificate_expires_at: new Date('2030-01-01T00:00:00Z'),
        background_color: null,
        foreground_color: null,
        label_color: null,
      })
      .execute();
    const order = await placeOrder(t, sale);
    const mail = await eticketMail(order.order_no);

    assert.deepEqual(
      mail.parts.filter((p) => p.filename).map((p) => p.contentType),
      ['image/png', 'application/pdf', 'text/calendar'],
    );
    const job = await loggedNotes(order.id);
    assert.equal(job.status, 'sent');
    assert.match(job.notes ?? '', /^Apple Wallet passes left out: .+/);

    const log = await t.admin('GET', `/admin/v1/organizers/${sale.org.id}/emails`);
    const logged = (log.json().data as Array<{ kind: string; notes: string | null }>).find(
      (e) => e.kind === 'etickets',
    );
    assert.equal(logged?.notes, job.notes);
  });
});
