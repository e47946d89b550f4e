/**
 * API keys: `mqk_` followed by 32 base64url characters (192 random bits). Only a
 * SHA-256 of the key is stored; lookup is by that hash and the final comparison is
 * constant-time. Missing, unknown, revoked and expired keys are indistinguishable
 * to the caller: authenticate() returns undefined for all four.
 *
 * Lookups are cached in-process for API_KEY_CACHE_TTL_MS by the key's SHA-256 (never
 * the raw key), so a busy key costs one query per TTL, not one per request; a connection
 * remembers its last key's SHA-256 (LastPresentedKey), so a keep-alive caller's key is
 * hashed once per connection. Revocation and organizer-settings changes drop the
 * affected entries at once on the instance that handles them; other instances see them
 * within the TTL. Expiry is checked against the clock on every request, from the cached
 * row. A load also records the key's use in `last_used_at`, to the minute (loadApiKey).
 * Concurrent lookups of one uncached key share one load. Unknown keys are never cached
 * (see docs/architecture.md, Decisions).
 */
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { afterCommit, type Executor } from '../../db/transaction.ts';
import {
  apiKeysListQuery,
  findApiKeyByHash,
  findApiKeyWithOrganizer,
  insertApiKey,
  recordApiKeyUse,
  revokeApiKey,
} from '../../db/repositories/api-keys.ts';
import { findOrganizer } from '../../db/repositories/organizers.ts';
import { keysetPage, type PageRequest } from '../../db/pagination.ts';
import { notFound } from '../../errors/domain-error.ts';
import type { Clock } from '../../lib/clock.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';

const API_KEY_PREFIX = 'mqk_';
/** `check_in`: a door device's key, alone, limited to the device's performances (docs/door.md). */
export type Scope = 'read' | 'write' | 'check_in';

/** Who a request acts for: an API key on /v1, a signed-in person on /dashboard/v1 (docs/dashboard.md). */
export interface AuthContext {
  /** The API key of a /v1 request; null when a person signed in. */
  apiKeyId: string | null;
  /** The signed-in user of a /dashboard/v1 request; null for an API key. */
  userId: string | null;
  organizerId: string;
  scopes: Scope[];
  currency: string;
  timezone: string;
  /** The door device whose key this is; null for every other caller. */
  deviceId: string | null;
  /** The performances a door device may admit; null: every performance of the organizer. */
  performanceIds: readonly string[] | null;
}

function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** What the cache keeps of a key row: everything authenticate() decides from. */
interface CachedApiKey {
  /** Frozen: the same object serves every request of the key while cached. */
  auth: Readonly<AuthContext>;
  expiresAtMs: number | null;
  revoked: boolean;
}

export type ApiKeyCache = TtlCache<CachedApiKey>;
const API_KEY_CACHE_TTL_MS = 2000;
const API_KEY_CACHE_MAX_ENTRIES = 10_000;

export function createApiKeyCache(clock: Clock): ApiKeyCache {
  return new TtlCache({ ttlMs: API_KEY_CACHE_TTL_MS, maxEntries: API_KEY_CACHE_MAX_ENTRIES, clock });
}

/**
 * A presented key's cache key: its SHA-256 in base64, from the one-shot hash, with no Hash
 * object per request (the same bytes as hashApiKey's).
 */
export function apiKeyCacheKey(presentedKey: string): string {
  return hash('sha256', presentedKey, 'base64');
}

/** Where a presented key's cache key comes from: hashed each time, or remembered. */
interface PresentedKeyHasher {
  cacheKeyOf(presentedKey: string): string;
}

const hashEachTime: PresentedKeyHasher = { cacheKeyOf: apiKeyCacheKey };

/**
 * Remembers the last key presented and its cache key, for one keep-alive connection: its
 * requests present the same key, hashed once instead of once per request. A different key
 * replaces the entry. Keys are compared in constant time (a connection behind a balancer
 * may carry several callers' keys), and the raw key lives no longer than the connection
 * that brought it (docs/architecture.md, "Decisions").
 */
