/**
 * The admission rule: whether a scanned ticket may go in, and if not, why (docs/door.md,
 * "One rule, two places"). The server's check-in decides with it under the ticket's row
 * lock (src/domain/tickets/tickets.ts), and the console's door device decides offline
 * scans with it from its local copy (packages/console/src/device/), so an offline verdict
 * is the verdict the server would have given on the same facts.
 *
 * Pure and free of imports on purpose: the console bundles this very file.
 */

/** What the rule needs to know of a ticket: what the door's local copy keeps. */
export interface AdmissionFacts {
  status: 'purchased' | 'checked_in' | 'refunded' | 'cancelled';
  /** Its order is paid (placed or fulfilled); an unpaid or cancelled order is not. */
  paid: boolean;
  /** Its order is cancelled. */
  orderCancelled: boolean;
  performance_id: string;
}

export type AdmissionRefusal =
  'unknown' | 'wrong_performance' | 'already_checked_in' | 'refunded' | 'cancelled' | 'unpaid';

export type Admission = { admit: true } | { admit: false; reason: AdmissionRefusal };

const ADMIT: Admission = Object.freeze({ admit: true });

/**
 * The verdict for a scan of `ticket` (undefined: no ticket of the organizer has that code)
 * at a door admitting `performanceIds` (null: any of the organizer's performances). The
 * order of the checks is the order a steward explains a refusal in: a ticket for another
 * night is "another performance" even when it was refunded.
 */
export function admissionOf(ticket: AdmissionFacts | undefined, performanceIds: readonly string[] | null): Admission {
  if (ticket === undefined) return refuse('unknown');
  if (performanceIds !== null && !performanceIds.includes(ticket.performance_id)) return refuse('wrong_performance');
  switch (ticket.status) {
    case 'checked_in':
      return refuse('already_checked_in');
    case 'refunded':
      return refuse('refunded');
    case 'cancelled':
      return refuse('cancelled');
    case 'purchased':
      if (ticket.orderCancelled) return refuse('cancelled');
      if (!ticket.paid) return refuse('unpaid');
      return ADMIT;
  }
}

function refuse(reason: AdmissionRefusal): Admission {
  return { admit: false, reason };
}
