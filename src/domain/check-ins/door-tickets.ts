/**
 * The door's local copy (docs/check-ins.md, "The copy"): the tickets a door device decides
 * offline from, in the sync order with the horizon of every polled list (docs/sync.md), so a
 * device that polls with the last item's `updated_at` and `id` misses no change.
 */
import { doorTicketsQuery, stampDeviceSync } from '../../db/repositories/door-tickets.ts';
import type { PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { listInView } from '../sync/lists.ts';

export async function listDoorTickets(
  db: Executor,
  auth: Pick<AuthContext, 'organizerId' | 'deviceId' | 'performanceIds'>,
  filters: { performance_id?: string; updated_gte?: Date },
  page: PageRequest,
  now: Date,
) {
  const query = doorTicketsQuery(db, auth.organizerId, {
    performance_id: filters.performance_id,
    ...(auth.performanceIds === null ? {} : { performanceIds: auth.performanceIds }),
  });
  const result = await listInView(db, 'tickets', auth.organizerId, query, page, {
    window: { updated_gte: filters.updated_gte },
    order: 'updated_asc',
    now,
  });
  // After the read: the stamp says the device holds the copy as of this page.
  if (auth.deviceId !== null) await stampDeviceSync(db, auth.deviceId, now);
  return result;
}
