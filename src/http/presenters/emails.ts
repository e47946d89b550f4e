/** The public shape of a mail-log entry (schema Email). */
import type { EmailJobRow } from '../../db/repositories/emails.ts';

export function presentEmail(row: EmailJobRow) {
  return {
    id: row.id,
    object: 'email' as const,
    order_id: row.order_id,
    kind: row.kind,
    recipient: row.recipient,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    notes: row.notes,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    sent_at: row.sent_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A mail just queued (the dashboard's resendTickets answers it with 202). */
export function presentQueuedEmail(row: EmailJobRow) {
  return {
    object: 'email' as const,
    id: row.id,
    kind: 'etickets' as const,
    recipient: row.recipient,
    status: 'pending' as const,
    created_at: row.created_at,
  };
}
