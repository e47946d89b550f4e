/**
 * Calendar files (docs/tickets.md, "Calendar files"): the event's zone with its VTIMEZONE,
 * the words in the event's language, RFC 5545 lines, and GET /v1/performances/{id}/calendar.ics.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calendarFiles, performanceCalendar } from '../../src/documents/calendar.ts';
import type { DocumentTicket, OrderDocumentInput } from '../../src/documents/types.ts';
import { useOrganizer, useTestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf } from '../helpers/catalog.ts';

const ticket = (over: Partial<DocumentTicket> = {}): DocumentTicket => ({
  id: 't1',
  ticketNo: 'T-1',
  serialNo: 'S1',
  eventId: 'e1',
  eventTitle: 'Die Zauberflöte – Oper in zwei Aufzügen von Wolfgang Amadeus Mozart',
  performanceId: 'p1',
  performanceStartsAt: new Date('2026-07-03T17:30:00Z'),
  performanceEndsAt: new Date('2026-07-03T20:00:00Z'),
  eventTimeZone: 'Europe/Berlin',
  venueName: 'Staatsoper, Unter den Linden',
  ticketTypeName: 'Parkett',
  priceMinor: 5000,
  holderName: 'Ada',
  ...over,
});

const doc = (tickets: DocumentTicket[], language: OrderDocumentInput['language'] = 'de'): OrderDocumentInput => ({
  language,
  organizerName: 'Oper Berlin',
  orderId: 'o1',
  orderNo: 'M-42',
  currency: 'EUR',
  paperSize: 'a4',
  tickets,
});

const unfold = (ics: string) => ics.replace(/\r\n /g, '').split('\r\n');

describe('calendar files', () => {
  test('one file per performance, in the event’s zone, German words, RFC 5545 lines', () => {
    const files = calendarFiles(
      doc([ticket(), ticket({ id: 't2' }), ticket({ id: 't3', performanceId: 'p2', eventTimeZone: 'UTC' })]),
    );
    assert.deepEqual(
      files.map((f) => f.filename),
      [
        'Die-Zauberflöte-Oper-in-zwei-Aufzügen-von-Wolfgang-Amadeus-M-2026-07-03-1930.ics',
        'Die-Zauberflöte-Oper-in-zwei-Aufzügen-von-Wolfgang-Amadeus-M-2026-07-03-1730.ics',
      ],
    );
    const berlin = files[0]!.content;
    assert.ok(berlin.endsWith('\r\n'));
    assert.equal(berlin.replace(/\r\n/g, '').includes('\n'), false, 'CRLF line ends only');
    for (const line of berlin.split('\r\n')) assert.ok(Buffer.byteLength(line) <= 75, line);
    const lines = unfold(berlin);
    assert.ok(lines.includes('DTSTART;TZID=Europe/Berlin:20260703T193000'));
    assert.ok(lines.includes('DTEND;TZID=Europe/Berlin:20260703T220000'));
    assert.ok(lines.includes('UID:p1@marquee'));
    assert.ok(lines.includes('SUMMARY:Die Zauberflöte – Oper in zwei Aufzügen von Wolfgang Amadeus Mozart'));
    assert.ok(lines.includes('LOCATION:Staatsoper\\, Unter den Linden'));
    assert.ok(lines.includes('DESCRIPTION:Veranstalter: Oper Berlin\\nBestellung M-42: 2 Tickets'));
    const tz = lines.indexOf('BEGIN:VTIMEZONE');
    assert.ok(tz > 0 && tz < lines.indexOf('BEGIN:VEVENT'));
    assert.equal(lines[tz + 1], 'TZID:Europe/Berlin');

    const utc = unfold(files[1]!.content);
    assert.ok(utc.includes('DTSTART:20260703T173000Z'));
    assert.ok(utc.includes('DTEND:20260703T200000Z'));
    assert.ok(utc.includes('DESCRIPTION:Veranstalter: Oper Berlin\\nBestellung M-42: 1 Ticket'));
    assert.equal(utc.includes('BEGIN:VTIMEZONE'), false);
  });

  test('a long Arabic title folds between characters at 75 octets', () => {
    const title = 'حفل موسيقي كبير في دار الأوبرا مع الأوركسترا الوطنية';
    const ics = performanceCalendar(
      {
        performanceId: 'p9',
        eventTitle: title,
        startsAt: new Date('2026-07-03T17:30:00Z'),
        endsAt: new Date('2026-07-03T20:00:00Z'),
        timeZone: 'UTC',
        venueName: null,
        organizerName: 'X',
      },
      'ar',
    );
    for (const line of ics.split('\r\n')) assert.ok(Buffer.byteLength(line) <= 75, line);
    assert.ok(unfold(ics).includes(`SUMMARY:${title}`));
    assert.ok(unfold(ics).includes('DESCRIPTION:المنظِّم: X'));
  });

  describe('GET /v1/performances/{id}/calendar.ics', () => {
    const t = useTestApp();
    const org = useOrganizer(t);
    const other = useOrganizer(t);

    test('the performance as a download; another organizer’s is a 404', async () => {
      const event = await createEvent(t, org.key, {
        title: 'Sommerkonzert',
        timezone: 'Europe/Berlin',
        performances: [{ starts_at: '2026-07-03T17:30:00Z', ends_at: '2026-07-03T20:00:00Z', capacity: 10 }],
      });
      const [id] = performanceIdsOf(event);
      const res = await t.api(org.readKey, 'GET', `/v1/performances/${id}/calendar.ics`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8');
      assert.equal(res.headers['content-disposition'], 'attachment; filename=Sommerkonzert-2026-07-03-1930.ics');
      const lines = unfold(res.body);
      assert.ok(lines.includes(`UID:${id}@marquee`));
      assert.ok(lines.includes('SUMMARY:Sommerkonzert'));
      assert.ok(lines.includes('DTSTART;TZID=Europe/Berlin:20260703T193000'));
      assert.ok(lines.includes('LOCATION:Main Hall'));
      assert.ok(lines.includes('DESCRIPTION:Organized by Test Organizer'));

      const foreign = await t.api(other.readKey, 'GET', `/v1/performances/${id}/calendar.ics`);
      assert.equal(foreign.statusCode, 404);
    });
  });
});
