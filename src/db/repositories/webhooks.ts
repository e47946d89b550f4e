/** SQL for webhook endpoints, deliveries and their attempt log. */
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { WebhookDeliveriesTable, WebhookDeliveryStatus, WebhookEndpointsTable } from '../schema.ts';

// ---------------------------------------------------------------- endpoints

export function insertEndpoint(db: Executor, values: Insertable<WebhookEndpointsTable>) {
  return db.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findEndpoint(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

/** The endpoint by id whatever its organizer (admin routes). */
export function findEndpointById(db: Executor, id: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export function endpointListQuery(db: Executor, organizerId: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('organizer_id', '=', organizerId);
}

export function updateEndpoint(db: Executor, organizerId: string, id: string, set: Updateable<WebhookEndpointsTable>) {
  return db
    .updateTable('webhook_endpoints')
    .set(set)
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the endpoint; its deliveries and their attempts go with it (ON DELETE CASCADE). */
export function deleteEndpoint(db: Executor, organizerId: string, id: string) {
  return db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .returning('id')
    .executeTakeFirst();
}

/** Auto-disables an endpoint unless it already is; returns whether it changed. */
export async function autoDisableEndpoint(db: Executor, id: string, reason: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ status: 'auto_disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', id)
    .where('status', '<>', 'auto_disabled')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// ---------------------------------------------------------------- deliveries

/**
 * The fan-out of one domain event: a pending delivery for every enabled endpoint of
 * the organizer subscribed to the type, in one statement. Returns how many it queued.
 */
export async function fanOutDeliveries(
  db: Executor,
  event: { id: string; organizerId: string; type: string; at: Date },
): Promise<number> {
  const result = await sql`
    INSERT INTO webhook_deliveries (organizer_id, endpoint_id, event_id, event_type, created_at, updated_at)
    SELECT organizer_id, id, ${event.id}, ${event.type}, ${event.at}, ${event.at}
    FROM webhook_endpoints
    WHERE organizer_id = ${event.organizerId} AND status = 'enabled' AND ${event.type} = ANY (event_types)
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export function insertDelivery(db: Executor, values: Insertable<WebhookDeliveriesTable>) {
  return db.insertInto('webhook_deliveries').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findDelivery(db: Executor, organizerId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('organizer_id', '=', organizerId)
    .executeTakeFirst();
}

export function deliveryListQuery(db: Executor, organizerId: string, endpointId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('endpoint_id', '=', endpointId);
}

export async function deliveryBelongsToEndpoint(db: Executor, id: string, endpointId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A claimed delivery with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  locked_until: Date;
  url: string;
  secret: string;
  endpoint_status: string;
  /** When a client last re-enabled the endpoint (the sustained-failure window start). */
  reenabled_at: Date | null;
  event_data: Record<string, unknown>;
  event_created_at: Date;
}

/**
 * Claims up to `limit` due deliveries for this worker until `leaseUntil`. Due: pending
 * and never tried (due at created_at), pending or failed with next_retry_at reached,
 * and nobody's lease running. Deliveries of a disabled or auto-disabled endpoint wait,
 * except test.ping. An endpoint that already has `perEndpointCap` leased deliveries is
 * skipped, so one slow endpoint cannot take every slot. SKIP LOCKED lets any number of
 * workers claim side by side without ever claiming the same row.
 */
export async function claimDueDeliveries(
  db: Executor,
  opts: { now: Date; leaseUntil: Date; limit: number; perEndpointCap: number },
): Promise<ClaimedDelivery[]> {
  const { now, leaseUntil, limit, perEndpointCap } = opts;
  const result = await sql<ClaimedDelivery>`
    WITH claimed AS (
      UPDATE webhook_deliveries
      SET locked_until = ${leaseUntil}
      WHERE id IN (
        SELECT d.id
        FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status IN ('pending', 'failed')
          AND coalesce(d.next_retry_at, d.created_at) <= ${now}
          AND (d.status = 'pending' OR d.next_retry_at IS NOT NULL)
          AND (d.locked_until IS NULL OR d.locked_until <= ${now})
          AND (e.status = 'enabled' OR d.event_type = 'test.ping')
          AND (
            SELECT count(*) FROM webhook_deliveries x
            WHERE x.endpoint_id = d.endpoint_id AND x.locked_until > ${now}
          ) < ${perEndpointCap}
        ORDER BY coalesce(d.next_retry_at, d.created_at), d.id
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      RETURNING id, endpoint_id, event_id, event_type, attempt, locked_until
    )
    SELECT c.id, c.endpoint_id, c.event_id, c.event_type, c.attempt, c.locked_until,
           e.url, e.secret, e.status AS endpoint_status, e.reenabled_at,
           ev.data AS event_data, ev.created_at AS event_created_at
    FROM claimed c
    JOIN webhook_endpoints e ON e.id = c.endpoint_id
    JOIN domain_events ev ON ev.id = c.event_id
  `.execute(db);
  return result.rows.map((row) => ({
    ...row,
    locked_until: new Date(row.locked_until),
    reenabled_at: row.reenabled_at === null ? null : new Date(row.reenabled_at),
    event_created_at: new Date(row.event_created_at),
    event_data: typeof row.event_data === 'string' ? JSON.parse(row.event_data) : row.event_data,
  }));
}

/** Gives claimed rows back unsent (over the per-endpoint cap, or at shutdown). */
export async function releaseDeliveries(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_deliveries').set({ locked_until: null }).where('id', 'in', ids).execute();
}

export interface AttemptRecord {
  status: WebhookDeliveryStatus;
  attempt: number;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  next_retry_at: Date | null;
  now: Date;
}

/**
 * Records the outcome of an attempt and releases the lease, only if this worker still
 * holds it (a lease that ran out and was claimed again belongs to the other worker).
 */
export async function recordDeliveryAttempt(
  db: Executor,
  id: string,
  heldLease: Date,
  rec: AttemptRecord,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: rec.status,
      attempt: rec.attempt,
      response_status: rec.response_status,
      response_ms: rec.response_ms,
      error: rec.error,
      next_retry_at: rec.next_retry_at,
      locked_until: null,
      updated_at: rec.now,
    })
    .where('id', '=', id)
    .where('locked_until', '=', heldLease)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertAttemptLog(db: Executor, deliveryId: string, rec: AttemptRecord): Promise<void> {
  await db
    .insertInto('webhook_delivery_attempts')
    .values({
      delivery_id: deliveryId,
      attempt: rec.attempt,
      response_status: rec.response_status,
      response_ms: rec.response_ms,
      error: rec.error,
      created_at: rec.now,
    })
    .execute();
}

/** The latest `count` deliveries of an endpoint created at or after `since` (all if null). */
export function latestDeliveries(db: Executor, endpointId: string, since: Date | null, count: number) {
  let q = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'status', 'created_at'])
    .where('endpoint_id', '=', endpointId);
  if (since) q = q.where('created_at', '>=', since);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(count).execute();
}

// ---------------------------------------------------------------- retention

/** Deletes up to `batch` deliveries created before `cutoff`; returns how many. */
export async function purgeDeliveriesBefore(db: Executor, cutoff: Date, batch: number): Promise<number> {
  const result = await sql`
    DELETE FROM webhook_deliveries
    WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < ${cutoff} LIMIT ${batch})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Deletes up to `batch` domain events created before `cutoff` (their deliveries cascade). */
export async function purgeDomainEventsBefore(db: Executor, cutoff: Date, batch: number): Promise<number> {
  const result = await sql`
    DELETE FROM domain_events
    WHERE id IN (SELECT id FROM domain_events WHERE created_at < ${cutoff} LIMIT ${batch})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
