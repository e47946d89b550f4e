/**
 * The uploaded scans, newest first (docs/check-ins.md, "Double entries"): an integration key
 * sees the organizer's; a door device sees the scans on its performances and its own, so
 * both gates of a double entry see it.
 */
import { checkInScansListQuery, type ScanFilters } from '../../db/repositories/check-ins.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import type { Executor } from '../../db/transaction.ts';
import type { AuthContext } from '../auth/api-keys.ts';

export function listCheckIns(
  db: Executor,
  auth: Pick<AuthContext, 'organizerId' | 'apiKeyId' | 'performanceIds'>,
  filters: ScanFilters,
  page: PageRequest,
) {
  const device =
    auth.performanceIds === null || auth.apiKeyId === null
      ? undefined
      : { apiKeyId: auth.apiKeyId, performanceIds: auth.performanceIds };
  return keysetPage(db, checkInScansListQuery(db, auth.organizerId, filters, device), page, {
    table: 'check_in_scans',
    sortColumn: 'received_at',
    direction: 'desc',
    organizerId: auth.organizerId,
  });
}
