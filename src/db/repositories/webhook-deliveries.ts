/** SQL for webhook deliveries: the delivery log, redelivery, the claim, recording attempts, and their purge. */
import { sql, type Insertable, type Selectable } from 'kysely';
import { PREPARED } from '../prepared.ts';
import type { Executor } from '../transaction.ts';
import type { AttemptResponseCopy, WebhookDeliveriesTable, WebhookDeliveryStatus } from '../schema.ts';

/**
 * The channel a statement that inserts deliveries notifies (a trigger,
 * migrations/0010_notify_deliveries_queued.sql); delivery workers LISTEN on it.
 */
export const DELIVERIES_QUEUED_CHANNEL = 'marquee_deliveries_queued';

export function insertDelivery(db: Executor, values: Insertable<WebhookDeliveriesTable>) {
  return db.insertInto('webhook_deliveries').values(values).returningAll().executeTakeFirstOrThrow();
}

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** Filters of an endpoint's delivery log; each one given narrows it. */
export interface DeliveryFilters {
  /** Any of these statuses. */
  status?: readonly WebhookDeliveryStatus[];
  /** Created at or after. */
  createdGte?: Date;
  /** Created before. */
  createdLt?: Date;
}

export function deliveryListQuery(
  db: Executor,
  organizerId: string,
  endpointId: string,
  filters: DeliveryFilters = {},
) {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('endpoint_id', '=', endpointId);
  if (filters.status !== undefined && filters.status.length > 0) q = q.where('status', 'in', filters.status);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLt !== undefined) q = q.where('created_at', '<', filters.createdLt);
  return q;
}

/**
 * A delivery with its attempt log and what the payload is built from: the event's type,
 * time and data (as the exact JSON text it was emitted as).
 */
export async function findDeliveryWithEvent(db: Executor, organizerId: string, id: string) {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('domain_events as ev', 'ev.id', 'd.event_id')
    .selectAll('d')
    .select(['ev.created_at as event_created_at', sql<string>`ev.data::text`.as('event_data_json')])
    .where('d.id', '=', id)
    .where('d.organizer_id', '=', organizerId)
    .executeTakeFirst();
  return row;
}

/**
 * Appends one redelivery of each given delivery of the organizer: a new row for the same
 * event and endpoint, pending at attempt 0 (a fresh retry budget), created `now`. The
 * originals are left as they are. Returns the new rows (none for an id not found).
 */
export function insertRedeliveries(db: Executor, organizerId: string, ids: readonly string[], now: Date) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .insertInto('webhook_deliveries')
    .columns(['organizer_id', 'endpoint_id', 'event_id', 'event_type', 'status', 'created_at', 'updated_at'])
    .expression(
      db
        .selectFrom('webhook_deliveries')
        .select([
          'organizer_id',
          'endpoint_id',
          'event_id',
          'event_type',
          sql<WebhookDeliveryStatus>`'pending'`.as('status'),
          sql<Date>`${now}::timestamptz`.as('created_at'),
          sql<Date>`${now}::timestamptz`.as('updated_at'),
        ])
        .where('id', 'in', ids)
        .where('organizer_id', '=', organizerId),
    )
    .returningAll()
    .execute();
}

/**
 * What a recovery of the endpoint since `since` finds, one event at a time: the events
 * with a failed or exhausted delivery created since then. One with a pending delivery to
 * the endpoint is already queued again (counted); otherwise its latest delivery decides:
 * failed or exhausted, it is to be sent again (that delivery's id, oldest first, at most
 * `limit`); succeeded, it is done. Reads the endpoint's failures through their partial index
 * (migrations/0012_delivery_log_failures.sql) and each event's deliveries through the
 * event index.
 */
