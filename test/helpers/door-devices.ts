/**
 * Door devices made straight in the database, for tests of what a device does with its
 * key (uploads, door copy, attendance): a paired device of the organizer with its
 * `check_in` key, as a claim would leave it (docs/dashboard.md, "Door devices").
 */
import type { TestApp } from './app.ts';
import { createApiKey } from '../../src/domain/auth/api-keys.ts';

export interface TestDevice {
  id: string;
  name: string;
  /** The device key (`mqk_…`, scope check_in only). */
  key: string;
  apiKeyId: string;
  performanceIds: string[];
}

/** A paired door device of the organizer, admitting these performances. */
export async function createDevice(
  t: TestApp,
  organizerId: string,
  performanceIds: string[],
  name = 'Gate',
): Promise<TestDevice> {
  const db = t.database.db;
  const key = await createApiKey(db, { organizerId, name: `Door device: ${name}`, scopes: ['check_in'] });
  const row = await db
    .insertInto('door_devices')
    .values({
      organizer_id: organizerId,
      name,
      performance_ids: performanceIds,
      api_key_id: key.id,
      claimed_at: t.clock.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, name, key: key.key, apiKeyId: key.id, performanceIds };
}
