/**
 * Door devices and a performance's attendance on the dashboard API (docs/door.md, "Door
 * devices"; docs/dashboard.md): the shapes the Devices and Attendance screens read and the
 * calls, through the session's typed client (./dashboard.ts: cookie, CSRF token, a
 * refusal thrown as the SDK's MarqueeApiError).
 */
import { answer, dashboard } from './dashboard.ts';

// TEMPORARY: the server routes are not in the generated types yet; these follow the contract.
export interface DoorDevicePerformance {
  id: string;
  event_id: string;
  event_name: string;
  starts_at: string;
  timezone: string;
}

export type DeviceStatus = 'awaiting_pairing' | 'pairing_expired' | 'active' | 'revoked';

export interface DoorDevice {
  id: string;
  name: string;
  performance_ids: string[];
  performances: DoorDevicePerformance[];
  online_only: boolean;
  status: DeviceStatus;
  provisioning_expires_at: string | null;
  claimed_at: string | null;
  revoked_at: string | null;
  last_seen_at: string | null;
  last_synced_at: string | null;
  scans_today: number;
  created_at: string;
  created_by: { id: string; name: string | null; email: string | null } | null;
}

export interface ProvisionedDevice extends DoorDevice {
  provisioning_token: string;
  provisioning_url: string;
  provisioning_qr: string;
}

interface DeviceList {
  data: DoorDevice[];
  has_more: boolean;
}

export interface NewDoorDevice {
  name: string;
  performance_ids: string[];
  online_only?: boolean;
}

export interface Attendance {
  performance_id: string;
  sold: number;
  admitted: number;
  gates: { device_id: string | null; name: string; admitted: number; last_admitted_at: string | null }[];
  per_minute: { minute: string; admitted: number }[];
  double_entries: {
    ticket_id: string;
    ticket_no: string;
    first: { device_id: string | null; device_name: string | null; checked_in_at: string };
    second: { device_id: string | null; device_name: string | null; scanned_at: string; received_at: string };
  }[];
}

interface Outcome {
  data?: unknown;
  error?: unknown;
  response: Response;
}
const loose = dashboard as unknown as {
  GET(path: string, init?: unknown): Promise<Outcome>;
  POST(path: string, init?: unknown): Promise<Outcome>;
};
const call = <T>(promise: Promise<Outcome>) => answer(promise) as Promise<T>;

const PAGE = 100;

/** Every device of the organizer, newest first (an organizer has a handful). */
export async function listDoorDevices(): Promise<DoorDevice[]> {
  const devices: DoorDevice[] = [];
  for (;;) {
    const last = devices.at(-1);
    const query = last === undefined ? { limit: PAGE } : { limit: PAGE, starting_after: last.id };
    const page = await call<DeviceList>(loose.GET('/dashboard/v1/door_devices', { params: { query } }));
    devices.push(...page.data);
    if (!page.has_more) return devices;
  }
}

export const createDoorDevice = (body: NewDoorDevice) =>
  call<ProvisionedDevice>(loose.POST('/dashboard/v1/door_devices', { body }));

export const revokeDoorDevice = (id: string) =>
  call<DoorDevice>(loose.POST('/dashboard/v1/door_devices/{id}/revoke', { params: { path: { id } } }));

export const reissueDoorDeviceToken = (id: string) =>
  call<ProvisionedDevice>(
    loose.POST('/dashboard/v1/door_devices/{id}/provisioning_token', { params: { path: { id } } }),
  );

export const getAttendance = (performanceId: string) =>
  call<Attendance>(
    loose.GET('/dashboard/v1/performances/{id}/attendance', { params: { path: { id: performanceId } } }),
  );
