/**
 * SQL of the idempotency layer (migrations/0005_idempotency.sql; docs/idempotency.md).
 * One query per function. Every write that belongs to the request executing a key is
 * fenced by its lease_token, so a request that lost its lease to a take-over can neither
 * complete nor release the key.
 */
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../schema.ts';
import type { Executor } from '../transaction.ts';

/** The key's row while the request holding `leaseToken` is still executing it. */
const heldBy =
  (organizerId: string, key: string, leaseToken: string) => (eb: ExpressionBuilder<Database, 'idempotency_keys'>) =>
    eb.and([
      eb('organizer_id', '=', organizerId),
      eb('key', '=', key),
      eb('status', '=', 'in_progress'),
      eb('lease_token', '=', leaseToken),
    ]);

/** How long a key is kept: 24 hours (docs/idempotency.md, Retention and purge). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A stored key, as read (jsonb headers parsed, timestamps as Date). */
export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

export interface NewIdempotencyKey {
  organizerId: string;
  key: string;
  requestHash: string;
  /** The credential that sent the request: an API key, or a signed-in user (docs/dashboard.md). */
  apiKeyId: string | null;
  userId: string | null;
  method: string;
  path: string;
  leaseToken: string;
  lockedUntil: Date;
  now: Date;
}

interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The columns of a key claimed anew: in progress under this request's lease. */
function freshClaim(k: NewIdempotencyKey) {
  return {
    request_hash: k.requestHash,
    api_key_id: k.apiKeyId,
    user_id: k.userId,
    method: k.method,
    path: k.path,
    status: 'in_progress' as const,
    lease_token: k.leaseToken,
    locked_until: k.lockedUntil,
    created_at: k.now,
  };
}

/** Claims a fresh key in_progress; false when the (organizer, key) row already exists. */
export async function insertIdempotencyKeyIfAbsent(db: Executor, k: NewIdempotencyKey): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ organizer_id: k.organizerId, key: k.key, ...freshClaim(k) })
    .onConflict((oc) => oc.columns(['organizer_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The existing row, locked until the caller's transaction ends. */
export async function findIdempotencyKeyForUpdate(
  db: Executor,
  organizerId: string,
  key: string,
): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('organizer_id', '=', organizerId)
    .where('key', '=', key)
    .forUpdate()
    .executeTakeFirst();
}

/** Take-over of an in_progress key whose lease expired: a new lease (and fencing token). */
export async function renewIdempotencyLease(
  db: Executor,
  organizerId: string,
  key: string,
  lease: { leaseToken: string; lockedUntil: Date },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ lease_token: lease.leaseToken, locked_until: lease.lockedUntil })
    .where('organizer_id', '=', organizerId)
    .where('key', '=', key)
    .execute();
}

/**
 * Heartbeat of a running request: pushes its lease forward, if it still holds it (its
 * lease_token matches and the key is not completed). Returns false when the lease is gone:
 * a take-over replaced the token, or the request already completed or released the key.
 */
export async function extendIdempotencyLease(
  db: Executor,
  organizerId: string,
  key: string,
  leaseToken: string,
  lockedUntil: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockedUntil })
    .where(heldBy(organizerId, key, leaseToken))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Reuse of a key past its retention (not yet purged): the row starts over as new. */
export async function resetIdempotencyKey(db: Executor, k: NewIdempotencyKey): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ ...freshClaim(k), response_status: null, response_headers: null, response_body: null, completed_at: null })
    .where('organizer_id', '=', k.organizerId)
    .where('key', '=', k.key)
    .execute();
}

/**
 * Stores the response and completes the key, if the caller still holds the lease.
 * Returns false when a take-over replaced the lease (nothing written).
 */
export async function completeIdempotencyKey(
  db: Executor,
  organizerId: string,
  key: string,
  leaseToken: string,
  response: StoredResponse,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      status: 'completed',
      lease_token: null,
      locked_until: null,
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
      completed_at: now,
    })
    .where(heldBy(organizerId, key, leaseToken))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives a key up without a stored response (its work rolled back), so a retry executes at once. */
export async function releaseIdempotencyKey(
  db: Executor,
  organizerId: string,
  key: string,
  leaseToken: string,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where(heldBy(organizerId, key, leaseToken))
    .execute();
}

/** Deletes up to `limit` keys created at or before the cutoff, skipping rows a request has locked. */
export async function purgeIdempotencyKeysCreatedBy(db: Executor, cutoff: Date, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM idempotency_keys
    WHERE (organizer_id, key) IN (
      SELECT organizer_id, key FROM idempotency_keys
      WHERE created_at <= ${cutoff}
      ORDER BY created_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
