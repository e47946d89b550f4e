/**
 * The e-mails in the event's language (docs/tickets.md, "Languages"): German, French and
 * Spanish words, dates in the event's zone and money as each locale writes them; Arabic
 * right to left with its parts in order; the Google Wallet link and the attachments that
 * ride with the e-tickets; and through the e-mail job, the event's language, else the
 * organizer's, for the order's mails and the organizer's for an invitation.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Language } from '../../src/i18n/index.ts';
import { enqueueAccountEmail } from '../../src/mail/account-mail.ts';
import { runEmailJobsOnce } from '../../src/mail/jobs.ts';
import {
  renderETickets,
  renderInvitation,
  renderPasswordReset,
  renderReceipt,
  type ETicketInput,
  type ReceiptInput,
} from '../../src/mail/templates.ts';
import { createMailer } from '../../src/mail/transport.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { inThreadRenderer } from '../helpers/mail-renderer.ts';
import { placeOrder, setupSale } from '../helpers/orders.ts';
import { header, parseMime } from '../helpers/smtp-receiver.ts';

const NBSP = '\u00a0';
/** First strong isolate and pop directional isolate: a value inside right-to-left text. */
const FSI = '\u2068';
const PDI = '\u2069';
const BUYER = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' };
/** 19:30 in Berlin, summer time. */
const STARTS_AT = new Date('2026-07-03T17:30:00Z');

function eTickets(language: Language, overrides: Partial<ETicketInput> = {}): ETicketInput {
  return {
    language,
    organizerName: 'Riverside Hall',
    orderNo: 'M-100042',
    buyer: BUYER,
    tickets: [
      {
        ticketNo: 'M-100042-0001',
        serialNo: 'SERIAL-AAAA',
        eventTitle: 'Abendkonzert',
        ticketTypeName: 'Standard',
        performanceStartsAt: STARTS_AT,
        eventTimeZone: 'Europe/Berlin',
        venueName: 'Großer Saal',
        holderName: 'Ada Lovelace',
      },
    ],
    ...overrides,
  };
}

function receipt(language: Language): ReceiptInput {
  return {
    language,
    organizerName: 'Riverside Hall',
    orderNo: 'M-100042',
    buyer: BUYER,
    currency: 'EUR',
    totalMinor: 1250,
    status: 'placed',
    lines: [
      {
        eventTitle: 'Abendkonzert',
        performanceStartsAt: STARTS_AT,
        eventTimeZone: 'Europe/Berlin',
        ticketTypeName: 'Standard',
        quantity: 2,
        unitPriceMinor: 500,
        totalMinor: 1000,
      },
    ],
    feesMinor: 150,
    taxesMinor: 100,
    createdAt: new Date('2026-06-01T12:00:00Z'),
    timeZone: 'Europe/Berlin',
  };
}

