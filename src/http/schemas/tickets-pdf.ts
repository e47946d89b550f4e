/** The PDF tickets of an order (docs/tickets.md, "PDF tickets"): the application/pdf response. */
import { Type } from '@sinclair/typebox';

export const TicketsPdf = {
  description: 'The order’s tickets as one PDF, a page per valid ticket (purchased or checked in)',
  headers: {
    'content-disposition': {
      description: '`attachment; filename="tickets-<order_no>.pdf"`',
      type: 'string',
    },
    'cache-control': { description: '`no-store`: personal data, kept by no cache', type: 'string' },
  },
  content: {
    'application/pdf': {
      // The handler sends the bytes (a Buffer); the document says a binary string.
      schema: Type.Unsafe<Buffer>({
        type: 'string',
        format: 'binary',
        description:
          'PDF 1.3, fonts embedded; each page A4 or Letter (the organizer’s `ticket_paper_size`) with the event, the ' +
          'performance’s date and time in the event’s zone, venue, ticket type, price, holder, ticket and order numbers, ' +
          'and the ticket’s serial as a QR code, in the event’s language',
      }),
    },
  },
};
