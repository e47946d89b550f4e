/**
 * API keys: `mqk_` followed by 32 base64url characters (192 random bits). Only a
 * SHA-256 of the key is stored; lookup is by that hash and the final comparison is
 * constant-time. Missing, unknown, revoked and expired keys are indistinguishable
 * to the caller: authenticate() returns undefined for all four.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../../db/transaction.ts';
import { findApiKeyByHash, insertApiKey, revokeApiKey } from '../../db/repositories/api-keys.ts';
import { notFound } from '../../http/errors.ts';

export const API_KEY_PREFIX = 'mqk_';
export type Scope = 'read' | 'write';

export interface AuthContext {
  apiKeyId: string;
  organizerId: string;
  scopes: Scope[];
  currency: string;
  timezone: string;
}

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export async function authenticate(db: Executor, presentedKey: string, now: Date): Promise<AuthContext | undefined> {
  if (!presentedKey.startsWith(API_KEY_PREFIX) || presentedKey.length > 200) return undefined;
  const presentedHash = hashApiKey(presentedKey);
  const row = await findApiKeyByHash(db, presentedHash);
  if (!row || !timingSafeEqual(row.key_hash, presentedHash)) return undefined;
  if (row.revoked_at !== null) return undefined;
  if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return undefined;
  return {
    apiKeyId: row.id,
    organizerId: row.organizer_id,
    scopes: row.scopes as Scope[],
    currency: row.currency,
    timezone: row.timezone,
  };
}

export interface CreatedApiKey {
  id: string;
  object: 'api_key';
  key: string;
  scopes: Scope[];
  expires_at: Date | null;
  created_at: Date;
}

export async function createApiKey(
  db: Executor,
  input: { organizerId: string; name?: string | null; scopes: Scope[]; expiresAt?: Date | null },
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  // Scopes are a set: store them once each, in a stable order.
  const scopes = (['read', 'write'] as const).filter((scope) => input.scopes.includes(scope));
  const row = await insertApiKey(db, {
    organizer_id: input.organizerId,
    name: input.name ?? null,
    key_hash: hashApiKey(key),
    key_preview: key.slice(0, API_KEY_PREFIX.length + 6),
    scopes,
    expires_at: input.expiresAt ?? null,
  });
  return { id: row.id, object: 'api_key', key, scopes, expires_at: row.expires_at, created_at: row.created_at };
}

export async function revoke(db: Executor, id: string, now: Date) {
  const row = await revokeApiKey(db, id, now);
  if (!row) throw notFound('API key');
  return row;
}