describe('e-mails in German, French and Spanish', () => {
  test('German e-tickets: words, date in the zone, html lang', async () => {
    const mail = await renderETickets(eTickets('de'));
    assert.equal(mail.subject, 'Ihre Tickets für die Bestellung M-100042');
    assert.equal(
      mail.text,
      [
        'Hallo Ada,',
        '',
        'hier sind Ihre Tickets für die Bestellung M-100042 bei Riverside Hall.',
        'Zeigen Sie am Eingang den QR-Code jedes Tickets vor (als Bilder angehängt).',
        '',
        'Ticket M-100042-0001',
        '  Abendkonzert, Freitag, 3. Juli 2026 um 19:30 MESZ (Europe/Berlin)',
        '  Ort:          Großer Saal',
        '  Ticketart:    Standard',
        '  Inhaber:      Ada Lovelace',
        '  Seriennummer: SERIAL-AAAA',
        '',
      ].join('\n'),
    );
    assert.ok(mail.html.includes('<html lang="de" dir="ltr">'));
    assert.ok(mail.html.includes('<title>Ihre Tickets für die Bestellung M-100042</title>'));
    assert.ok(
      mail.html.includes(
        '<div dir="ltr" style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;">',
      ),
    );
    assert.ok(mail.html.includes('>Ihre Tickets, Ada</h1>'));
    assert.ok(mail.html.includes('Freitag, 3. Juli 2026 um 19:30 MESZ (Europe/Berlin)<br>'));
    assert.ok(mail.html.includes('Inhaber: Ada Lovelace<br>\nTicket <strong>M-100042-0001</strong>'));
    assert.ok(mail.html.includes('alt="QR-Code des Tickets M-100042-0001"'));
  });

  test('German receipt: money as 12,50 €, the order date in the organizer zone', async () => {
    const mail = await renderReceipt(receipt('de'));
    assert.equal(mail.subject, 'Ihre Quittung für die Bestellung M-100042');
    assert.equal(
      mail.text,
      [
        'Hallo Ada,',
        '',
        'vielen Dank für Ihre Bestellung bei Riverside Hall.',
        '',
        'Bestellung: M-100042',
        'Käufer:     Ada Lovelace <ada@example.test>',
        'Datum:      Montag, 1. Juni 2026 um 14:00 MESZ (Europe/Berlin)',
        'Status:     Bezahlt',
        '',
        'Abendkonzert, Freitag, 3. Juli 2026 um 19:30 MESZ (Europe/Berlin)',
        `  2 x Standard zu je 5,00${NBSP}€ = 10,00${NBSP}€`,
        '',
        `Gebühren: 1,50${NBSP}€`,
        `Steuern: 1,00${NBSP}€`,
        `Gesamt: 12,50${NBSP}€`,
        '',
        'Ihre E-Tickets erhalten Sie in einer separaten E-Mail.',
        '',
      ].join('\n'),
    );
    assert.ok(mail.html.includes(`2 × Standard zu je 5,00${NBSP}€`));
    assert.ok(
      mail.html.includes(
        `>Gesamt</td>\n<td style="padding:8px 0;font-weight:bold;text-align:right;">12,50${NBSP}€</td>`,
      ),
    );
  });

  test('French receipt and e-tickets: the colon after a no-break space', async () => {
    const r = await renderReceipt(receipt('fr'));
    assert.equal(r.subject, 'Votre reçu pour la commande M-100042');
    const lines = r.text.split('\n');
    assert.equal(lines[2], 'Merci pour votre commande auprès de Riverside Hall.');
    assert.equal(lines[4], `Commande${NBSP}: M-100042`);
    assert.equal(lines[7], `Statut${NBSP}:   Payée`);
    assert.equal(lines[9], 'Abendkonzert, vendredi 3 juillet 2026 à 19:30 UTC+2 (Europe/Berlin)');
    assert.equal(lines[10], `  2 x Standard à 5,00${NBSP}€ = 10,00${NBSP}€`);
    assert.equal(lines[14], `Total${NBSP}: 12,50${NBSP}€`);
    assert.ok(r.html.includes('<html lang="fr" dir="ltr">'));

    const e = await renderETickets(eTickets('fr'));
    assert.equal(e.subject, 'Vos billets pour la commande M-100042');
    assert.match(e.text, /^Billet M-100042-0001$/m);
    assert.match(e.text, new RegExp(`^  Titulaire${NBSP}:       Ada Lovelace$`, 'm'));
    assert.ok(e.html.includes('Billet <strong>M-100042-0001</strong>'));
  });

  test('Spanish receipt and e-tickets', async () => {
    const r = await renderReceipt(receipt('es'));
    assert.equal(r.subject, 'Su recibo del pedido M-100042');
    assert.match(r.text, /^Hola, Ada:$/m);
    assert.match(r.text, /^Abendkonzert, viernes, 3 de julio de 2026, 19:30 CEST \(Europe\/Berlin\)$/m);
    assert.match(r.text, new RegExp(`^Total: 12,50${NBSP}€$`, 'm'));
    assert.match(r.text, /^Estado: {4}Pagado$/m);

    const e = await renderETickets(eTickets('es'));
    assert.equal(e.subject, 'Sus entradas del pedido M-100042');
    assert.match(e.text, /^Entrada M-100042-0001$/m);
    assert.ok(e.html.includes('<html lang="es" dir="ltr">'));
    assert.ok(e.html.includes('Entrada <strong>M-100042-0001</strong>'));
  });
});