export class LastPresentedKey implements PresentedKeyHasher {
  #key = '';
  #cacheKey = '';

  cacheKeyOf(presentedKey: string): string {
    if (sameKey(this.#key, presentedKey)) return this.#cacheKey;
    this.#cacheKey = apiKeyCacheKey(presentedKey);
    this.#key = presentedKey;
    return this.#cacheKey;
  }
}

/** Whether two keys are equal, in time that depends only on their lengths. */
function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The cache key of a stored hash (PGlite hands bytea back as a plain Uint8Array). */
function cacheKeyOf(keyHash: Uint8Array): string {
  return Buffer.from(keyHash.buffer, keyHash.byteOffset, keyHash.byteLength).toString('base64');
}

/** Drops the cached lookup of the key with this hash (call once its change has committed). */
export function forgetApiKey(cache: ApiKeyCache, keyHash: Uint8Array): void {
  cache.delete(cacheKeyOf(keyHash));
}

/** Drops the cached lookups of every key of the organizer (its currency/timezone changed). */
export function forgetOrganizerApiKeys(cache: ApiKeyCache, organizerId: string): void {
  cache.deleteWhere((entry) => entry.auth.organizerId === organizerId);
}

/**
 * The key's auth context, or undefined for an unknown, revoked or expired key. A cached
 * key is decided synchronously (no promise on the hot path of every request); otherwise
 * the row is loaded and cached.
 */
export function authenticate(
  db: Executor,
  presentedKey: string,
  now: Date,
  cache?: ApiKeyCache,
  hasher: PresentedKeyHasher = hashEachTime,
): AuthContext | undefined | Promise<AuthContext | undefined> {
  if (!isPlausibleKey(presentedKey)) return undefined;
  const cacheKey = hasher.cacheKeyOf(presentedKey);
  // Concurrent misses of one key (its entry just expired under load) share one lookup.
  const entry = cache ? cache.load(cacheKey, () => loadApiKey(db, cacheKey, now)) : loadApiKey(db, cacheKey, now);
  if (!(entry instanceof Promise)) return decide(entry, now);
  return entry.then((loaded) => (loaded === undefined ? undefined : decide(loaded, now)));
}

/**
 * The key's auth context if the cache already holds it: never a load, never a promise.
 * Undefined for a key the cache does not hold as well as for an unknown, revoked or
 * expired one; a caller that needs the difference calls authenticate().
 */
export function cachedAuthentication(
  presentedKey: string,
  now: Date,
  cache: ApiKeyCache,
  hasher: PresentedKeyHasher = hashEachTime,
): AuthContext | undefined {
  if (!isPlausibleKey(presentedKey)) return undefined;
  const entry = cache.get(hasher.cacheKeyOf(presentedKey));
  return entry === undefined ? undefined : decide(entry, now);
}

/** Whether a presented key could be one of ours at all: anything else is refused unhashed. */
function isPlausibleKey(presentedKey: string): boolean {
  return presentedKey.startsWith(API_KEY_PREFIX) && presentedKey.length <= 200;
}

function decide(entry: CachedApiKey, now: Date): AuthContext | undefined {
  if (entry.revoked) return undefined;
  if (entry.expiresAtMs !== null && entry.expiresAtMs <= now.getTime()) return undefined;
  return entry.auth;
}

/**
 * `last_used_at` is kept to the minute: a key is loaded at most once per cache TTL, and
 * a load writes the use only when the recorded one is a minute old or more, so a busy key
 * costs one UPDATE a minute, not one per request.
 */
const LAST_USED_PRECISION_MS = 60_000;

/** The key's row as the cache keeps it, after recording its use; undefined for an unknown key. */
async function loadApiKey(db: Executor, cacheKey: string, now: Date): Promise<CachedApiKey | undefined> {
  const presentedHash = Buffer.from(cacheKey, 'base64');
  const row = await findApiKeyByHash(db, presentedHash);
  // Unknown keys are not cached (the cache never stores undefined): a flood of random keys
  // must not evict real ones.
  if (!row || !timingSafeEqual(row.key_hash, presentedHash)) return undefined;
  const entry: CachedApiKey = {
    auth: Object.freeze({
      apiKeyId: row.id,
      userId: null,
      organizerId: row.organizer_id,
      scopes: Object.freeze([...row.scopes]) as Scope[],
      currency: row.currency,
      timezone: row.timezone,
      deviceId: row.device_id,
      performanceIds: row.performance_ids === null ? null : Object.freeze([...row.performance_ids]),
    }),
    expiresAtMs: row.expires_at === null ? null : row.expires_at.getTime(),
    revoked: row.revoked_at !== null,
  };
  const staleBefore = new Date(now.getTime() - LAST_USED_PRECISION_MS);
  if (decide(entry, now) !== undefined && (row.last_used_at === null || row.last_used_at < staleBefore))
    await recordApiKeyUse(db, row.id, now, staleBefore);
  return entry;
}

export interface CreatedApiKey {
  id: string;
  /** The key itself: shown once, never stored. */
  key: string;
  scopes: Scope[];
  expires_at: Date | null;
  created_at: Date;
}

export async function createApiKey(
  db: Executor,
  input: {
    organizerId: string;
    name?: string | null;
    scopes: Scope[];
    expiresAt?: Date | null;
    /** The user creating it in the dashboard's developer settings. */
    createdBy?: string | null;
  },
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  // Scopes are a set: store them once each, in a stable order.
  const scopes = (['read', 'write', 'check_in'] as const).filter((scope) => input.scopes.includes(scope));
  const row = await insertApiKey(db, {
    organizer_id: input.organizerId,
    name: input.name ?? null,
    key_hash: hashApiKey(key),
    key_preview: key.slice(0, API_KEY_PREFIX.length + 6),
    scopes,
    expires_at: input.expiresAt ?? null,
    created_by: input.createdBy ?? null,
  });
  return { id: row.id, key, scopes, expires_at: row.expires_at, created_at: row.created_at };
}

/**
 * Revokes the key (with an organizer: only one of its keys). Once that has committed, this instance's lookup cache forgets it, so
 * it answers 401 from the next request; other instances within the cache's TTL
 * (docs/architecture.md).
 */
export async function revoke(db: Executor, cache: ApiKeyCache, id: string, now: Date, organizerId?: string) {
  const row = await revokeApiKey(db, id, now, organizerId);
  if (!row) throw notFound('API key');
  afterCommit(db, () => forgetApiKey(cache, row.key_hash));
  return row;
}

/**
 * GET /admin/v1/organizers/{id}/api_keys: every key of the organizer, revoked and expired
 * ones included, newest first; never the key itself nor its hash, only the preview
 * (docs/operations.md, "Admin lists").
 */
export async function listApiKeys(db: Executor, organizerId: string, page: PageRequest) {
  if (!(await findOrganizer(db, organizerId))) throw notFound('Organizer');
  return keysetPage(db, apiKeysListQuery(db, organizerId), page, {
    table: 'api_keys',
    sortColumn: 'created_at',
    direction: 'desc',
    organizerId,
  });
}

/**
 * GET /v1/api_key: the calling key as the console needs it (its scopes decide which actions
 * it offers) with its organizer's name and settings; docs/console.md. The key was just
 * authenticated, so a miss means it was deleted in between: answered as not found.
 */
export async function describeApiKey(db: Executor, auth: AuthContext) {
  if (auth.apiKeyId === null) throw notFound('API key');
  const row = await findApiKeyWithOrganizer(db, auth.apiKeyId, auth.organizerId);
  if (!row) throw notFound('API key');
  return row;
}
