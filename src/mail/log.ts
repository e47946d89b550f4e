/**
 * The mail log of an organizer (GET /admin/v1/organizers/{id}/emails): its orders' receipts
 * and e-tickets and its team invitations. A password reset belongs to a user, not to an
 * organizer (its `organizer_id` is NULL), so it is in no organizer's log.
 */
import { emailJobsListQuery } from '../db/repositories/emails.ts';
import { findOrganizer } from '../db/repositories/organizers.ts';
import { keysetPage, type PageRequest } from '../db/pagination.ts';
import type { Executor } from '../db/transaction.ts';
import { notFound } from '../errors/domain-error.ts';

type KeysetOptions = Parameters<typeof keysetPage>[3];

export async function listEmails(db: Executor, organizerId: string, page: PageRequest) {
  if (!(await findOrganizer(db, organizerId))) throw notFound('Organizer');
  // keysetPage's tenant tables are those whose organizer_id is NOT NULL; email_jobs' is
  // nullable since password resets. The tenant check still holds: the cursor must be a row
  // with `organizer_id = organizerId`, which a reset (NULL) never is.
  const tenant = { table: 'email_jobs', organizerId } as unknown as Extract<KeysetOptions, { organizerId: string }>;
  return keysetPage(db, emailJobsListQuery(db, organizerId), page, {
    ...tenant,
    sortColumn: 'created_at',
    direction: 'desc',
  });
}
