/**
 * The /v1 resources the door device app reads and writes (docs/door.md, "The door
 * device"), typed by hand from the API's contract: small, and kept here so the app does
 * not wait for the SDK to be generated again.
 */
import type { AdmissionRefusal } from './admission.ts';

interface DevicePerformance {
  id: string;
  event_id: string;
  event_name: string;
  starts_at: string;
  ends_at: string | null;
  timezone: string;
}

/** GET /v1/door_device: the device as its own key sees it. */
export interface DoorDeviceSelf {
  id: string;
  name: string;
  online_only: boolean;
  organizer: { id: string; name: string; timezone: string };
  performances: DevicePerformance[];
}

export type TicketStatus = 'purchased' | 'checked_in' | 'refunded' | 'cancelled';

/** One ticket of the local copy (GET /v1/door_tickets). */
export interface DoorTicket {
  id: string;
  serial_no: string;
  ticket_no: string;
  performance_id: string;
  ticket_type_id: string;
  ticket_type_name: string;
  holder_name: string;
  status: TicketStatus;
  paid: boolean;
  order_cancelled: boolean;
  checked_in_at: string | null;
  checked_in_device_id: string | null;
  updated_at: string;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/** One scan as POST /v1/check_ins takes it. */
export interface ScanUpload {
  ticket_id: string;
  scanned_at: string;
  device_scan_id: string;
}

type ServerRefusal = Exclude<AdmissionRefusal, 'already_checked_in'>;

interface DeviceRef {
  device_id: string;
  device_name: string;
}

/** An uploaded scan and what the server made of it (POST and GET /v1/check_ins). */
export interface CheckInScan {
  id: string;
  device_scan_id: string;
  ticket_id: string;
  ticket_no: string | null;
  performance_id: string | null;
  scanned_at: string;
  received_at: string;
  outcome: 'admitted' | 'already_checked_in' | 'not_admittable';
  reason: ServerRefusal | null;
  checked_in_at: string | null;
  checked_in_by: DeviceRef | null;
  device: DeviceRef | null;
}

/** The few fields of a /v1 ticket the device reads when a code is not in its copy. */
export interface ApiTicket {
  id: string;
  serial_no: string;
  ticket_no: string;
  performance_id: string;
  status: TicketStatus;
  holder: { first_name: string | null; last_name: string | null };
}
