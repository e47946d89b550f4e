/**
 * Door devices as the dashboard manages them (docs/dashboard.md, "Door devices"): created
 * with a one-time provisioning token, listed with their state, changed, given a new token
 * while unpaired, and revoked together with their key. The claim of a token, by the
 * device itself, is ./claims.ts.
 *
 * A device's key caches its performances in the API-key lookup cache (AuthContext), so a
 * change of them or a revocation forgets that entry once it has committed: the next
 * request on this instance sees the change; other instances within the cache's TTL.
 */
import { keysetPage, type Page, type PageRequest } from '../../db/pagination.ts';
import {
  doorDevicesQuery,
  findApiKeyHash,
  findDoorDevice,
  findDoorDeviceState,
  insertDoorDevice,
  performancesOfDevices,
  reissueDoorDeviceTokenRow,
  revokeDoorDeviceRow,
  updateDoorDeviceRow,
  type DevicePerformanceRow,
  type DoorDeviceRow,
} from '../../db/repositories/door-devices.ts';
import { afterCommit, withTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../errors/domain-error.ts';
import { forgetApiKey, revoke, type ApiKeyCache } from '../auth/api-keys.ts';
import { issueProvisioningToken, type ProvisioningToken } from './provisioning.ts';

type DoorDeviceStatus = 'awaiting_pairing' | 'pairing_expired' | 'active' | 'revoked';

/** A device as the dashboard shows it: its row, its state now, its performances by start. */
export interface DoorDeviceView extends DoorDeviceRow {
  status: DoorDeviceStatus;
  performances: DevicePerformanceRow[];
}

/** A device with the token just issued to it (create, reissue): the token is in this answer only. */
export interface ProvisionedDoorDevice {
  device: DoorDeviceView;
  token: ProvisioningToken;
}

function statusOf(
  row: Pick<DoorDeviceRow, 'revoked_at' | 'claimed_at' | 'provisioning_expires_at'>,
  now: Date,
): DoorDeviceStatus {
  if (row.revoked_at !== null) return 'revoked';
  if (row.claimed_at !== null) return 'active';
  const expiresAt = row.provisioning_expires_at;
  return expiresAt !== null && new Date(expiresAt).getTime() > now.getTime() ? 'awaiting_pairing' : 'pairing_expired';
}

const MAX_PERFORMANCES = 50;

/** Each id once, each a performance of the organizer: else 400 naming performance_ids. */
async function checkPerformances(db: Executor, organizerId: string, ids: readonly string[]): Promise<void> {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id))
      throw invalid('parameter_invalid', `performance_ids lists ${id} more than once.`, 'performance_ids');
    seen.add(id);
  }
  if (ids.length === 0 || ids.length > MAX_PERFORMANCES)
    throw invalid(
      'parameter_invalid',
      `performance_ids must list 1 to ${MAX_PERFORMANCES} performances; it lists ${ids.length}.`,
      'performance_ids',
    );
  const found = new Set((await performancesOfDevices(db, organizerId, ids)).map((p) => p.id));
  const unknown = ids.find((id) => !found.has(id));
  if (unknown !== undefined)
    throw invalid(
      'parameter_invalid',
      `performance_ids: ${unknown} is not a performance of this organizer.`,
      'performance_ids',
    );
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalid('parameter_invalid', 'name must not be blank.', 'name');
  return trimmed;
}

/** The rows with their status and performances (one query for every row's performances). */
async function withPerformances(
  db: Executor,
  organizerId: string,
  rows: DoorDeviceRow[],
  now: Date,
): Promise<DoorDeviceView[]> {
  const ids = [...new Set(rows.flatMap((row) => row.performance_ids))];
  const performances = await performancesOfDevices(db, organizerId, ids);
  return rows.map((row) => ({
    ...row,
    status: statusOf(row, now),
    performances: performances.filter((p) => row.performance_ids.includes(p.id)),
  }));
}

export async function getDoorDevice(db: Executor, organizerId: string, id: string, now: Date) {
  const row = await findDoorDevice(db, organizerId, id, now);
  if (!row) throw notFound('Door device');
  return (await withPerformances(db, organizerId, [row], now))[0]!;
}

