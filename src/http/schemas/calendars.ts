/** The calendar file download (docs/tickets.md, "Calendar files"). */
import { Type } from '@sinclair/typebox';

const EXAMPLE = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Marquee//Tickets//EN',
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  '…',
  'END:VTIMEZONE',
  'BEGIN:VEVENT',
  'UID:0b9f4a43-5d0e-4f43-a0a4-5b9a4b7c2f10@marquee',
  'SUMMARY:Die Zauberflöte',
  'DTSTART;TZID=Europe/Berlin:20260703T193000',
  'DTEND;TZID=Europe/Berlin:20260703T220000',
  'LOCATION:Staatsoper',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

export const CalendarFile = {
  description: "The performance's iCalendar file (RFC 5545): one event in the event's time zone",
  headers: {
    'content-disposition': {
      description: '`attachment` with a file name made of the event title and the local start',
      type: 'string',
    },
  },
  content: {
    'text/calendar': {
      schema: Type.String({
        description:
          "iCalendar, UTF-8, CRLF line ends, lines folded at 75 octets; DTSTART and DTEND in the event's zone with " +
          'its VTIMEZONE (plain UTC times for an event in UTC); UID `<performance id>@marquee`',
        examples: [EXAMPLE],
      }),
    },
  },
};