export async function recoveryCandidates(
  db: Executor,
  endpointId: string,
  since: Date,
  limit: number,
): Promise<{ ids: string[]; alreadyPending: number }> {
  const result = await sql<{ id: string | null; already_pending: number }>`
    WITH failing AS (
      SELECT DISTINCT event_id FROM webhook_deliveries
      WHERE endpoint_id = ${endpointId} AND status IN ('failed', 'exhausted') AND created_at >= ${since}
    ), latest AS (
      SELECT DISTINCT ON (d.event_id) d.id, d.status, d.created_at
      FROM webhook_deliveries d
      WHERE d.endpoint_id = ${endpointId} AND d.event_id IN (SELECT event_id FROM failing)
      -- A pending delivery first, whenever it was created (a redelivery made in the
      -- same millisecond as the original must still count as queued), then the newest.
      ORDER BY d.event_id, d.status = 'pending' DESC, d.created_at DESC, d.id DESC
    )
    SELECT s.id, p.n AS already_pending
    FROM (SELECT count(*)::int AS n FROM latest WHERE status = 'pending') p
    LEFT JOIN LATERAL (
      SELECT id, created_at FROM latest WHERE status IN ('failed', 'exhausted')
      ORDER BY created_at, id LIMIT ${limit}
    ) s ON true
    ORDER BY s.created_at, s.id
  `.execute(db);
  return {
    ids: result.rows.flatMap((r) => (r.id === null ? [] : [r.id])),
    alreadyPending: result.rows[0]?.already_pending ?? 0,
  };
}

/** A claimed delivery with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  organizer_id: string;
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
  /** The event's data object as the JSON text it was emitted as. */
  event_data_json: string;
  event_created_at: Date;
}

/**
 * Claims up to `limit` due deliveries for this worker until `leaseUntil`, in due order.
 * Due: pending and never tried (due at created_at), pending or failed with next_retry_at
 * reached, and nobody's lease running. Deliveries of a disabled or auto-disabled endpoint
 * wait, except test.ping.
 *
 * The lease cap: only an endpoint's first `perEndpointCap` due rows (leased or not) are
 * candidates, so with those leased nothing more of the endpoint is taken; one endpoint's
 * backlog cannot fill a batch and a slow endpoint cannot take every slot. Claims take
 * rows in due order and leases are given back at the head, so an endpoint's leased rows
 * are its first due rows, and the cap holds; only a row committed with a due time before
 * rows already leased (a transaction that committed late) can push one lease out of the
 * window and let one more be taken for a while.
 *
 * The organizer's share: of the free candidates, each organizer offers at most
 * max(`perOrganizerClaim`, `limit` ÷ the organizers with free candidates), taken across
 * its endpoints in turn (each endpoint's first due row, then each one's second, ...).
 * Alone, an organizer may fill a whole claim; beside others, one with many busy
 * endpoints fills at most its share, so another organizer's due row is taken by the
 * very next claim (docs/webhooks.md, "Fair delivery").
 *
 * The walk is per endpoint, so its cost does not grow with any backlog: a skip scan finds
 * the endpoints with pending or failed rows (one index descent each) and each reads at
 * most its first `perEndpointCap` due rows (a disabled endpoint only its test pings, from
 * their own index). The earliest `limit` of the free ones are taken. SKIP LOCKED lets any
 * number of workers claim side by side without ever claiming the same row (a claim skips
 * the rows a concurrent one holds and takes the next free ones); the row-level
 * conditions are checked again next to FOR UPDATE so that a row another worker claimed
 * or recorded (and committed) since our snapshot is dropped.
 */
