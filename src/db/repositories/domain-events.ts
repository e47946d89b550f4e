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
 * The CTEs `new_event` and `queued` of a domain event and its fan-out: the event row, and
 * (when `fanOut`) a pending delivery for every enabled endpoint of the organizer
 * subscribed to the type, written only when `guard` holds. Shared by the statements that
 * emit an event together with the change that causes it.
 */
export function domainEventCtes(event: NewDomainEvent, guard: RawBuilder<boolean> = sql<boolean>`true`) {
  return sql`new_event AS (
      INSERT INTO domain_events (organizer_id, type, data, created_at)
      SELECT ${event.organizerId}::uuid, ${event.type}::text, ${event.data}::json, ${event.at}::timestamptz
      WHERE ${guard}
      RETURNING id
    ), queued AS (
      INSERT INTO webhook_deliveries (organizer_id, endpoint_id, event_id, event_type, created_at, updated_at)
      SELECT w.organizer_id, w.id, new_event.id, ${event.type}::text, ${event.at}::timestamptz, ${event.at}::timestamptz
      FROM new_event CROSS JOIN webhook_endpoints w
      WHERE ${event.fanOut} AND w.organizer_id = ${event.organizerId}
        AND w.status = 'enabled' AND ${event.type} = ANY (w.event_types)
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
    WITH ${domainEventCtes(event)}
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
