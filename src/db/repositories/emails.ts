/** SQL for the durable e-mail jobs: enqueue, claim (SKIP LOCKED, leased), record the outcome, list. */
import { sql, type Insertable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { EmailJobsTable } from '../schema.ts';

export type EmailJobRow = Awaited<ReturnType<typeof insertEmailJobs>>[number];

export function insertEmailJobs(db: Executor, values: Insertable<EmailJobsTable>[]) {
  return db.insertInto('email_jobs').values(values).returningAll().execute();
}

/**
 * Claims up to `limit` due jobs: pending ones whose time has come, and `sending` ones
 * whose lease ran out (a worker died mid-send). SKIP LOCKED lets workers claim side by
 * side; the lease marks the claim for everyone else until `leaseUntil`.
 */
export async function claimEmailJobs(db: Executor, now: Date, leaseUntil: Date, limit: number): Promise<EmailJobRow[]> {
  const result = await sql<EmailJobRow>`
    UPDATE email_jobs SET status = 'sending', attempts = attempts + 1, locked_until = ${leaseUntil}, updated_at = ${now}
    WHERE id IN (
      SELECT id FROM email_jobs
      WHERE (status = 'pending' AND next_attempt_at <= ${now})
         OR (status = 'sending' AND locked_until <= ${now})
      ORDER BY next_attempt_at, created_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *
  `.execute(db);
  // RETURNING does not keep the subquery's order: restore it (receipt before e-tickets).
  return result.rows.sort(
    (a, b) =>
      a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || a.created_at.getTime() - b.created_at.getTime(),
  );
}

/** Records the outcome of a claimed job, only while this claim still holds it. */
export function finishEmailJob(
  db: Executor,
  job: { id: string; attempts: number },
  values: {
    status: 'pending' | 'sent' | 'failed' | 'skipped';
    next_attempt_at?: Date;
    last_error?: string | null;
    sent_at?: Date;
    message_id?: string;
    /** What a sent mail left out and why (docs/tickets.md). */
    notes?: string | null;
    /** null erases an account mail's link: once it is sent, or has finally failed. */
    link?: null;
    updated_at: Date;
  },
) {
  return db
    .updateTable('email_jobs')
    .set({ ...values, locked_until: null })
    .where('id', '=', job.id)
    .where('status', '=', 'sending')
    .where('attempts', '=', job.attempts)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The mail log of an organizer: its orders' mails and its invitations. A password reset
 * has no organizer and is in no organizer's log.
 */
export function emailJobsListQuery(db: Executor, organizerId: string) {
  return db.selectFrom('email_jobs').selectAll('email_jobs').where('email_jobs.organizer_id', '=', organizerId);
}

/** What the receipt lists: per transaction and ticket type, quantity and amounts. */
export function findReceiptLines(db: Executor, orderId: string) {
  return db
    .selectFrom('tickets as t')
    .innerJoin('order_transactions as ot', 'ot.id', 't.order_transaction_id')
    .innerJoin('events as e', 'e.id', 't.event_id')
    .innerJoin('performances as p', 'p.id', 't.performance_id')
    .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
    .select((eb) => [
      'e.title as event_title',
      'e.timezone as event_timezone',
      'e.language as event_language',
      'p.starts_at',
      'tt.name as ticket_type_name',
      't.unit_price_minor',
      eb.fn.countAll<number>().as('quantity'),
      eb.fn.min('t.position').as('first_position'),
    ])
    .where('t.order_id', '=', orderId)
    .groupBy([
      'ot.position',
      'e.title',
      'e.timezone',
      'e.language',
      'p.starts_at',
      'tt.name',
      't.ticket_type_id',
      't.unit_price_minor',
    ])
    .orderBy('ot.position')
    .orderBy('first_position')
    .execute();
}

/** The tickets an e-ticket mail carries: those still valid, in order position. */
export function findTicketsForMail(db: Executor, orderId: string) {
  return db
    .selectFrom('tickets as t')
    .innerJoin('events as e', 'e.id', 't.event_id')
    .innerJoin('venues as v', 'v.id', 'e.venue_id')
    .innerJoin('performances as p', 'p.id', 't.performance_id')
    .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
    .select([
      't.id',
      't.ticket_no',
      't.serial_no',
      't.holder_first_name',
      't.holder_last_name',
      't.total_minor',
      't.event_id',
      't.performance_id',
      'e.title as event_title',
      'e.timezone as event_timezone',
      'e.language as event_language',
      'v.name as venue_name',
      'p.starts_at',
      'p.ends_at',
      'tt.name as ticket_type_name',
    ])
    .where('t.order_id', '=', orderId)
    .where('t.status', 'in', ['purchased', 'checked_in'])
    .orderBy('t.position')
    .execute();
}
