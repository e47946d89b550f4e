/** The mail log of an organizer (GET /admin/v1/organizers/{id}/emails). */
import { emailJobsListQuery } from '../db/repositories/emails.ts';
import { findOrganizer } from '../db/repositories/organizers.ts';
import { keysetPage, type PageRequest } from '../db/pagination.ts';
import type { Executor } from '../db/transaction.ts';
import { notFound } from '../errors/domain-error.ts';

export async function listEmails(db: Executor, organizerId: string, page: PageRequest) {
  if (!(await findOrganizer(db, organizerId))) throw notFound('Organizer');
  return keysetPage(db, emailJobsListQuery(db, organizerId), page, {
    table: 'email_jobs',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
}
