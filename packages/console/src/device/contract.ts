/**
 * The /v1 resources the door device app reads and writes (docs/door.md, "Door devices"),
 * as the SDK's types generated from the OpenAPI document name them: the app and the API
 * cannot drift apart.
 */
import type { CheckInScan, DoorDeviceSelf, DoorTicket, Ticket, UploadCheckInsRequest } from '@marquee/sdk';

export type { CheckInScan, DoorDeviceSelf, DoorTicket };

export type TicketStatus = DoorTicket['status'];

export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/** One scan as POST /v1/check_ins takes it. */
export type ScanUpload = UploadCheckInsRequest['data'][number];

/** The few fields of a /v1 ticket the device reads when a code is not in its copy. */
export type ApiTicket = Pick<Ticket, 'id' | 'serial_no' | 'ticket_no' | 'performance_id' | 'status' | 'holder'>;
