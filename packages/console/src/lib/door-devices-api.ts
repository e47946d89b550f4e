/**
 * Door devices and a performance's attendance on the dashboard API (docs/console.md,
 * "Devices", "Attendance"; docs/door.md): the shapes the two screens read, as the
 * generated types say them (../generated/dashboard.ts), and the calls, through the
 * session's typed client (./dashboard.ts: cookie, CSRF token, a refusal thrown as the
 * SDK's MarqueeApiError).
 */
import type { paths } from '../generated/dashboard.ts';
import { answer, dashboard } from './dashboard.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type DoorDevice = Json<paths['/dashboard/v1/door_devices/{id}']['get']['responses'][200]>;
export type DeviceStatus = DoorDevice['status'];
export type ProvisionedDevice = Json<paths['/dashboard/v1/door_devices']['post']['responses'][201]>;
type NewDoorDevice = Json<NonNullable<paths['/dashboard/v1/door_devices']['post']['requestBody']>>;
export type Attendance = Json<paths['/dashboard/v1/performances/{id}/attendance']['get']['responses'][200]>;

const PAGE = 100;

/** Every device of the organizer, newest first (an organizer has a handful). */
export async function listDoorDevices(): Promise<DoorDevice[]> {
  const devices: DoorDevice[] = [];
  for (;;) {
    const last = devices.at(-1);
    const query = last === undefined ? { limit: PAGE } : { limit: PAGE, starting_after: last.id };
    const page = await answer(dashboard.GET('/dashboard/v1/door_devices', { params: { query } }));
    devices.push(...page.data);
    if (!page.has_more) return devices;
  }
}

export const createDoorDevice = (body: NewDoorDevice) => answer(dashboard.POST('/dashboard/v1/door_devices', { body }));

export const setDoorDeviceOnlineOnly = (id: string, onlineOnly: boolean) =>
  answer(
    dashboard.PATCH('/dashboard/v1/door_devices/{id}', {
      params: { path: { id } },
      body: { online_only: onlineOnly },
    }),
  );

export const revokeDoorDevice = (id: string) =>
  answer(dashboard.POST('/dashboard/v1/door_devices/{id}/revoke', { params: { path: { id } } }));

export const reissueDoorDeviceToken = (id: string) =>
  answer(dashboard.POST('/dashboard/v1/door_devices/{id}/provisioning_token', { params: { path: { id } } }));

export const getAttendance = (performanceId: string) =>
  answer(dashboard.GET('/dashboard/v1/performances/{id}/attendance', { params: { path: { id: performanceId } } }));