/** The organizer's devices, newest first, every state included. */
export async function listDoorDevices(
  db: Executor,
  organizerId: string,
  page: PageRequest,
  now: Date,
): Promise<Page<DoorDeviceView>> {
  const found = await keysetPage(db, doorDevicesQuery(db, organizerId, now), page, {
    table: 'door_devices',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
  return { data: await withPerformances(db, organizerId, found.data, now), has_more: found.has_more };
}

interface NewDoorDevice {
  name: string;
  performanceIds: readonly string[];
  onlineOnly?: boolean;
  /** The person creating it. */
  createdBy: string | null;
}

export async function createDoorDevice(
  db: Executor,
  organizerId: string,
  input: NewDoorDevice,
  now: Date,
): Promise<ProvisionedDoorDevice> {
  const name = checkName(input.name);
  await checkPerformances(db, organizerId, input.performanceIds);
  const token = issueProvisioningToken(now);
  return withTransaction(db, async (trx) => {
    const { id } = await insertDoorDevice(trx, {
      organizer_id: organizerId,
      name,
      performance_ids: [...input.performanceIds],
      online_only: input.onlineOnly ?? false,
      provisioning_token_hash: token.hash,
      provisioning_expires_at: token.expiresAt,
      created_by: input.createdBy,
    });
    return { device: await getDoorDevice(trx, organizerId, id, now), token };
  });
}

interface DoorDeviceChanges {
  name?: string;
  onlineOnly?: boolean;
  performanceIds?: readonly string[];
}

/** Why a device cannot be changed or given a token: not found, or its state (409). */
async function refusalOf(db: Executor, organizerId: string, id: string, action: 'change' | 'pair') {
  const state = await findDoorDeviceState(db, organizerId, id);
  if (!state) return notFound('Door device');
  if (state.revoked_at !== null)
    return conflict(
      'invalid_state',
      action === 'change'
        ? 'Door device is revoked and cannot be changed. Create a new device instead.'
        : 'Door device is revoked, so it cannot be paired again. Create a new device instead.',
    );
  return conflict(
    'invalid_state',
    'Door device is already paired: a pairing code is issued only to a device that has not been paired yet. Revoke it and create a new device to pair another one.',
  );
}

/**
 * Changes the name, online_only or performances of a device that is not revoked. Its key's
 * cached lookup is forgotten once committed: the performances a key may admit are in it.
 */
export async function updateDoorDevice(
  db: Executor,
  cache: ApiKeyCache,
  organizerId: string,
  id: string,
  changes: DoorDeviceChanges,
  now: Date,
): Promise<DoorDeviceView> {
  if (changes.name === undefined && changes.onlineOnly === undefined && changes.performanceIds === undefined)
    throw invalid('empty_update', 'Send at least one of `name`, `online_only`, `performance_ids`.');
  const name = changes.name === undefined ? undefined : checkName(changes.name);
  if (changes.performanceIds !== undefined) await checkPerformances(db, organizerId, changes.performanceIds);
  return withTransaction(db, async (trx) => {
    const row = await updateDoorDeviceRow(trx, organizerId, id, {
      ...(name === undefined ? {} : { name }),
      ...(changes.onlineOnly === undefined ? {} : { online_only: changes.onlineOnly }),
      ...(changes.performanceIds === undefined ? {} : { performance_ids: [...changes.performanceIds] }),
      updated_at: now,
    });
    if (!row) throw await refusalOf(trx, organizerId, id, 'change');
    if (row.api_key_id !== null) {
      const key = await findApiKeyHash(trx, row.api_key_id);
      if (key) afterCommit(trx, () => forgetApiKey(cache, key.key_hash));
    }
    return getDoorDevice(trx, organizerId, id, now);
  });
}

/**
 * Revokes the device and its key in one transaction; the key's cached lookup is forgotten
 * after the commit (revoke()), so the device's next request on this instance answers 401.
 * Revoking a revoked device changes nothing and answers it as it is.
 */
export async function revokeDoorDevice(
  db: Executor,
  cache: ApiKeyCache,
  organizerId: string,
  id: string,
  now: Date,
): Promise<DoorDeviceView> {
  return withTransaction(db, async (trx) => {
    const row = await revokeDoorDeviceRow(trx, organizerId, id, now);
    if (!row) throw notFound('Door device');
    if (row.api_key_id !== null) await revoke(trx, cache, row.api_key_id, now, organizerId);
    return getDoorDevice(trx, organizerId, id, now);
  });
}

/** A new provisioning token (the old one stops working), while the device is neither paired nor revoked. */
export async function reissueDoorDeviceToken(
  db: Executor,
  organizerId: string,
  id: string,
  now: Date,
): Promise<ProvisionedDoorDevice> {
  const token = issueProvisioningToken(now);
  return withTransaction(db, async (trx) => {
    const row = await reissueDoorDeviceTokenRow(trx, organizerId, id, token.hash, token.expiresAt, now);
    if (!row) throw await refusalOf(trx, organizerId, id, 'pair');
    return { device: await getDoorDevice(trx, organizerId, id, now), token };
  });
}
