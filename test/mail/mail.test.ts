import { after, before, describe, test } from 'node:test';
import { closedPort } from '../helpers/ports.ts';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/lib/clock.ts';
import { translator } from '../../src/i18n/index.ts';
import {
  qrCodePng,
  renderETickets,
  renderReceipt,
  type ETicketInput,
  type ReceiptInput,
} from '../../src/mail/templates.ts';
import type { MailMessage } from '../../src/mail/compose.ts';
import { createMailer } from '../../src/mail/transport.ts';
import { header, parseMime, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';

const FROM = 'Marquee <no-reply@localhost>';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function receiptInput(overrides: Partial<ReceiptInput> = {}): ReceiptInput {
  return {
    language: 'en',
    organizerName: 'Riverside Hall',
    orderNo: 'M-100042',
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
    currency: 'EUR',
    totalMinor: 1250,
    status: 'placed',
    lines: [
      {
        eventTitle: 'Evening Concert',
        performanceStartsAt: new Date('2026-07-03T19:30:00Z'),
        eventTimeZone: 'UTC',
        ticketTypeName: 'Standard',
        quantity: 2,
        unitPriceMinor: 500,
        totalMinor: 1000,
      },
    ],
    feesMinor: 150,
    taxesMinor: 100,
    createdAt: new Date('2026-06-01T12:00:00Z'),
    ...overrides,
  };
}

function eTicketInput(overrides: Partial<ETicketInput> = {}): ETicketInput {
  const ticket = {
    eventTitle: 'Evening Concert',
    ticketTypeName: 'Standard',
    performanceStartsAt: new Date('2026-07-03T19:30:00Z'),
    eventTimeZone: 'UTC',
    venueName: 'Main Stage',
    holderName: 'Ada Lovelace',
  };
  return {
    language: 'en',
    organizerName: 'Riverside Hall',
    orderNo: 'M-100042',
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
    tickets: [
      { ...ticket, ticketNo: 'T-0001', serialNo: 'SER-AAAA-1111' },
      { ...ticket, ticketNo: 'T-0002', serialNo: 'SER-BBBB-2222' },
    ],
    ...overrides,
  };
}

/** A port nothing listens on: bind an ephemeral port, then release it. */
describe('money in a mail', () => {
  test('uses the minor-unit digits of each currency', () => {
    const formatMoney = (minor: number, currency: string) => translator('en').money(minor, currency);
    assert.equal(formatMoney(1250, 'EUR'), '€12.50');
    assert.equal(formatMoney(1250, 'JPY'), '¥1,250');
    assert.match(formatMoney(1250, 'KWD'), /^KWD\s1\.250$/); // ICU puts a no-break space here
    assert.equal(formatMoney(0, 'EUR'), '€0.00');
    assert.equal(formatMoney(123456789, 'USD'), '$1,234,567.89');
  });
});

describe('renderReceipt', () => {
  test('subject, recipient and EUR totals', async () => {
    const mail = await renderReceipt(receiptInput());
    assert.equal(mail.to, 'ada@example.test');
    assert.equal(mail.subject, 'Your receipt for order M-100042');
    assert.equal(mail.attachments, undefined);
    for (const part of [mail.text, mail.html]) {
      assert.ok(part.includes('M-100042'));
      assert.ok(part.includes('Evening Concert'));
      assert.ok(part.includes('€5.00'), 'unit price');
      assert.ok(part.includes('€10.00'), 'line total');
      assert.ok(part.includes('€1.50'), 'fees');
      assert.ok(part.includes('€1.00'), 'taxes');
      assert.ok(part.includes('€12.50'), 'order total');
    }
    assert.match(mail.text, /^Total: €12\.50$/m);
    assert.match(mail.text, /Friday, July 3, 2026 at 7:30\sPM\sUTC/);
  });

  test('JPY has no minor digits', async () => {
    const mail = await renderReceipt(
      receiptInput({
        currency: 'JPY',
        totalMinor: 1250,
        feesMinor: 0,
        taxesMinor: 0,
        lines: [{ ...receiptInput().lines[0]!, unitPriceMinor: 625, totalMinor: 1250 }],
      }),
    );
    assert.match(mail.text, /^Total: ¥1,250$/m);
    assert.ok(mail.html.includes('¥1,250'));
    assert.ok(!mail.text.includes('12.50'));
    assert.ok(!mail.text.includes('Fees'), 'zero fees are not listed');
  });

  test("a performance reads in its event's zone, named; the order date in the organizer's", async () => {
    const line = receiptInput().lines[0]!;
    const mail = await renderReceipt(
      receiptInput({
        timeZone: 'America/New_York',
        lines: [
          // Either side of Europe's change to summer time (2026-03-29 01:00 UTC): 19:30 both days.
          { ...line, performanceStartsAt: new Date('2026-03-28T18:30:00Z'), eventTimeZone: 'Europe/Berlin' },
          { ...line, performanceStartsAt: new Date('2026-03-29T17:30:00Z'), eventTimeZone: 'Europe/Berlin' },
        ],
      }),
    );
    for (const part of [mail.text, mail.html]) {
      assert.match(part, /Saturday, March 28, 2026 at 7:30\sPM\sGMT\+1 \(Europe\/Berlin\)/);
      assert.match(part, /Sunday, March 29, 2026 at 7:30\sPM\sGMT\+2 \(Europe\/Berlin\)/);
      assert.match(part, /Date: +Monday, June 1, 2026 at 8:00\sAM\sEDT \(America\/New_York\)/);
    }
    assert.match(mail.text, /^Evening Concert, Sunday, March 29, 2026 at 7:30\sPM\sGMT\+2 \(Europe\/Berlin\)$/m);
  });

  test('HTML-escapes every interpolated value', async () => {
    const mail = await renderReceipt(
      receiptInput({
        organizerName: 'Tom & Jerry',
        buyer: { first_name: '<script>alert("x")</script>', last_name: "O'Brien", email: 'ada@example.test' },
        lines: [{ ...receiptInput().lines[0]!, eventTitle: '<b>Gig</b>', ticketTypeName: '<i>VIP</i>' }],
      }),
    );
    assert.ok(!mail.html.includes('<script>'));
    assert.ok(!mail.html.includes('<b>Gig'));
    assert.ok(!mail.html.includes('<i>VIP'));
    assert.ok(mail.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(mail.html.includes('Tom &amp; Jerry'));
    assert.ok(mail.html.includes('O&#39;Brien'));
    assert.ok(mail.html.includes('&lt;b&gt;Gig&lt;/b&gt;'));
    // The plain-text part is not markup, so it carries the name verbatim.
    assert.ok(mail.text.includes('Hello <script>alert("x")</script>,'));
  });
});

describe('renderETickets', () => {
  test('one inline QR PNG of the serial per ticket, referenced by cid', async () => {
    const input = eTicketInput();
    const mail = await renderETickets(input);
    assert.equal(mail.to, 'ada@example.test');
    assert.equal(mail.subject, 'Your tickets for order M-100042');
    const attachments = mail.attachments ?? [];
    assert.equal(attachments.length, 2);
    const cids = new Set<string>();
    for (const [i, ticket] of input.tickets.entries()) {
      const attachment = attachments[i]!;
      assert.equal(attachment.contentType, 'image/png');
      assert.equal(attachment.filename, `ticket-${ticket.ticketNo}.png`);
      assert.deepEqual(attachment.content.subarray(0, 8), PNG_SIGNATURE);
      assert.deepEqual(attachment.content, qrCodePng(ticket.serialNo));
      assert.ok(attachment.cid);
      cids.add(attachment.cid);
      assert.ok(mail.html.includes(`<img src="cid:${attachment.cid}"`));
      assert.ok(mail.html.includes(ticket.ticketNo));
      assert.match(mail.text, new RegExp(`^Ticket ${ticket.ticketNo}$`, 'm'));
      assert.match(mail.text, new RegExp(`^  Serial: ${ticket.serialNo}$`, 'm'));
    }
    assert.equal(cids.size, 2, 'content ids are unique');
  });

  test("each ticket's time reads in its event's zone, named", async () => {
    const base = eTicketInput().tickets[0]!;
    const mail = await renderETickets(
      eTicketInput({
        tickets: [
          { ...base, performanceStartsAt: new Date('2026-10-24T17:30:00Z'), eventTimeZone: 'Europe/Berlin' },
          {
            ...base,
            performanceStartsAt: new Date('2026-10-25T18:30:00Z'),
            eventTimeZone: 'Europe/Berlin',
            ticketNo: 'T-0002',
            serialNo: 'SER-2',
          },
        ],
      }),
    );
    for (const part of [mail.text, mail.html]) {
      // Summer time ends on 2026-10-25: 19:30 local on both days.
      assert.match(part, /Saturday, October 24, 2026 at 7:30\sPM\sGMT\+2 \(Europe\/Berlin\)/);
      assert.match(part, /Sunday, October 25, 2026 at 7:30\sPM\sGMT\+1 \(Europe\/Berlin\)/);
    }
  });

  test('HTML-escapes holder, venue and title', async () => {
    const base = eTicketInput().tickets[0]!;
    const mail = await renderETickets(
      eTicketInput({
        tickets: [
          {
            ...base,
            holderName: '<img src=x onerror=alert(1)>',
            venueName: 'A & B "Hall"',
            eventTitle: '<script>x</script>',
            ticketNo: 'T<1>',
          },
        ],
      }),
    );
    assert.ok(!mail.html.includes('<img src=x'));
    assert.ok(!mail.html.includes('<script>'));
    assert.ok(mail.html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(mail.html.includes('A &amp; B &quot;Hall&quot;'));
    assert.ok(mail.html.includes('T&lt;1&gt;'));
    assert.equal(mail.attachments?.[0]?.filename, 'ticket-T_1_.png');
  });

  test('no venue line when the venue is unknown', async () => {
    const base = eTicketInput().tickets[0]!;
    const mail = await renderETickets(eTicketInput({ tickets: [{ ...base, venueName: null }] }));
    assert.ok(!mail.text.includes('Venue'));
    assert.ok(!mail.html.includes('null'));
  });
});

describe('SMTP mailer', () => {
  let receiver: SmtpReceiver;
  before(async () => {
    receiver = await startSmtpReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  test('delivers a receipt with exact envelope and headers', async () => {
    const mailer = createMailer({ smtpUrl: receiver.url, from: FROM, outboxDir: '/nonexistent' });
    try {
      const before = receiver.messages.length;
      const result = await mailer.send(await renderReceipt(receiptInput()));
      assert.equal(result.location, undefined);
      const received = (await receiver.waitFor(before + 1))[before]!;
      assert.equal(received.from, 'no-reply@localhost');
      assert.deepEqual(received.to, ['ada@example.test']);

      const parsed = parseMime(received.raw);
      assert.equal(header(parsed.headers, 'subject'), 'Your receipt for order M-100042');
      assert.equal(header(parsed.headers, 'from'), FROM);
      assert.equal(header(parsed.headers, 'to'), 'ada@example.test');
      assert.equal(header(parsed.headers, 'message-id'), result.messageId);

      const text = parsed.parts.find((p) => p.contentType === 'text/plain');
      const html = parsed.parts.find((p) => p.contentType === 'text/html');
      assert.ok(text && html);
      assert.match(text.text, /^Total: €12\.50$/m);
      assert.match(text.text, /^Date: +Monday, June 1, 2026 at 12:00\sPM\sUTC$/m);
      assert.ok(html.text.includes('€12.50'));
    } finally {
      mailer.close();
    }
  });

  test('delivers e-tickets with one PNG per ticket', async () => {
    const mailer = createMailer({ smtpUrl: receiver.url, from: FROM, outboxDir: '/nonexistent' });
    try {
      const input = eTicketInput();
      const before = receiver.messages.length;
      await mailer.send(await renderETickets(input));
      const received = (await receiver.waitFor(before + 1))[before]!;
      const parsed = parseMime(received.raw);
      assert.equal(header(parsed.headers, 'subject'), 'Your tickets for order M-100042');
      assert.equal(header(parsed.headers, 'from'), FROM);
      assert.equal(header(parsed.headers, 'to'), 'ada@example.test');

      const text = parsed.parts.find((p) => p.contentType === 'text/plain')!;
      const html = parsed.parts.find((p) => p.contentType === 'text/html')!;
      const pngs = parsed.parts.filter((p) => p.contentType === 'image/png');
      assert.equal(pngs.length, input.tickets.length);
      for (const [i, ticket] of input.tickets.entries()) {
        assert.ok(text.text.includes(`Ticket ${ticket.ticketNo}`));
        assert.ok(text.text.includes(`Serial: ${ticket.serialNo}`));
        assert.ok(html.text.includes(ticket.ticketNo));
        const png = pngs[i]!;
        assert.deepEqual(png.content.subarray(0, 8), PNG_SIGNATURE);
        assert.deepEqual(png.content, qrCodePng(ticket.serialNo));
        assert.equal(png.filename, `ticket-${ticket.ticketNo}.png`);
        assert.ok(png.cid, 'inline image has a Content-ID');
        assert.ok(html.text.includes(`src="cid:${png.cid}"`), 'HTML references the inline image');
      }
    } finally {
      mailer.close();
    }
  });

  test('skips STARTTLS on a loopback server that offers it with a self-signed certificate', async () => {
    const tlsReceiver = await startSmtpReceiver({ advertiseStartTls: true });
    const mailer = createMailer({ smtpUrl: tlsReceiver.url, from: FROM, outboxDir: '/nonexistent' });
    try {
      await mailer.send(await renderReceipt(receiptInput()));
      assert.equal((await tlsReceiver.waitFor(1)).length, 1);
    } finally {
      mailer.close();
      await tlsReceiver.close();
    }
  });

  test('refuses a recipient that is not one bare address', async () => {
    const mailer = createMailer({ smtpUrl: receiver.url, from: FROM, outboxDir: '/nonexistent' });
    try {
      const before = receiver.messages.length;
      const mail: MailMessage = { ...(await renderReceipt(receiptInput())), to: 'ada@example.test, eve@example.test' };
      await assert.rejects(mailer.send(mail), TypeError);
      await assert.rejects(mailer.send({ ...mail, to: 'Eve <eve@example.test>' }), TypeError);
      assert.equal(receiver.messages.length, before);
    } finally {
      mailer.close();
    }
  });
});

describe('SMTP mailer failures', () => {
  test('rejects quickly when nothing listens on the port', async () => {
    const port = await closedPort();
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, outboxDir: '/nonexistent' });
    const started = Date.now();
    try {
      await assert.rejects(mailer.send(await renderReceipt(receiptInput())));
      assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
    } finally {
      mailer.close();
    }
  });

  test('rejects within the greeting timeout when the server never answers', async () => {
    // Accepts TCP connections but never sends the SMTP banner, like a hung server.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, outboxDir: '/nonexistent' });
    const started = Date.now();
    try {
      await assert.rejects(mailer.send(await renderReceipt(receiptInput())));
      assert.ok(Date.now() - started < 8_000, `took ${Date.now() - started} ms`);
    } finally {
      mailer.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('outbox mailer (no SMTP_URL)', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'marquee-mail-'));
  });
  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  test('writes one RFC 5322 .eml file per message into a created directory', async () => {
    const outboxDir = path.join(tmp, 'data', 'outbox'); // does not exist yet
    const clock = new ManualClock('2026-06-01T12:00:00.000Z');
    const mailer = createMailer({ from: FROM, outboxDir, clock });
    try {
      const result = await mailer.send(await renderETickets(eTicketInput()));
      assert.ok(result.location);
      assert.equal(path.dirname(result.location), outboxDir);

      const files = await readdir(outboxDir);
      assert.deepEqual(files, [path.basename(result.location)]);
      assert.match(files[0]!, /^2026-06-01T12-00-00\.000Z-[A-Za-z0-9._-]+\.eml$/);

      const raw = await readFile(result.location, 'latin1');
      assert.ok(raw.includes('\r\n'), 'CRLF line ends');
      assert.ok(!/[^\r]\n/.test(raw), 'no bare LF');
      const parsed = parseMime(raw);
      assert.equal(header(parsed.headers, 'subject'), 'Your tickets for order M-100042');
      assert.equal(header(parsed.headers, 'from'), FROM);
      assert.equal(header(parsed.headers, 'to'), 'ada@example.test');
      assert.equal(header(parsed.headers, 'message-id'), result.messageId);
      assert.ok(header(parsed.headers, 'date'));
      assert.equal(parsed.parts.filter((p) => p.contentType === 'image/png').length, 2);

      clock.advance(1_000);
      const second = await mailer.send(await renderReceipt(receiptInput()));
      assert.notEqual(second.location, result.location);
      assert.equal((await readdir(outboxDir)).filter((f) => f.endsWith('.eml')).length, 2);
      assert.equal((await readdir(outboxDir)).length, 2, 'no partial files left behind');
    } finally {
      mailer.close();
    }
  });

  test('rejects when the outbox cannot be written', async () => {
    const blocker = path.join(tmp, 'a-file');
    await writeFile(blocker, 'not a directory');
    const mailer = createMailer({ from: FROM, outboxDir: path.join(blocker, 'outbox') });
    try {
      await assert.rejects(mailer.send(await renderReceipt(receiptInput())));
    } finally {
      mailer.close();
    }
  });
});
