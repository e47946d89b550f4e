/**
 * SQL for webhook endpoints: their CRUD, the organizer and endpoint row locks that make
 * creates and recoveries take turns, the auto-disable (src/webhooks/endpoint-states.ts),
 * and what an attempt reads of them as it starts.
 */
import { sql, type Insertable, type Updateable } from 'kysely';
import { PREPARED } from '../prepared.ts';
import type { Executor } from '../transaction.ts';
import type { WebhookEndpointsTable } from '../schema.ts';

export function insertEndpoint(db: Executor, values: Insertable<WebhookEndpointsTable>) {
  return db.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * How many endpoints the organizer has, counted after taking the organizer's row lock
 * (FOR NO KEY UPDATE: creates of one organizer queue here; foreign-key inserts, which
 * take KEY SHARE, do not), so two concurrent creates cannot both pass a cap. Call it in
 * the transaction of the insert.
 */
export async function countEndpointsLocked(db: Executor, organizerId: string): Promise<number> {
  await db.selectFrom('organizers').select('id').where('id', '=', organizerId).forNoKeyUpdate().execute();
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organizer_id', '=', organizerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type EndpointRow = NonNullable<Awaited<ReturnType<typeof findEndpoint>>>;

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

/** Deletes the endpoint; its deliveries go with it (ON DELETE CASCADE). */
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

/**
 * Locks the organizer's endpoint row until the transaction ends (FOR NO KEY UPDATE: the
 * fan-out's foreign-key checks, which take KEY SHARE, do not wait for it), so recoveries
 * of one endpoint run one after the other. Returns false when there is no such endpoint.
 */
export async function lockEndpoint(db: Executor, organizerId: string, endpointId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', '=', endpointId)
    .where('organizer_id', '=', organizerId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** What an attempt signs and sends with, read from its endpoint as the attempt starts. */
export interface EndpointAtStart {
  url: string;
  secret: string;
  status: string;
}

/**
 * The current url, secret and status of the given endpoints, one statement for a whole
 * batch of attempts about to start (docs/webhooks.md, "Rotating the secret": a rotation
 * that committed before this read is what the attempts sign with).
 */
export async function endpointsAtStart(db: Executor, ids: string[]): Promise<Map<string, EndpointAtStart>> {
  const result = await sql<EndpointAtStart & { id: string }>`${PREPARED}
    SELECT id, url, secret, status FROM webhook_endpoints WHERE id = ANY (${ids}::uuid[])
  `.execute(db);
  return new Map(result.rows.map(({ id, ...endpoint }) => [id, endpoint]));
}
