/**
 * What the app hands every route: its dependencies (app.deps) and, per request, the
 * authenticated organizer (request.auth) and the database executor to use (request.db:
 * the shared handle, or a request-scoped transaction opened by the idempotency layer).
 */
import type { Config } from '../config.ts';
import type { Db, Engine } from '../db/client.ts';
import type { Executor } from '../db/transaction.ts';
import type { ApiKeyCache, AuthContext, Scope } from '../domain/auth/api-keys.ts';
import type { EventDetailCache } from './event-detail-cache.ts';
import type { Clock } from '../lib/clock.ts';
import type { IdempotencySettings } from './plugins/idempotency-settings.ts';
import type { RateLimiter } from './rate-limit/limiter.ts';
import type { ShutdownState } from './shutdown-state.ts';
import type { Resolver } from '../webhooks/url-vetting.ts';

export interface AppDeps {
  config: Readonly<Config>;
  db: Db;
  engine: Engine;
  clock: Clock;
  adminToken: string;
  /** Rate-limit counters (in-process, or shared through Redis); see plugins/rate-limit.ts. */
  rateLimiter: RateLimiter;
  /** Lease, retention and test hooks of the idempotency layer; see plugins/idempotency.ts. */
  idempotency: IdempotencySettings;
  /** In-process read caches (docs/architecture.md, Decisions): API-key lookups, event details. */
  caches: { apiKeys: ApiKeyCache; eventDetails: EventDetailCache };
  /** DNS used by webhook URL vetting at endpoint create and PATCH. */
  webhookResolver: Resolver;
  /** Rows per statement of the CSV exports (docs/exports.md); tests make it small. */
  exportBatchSize: number;
  /** Draining before shutdown: /readyz answers 503 (main.ts begins it on SIGTERM). */
  shutdown: ShutdownState;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    auth: AuthContext | undefined;
    db: Executor;
  }
  interface FastifyContextConfig {
    /** Name used in "X not found." when the path id is malformed. */
    resource?: string;
    /**
     * Scope the route needs; defaults to read for GET/HEAD, write otherwise; `any`: a key
     * with `read` or `write`; a list: any one of them (the routes a door device's
     * `check_in` key may use list it, docs/door.md).
     */
    scope?: Scope | 'any' | readonly Scope[];
    /**
     * `replica`: a side-effect-free GET whose handler may read from DATABASE_REPLICA_URL
     * (src/http/read-routing.ts, docs/deploy.md "A read replica"); unset: the primary.
     */
    reads?: 'replica';
  }
}

/** The authenticated organizer of a /v1 request (the auth hook guarantees it). */
export function tenantOf(request: { auth: AuthContext | undefined }): AuthContext {
  if (!request.auth) throw new Error('tenantOf() called on a route without API key authentication');
  return request.auth;
}
