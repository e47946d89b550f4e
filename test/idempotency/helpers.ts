/** Shared pieces of the idempotency tests. */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { hashApiKey } from '../../src/domain/auth/api-keys.ts';
import { requestHash } from '../../src/http/plugins/idempotency.ts';
import { HeldLease } from '../../src/http/plugins/idempotency-lease.ts';
import type { TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
export { countRows } from '../helpers/orders.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

export const newKey = () => `idem-${randomUUID()}`;
export const withKey = (key: string) => ({ 'idempotency-key': key });

/** The id of an API key, from its raw value (what the request hash includes). */
export async function apiKeyIdOf(t: TestApp, rawKey: string): Promise<string> {
  const row = await t.database.db
    .selectFrom('api_keys')
    .select('id')
    .where('key_hash', '=', hashApiKey(rawKey))
    .executeTakeFirstOrThrow();
  return row.id;
}

/** How long the lease of a key put in flight by keyInFlight lasts. */
export const IN_FLIGHT_LEASE_MS = 30_000;

/**
 * An idempotency key whose `POST /v1/events` with `body` is executing elsewhere: an
 * in_progress row under a live lease, held by another instance (PostgreSQL), or by a
 * running request of this process (PGlite, whose embedded database has no other process:
 * a lease counts as live while a request of this one holds it). End `held` afterwards.
 */
export async function keyInFlight(
  t: TestApp,
  opts: { organizerId: string; rawApiKey: string; body: unknown },
): Promise<{ key: string; held: HeldLease | undefined }> {
  const key = newKey();
  const leaseToken = randomUUID();
  const apiKeyId = await apiKeyIdOf(t, opts.rawApiKey);
  const now = t.clock.now();
  await t.database.db
    .insertInto('idempotency_keys')
    .values({
      organizer_id: opts.organizerId,
      key,
      request_hash: requestHash(apiKeyId, 'POST', '/v1/events', opts.body),
      api_key_id: apiKeyId,
      method: 'POST',
      path: '/v1/events',
      status: 'in_progress',
      lease_token: leaseToken,
      locked_until: new Date(now.getTime() + IN_FLIGHT_LEASE_MS),
      created_at: now,
    })
    .execute();
  const held = onPostgres
    ? undefined
    : new HeldLease({
        engine: 'pglite',
        db: t.database.db,
        clock: t.clock,
        leaseMs: IN_FLIGHT_LEASE_MS,
        organizerId: opts.organizerId,
        key,
        leaseToken,
        log: t.app.log,
      });
  return { key, held };
}

/** The replay contract: same status, byte-identical body, same content type, flagged. */
export function isReplayOf(replay: LightMyRequestResponse, original: LightMyRequestResponse): string | undefined {
  if (replay.statusCode !== original.statusCode) return `status ${replay.statusCode} != ${original.statusCode}`;
  if (replay.body !== original.body) return 'body differs';
  if (replay.headers['content-type'] !== original.headers['content-type']) return 'content-type differs';
  if (replay.headers['idempotent-replayed'] !== 'true') return 'not flagged idempotent-replayed';
  if (original.headers['idempotent-replayed'] !== undefined) return 'the original is flagged as a replay';
  return undefined;
}