// eslint-disable-next-line max-lines-per-function -- one SQL statement, the fair claim; its parts only make sense together
export async function claimDueDeliveries(
  db: Executor,
  opts: { now: Date; leaseUntil: Date; limit: number; perEndpointCap: number; perOrganizerClaim: number },
): Promise<ClaimedDelivery[]> {
  const { now, leaseUntil, limit, perEndpointCap, perOrganizerClaim } = opts;
  /** An endpoint's first due rows, leased or not (the lateral subquery of `candidates`). */
  const window = (onlyPings: boolean) => sql`
      SELECT d.id, coalesce(d.next_retry_at, d.created_at) AS due_at, d.locked_until,
             row_number() OVER (ORDER BY coalesce(d.next_retry_at, d.created_at), d.id) AS endpoint_turn
      FROM webhook_deliveries d
      WHERE d.endpoint_id = e.id AND d.status IN ('pending', 'failed')
        AND (d.status = 'pending' OR d.next_retry_at IS NOT NULL)
        AND coalesce(d.next_retry_at, d.created_at) <= ${now}${
          onlyPings
            ? sql`
        AND d.event_type = 'test.ping'`
            : sql``
        }
      ORDER BY coalesce(d.next_retry_at, d.created_at), d.id
      LIMIT ${perEndpointCap}`;
  const result = await sql<ClaimedDelivery>`${PREPARED}
    WITH RECURSIVE waiting (endpoint_id) AS (
      (SELECT endpoint_id FROM webhook_deliveries
       WHERE status IN ('pending', 'failed') ORDER BY endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
              WHERE d.status IN ('pending', 'failed') AND d.endpoint_id > w.endpoint_id
              ORDER BY d.endpoint_id LIMIT 1)
      FROM waiting w
      WHERE w.endpoint_id IS NOT NULL
    ), endpoints AS (
      SELECT e.id, e.organizer_id, e.status = 'enabled' AS enabled
      FROM waiting w
      JOIN webhook_endpoints e ON e.id = w.endpoint_id
    ), candidates AS (
      SELECT e.organizer_id, c.id, c.due_at, c.locked_until, c.endpoint_turn FROM endpoints e CROSS JOIN LATERAL (${window(false)}) c
      WHERE e.enabled
      UNION ALL
      SELECT e.organizer_id, c.id, c.due_at, c.locked_until, c.endpoint_turn FROM endpoints e CROSS JOIN LATERAL (${window(true)}) c
      WHERE NOT e.enabled
    ), free AS (
      SELECT c.organizer_id, c.id,
             row_number() OVER (PARTITION BY c.organizer_id ORDER BY c.endpoint_turn, c.due_at, c.id) AS organizer_turn
      FROM candidates c
      WHERE c.locked_until IS NULL OR c.locked_until <= ${now}
    ), offered AS (
      -- Each organizer's share of the free candidates, its endpoints in turn.
      SELECT id FROM free
      WHERE organizer_turn <= greatest(${perOrganizerClaim}::bigint,
        ${limit}::bigint / (SELECT greatest(1, count(DISTINCT organizer_id)) FROM free))
    ), picked AS (
      -- Every free candidate, in due order, locked until \`limit\` are held: rows a
      -- concurrent claim holds are skipped, and the ones after them taken instead. By
      -- primary key (= ANY of an array): a join here let the planner hash a whole index,
      -- and the UPDATE below scan the whole table, on every claim.
      SELECT d.id
      FROM webhook_deliveries d
      WHERE d.id = ANY (ARRAY(SELECT id FROM offered))
        -- Still due and free. Written so that the due indexes do not match (the status
        -- by what it is not, the due time by next_retry_at, as created_at cannot have
        -- changed): the planner would otherwise read a whole due index beside the key.
        AND d.status NOT IN ('success', 'exhausted')
        AND (d.status = 'pending' OR d.next_retry_at IS NOT NULL)
        AND (d.next_retry_at IS NULL OR d.next_retry_at <= ${now})
        AND (d.locked_until IS NULL OR d.locked_until <= ${now})
      ORDER BY coalesce(d.next_retry_at, d.created_at), d.id
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries
      SET locked_until = ${leaseUntil}
      WHERE id = ANY (ARRAY(SELECT id FROM picked))
      RETURNING id, organizer_id, endpoint_id, event_id, event_type, attempt, locked_until, created_at, next_retry_at
    )
    SELECT c.id, c.organizer_id, c.endpoint_id, c.event_id, c.event_type, c.attempt, c.locked_until,
           e.url, e.secret, e.status AS endpoint_status, e.reenabled_at,
           ev.data::text AS event_data_json, ev.created_at AS event_created_at
    FROM claimed c
    JOIN webhook_endpoints e ON e.id = c.endpoint_id
    JOIN domain_events ev ON ev.id = c.event_id
    ORDER BY coalesce(c.next_retry_at, c.created_at), c.id
  `.execute(db);
  return result.rows.map((row) => ({
    ...row,
    locked_until: new Date(row.locked_until),
    reenabled_at: row.reenabled_at === null ? null : new Date(row.reenabled_at),
    event_created_at: new Date(row.event_created_at),
  }));
}

