/**
 * What the door decides about one scan (docs/door.md, "The flow"): admitted, or refused
 * with a reason. Pure functions of what the API answered, so they are tested on their own
 * (test/door/outcome.test.ts).
 */
import type { Order, Ticket } from '@marquee/sdk';
import { formatTimeAt, REFUSAL_HEADLINES, sentences } from './verdict-words.ts';

export { formatTimeAt };

export type Outcome =
  | { kind: 'admitted'; ticket: Ticket }
  | { kind: 'refused'; reason: 'already_checked_in'; ticket: Ticket; checkedInAt: string }
  | { kind: 'refused'; reason: 'unpaid' | 'refunded' | 'cancelled'; ticket: Ticket }
  | { kind: 'refused'; reason: 'other_performance'; ticket: Ticket; performanceLabel: string }
  | { kind: 'refused'; reason: 'unknown'; code: string }
  /** The API refused the request itself (a revoked key, a missing scope): not a verdict on the ticket. */
  | { kind: 'error'; detail: string; requestId: string | undefined };

/** What the lookup alone settles: a refusal, another performance (named by the caller), or "try to admit". */
type Precheck =
  | { kind: 'check_in'; ticket: Ticket }
  | { kind: 'other_performance'; ticket: Ticket }
  | Extract<Outcome, { kind: 'refused' }>;

/**
 * The code as the API is asked for it: QR codes and typed text alike, trimmed and in upper
 * case (serials are upper-case base32; ticket numbers upper case). A ticket number has a
 * hyphen (`<order_no>-<nnn>`) and a serial never does (src/domain/orders/numbers.ts).
 */
export function lookupOf(raw: string): { serial_no: string } | { ticket_no: string } | undefined {
  const code = raw.trim().toUpperCase();
  if (code === '' || code.length > 64) return undefined;
  return code.includes('-') ? { ticket_no: code } : { serial_no: code };
}

/**
 * The lookup's verdict. A ticket already checked in, refunded or cancelled is refused
 * without a write (a check-in is a write and counts against the key's write limit,
 * docs/rate-limits.md); a purchased one is tried, and the check-in itself decides.
 */
export function precheck(found: Ticket | undefined, code: string, performanceId: string): Precheck {
  if (!found) return { kind: 'refused', reason: 'unknown', code };
  if (found.performance_id !== performanceId) return { kind: 'other_performance', ticket: found };
  switch (found.status) {
    case 'checked_in':
      return alreadyCheckedIn(found);
    case 'refunded':
    case 'cancelled':
      return { kind: 'refused', reason: found.status, ticket: found };
    case 'purchased':
      return { kind: 'check_in', ticket: found };
  }
}

/**
 * Why a check-in answered 409, from the ticket read afterwards and, when the ticket is still
 * `purchased`, its order: the API refuses a purchased ticket only while its order is
 * unpaid or cancelled (docs/orders.md, "Check-in"). `undefined`: admittable now (a
 * settlement or transfer raced the check-in), so the caller tries again.
 */
export function conflictReason(ticket: Ticket, order: Pick<Order, 'status'> | undefined): Outcome | undefined {
  switch (ticket.status) {
    case 'checked_in':
      return alreadyCheckedIn(ticket);
    case 'refunded':
    case 'cancelled':
      return { kind: 'refused', reason: ticket.status, ticket };
    case 'purchased':
      if (order?.status === 'unpaid') return { kind: 'refused', reason: 'unpaid', ticket };
      if (order?.status === 'cancelled') return { kind: 'refused', reason: 'cancelled', ticket };
      return undefined;
  }
}

function alreadyCheckedIn(ticket: Ticket): Extract<Outcome, { reason: 'already_checked_in' }> {
  return { kind: 'refused', reason: 'already_checked_in', ticket, checkedInAt: ticket.checked_in_at ?? '' };
}

/** The big line and the sentence under it, as the door screen shows an outcome. */
export function describeOutcome(outcome: Outcome, timeZone: string): { headline: string; detail: string } {
  switch (outcome.kind) {
    case 'admitted':
      return { headline: 'Admitted', detail: outcome.ticket.ticket_no };
    case 'error':
      return {
        headline: 'Not checked',
        detail: `${outcome.detail}${outcome.requestId ? ` (request ${outcome.requestId})` : ''}`,
      };
    case 'refused':
      break;
  }
  const headline = REFUSAL_HEADLINES[outcome.reason];
  switch (outcome.reason) {
    case 'already_checked_in':
      return {
        headline,
        detail: sentences.checkedInAt(outcome.ticket.ticket_no, formatTimeAt(outcome.checkedInAt, timeZone)),
      };
    case 'unpaid':
      return { headline, detail: `The order ${outcome.ticket.order_no} is not paid yet.` };
    case 'refunded':
      return { headline, detail: sentences.refunded(outcome.ticket.ticket_no) };
    case 'cancelled':
      return { headline, detail: sentences.cancelled(outcome.ticket.ticket_no) };
    case 'other_performance':
      return { headline, detail: sentences.otherPerformance(outcome.ticket.ticket_no, outcome.performanceLabel) };
    case 'unknown':
      return { headline, detail: sentences.unknown(outcome.code) };
  }
}
