import { Type } from '@sinclair/typebox';
import { ListOf, ListViewQuery, Nullable, PaginationQuery, Timestamp, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';

const TicketStatus = Type.Unsafe<'purchased' | 'checked_in' | 'refunded' | 'cancelled'>({
  type: 'string',
  enum: ['purchased', 'checked_in', 'refunded', 'cancelled'],
});

export const Ticket = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('ticket'),
    ticket_no: Type.String({ description: 'human-readable, unique per organizer' }),
    serial_no: Type.String({ description: 'what the gate scans (QR code); 160 random bits, base32' }),
    status: TicketStatus,
    performance_id: Uuid,
    ticket_type_id: Uuid,
    holder: Type.Object({ first_name: Type.String(), last_name: Nullable(Type.String()), email: Type.String() }),
    is_free: Type.Boolean(),
    unit_price_minor: Type.Integer(),
    total_minor: Type.Integer({ description: 'unit price plus the per-ticket fee and its share of the tax' }),
    checked_in_at: Nullable(Timestamp),
    transferred_at: Nullable(Timestamp),
    order_id: Uuid,
    order_no: Type.String(),
    created_at: Timestamp,
    updated_at: Type.Unsafe<Date | string>(
      Type.String({
        format: 'date-time',
        description:
          'when the ticket last changed (issue, check-in, transfer, refund, cancellation); the sync cursor (docs/sync.md)',
      }),
    ),
  },
  { $id: 'Ticket', description: 'An issued ticket: one admission', examples: [EXAMPLES.ticket] },
);
export const TicketList = ListOf(Ticket, 'TicketList');

/** Longest `serial_no` filter accepted: a serial is 32 characters (src/domain/orders/numbers.ts); room to spare. */
const SERIAL_NO_MAX_LENGTH = 64;
/** Longest `ticket_no` filter accepted: a ticket number is 12 or 13 characters; room to spare. */
const TICKET_NO_MAX_LENGTH = 64;

export const ListTicketsQuery = Type.Object(
  {
    ...PaginationQuery,
    order_id: Type.Optional(Uuid),
    performance_id: Type.Optional(Uuid),
    status: Type.Optional(TicketStatus),
    serial_no: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: SERIAL_NO_MAX_LENGTH,
        description:
          'exact `serial_no`, what the e-ticket’s QR code encodes: the door’s lookup of a scanned code (docs/door.md); not blank',
      }),
    ),
    ticket_no: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: TICKET_NO_MAX_LENGTH,
        description: 'exact `ticket_no` (`<order_no>-<nnn>`), for a number typed at the door (docs/door.md); not blank',
      }),
    ),
    ...ListViewQuery,
  },
  { additionalProperties: false },
);

const Name = Type.String({ minLength: 1, maxLength: 100 });
export const TransferTicket = Type.Object(
  {
    first_name: Name,
    last_name: Type.Optional(Nullable(Name)),
    email: Type.String({ format: 'email', maxLength: 254 }),
  },
  { additionalProperties: false },
);

export const ScanBody = Type.Object(
  {
    organizer_id: Uuid,
    code: Type.String({ minLength: 1, maxLength: 200, description: 'the serial_no read from the QR code' }),
  },
  { additionalProperties: false },
);
