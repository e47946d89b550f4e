/** The CSV exports of an event (docs/exports.md): the query and the text/csv response. */
import { Type } from '@sinclair/typebox';
import { LOWERCASE_KEYWORD } from '../validation.ts';

export const ExportQuery = Type.Object(
  {
    performance_id: Type.Optional(
      Type.String({
        format: 'uuid',
        [LOWERCASE_KEYWORD]: true,
        description: 'only this performance of the event (400 `parameter_invalid` for a performance of another event)',
      }),
    ),
    bom: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'start the file with a UTF-8 byte order mark, so spreadsheet programs read it as UTF-8',
      }),
    ),
  },
  { additionalProperties: false },
);

const ORDERS_EXAMPLE = [
  'order_no,order_id,status,channel,created_at,buyer_first_name,buyer_last_name,buyer_email,buyer_phone,' +
    'transaction_no,performance_id,performance_title,performance_starts_at,ticket_count,currency,' +
    'items_total_minor,service_fees_minor,surcharges_minor,taxes_minor,total_minor,order_total_minor,etickets_sent_at',
  'BW3KPTD2,dc53ef2e-a258-43de-9b33-3f14a1029cde,fulfilled,box_office,2026-11-24T22:23:08.685Z,Ada,Lovelace,' +
    "ada@example.com,'+44 20 7946 0000,BW3KPTD2-T1,1c721279-854c-458a-9124-f115dfc1ca66,,2027-03-12T18:30:00.000Z," +
    '2,EUR,7000,0,0,0,7000,7000,2026-11-24T22:23:11.042Z',
  'Q7NZ4HKM,5b0e1f7c-8d2a-4f6b-9e3c-2a1d4c7b8e90,unpaid,box_office,2026-11-24T22:31:40.112Z,"Grace ""Amazing""",' +
    'Hopper,grace@example.com,,Q7NZ4HKM-T1,1c721279-854c-458a-9124-f115dfc1ca66,,2027-03-12T18:30:00.000Z,' +
    '1,EUR,1800,0,0,0,1800,1800,',
  '',
].join('\r\n');

const TICKETS_EXAMPLE = [
  'ticket_no,ticket_id,serial_no,status,checked_in_at,holder_first_name,holder_last_name,holder_email,' +
    'ticket_type_id,ticket_type_name,performance_id,performance_title,performance_starts_at,order_no,order_id,' +
    'order_status,currency,unit_price_minor,total_minor,transferred_at,created_at,answer_dietary',
  'BW3KPTD2-001,47c82abf-8a3a-4831-9c85-a42e52c1dc01,X757RSJ2T3IKV3F3Y57S5TNFOLZ7L4QP,checked_in,' +
    '2027-03-12T18:02:41.118Z,Ada,Lovelace,ada@example.com,30d9e514-51f0-4e01-9588-2fc19be9b261,Standard,' +
    '1c721279-854c-458a-9124-f115dfc1ca66,,2027-03-12T18:30:00.000Z,BW3KPTD2,dc53ef2e-a258-43de-9b33-3f14a1029cde,' +
    'fulfilled,EUR,3500,3500,,2026-11-24T22:23:08.685Z,vegetarian',
  'BW3KPTD2-002,4a9a5717-2ea7-4c5c-a9e9-6ba2b2212696,MI5VQMIWWQWEVLGRMS6D2A4SM27NCEEU,purchased,,Ada,Lovelace,' +
    'ada@example.com,30d9e514-51f0-4e01-9588-2fc19be9b261,Standard,1c721279-854c-458a-9124-f115dfc1ca66,,' +
    '2027-03-12T18:30:00.000Z,BW3KPTD2,dc53ef2e-a258-43de-9b33-3f14a1029cde,fulfilled,EUR,3500,3500,,' +
    '2026-11-24T22:23:08.685Z,"nuts, shellfish"',
  '',
].join('\r\n');

const csvResponse = (description: string, example: string) => ({
  description,
  headers: {
    'content-disposition': {
      description: '`attachment` with a file name made of the event title (and the performance start)',
      type: 'string',
    },
  },
  content: {
    'text/csv': {
      schema: Type.String({
        description:
          'RFC 4180 CSV, UTF-8, CRLF line ends, a header row first (docs/exports.md); with `bom=true` the file starts with U+FEFF',
        examples: [example],
      }),
    },
  },
});

export const OrdersCsv = csvResponse(
  'The orders of the event as CSV, one row per order and performance of the event, oldest first (streamed)',
  ORDERS_EXAMPLE,
);
export const TicketsCsv = csvResponse(
  'The tickets (attendees) of the event as CSV, one row per ticket, oldest first, with one column per registration question (streamed)',
  TICKETS_EXAMPLE,
);
