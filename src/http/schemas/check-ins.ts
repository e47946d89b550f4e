/**
 * The door's uploads and its local copy (docs/check-ins.md): the scans a door device made
 * offline, the outcome each was given, and the compact copy of the tickets it decides from.
 */
import { Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, ref, StringEnum, Timestamp, Uuid } from './common.ts';
import { LOWERCASE_KEYWORD } from '../validation.ts';

/** Scans per upload (docs/check-ins.md, "The upload"). */
export const MAX_SCANS_PER_UPLOAD = 500;
/** Items per page of the door's copy: a door of 10,000 tickets reads it in 10 requests. */
export const DOOR_TICKETS_LIMIT_MAX = 1000;

const EXAMPLE_TICKET_ID = '5b0c3c8e-6f43-4a47-9d0e-6a4cf4f6c3a1';
const EXAMPLE_PERFORMANCE_ID = '1c721279-854c-458a-9124-f115dfc1ca66';
const EXAMPLE_DEVICE = { device_id: '8f6e2b7a-3c1d-4e5f-9a0b-1c2d3e4f5a6b', device_name: 'North gate' };

const CheckInOutcome = StringEnum(['admitted', 'already_checked_in', 'not_admittable'] as const, {
  description:
    '`admitted`: this scan is the ticket’s admission; `already_checked_in`: it was admitted before (a double entry when it was not this scan); `not_admittable`: see `reason`',
});
const CheckInReason = StringEnum(['unknown', 'wrong_performance', 'refunded', 'cancelled', 'unpaid'] as const);

const DeviceRef = Type.Object({ device_id: Uuid, device_name: Type.String() });

export const UploadCheckIns = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          ticket_id: Uuid,
          scanned_at: Type.String({ format: 'date-time', description: 'when the door scanned it (RFC 3339)' }),
          device_scan_id: Type.String({
            minLength: 1,
            maxLength: 100,
            description:
              'the device’s id of the scan: a scan uploaded again with it is answered from its first outcome',
          }),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: MAX_SCANS_PER_UPLOAD,
        description: `1 to ${MAX_SCANS_PER_UPLOAD} scans, applied in scanned_at order; device_scan_id unique in the body`,
      },
    ),
  },
  {
    $id: 'UploadCheckInsRequest',
    additionalProperties: false,
    examples: [
      { data: [{ ticket_id: EXAMPLE_TICKET_ID, scanned_at: '2026-11-28T19:02:11.250Z', device_scan_id: 'n-000017' }] },
    ],
  },
);

const checkInScanExample = {
  id: '0e7d5c4b-3a29-4f18-8e07-d6c5b4a39281',
  device_scan_id: 'n-000017',
  ticket_id: EXAMPLE_TICKET_ID,
  ticket_no: 'BW3KPTD2-001',
  performance_id: EXAMPLE_PERFORMANCE_ID,
  scanned_at: '2026-11-28T19:02:11.250Z',
  received_at: '2026-11-28T19:20:40.031Z',
  outcome: 'admitted',
  reason: null,
  checked_in_at: '2026-11-28T19:02:11.250Z',
  checked_in_by: EXAMPLE_DEVICE,
  device: EXAMPLE_DEVICE,
};

export const CheckInScan = Type.Object(
  {
    id: Uuid,
    device_scan_id: Type.String(),
    ticket_id: Uuid,
    ticket_no: Nullable(Type.String({ description: 'null when the ticket is unknown' })),
    performance_id: Nullable(Uuid),
    scanned_at: Timestamp,
    received_at: Timestamp,
    outcome: CheckInOutcome,
    reason: Nullable(CheckInReason),
    checked_in_at: Nullable(
      Type.Unsafe<Date | string>(
        Type.String({
          format: 'date-time',
          description: 'the admission’s time: this scan’s (admitted) or the first one’s; null when not admittable',
        }),
      ),
    ),
    checked_in_by: Nullable(
      Type.Object(DeviceRef.properties, {
        description: 'the device whose admission counts; null when an integration or a person admitted',
      }),
    ),
    device: Nullable(
      Type.Object(DeviceRef.properties, { description: 'the device that uploaded this scan; null for an integration' }),
    ),
  },
  { $id: 'CheckInScan', description: 'An uploaded scan and the outcome it was given', examples: [checkInScanExample] },
);

export const CheckInScanList = ListOf(CheckInScan, 'CheckInScanList');

/** The upload's answer: every scan, in request order (no pages). */
export const UploadedCheckIns = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(ref(CheckInScan)) },
  { $id: 'UploadedCheckIns', description: 'Every scan of the upload with its outcome, in request order' },
);

export const ListCheckInsQuery = Type.Object(
  {
    ...PaginationQuery,
    outcome: Type.Optional(CheckInOutcome),
    performance_id: Type.Optional(Uuid),
    received_gte: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'only scans received at or after this instant (inclusive); RFC 3339',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DoorTicket = Type.Object(
  {
    id: Uuid,
    serial_no: Type.String({ description: 'what the e-ticket’s QR code encodes' }),
    ticket_no: Type.String(),
    performance_id: Uuid,
    ticket_type_id: Uuid,
    ticket_type_name: Type.String(),
    holder_name: Type.String({ description: 'first and last name, trimmed' }),
    status: StringEnum(['purchased', 'checked_in', 'refunded', 'cancelled'] as const),
    paid: Type.Boolean({ description: 'its order is placed or fulfilled' }),
    order_cancelled: Type.Boolean(),
    checked_in_at: Nullable(Timestamp),
    checked_in_device_id: Nullable(Uuid),
    updated_at: Timestamp,
  },
  {
    $id: 'DoorTicket',
    description: 'A ticket as the door’s local copy keeps it: what the admission rule decides from',
    examples: [
      {
        id: EXAMPLE_TICKET_ID,
        serial_no: 'K7QWJ3M2XN4PZ6RT8VB5CD9FGH2LS3YA',
        ticket_no: 'BW3KPTD2-001',
        performance_id: EXAMPLE_PERFORMANCE_ID,
        ticket_type_id: '30d9e514-51f0-4e01-9588-2fc19be9b261',
        ticket_type_name: 'Standard',
        holder_name: 'Ada Lovelace',
        status: 'purchased',
        paid: true,
        order_cancelled: false,
        checked_in_at: null,
        checked_in_device_id: null,
        updated_at: '2026-11-24T22:23:08.685Z',
      },
    ],
  },
);

export const DoorTicketList = ListOf(DoorTicket, 'DoorTicketList');

export const ListDoorTicketsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DOOR_TICKETS_LIMIT_MAX, default: DOOR_TICKETS_LIMIT_MAX }),
    ),
    starting_after: Type.Optional(
      Type.String({
        format: 'uuid',
        [LOWERCASE_KEYWORD]: true,
        description: 'the `id` of the last item processed; pass its `updated_at` as `updated_gte` with it',
      }),
    ),
    updated_gte: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'the `updated_at` of the last item processed (inclusive); RFC 3339 (docs/sync.md)',
      }),
    ),
    performance_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
