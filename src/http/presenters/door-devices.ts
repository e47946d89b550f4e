/**
 * The public shapes of door devices (schemas DoorDevice, ProvisionedDoorDevice,
 * DoorDeviceSelf, ClaimedDoorDevice): docs/dashboard.md, "Door devices".
 */
import type { ClaimedDoorDevice, DoorDeviceSelf } from '../../domain/devices/claims.ts';
import type { DoorDeviceView, ProvisionedDoorDevice } from '../../domain/devices/door-devices.ts';

export function presentDoorDevice(device: DoorDeviceView) {
  return {
    id: device.id,
    name: device.name,
    performance_ids: device.performance_ids,
    performances: device.performances.map((p) => ({
      id: p.id,
      event_id: p.event_id,
      event_name: p.event_name,
      starts_at: p.starts_at,
      timezone: p.timezone,
    })),
    online_only: device.online_only,
    status: device.status,
    provisioning_expires_at: device.provisioning_expires_at,
    claimed_at: device.claimed_at,
    revoked_at: device.revoked_at,
    last_seen_at: device.last_used_at,
    last_synced_at: device.last_synced_at,
    scans_today: device.scans_today,
    created_at: device.created_at,
    created_by:
      device.created_by === null
        ? null
        : { id: device.created_by, name: device.created_by_name, email: device.created_by_email },
  };
}

/** The console page a device pairs on, with the code in the fragment (never sent to a server). */
function provisioningUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/app/device#pair=${token}`;
}

/** A QR code of the text as an SVG data URL (level M, as the e-tickets' codes). */
async function qrSvgDataUrl(text: string): Promise<string> {
  // qrcode loads with the first pairing code (docs/architecture.md, "Start-up").
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** A device with its new pairing code, the console link that carries it, and that link's QR code. */
export async function presentProvisionedDoorDevice(provisioned: ProvisionedDoorDevice, publicUrl: string) {
  const url = provisioningUrl(publicUrl, provisioned.token.token);
  return {
    ...presentDoorDevice(provisioned.device),
    provisioning_token: provisioned.token.token,
    provisioning_url: url,
    provisioning_qr: await qrSvgDataUrl(url),
  };
}

export function presentDoorDeviceSelf(device: DoorDeviceSelf) {
  return {
    id: device.id,
    name: device.name,
    online_only: device.online_only,
    organizer: { id: device.organizer_id, name: device.organizer_name, timezone: device.organizer_timezone },
    performances: device.performances.map((p) => ({
      id: p.id,
      event_id: p.event_id,
      event_name: p.event_name,
      starts_at: p.starts_at,
      ends_at: p.ends_at,
      timezone: p.timezone,
    })),
  };
}

export function presentClaimedDoorDevice(claimed: ClaimedDoorDevice) {
  return { api_key: claimed.key, device: presentDoorDeviceSelf(claimed.device) };
}
