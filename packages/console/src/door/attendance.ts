/**
 * The door's counter, admitted against sold, for one performance (docs/door.md,
 * "Counter"). The source is the tickets list in the sync order (docs/sync.md):
 * `GET /v1/tickets?performance_id=…&order=updated_asc` walks the performance's tickets
 * once, then each refresh asks only for what changed since the last item seen (one
 * request while nothing changed). Sold counts tickets that admit or have admitted
 * (`purchased` and `checked_in`); refunded and cancelled ones are not sold any more.
 * Check-ins made here are counted at once (note()), and the next refresh confirms them.
 */
import type { Marquee, Ticket } from '@marquee/sdk';

export interface Counts {
  admitted: number;
  sold: number;
}

/** Before every ticket: the sync recipe's start (docs/sync.md). */
const EPOCH = '1970-01-01T00:00:00Z';
const PAGE = 100;

export class Attendance {
  readonly #statuses = new Map<string, Ticket['status']>();
  #cursor: { updated_at: string; id: string } | undefined;

  constructor(
    private readonly api: Pick<Marquee, 'tickets'>,
    readonly performanceId: string,
  ) {}

  /** Reads every change since the last refresh; resolves with the counts after it. */
  async refresh(): Promise<Counts> {
    const changes = this.api.tickets.list({
      performance_id: this.performanceId,
      order: 'updated_asc',
      updated_gte: this.#cursor?.updated_at ?? EPOCH,
      starting_after: this.#cursor?.id,
      limit: PAGE,
    });
    for await (const ticket of changes) {
      this.#statuses.set(ticket.id, ticket.status);
      this.#cursor = { updated_at: String(ticket.updated_at), id: ticket.id };
    }
    return this.counts();
  }

  /** A ticket this door has just seen admitted or refused: counted before the next refresh. */
  note(ticket: Ticket): void {
    if (ticket.performance_id === this.performanceId) this.#statuses.set(ticket.id, ticket.status);
  }

  counts(): Counts {
    let admitted = 0;
    let sold = 0;
    for (const status of this.#statuses.values()) {
      if (status === 'checked_in') admitted++;
      if (status === 'checked_in' || status === 'purchased') sold++;
    }
    return { admitted, sold };
  }
}
