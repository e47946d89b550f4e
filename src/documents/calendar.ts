/**
 * Calendar files (docs/tickets.md, "Calendar files"): one iCalendar file (RFC 5545) per
 * performance, for the e-ticket mail (one per performance of the order) and for
 * GET /v1/performances/{id}/calendar.ics.
 *
 * The `ics` package writes the event (escaping, UID, DTSTAMP). It writes times only in
 * UTC or in the host's local time, so the start and end are rewritten in the event's
 * zone, `DTSTART;TZID=Europe/Berlin:20260703T193000`, and the zone's VTIMEZONE (from
 * timezones-ical-library) goes before the event: calendars show the show's local time
 * and follow the zone's daylight saving rules. An event in UTC, or in a zone that
 * library does not know, keeps plain UTC times (`…Z`), which need no VTIMEZONE.
 *
 * The lines are folded again afterwards at 75 octets, as RFC 5545 counts them (the `ics`
 * package counts characters, too many for a title in German or Arabic), never inside a
 * character, with CRLF line ends.
 *
 * Pure: no database, no clock but DTSTAMP's; the mail render threads call it.
 */
import { createEvent, type EventAttributes } from 'ics';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { translator, type Language } from '../i18n/index.ts';
import type { OrderDocumentInput } from './types.ts';
import { wallClockIn } from './wall-clock.ts';

export interface CalendarFile {
  /** The event's title reduced to letters, digits and dashes, then the local start: `Die-Zauberflöte-2026-07-03-1930.ics`. */
  filename: string;
  /** The iCalendar text, CRLF line ends. */
  content: string;
}

interface CalendarPerformance {
  performanceId: string;
  eventTitle: string;
  startsAt: Date;
  endsAt: Date;
  /** The event's IANA zone. */
  timeZone: string;
  venueName: string | null;
  organizerName: string;
}

/** What an order's calendar file says of it: its number and how many of its tickets are for the performance. */
interface CalendarOrder {
  orderNo: string;
  ticketCount: number;
}

const PRODUCT_ID = '-//Marquee//Tickets//EN';
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/GMT', 'GMT', 'Etc/Zulu', 'Zulu']);
/** RFC 5545, 3.1: "Lines of text SHOULD NOT be longer than 75 octets, excluding the line break." */
const MAX_LINE_OCTETS = 75;

/** One file per distinct performance of the order's tickets, in the order the tickets come. */
export function calendarFiles(doc: OrderDocumentInput): CalendarFile[] {
  const performances = new Map<string, { performance: CalendarPerformance; ticketCount: number }>();
  for (const ticket of doc.tickets) {
    const seen = performances.get(ticket.performanceId);
    if (seen) {
      seen.ticketCount += 1;
      continue;
    }
    performances.set(ticket.performanceId, {
      ticketCount: 1,
      performance: {
        performanceId: ticket.performanceId,
        eventTitle: ticket.eventTitle,
        startsAt: ticket.performanceStartsAt,
        endsAt: ticket.performanceEndsAt,
        timeZone: ticket.eventTimeZone,
        venueName: ticket.venueName,
        organizerName: doc.organizerName,
      },
    });
  }
  const taken = new Set<string>();
  return [...performances.values()].map(({ performance, ticketCount }) => {
    let filename = calendarFilename(performance);
    for (let n = 2; taken.has(filename); n += 1) filename = calendarFilename(performance, n);
    taken.add(filename);
    return {
      filename,
      content: performanceCalendar(performance, doc.language, { orderNo: doc.orderNo, ticketCount }),
    };
  });
}

/** The calendar file of one performance; with `order`, its description names the order and its tickets. */
export function performanceCalendar(p: CalendarPerformance, language: Language, order?: CalendarOrder): string {
  const tr = translator(language);
  const description = [tr.t('calendar.organized_by', { organizer: p.organizerName })];
  if (order) description.push(tr.t('calendar.order_tickets', { order: order.orderNo, count: order.ticketCount }));
  const attributes: EventAttributes = {
    productId: PRODUCT_ID,
    uid: `${p.performanceId}@marquee`,
    title: p.eventTitle,
    start: p.startsAt.getTime(),
    startInputType: 'utc',
    startOutputType: 'utc',
    end: p.endsAt.getTime(),
    endInputType: 'utc',
    endOutputType: 'utc',
    description: description.join('\n'),
    ...(p.venueName ? { location: p.venueName } : {}),
    status: 'CONFIRMED',
    busyStatus: 'BUSY',
  };
  const { error, value } = createEvent(attributes);
  if (error || value === null) throw error ?? new Error('ics wrote no calendar');
  const lines = value.replace(/\r\n[ \t]/g, '').split('\r\n');
  if (lines.at(-1) === '') lines.pop();
  return `${inZone(lines, p).map(fold).join('\r\n')}\r\n`;
}

/** `Die-Zauberflöte-2026-07-03-1930.ics`: the title's letters and digits, the local start; `n` tells twins apart. */
export function calendarFilename(p: Pick<CalendarPerformance, 'eventTitle' | 'startsAt' | 'timeZone'>, n?: number) {
  const title =
    p.eventTitle
      .normalize('NFKC')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'event';
  const local = wallClock(p.startsAt, p.timeZone); // 20260703T193000
  const when = `${local.slice(0, 4)}-${local.slice(4, 6)}-${local.slice(6, 8)}-${local.slice(9, 13)}`;
  return `${title}-${when}${n === undefined ? '' : `-${n}`}.ics`;
}

/** The start and end in the event's zone with its VTIMEZONE before the event; UTC stays as `ics` wrote it. */
function inZone(lines: string[], p: CalendarPerformance): string[] {
  if (UTC_ZONES.has(p.timeZone)) return lines;
  const block = tzlib_get_ical_block(p.timeZone);
  if (!Array.isArray(block) || block.length < 2) return lines; // a zone the library lacks: UTC is still right
  const [vtimezone, tzidParam] = block as [string, string]; // 'BEGIN:VTIMEZONE…END:VTIMEZONE', 'TZID=Europe/Berlin'
  const rewrite = (line: string) => {
    const match = /^(DTSTART|DTEND):\d{8}T\d{6}Z$/.exec(line);
    if (!match) return line;
    return `${match[1]};${tzidParam}:${wallClock(match[1] === 'DTSTART' ? p.startsAt : p.endsAt, p.timeZone)}`;
  };
  const out: string[] = [];
  for (const line of lines) {
    if (line === 'BEGIN:VEVENT') out.push(...vtimezone.split(/\r?\n/).filter((l) => l !== ''));
    out.push(rewrite(line));
  }
  return out;
}

/** `20260703T193000`: the local date and time in the zone, as iCalendar writes a zoned DATE-TIME. */
function wallClock(at: Date, timeZone: string): string {
  const c = wallClockIn(at, timeZone);
  return `${c.year}${c.month}${c.day}T${c.hour}${c.minute}${c.second}`;
}

/**
 * RFC 5545, 3.1: a line longer than 75 octets continues on lines that start with a space.
 * The split falls between characters (code points), never inside one's UTF-8 bytes.
 */
function fold(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  let limit = MAX_LINE_OCTETS;
  for (const char of line) {
    const code = char.codePointAt(0)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
      limit = MAX_LINE_OCTETS - 1; // the leading space counts
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}
