/**
 * The PDF tickets (docs/tickets.md, "PDF tickets"): GET /v1/orders/{id}/tickets.pdf read
 * back with poppler as a person and a door would: the text (pdftotext), the paper size
 * (pdfinfo), nothing outside the printable box (pdftotext -bbox), the QR code of a
 * rendered page (pdftoppm) decoded by jsQR; in English, German and Arabic.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import jsQRModule from 'jsqr';
import { problemOf, useTestApp, type TestApp } from '../helpers/app.ts';
import { setupSale, BUYER, type Sale } from '../helpers/orders.ts';
import { claimKey, createDevice } from '../door-devices/fixtures.ts';
import { renderTicketsPdf } from '../../src/documents/pdf.ts';
import { LANGUAGES, missingTranslations, translator } from '../../src/i18n/index.ts';

// jsqr is CommonJS; under NodeNext its default export sits one level down (as in test/people/totp.test.ts).
const jsQR = jsQRModule.default;
const run = promisify(execFile);

const TITLE = 'Grüße aus Málaga: Señor Núñez & Ωmega';
const STARTS_AT = '2027-03-12T18:30:00.000Z';
const ORDER_NOT_FOUND = problemOf(404, 'Order not found.', 'resource_not_found');

interface PdfOrder {
  sale: Sale;
  id: string;
  orderNo: string;
  tickets: Array<{ ticket_no: string; serial_no: string }>;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marquee-pdf-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An event in Berlin with a paid and a free ticket type, and an order of one of each. */
async function pdfOrder(t: TestApp, opts: { language?: string; paper?: 'a4' | 'letter' } = {}): Promise<PdfOrder> {
  const sale = await setupSale(t, {
    event: {
      title: TITLE,
      timezone: 'Europe/Berlin',
      venue: { name: 'Großer Saal' },
      performances: [{ starts_at: STARTS_AT, capacity: 100 }],
      ticket_types: [
        { name: 'Ermäßigt', price_minor: 3500, quantity: null },
        { name: 'Guest list', price_minor: 0, quantity: null },
      ],
    },
  });
  const res = await t.api(sale.org.key, 'POST', '/v1/orders', {
    items: sale.ticketTypeIds.map((id) => ({ performance_id: sale.performanceId, ticket_type_id: id, quantity: 1 })),
    buyer: BUYER,
    tender: 'cash',
  });
  assert.equal(res.statusCode, 201, res.body);
  const order = res.json<{ id: string; order_no: string }>();
  const db = t.database.db;
  if (opts.language)
    await db.updateTable('events').set({ language: opts.language }).where('id', '=', sale.event.id).execute();
  if (opts.paper)
    await db.updateTable('organizers').set({ ticket_paper_size: opts.paper }).where('id', '=', sale.org.id).execute();
  const tickets = await db
    .selectFrom('tickets')
    .select(['ticket_no', 'serial_no'])
    .where('order_id', '=', order.id)
    .orderBy('ticket_no')
    .execute();
  return { sale, id: order.id, orderNo: order.order_no, tickets };
}