describe('e-mails in Arabic', () => {
  test('e-tickets: right to left, heading before the ticket, each number after its label', async () => {
    const mail = await renderETickets(eTickets('ar'));
    assert.equal(mail.subject, 'تذاكرك للطلب M-100042');
    const { html } = mail;
    assert.ok(html.includes('<html lang="ar" dir="rtl">'));
    assert.ok(
      html.includes(
        '<div dir="rtl" style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;text-align:right;">',
      ),
    );
    const heading = html.indexOf('<h1 style="font-size:20px;margin:0 0 16px;">تذاكرك يا <bdi>Ada</bdi></h1>');
    const intro = html.indexOf('الطلب <strong><bdi>M-100042</bdi></strong> من <bdi>Riverside Hall</bdi>.');
    const ticket = html.indexOf('<div style="border:1px solid #e4e4e7;');
    const title = html.indexOf('<strong><bdi>Abendkonzert</bdi></strong>');
    const date = html.indexOf('<bdi>الجمعة، 3 يوليو 2026 في 7:30 م غرينتش+2 (Europe/Berlin)</bdi><br>');
    const holder = html.indexOf('حامل التذكرة: <bdi>Ada Lovelace</bdi><br>');
    const number = html.indexOf('التذكرة <strong><bdi>M-100042-0001</bdi></strong>');
    const qr = html.indexOf('<img src="cid:ticket-1-qr@marquee"');
    const serial = html.indexOf('<bdi>SERIAL-AAAA</bdi></p>');
    const positions = [heading, intro, ticket, title, date, holder, number, qr, serial];
    assert.ok(
      positions.every((at) => at > 0),
      `found: ${positions.join(', ')}`,
    );
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'in reading order',
    );

    const lines = mail.text.split('\n');
    assert.equal(lines[0], `مرحبًا ${FSI}Ada${PDI}،`);
    assert.equal(lines[5], `التذكرة ${FSI}M-100042-0001${PDI}`);
    assert.equal(lines[9], `  حامل التذكرة:   ${FSI}Ada Lovelace${PDI}`);
    assert.equal(lines[10], `  الرقم التسلسلي: ${FSI}SERIAL-AAAA${PDI}`);
  });

  test('receipt: amounts at the left, the end of a right-to-left line', async () => {
    const mail = await renderReceipt(receipt('ar'));
    assert.equal(mail.subject, 'إيصال الطلب M-100042');
    assert.ok(mail.html.includes('<html lang="ar" dir="rtl">'));
    assert.ok(
      mail.html.includes(
        `<td style="padding:8px 0;font-weight:bold;">الإجمالي</td>\n<td style="padding:8px 0;font-weight:bold;text-align:left;"><bdi>\u200f12.50${NBSP}€</bdi></td>`,
      ),
    );
    assert.ok(!mail.html.includes('text-align:right;vertical-align'));
    assert.match(mail.text, new RegExp(`^الإجمالي: ${FSI}\u200f12\\.50${NBSP}€${PDI}$`, 'm'));
  });
});

describe('account e-mails in a language', () => {
  test('a German invitation and an Arabic reset: link lifetimes in their plural forms', async () => {
    const invitation = await renderInvitation({
      language: 'de',
      to: 'x@example.test',
      link: 'http://127.0.0.1:3000/app/invite?token=abc',
      organizerName: 'Riverside Hall',
      inviterName: 'Grace Hopper',
      role: 'box_office',
    });
    assert.equal(invitation.subject, 'Einladung zum Team von Riverside Hall auf Marquee');
    assert.equal(
      invitation.text,
      [
        'Hallo,',
        '',
        'Grace Hopper hat Sie eingeladen, dem Team von Riverside Hall auf Marquee beizutreten.',
        'Ihre Rolle: Kasse.',
        '',
        'Nehmen Sie die Einladung hier an:',
        'http://127.0.0.1:3000/app/invite?token=abc',
        '',
        'Dieser Link ist nur einmal verwendbar und 72 Stunden lang gültig.',
        '',
      ].join('\n'),
    );
    assert.ok(invitation.html.includes('Ihre Rolle: <strong>Kasse</strong>.'));

    const reset = await renderPasswordReset({
      language: 'ar',
      to: 'ada@example.test',
      link: 'http://127.0.0.1:3000/app/reset?token=abc',
      name: '',
    });
    assert.equal(reset.subject, 'إعادة تعيين كلمة مرور Marquee');
    assert.ok(reset.html.includes('<html lang="ar" dir="rtl">'));
    assert.match(reset.text, /^لا يمكن استخدام هذا الرابط إلا مرة واحدة، خلال ساعة واحدة\.$/m);
    assert.ok(reset.html.includes('<h1 style="font-size:20px;margin:0 0 16px;">مرحبًا،</h1>'));
  });
});

describe('what rides with the e-tickets', () => {
  test('an "Add to Google Wallet" button and text line; extra files after the QR images, not inline', async () => {
    const url = 'https://pay.google.com/gp/v/save/eyJhbGciOiJSUzI1NiJ9.e30.c2ln';
    const pdf = { filename: 'tickets.pdf', content: Buffer.from('%PDF-'), contentType: 'application/pdf' };
    const ics = {
      filename: 'event.ics',
      content: Buffer.from('BEGIN:VCALENDAR'),
      contentType: 'text/calendar',
      cid: 'x@y',
    };
    const mail = await renderETickets(eTickets('en', { googleWalletUrl: url, extraAttachments: [pdf, ics] }));
    assert.ok(
      mail.html.includes(
        `<p style="margin:0 0 16px;"><a href="${url}" style="display:inline-block;padding:10px 16px;background:#18181b;color:#ffffff;text-decoration:none;border-radius:6px;">Add to Google Wallet</a></p>`,
      ),
    );
    assert.ok(mail.html.indexOf(url) < mail.html.indexOf('<div style="border:1px solid'), 'above the tickets');
    assert.ok(mail.text.includes(`(attached as images).\n\nAdd to Google Wallet:\n${url}\n\nTicket M-100042-0001\n`));
    assert.deepEqual(
      mail.attachments?.map((a) => [a.filename, a.contentType, a.cid]),
      [
        ['ticket-M-100042-0001.png', 'image/png', 'ticket-1-qr@marquee'],
        ['tickets.pdf', 'application/pdf', undefined],
        ['event.ics', 'text/calendar', undefined],
      ],
    );

    const plain = await renderETickets(eTickets('en'));
    assert.ok(!plain.html.includes('Google Wallet'));
    assert.ok(!plain.text.includes('Google Wallet'));
    assert.equal(plain.attachments?.length, 1);
  });
});

