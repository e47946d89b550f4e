/** Shared pieces of the idempotency tests. */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { hashApiKey } from '../../src/domain/auth/api-keys.ts';
import type { TestApp } from '../helpers/app.ts';

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

export async function countRows(
  t: TestApp,
  table: 'events' | 'orders' | 'idempotency_keys' | 'webhook_endpoints',
  organizerId: string,
): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organizer_id', '=', organizerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
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
