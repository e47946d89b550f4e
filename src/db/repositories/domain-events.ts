/**
 * SQL for domain events (the outbox, src/outbox/domain-events.ts): the event row and its
 * fan-out to pending webhook deliveries, written in one statement, and their purge.
 */
import { sql, type RawBuilder } from 'kysely';
import { PREPARED } from '../prepared.ts';
import type { Executor } from '../transaction.ts';

/** A domain event as stored: `data` is the serialized `data` object of the envelope. */
export interface NewDomainEvent {
  organizerId: string;
  type: string;
  data: string;
  at: Date;
  /** Queue a delivery for every subscribed endpoint (false for test.ping). */
  fanOut: boolean;
}

/**
 * The CTEs `new_event` and `queued` of domain events and their fan-out: the event rows, and
 * when they fan out (all or none of them), a pending delivery for every enabled endpoint of its
 * organizer subscribed to its type. Shared by the statements that emit events together
 * with the change that causes them. Events go in in the order given (their ids follow
 * it). With `writtenIf`, an event goes in only if its key is among the ids that
 * subquery yields (a sale's event: only if its order went in); else every event does.
 * The events travel as arrays, so a prepared statement's text is the same for any number.
 */
export function domainEventCtes(events: Array<NewDomainEvent & { key?: string }>, writtenIf?: RawBuilder<unknown>) {
  const column = <T>(pick: (event: NewDomainEvent & { key?: string }) => T) => events.map(pick);
  const fanOut = events.some((e) => e.fanOut);
  if (events.some((e) => e.fanOut !== fanOut)) throw new Error('domainEventCtes: the events must all fan out, or none');
  return sql`new_event AS (
      INSERT INTO domain_events (organizer_id, type, data, created_at)
      SELECT e.organizer_id, e.type, e.data, e.created_at
      FROM unnest(${column((e) => e.organizerId)}::uuid[], ${column((e) => e.type)}::text[], ${column((e) => e.data)}::json[],
                  ${column((e) => e.at)}::timestamptz[], ${column((e) => e.key ?? null)}::uuid[])
        WITH ORDINALITY AS e(organizer_id, type, data, created_at, key, n)
      WHERE ${writtenIf === undefined ? sql`true` : sql`e.key IN (${writtenIf})`}
      ORDER BY e.n
      RETURNING id, organizer_id, type, created_at
    ), queued AS (
      INSERT INTO webhook_deliveries (organizer_id, endpoint_id, event_id, event_type, created_at, updated_at)
      SELECT w.organizer_id, w.id, new_event.id, new_event.type, new_event.created_at, new_event.created_at
      FROM new_event
      JOIN webhook_endpoints w ON w.organizer_id = new_event.organizer_id
      WHERE ${fanOut} AND w.status = 'enabled' AND new_event.type = ANY (w.event_types)
      RETURNING 1
    )`;
}

/**
 * A domain event and its fan-out in one statement (domainEventCtes). One round trip
 * instead of two matters: every sale and check-in emits an event.
 * Returns the event id and how many deliveries it queued.
 */
export async function insertDomainEventWithDeliveries(
  db: Executor,
  event: NewDomainEvent,
): Promise<{ id: string; queued: number }> {
  const result = await sql<{ id: string; queued: number }>`${PREPARED}
    WITH ${domainEventCtes([event])}
    SELECT new_event.id, (SELECT count(*) FROM queued)::int AS queued FROM new_event
  `.execute(db);
  return result.rows[0]!;
}

/** Deletes up to `batch` domain events created before `cutoff` (their deliveries cascade). */
export async function purgeDomainEventsBefore(db: Executor, cutoff: Date, batch: number): Promise<number> {
  const result = await sql`
    DELETE FROM domain_events
    WHERE id IN (SELECT id FROM domain_events WHERE created_at < ${cutoff} LIMIT ${batch})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