/** GET the PDF with the organizer's read key; asserts the download headers; the file's path. */
async function download(t: TestApp, order: PdfOrder): Promise<string> {
  const res = await t.api(order.sale.org.readKey, 'GET', `/v1/orders/${order.id}/tickets.pdf`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/pdf');
  assert.equal(res.headers['content-disposition'], `attachment; filename="tickets-${order.orderNo}.pdf"`);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
  const file = join(dir, `${order.id}.pdf`);
  await writeFile(file, res.rawPayload);
  return file;
}

async function pdfInfo(file: string): Promise<Record<string, string>> {
  const { stdout } = await run('pdfinfo', [file]);
  return Object.fromEntries(
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/** Each page's text as laid out (pdftotext -layout), without the bidi marks poppler adds. */
async function pagesLayout(file: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-layout', file, '-']);
  return stdout
    .split('\f')
    .filter((page) => page.trim())
    .map((page) => page.replaceAll(/[\u202a-\u202e]/gu, ''));
}

/** Each page's lines of text, trimmed, runs of spaces made one, empty lines dropped. */
async function pagesText(file: string): Promise<string[]> {
  return (await pagesLayout(file)).map((page) =>
    page
      .split('\n')
      .map((line) => line.trim().replaceAll(/ +/g, ' '))
      .filter(Boolean)
      .join('\n'),
  );
}

/** The farthest right and down any word reaches, in points. */
async function extent(file: string): Promise<{ xMax: number; yMax: number; words: number }> {
  const { stdout } = await run('pdftotext', ['-bbox', file, '-']);
  const words = [...stdout.matchAll(/<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)" yMax="([\d.]+)">/g)];
  return {
    xMax: Math.max(...words.map((w) => Number(w[1]))),
    yMax: Math.max(...words.map((w) => Number(w[2]))),
    words: words.length,
  };
}

/** Page 1 rendered at 100 dpi in grey (a binary PGM), read by jsQR as a phone's camera would. */
async function qrOfFirstPage(file: string): Promise<string | undefined> {
  const { stdout } = await run('pdftoppm', ['-r', '100', '-gray', '-f', '1', '-l', '1', file], {
    encoding: 'buffer',
    maxBuffer: 32 * 1024 * 1024,
  });
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(stdout.subarray(0, 40).toString('latin1'));
  assert.ok(header, 'a PGM image');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const grey = stdout.subarray(header[0].length);
  assert.equal(grey.length, width * height);
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < grey.length; i++) rgba.set([grey[i]!, grey[i]!, grey[i]!, 255], i * 4);
  return jsQR(rgba, width, height)?.data;
}

describe('GET /v1/orders/{id}/tickets.pdf', () => {
  const t = useTestApp();

  test('English, A4: a page per ticket with every field, and the QR code reads as the serial', async () => {
    const order = await pdfOrder(t);
    const file = await download(t, order);
    const info = await pdfInfo(file);
    assert.equal(info.Pages, '2');
    assert.equal(info['Page size'], '595.28 x 841.89 pts (A4)');
    assert.equal(info.Title, `Tickets, order ${order.orderNo}`);
    assert.equal(info.Author, 'Test Organizer');

    const [first, second] = await pagesText(file);
    for (const text of [
      'Test Organizer Ticket 1 of 2',
      TITLE,
      'Friday, March 12, 2027 at 7:30 PM GMT+1 (Europe/Berlin)',
      'Großer Saal',
      'Ticket type\nErmäßigt',
      'Price\n€35.00',
      `Holder\n${BUYER.first_name} ${BUYER.last_name}`,
      `Ticket number\n${order.tickets[0]!.ticket_no}`,
      `Order\n${order.orderNo}`,
      order.tickets[0]!.serial_no,
      'Organized by Test Organizer',
    ])
      assert.ok(first!.includes(text), `page 1 shows ${JSON.stringify(text)}:\n${first}`);
    for (const text of ['Ticket 2 of 2', 'Guest list', 'Price\nFree', order.tickets[1]!.ticket_no])
      assert.ok(second!.includes(text), `page 2 shows ${JSON.stringify(text)}:\n${second}`);
    assert.ok(!second!.includes(order.tickets[0]!.serial_no));

    assert.equal(await qrOfFirstPage(file), order.tickets[0]!.serial_no);
  });

  test('Letter: the Letter page size, and every word within its printable box', async () => {
    const order = await pdfOrder(t, { paper: 'letter' });
    const file = await download(t, order);
    assert.equal((await pdfInfo(file))['Page size'], '612 x 792 pts (letter)');
    const { xMax, yMax, words } = await extent(file);
    assert.ok(words > 60, `${words} words`);
    // 0.5 in (36 pt) from every edge at least.
    assert.ok(xMax < 612 - 36, `xMax ${xMax}`);
    assert.ok(yMax < 792 - 36, `yMax ${yMax}`);
    assert.equal(await qrOfFirstPage(file), order.tickets[0]!.serial_no);
  });

  test('German: the event’s language sets every label, the date and the money', async () => {
    const order = await pdfOrder(t, { language: 'de' });
    const file = await download(t, order);
    assert.equal((await pdfInfo(file)).Title, `Tickets, Bestellung ${order.orderNo}`);
    const [first, second] = await pagesText(file);
    for (const text of [
      'Test Organizer Ticket 1 von 2',
      'Freitag, 12. März 2027 um 19:30 MEZ (Europe/Berlin)',
      'Ticketart\nErmäßigt',
      'Preis\n35,00 €',
      'Inhaber\nAda Lovelace',
      `Ticketnummer\n${order.tickets[0]!.ticket_no}`,
      `Bestellung\n${order.orderNo}`,
      'Veranstalter: Test Organizer',
    ])
      assert.ok(first!.includes(text), `page 1 shows ${JSON.stringify(text)}:\n${first}`);
    assert.ok(second!.includes('Preis\nKostenlos'), second);
  });

  test('Arabic: the labels in Arabic (fonts embedded, shaped), right to left, the QR code still reads', async () => {
    const order = await pdfOrder(t, { language: 'ar' });
    const file = await download(t, order);
    const { stdout: fonts } = await run('pdffonts', [file]);
    assert.match(fonts, /\+NotoSansArabic-Regular +CID TrueType +Identity-H +yes yes yes/);
    assert.match(fonts, /\+NotoSans-Bold +CID TrueType +Identity-H +yes yes yes/);
    const [first] = await pagesText(file);
    const [layout] = await pagesLayout(file);
    for (const text of ['نوع التذكرة', 'السعر', 'حامل التذكرة', 'رقم التذكرة', 'الطلب', TITLE, 'Ermäßigt'])
      assert.ok(first!.includes(text), `page 1 shows ${JSON.stringify(text)}:\n${first}`);
    // Right to left: the labels end at the right margin, the QR code's serial sits on the left.
    const lines = layout!.split('\n');
    const label = lines.find((line) => line.includes('رقم التذكرة'))!;
    const serial = lines.find((line) => line.includes(order.tickets[0]!.serial_no))!;
    assert.ok(label.indexOf('رقم') > 60, label);
    assert.ok(serial.indexOf(order.tickets[0]!.serial_no) < 10, serial);
    assert.equal(await qrOfFirstPage(file), order.tickets[0]!.serial_no);
  });

  test('another organizer’s or an unknown order: 404 as GET /v1/orders/{id}', async () => {
    const order = await pdfOrder(t);
    const other = await t.createOrganizer();
    for (const [key, id] of [
      [other.key, order.id],
      [order.sale.org.key, '00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const res = await t.api(key, 'GET', `/v1/orders/${id}/tickets.pdf`);
      assert.deepEqual([res.statusCode, res.json()], [404, ORDER_NOT_FOUND]);
      const getOrder = await t.api(key, 'GET', `/v1/orders/${id}`);
      assert.deepEqual([getOrder.statusCode, getOrder.json()], [404, ORDER_NOT_FOUND]);
    }
  });

  test('the dashboard downloads it with `read`; a door device’s key is refused', async () => {
    const order = await pdfOrder(t);
    const url = `/dashboard/v1/orders/${order.id}/tickets.pdf`;
    const viewer = await t.createUser({ organizerId: order.sale.org.id, role: 'viewer' });
    const viewed = await t.dash(await t.signIn(viewer.email, viewer.password), 'GET', url);
    assert.equal(viewed.statusCode, 200, viewed.body);
    assert.equal(viewed.headers['content-type'], 'application/pdf');
    assert.equal(viewed.headers['content-disposition'], `attachment; filename="tickets-${order.orderNo}.pdf"`);
    assert.equal(viewed.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');

    const owner = await t.createUser({ organizerId: order.sale.org.id, role: 'owner' });
    const device = await createDevice(t, await t.signIn(owner.email, owner.password), {
      name: 'Gate',
      performance_ids: [order.sale.performanceId],
    });
    const res = await t.api(await claimKey(t, device.provisioning_token), 'GET', `/v1/orders/${order.id}/tickets.pdf`);
    assert.deepEqual(
      [res.statusCode, res.json()],
      [403, problemOf(403, 'This API key lacks the `read` scope that GET requests need.', 'forbidden_scope')],
    );
  });

  test('no ticket left to use: 409 invalid_state; a refunded one is left out', async () => {
    const order = await pdfOrder(t);
    const db = t.database.db;
    await db
      .updateTable('tickets')
      .set({ status: 'refunded' })
      .where('ticket_no', '=', order.tickets[0]!.ticket_no)
      .where('order_id', '=', order.id)
      .execute();
    const file = await download(t, order);
    assert.equal((await pdfInfo(file)).Pages, '1');
    const [only] = await pagesText(file);
    assert.ok(only!.includes(order.tickets[1]!.ticket_no) && !only!.includes(order.tickets[0]!.ticket_no), only);

    await db.updateTable('tickets').set({ status: 'cancelled' }).where('order_id', '=', order.id).execute();
    const res = await t.api(order.sale.org.readKey, 'GET', `/v1/orders/${order.id}/tickets.pdf`);
    assert.deepEqual(
      [res.statusCode, res.json()],
      [409, problemOf(409, 'The order has no valid ticket left: all are cancelled or refunded.', 'invalid_state')],
    );
  });
});

describe('renderTicketsPdf in every shipped language', () => {
  test('every label comes from its own catalogue: none missing, none left as a key path', async () => {
    for (const language of LANGUAGES) {
      const pdf = await renderTicketsPdf({
        language,
        organizerName: 'Test Organizer',
        orderId: '00000000-0000-4000-8000-000000000000',
        orderNo: 'BW3KPTD2',
        currency: 'EUR',
        paperSize: 'a4',
        tickets: [
          {
            id: '00000000-0000-4000-8000-000000000001',
            ticketNo: 'BW3KPTD2-001',
            serialNo: 'X757RSJ2T3IKV3F3Y57S5TNFOLZ7L4QP',
            eventId: '00000000-0000-4000-8000-000000000002',
            eventTitle: 'Winter Gala',
            performanceId: '00000000-0000-4000-8000-000000000003',
            performanceStartsAt: new Date(STARTS_AT),
            performanceEndsAt: new Date(STARTS_AT),
            eventTimeZone: 'Europe/Berlin',
            venueName: 'Main Hall',
            ticketTypeName: 'Standard',
            priceMinor: 0,
            holderName: 'Ada Lovelace',
          },
        ],
      });
      const file = join(dir, `${language}.pdf`);
      await writeFile(file, pdf);
      const [page] = await pagesText(file);
      const t = translator(language);
      // Arabic words are read back in the API test above: those whose letters share a glyph
      // skeleton (ي and ت in the middle of a word) do not survive text extraction.
      if (t.dir === 'ltr')
        for (const text of [t.t('ticket.free'), t.t('pdf.page', { index: 1, total: 1 })])
          assert.ok(page!.includes(text), `${language}: ${JSON.stringify(text)} in\n${page}`);
      assert.ok(!/\b(ticket|pdf)\.[a-z_]+/.test(page!), `${language}: a key path in\n${page}`);
    }
    assert.deepEqual(
      missingTranslations().filter((key) => /:(ticket|pdf)\./.test(key)),
      [],
    );
  });
});
