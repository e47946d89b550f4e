/**
 * Pairing a door device (docs/door.md, "Provisioning"): the dashboard shows a QR code of
 * `<origin>/app/device#pair=<token>` and the token itself; the device reads the QR with
 * its camera, or the link or the bare `mqd_…` code is pasted, or the link is opened (the
 * token arrives in location.hash, kept out of server logs and Referer headers). The
 * token is claimed once for the device key (POST /v1/device_claims).
 */
import { claimDevice, type ApiOptions } from './api.ts';
import { storePairing, type DeviceDb, type Pairing } from './device-db.ts';

const TOKEN = /mqd_[A-Za-z0-9_-]{20,}/;

/** The pairing token in a scanned QR code, a pasted link or code, or a location hash. */
export function pairingTokenOf(text: string): string | undefined {
  const hash = /[#&?]pair=([^&\s]+)/.exec(text);
  if (hash) return decodeURIComponent(hash[1]!);
  return TOKEN.exec(text.trim())?.[0];
}

/** Claims the token and stores the key and device (replacing any earlier pairing). */
export async function pairDevice(
  db: DeviceDb,
  token: string,
  options: ApiOptions = {},
  now: () => Date = () => new Date(),
): Promise<Pairing> {
  const { api_key, device } = await claimDevice(token, options);
  const pairing: Pairing = { api_key, device, paired_at: now().toISOString() };
  await storePairing(db, pairing);
  return pairing;
}