/** A claimed row and the lease this worker holds on it. */
export interface HeldLease {
  id: string;
  lockedUntil: Date;
}

/**
 * Gives claimed rows back unsent (not started in time, endpoint gone, or at shutdown),
 * each only if this worker still holds its lease: a lease that ran out and was taken by
 * another worker is that worker's, and clearing it would let a third claim the row.
 */
export async function releaseDeliveries(db: Executor, held: HeldLease[]): Promise<number> {
  if (held.length === 0) return 0;
  const rows = JSON.stringify(held.map((h) => ({ id: h.id, held: h.lockedUntil.toISOString() })));
  const result = await sql`
    UPDATE webhook_deliveries d
    SET locked_until = NULL
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(id uuid, held timestamptz)
    WHERE d.id = ANY (${held.map((h) => h.id)}::uuid[]) AND d.id = v.id AND d.locked_until = v.held
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface AttemptRecord {
  status: WebhookDeliveryStatus;
  attempt: number;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  next_retry_at: Date | null;
  now: Date;
  /** The bounded copy of the response kept in the attempt log; null when none arrived. */
  response: AttemptResponseCopy | null;
}

/**
 * Records the outcomes of a group of attempts in one statement: each delivery's status
 * row is updated, its lease released and the attempt appended to its attempt_log, only
 * if this worker still holds that lease (a lease that ran out and was claimed again
 * belongs to the other worker). Returns the ids recorded.
 */
export async function recordDeliveryAttempts(
  db: Executor,
  attempts: Array<{ id: string; heldLease: Date; rec: AttemptRecord }>,
): Promise<Set<string>> {
  if (attempts.length === 0) return new Set();
  const rows = JSON.stringify(
    attempts.map(({ id, heldLease, rec }) => ({
      id,
      held: heldLease.toISOString(),
      status: rec.status,
      attempt: rec.attempt,
      response_status: rec.response_status,
      response_ms: rec.response_ms,
      error: rec.error,
      next_retry_at: rec.next_retry_at?.toISOString() ?? null,
      at: rec.now.toISOString(),
      response: rec.response,
    })),
  );
  const ids = attempts.map((a) => a.id);
  const result = await sql<{ id: string }>`${PREPARED}
    UPDATE webhook_deliveries d
    SET status = v.status, attempt = v.attempt, response_status = v.response_status,
        response_ms = v.response_ms, error = v.error, next_retry_at = v.next_retry_at,
        locked_until = NULL, updated_at = v.at,
        attempt_log = d.attempt_log || jsonb_build_array(jsonb_build_object(
          'attempt', v.attempt, 'response_status', v.response_status, 'response_ms', v.response_ms,
          'error', v.error, 'at', v.at, 'response', v.response))
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(
      id uuid, held timestamptz, status text, attempt integer, response_status integer,
      response_ms integer, error text, next_retry_at timestamptz, at timestamptz, response jsonb
    )
    -- The rows by primary key: joined on v alone, the planner may hash v and read the
    -- whole table (it did once its statistics lagged behind a fast-growing table).
    WHERE d.id = ANY (${ids}::uuid[]) AND d.id = v.id AND d.locked_until = v.held
    RETURNING d.id
  `.execute(db);
  return new Set(result.rows.map((r) => r.id));
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
