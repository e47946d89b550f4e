/**
 * What a door device does for itself (docs/dashboard.md, "Door devices"): claims its
 * provisioning token for a device key (POST /v1/device_claims, no credential), and reads
 * what it is (GET /v1/door_device, with that key).
 *
 * The claim is one conditional UPDATE of the device (token hash, unclaimed, unrevoked,
 * unexpired) and the key's INSERT, in one transaction: of two claims of one token, the
 * second finds the hash gone once the first commits and is refused like any used token.
 */
import {
  claimDoorDeviceRow,
  findDeviceWithOrganizer,
  performancesOfDevices,
  setDoorDeviceKey,
} from '../../db/repositories/door-devices.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { invalid, notFound } from '../../errors/domain-error.ts';
import { createApiKey, type AuthContext } from '../auth/api-keys.ts';
import { hashProvisioningToken, isWellFormedProvisioningToken } from './provisioning.ts';

/** The one answer to a token that cannot be claimed, whatever the reason (no oracle). */
const CLAIM_REFUSED =
  'This pairing code cannot be used: it was already used, it expired (codes last 10 minutes) or it was never issued. Create a new one in the dashboard.';

const refused = () => invalid('parameter_invalid', CLAIM_REFUSED, 'token');

/** A device as it sees itself: its settings, its organizer, its performances by start. */
export async function describeDoorDevice(db: Executor, organizerId: string, deviceId: string) {
  const row = await findDeviceWithOrganizer(db, organizerId, deviceId);
  if (!row) throw notFound('Door device');
  const performances = await performancesOfDevices(db, organizerId, row.performance_ids);
  return { ...row, performances };
}

export type DoorDeviceSelf = Awaited<ReturnType<typeof describeDoorDevice>>;

export interface ClaimedDoorDevice {
  /** The device key: shown once, in the claim's answer. */
  key: string;
  device: DoorDeviceSelf;
  /** Who the claiming request acts as from now on: the new key (the audit log's actor). */
  auth: AuthContext;
}

export async function claimDoorDevice(db: Executor, token: string, now: Date): Promise<ClaimedDoorDevice> {
  if (!isWellFormedProvisioningToken(token)) throw refused();
  return withTransaction(db, async (trx) => {
    const claimed = await claimDoorDeviceRow(trx, hashProvisioningToken(token), now);
    if (!claimed) throw refused();
    const key = await createApiKey(trx, {
      organizerId: claimed.organizer_id,
      name: `Door device: ${claimed.name}`,
      scopes: ['check_in'],
      // The person who provisioned the device made its key too.
      createdBy: claimed.created_by,
    });
    await setDoorDeviceKey(trx, claimed.id, key.id);
    const device = await describeDoorDevice(trx, claimed.organizer_id, claimed.id);
    return {
      key: key.key,
      device,
      auth: {
        apiKeyId: key.id,
        userId: null,
        organizerId: claimed.organizer_id,
        scopes: ['check_in'],
        currency: device.organizer_currency,
        timezone: device.organizer_timezone,
        deviceId: claimed.id,
        performanceIds: device.performance_ids,
      },
    };
  });
}
