/**
 * buildApp(): the HTTP application with every plugin, route and convention, and no
 * listen(): main.ts listens, tests inject. Conventions that hold for every route live
 * here once: request ids, CORS, validation, problem+json errors, 404s, OpenAPI.
 */
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/client.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { AppDeps } from './http/context.ts';
import { handleError, sendProblem } from './http/errors.ts';
import { DEFAULT_IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './http/plugins/idempotency.ts';
import { preauthRateLimit } from './http/plugins/rate-limit.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limit/limiter.ts';
import { registerJsonParser } from './http/json-body.ts';
import { validatorCompiler } from './http/validation.ts';
import { adminRoutes } from './http/routes/admin/index.ts';
import { healthRoutes } from './http/routes/health.ts';
import { v1Routes } from './http/routes/v1/index.ts';
import { openApiDocument } from './http/openapi.ts';
import { systemResolver, type Resolver } from './domain/webhooks/url-vetting.ts';
import { createApiKeyCache } from './domain/auth/api-keys.ts';
import { createEventDetailCache } from './domain/catalog/events.ts';

export interface BuildAppOptions {
  config: Readonly<Config>;
  database: DatabaseHandle;
  adminToken: string;
  clock?: Clock;
  /** A pino logger; omitted means no logging (tests). */
  logger?: FastifyBaseLogger;
  /** Rate limiter to use instead of one built from config.rateLimits/redisUrl (tests). The app closes it. */
  rateLimiter?: RateLimiter;
  /** Namespace of the Redis rate-limit counters (default 'marquee:rl'); tests use a unique one. */
  rateLimitKeyPrefix?: string;
  /** Idempotency lease/retention overrides and test seams (defaults: IDEMPOTENCY_LEASE, 24 h retention). */
  idempotency?: Partial<IdempotencySettings>;
  /** DNS for webhook URL vetting; omitted means the system resolver (tests inject a fake). */
  webhookResolver?: Resolver;
}

/** Headers browser callers may read (spec: CORS), plus the rate-limit pacing headers. */
const EXPOSED_HEADERS_VALUE = ['x-request-id', 'retry-after', 'idempotent-replayed', 'ratelimit', 'ratelimit-policy'].join(', ');
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * TEST_HOLD_IDEMPOTENT_REQUESTS (config refuses it unless NODE_ENV=test): each idempotent
 * request waits inside its transaction, and says so in the log, so that a test can kill
 * the process while a request holds its key.
 */
function testHold(holdMs: number | undefined): Partial<IdempotencySettings> {
  if (holdMs === undefined) return {};
  return {
    beforeExecute: async (request) => {
      request.log.warn({ holdMs }, 'test hook: holding an idempotent request mid-flight');
      await new Promise((resolve) => setTimeout(resolve, holdMs));
    },
  };
}

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    trustProxy: opts.config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Keep a caller's well-formed request id (so it can correlate), else mint one.
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const rateLimiter =
    opts.rateLimiter ??
    createRateLimiter({
      limits: opts.config.rateLimits,
      redisUrl: opts.config.redisUrl,
      keyPrefix: opts.rateLimitKeyPrefix,
      logger: { warn: (obj, msg) => app.log.warn(obj, msg), info: (obj, msg) => app.log.info(obj, msg as string) },
    });
  app.addHook('onClose', async () => rateLimiter.close());

  const clock = opts.clock ?? systemClock;
  const deps: AppDeps = {
    config: opts.config,
    db: opts.database.db,
    engine: opts.database.engine,
    clock,
    adminToken: opts.adminToken,
    rateLimiter,
    idempotency: {
      ...DEFAULT_IDEMPOTENCY_SETTINGS,
      leaseMs: opts.config.idempotencyLeaseMs,
      ...testHold(opts.config.testHoldIdempotentRequestsMs),
      ...opts.idempotency,
    },
    webhookResolver: opts.webhookResolver ?? systemResolver,
    caches: { apiKeys: createApiKeyCache(clock), eventDetails: createEventDetailCache(clock) },
  };
  app.decorate('deps', deps);
  app.decorateRequest('auth', undefined);
  app.decorateRequest('db', null as never);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // The CORS headers of every actual response: static (any origin, no credentials), so
    // set here; @fastify/cors answers the preflights only (below).
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', EXPOSED_HEADERS_VALUE);
    request.db = deps.db;
    done();
  });

  app.setValidatorCompiler(validatorCompiler);
  registerJsonParser(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const isApi = path === '/v1' || path.startsWith('/v1/') || path.startsWith('/admin/v1');
    return sendProblem(reply, 404, isApi ? 'Unknown API endpoint.' : 'Not found.');
  });

  // Preflights: @fastify/cors in a scope of its own, whose only route is its OPTIONS
  // wildcard, so its per-request hook runs for preflights and not for every request
  // (it cost about a tenth of a cached GET's throughput in the reads benchmark).
  await app.register(async (preflights) => {
    await preflights.register(cors, {
      origin: '*',
      methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
      exposedHeaders: EXPOSED_HEADERS_VALUE,
      credentials: false,
      maxAge: 600,
    });
  });
  // Pre-auth rate limit per client IP: every request, before any authentication, after
  // the CORS hook so that a 429 is readable by browser callers too.
  app.addHook('onRequest', preauthRateLimit);

  await app.register(swagger, { openapi: openApiDocument });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/v1/openapi.json' } });

  await app.register(healthRoutes);
  await app.register(async (v1) => {
    v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await v1.register(v1Routes);
  }, { prefix: '/v1' });
  await app.register(adminRoutes, { prefix: '/admin/v1' });

  return app;
}