describe("through the e-mail job: the event's language, else the organizer's", () => {
  let t: TestApp;
  let outbox: string;
  before(async () => {
    t = await createTestApp();
    outbox = await mkdtemp(path.join(os.tmpdir(), 'marquee-languages-'));
  });
  after(async () => {
    await t.close();
    await rm(outbox, { recursive: true, force: true });
  });

  test('a German event mails German; an event without a language its organizer French; an invitation too', async () => {
    const event = {
      timezone: 'Europe/Berlin',
      performances: [{ starts_at: '2027-07-03T17:30:00Z', capacity: 10 }],
    };
    const german = await setupSale(t, { event });
    const french = await setupSale(t, { org: german.org, event });
    const { db } = t.database;
    await db.updateTable('events').set({ language: 'de' }).where('id', '=', german.event.id).execute();
    await db.updateTable('organizers').set({ default_language: 'fr' }).where('id', '=', german.org.id).execute();
    const germanOrder = await placeOrder(t, german);
    const frenchOrder = await placeOrder(t, french);
    await withTransaction(db, (trx) =>
      enqueueAccountEmail(
        trx,
        {
          kind: 'invitation',
          organizerId: german.org.id,
          recipient: 'invitee@example.test',
          link: 'http://127.0.0.1:3000/app/invite?token=abc',
          data: { organizer_name: 'Test Organizer', inviter_name: '', role: 'door' },
        },
        t.clock.now(),
      ),
    );

    t.clock.advance(1000);
    const from = 'Marquee <no-reply@localhost>';
    const mailer = createMailer({ from, outboxDir: outbox, clock: t.clock });
    try {
      assert.equal(await runEmailJobsOnce({ db, mailer, renderer: inThreadRenderer(from), clock: t.clock }), 5);
    } finally {
      mailer.close();
    }
    const mails = new Map<string, ReturnType<typeof parseMime>>();
    for (const file of await readdir(outbox)) {
      const parsed = parseMime(await readFile(path.join(outbox, file), 'latin1'));
      mails.set(header(parsed.headers, 'subject')!, parsed);
    }
    assert.deepEqual(
      [...mails.keys()].sort(),
      [
        `Ihre Quittung für die Bestellung ${germanOrder.order_no}`,
        `Ihre Tickets für die Bestellung ${germanOrder.order_no}`,
        'Invitation à rejoindre Test Organizer sur Marquee',
        `Vos billets pour la commande ${frenchOrder.order_no}`,
        `Votre reçu pour la commande ${frenchOrder.order_no}`,
      ].sort(),
    );

    const etickets = mails.get(`Ihre Tickets für die Bestellung ${germanOrder.order_no}`)!;
    const text = etickets.parts.find((p) => p.contentType === 'text/plain')!.text;
    const html = etickets.parts.find((p) => p.contentType === 'text/html')!.text;
    const ticket = germanOrder.transactions[0].items[0];
    assert.match(text, new RegExp(`^Ticket ${ticket.ticket_no}$`, 'm'));
    assert.match(text, /^ {2}Ort: {10}Main Hall$/m);
    assert.match(text, /, Samstag, 3\. Juli 2027 um 19:30 MESZ \(Europe\/Berlin\)$/m);
    assert.match(text, new RegExp(`^  Seriennummer: ${ticket.serial_no}$`, 'm'));
    assert.ok(html.includes('<html lang="de" dir="ltr">'));
    const invitation = mails.get('Invitation à rejoindre Test Organizer sur Marquee')!;
    assert.ok(
      invitation.parts
        .find((p) => p.contentType === 'text/plain')!
        .text.includes('Votre rôle\u00a0: contrôle d’accès.'),
    );

    // The mail log keeps the subject it was queued with, in English.
    const logged = await db
      .selectFrom('email_jobs')
      .select('subject')
      .where('order_id', '=', germanOrder.id)
      .where('kind', '=', 'etickets')
      .executeTakeFirstOrThrow();
    assert.equal(logged.subject, `Your tickets for order ${germanOrder.order_no}`);
  });
});
