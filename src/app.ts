/**
 * buildApp(): the HTTP application with every plugin, route and convention, and no
 * listen(): main.ts listens, tests inject. Conventions that hold for every route live
 * here once: request ids, CORS, validation, problem+json errors, 404s, OpenAPI.
 */
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/client.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { AppDeps } from './http/context.ts';
import { answerUnmetExpectation, createClientErrorHandler } from './http/client-errors.ts';
import { handleError, problem, sendProblem } from './http/errors.ts';
import { invalid } from './errors/domain-error.ts';
import { serializerFactory, type CompileWhen } from './http/serialization.ts';
import { handleFrameworkError } from './http/framework-errors.ts';
import { BODY_LIMIT_BYTES, notFoundDetail } from './http/framework-problems.ts';
import { EXPOSED_HEADERS_VALUE, requestIdOf, setResponseConventions } from './http/response-conventions.ts';
import { capConnections, createLimitedServer } from './http/server-limits.ts';
import { DEFAULT_IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './http/plugins/idempotency-settings.ts';
import { registerPreauthRateLimit, stampPendingPreauthLimit } from './http/plugins/rate-limit.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limit/limiter.ts';
import { registerJsonParser } from './http/json-body.ts';
import { recordRequestMetrics, recordUnmatched, routeObserver } from './http/request-metrics.ts';
import { eventDetailFastPath, type FastPath } from './http/event-detail-fast-path.ts';
import { refuseUnstorableQueryText } from './http/query-text.ts';
import { addComponentSchemas, validatorCompilerFor } from './http/validation.ts';
import { componentSchemas } from './http/schemas/components.ts';
import { adminRoutes } from './http/routes/admin/index.ts';
import { healthRoutes } from './http/routes/health.ts';
import { v1Routes } from './http/routes/v1/index.ts';
import { deviceClaimRoutes } from './http/routes/v1/door-devices/claim-door-device.ts';
import { dashboardOpenApiDocument, openApiDocument } from './http/openapi.ts';
import { dashboardRoutes } from './http/routes/dashboard/index.ts';
import { systemResolver, type Resolver } from './webhooks/url-vetting.ts';
import { createApiKeyCache } from './domain/auth/api-keys.ts';
import { createEventDetailCache } from './http/event-detail-cache.ts';
import { EXPORT_BATCH_SIZE } from './domain/exports/exports.ts';
import { serveConsole } from './http/console/serve-console.ts';
import { closeConnectionWhileDraining, createShutdownState } from './http/shutdown-state.ts';
import { frameworkLogging } from './http/request-logger.ts';
import { routeReads } from './http/read-routing.ts';
import type { ReadReplica } from './db/replica.ts';

const DASHBOARD_PREFIX = '/dashboard/v1';

/** A registered schema is the component named by its $id, in both OpenAPI documents. */
const refResolver = {
  buildLocalReference: (json: { $id?: unknown }, _baseUri: unknown, _fragment: unknown, i: number) =>
    typeof json.$id === 'string' ? json.$id : `def-${i}`,
};

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
  /** Rows per statement of the CSV exports (default EXPORT_BATCH_SIZE); tests make it small. */
  exportBatchSize?: number;
  /** A read replica the caller opened and closes (tests); omitted: DATABASE_REPLICA_URL's, if set. */
  readReplica?: ReadReplica;
  /**
   * When the routes' validators and serializers are compiled: at first use (the default,
   * a shorter start) or as each route is added, so a schema that cannot compile stops the
   * build (tests).
   */
  compileSchemas?: CompileWhen;
}

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

// eslint-disable-next-line max-lines-per-function -- the registration order is the request pipeline; split, it would no longer read in order
export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const limits = opts.config.http;
  const compileSchemas = opts.compileSchemas ?? 'first-use';
  // Fastify gets the process logger only at levels where it writes its request lines; a
  // request's pino child is made when it first logs a line (./http/request-logger.ts).
  const logging = frameworkLogging(opts.logger);
  // Cached event details are answered in front of the router (./http/event-detail-fast-path.ts),
  // once the caches it reads exist (below).
  let fastPath: FastPath | undefined;
  const app = Fastify({
    ...logging.options,
    trustProxy: opts.config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    // Keep a caller's well-formed request id (so it can correlate), else mint one.
    requestIdHeader: false,
    genReqId: requestIdOf,
    routerOptions: { ignoreTrailingSlash: true },
    // Response serializers compiled at first use, with only the components each refers to
    // (./http/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer: serializerFactory(compileSchemas) } },
    // Slow clients: deadlines for headers, whole requests, idle and keep-alive connections.
    serverFactory: (handler) =>
      createLimitedServer(limits, (req, res) => {
        if (fastPath === undefined || !fastPath(req, res)) handler(req, res);
      }),
    // One error path: routing errors and requests Node's parser refuses answer problems too.
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: createClientErrorHandler(limits, (fields, message) => app.log.info(fields, message)),
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (logging.appLog) app.log = logging.appLog;
  capConnections(app.server, limits, (fields, message) => app.log.warn(fields, message));
  // Request metrics only when they are served (METRICS_PORT): before any route is added.
  const metrics = opts.config.metricsPort !== undefined;
  if (metrics) recordRequestMetrics(app);
  app.server.on('checkExpectation', answerUnmetExpectation);

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
  const eventDetails = createEventDetailCache(clock);
  app.addHook('onClose', async () => eventDetails.close());
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
    exportBatchSize: opts.exportBatchSize ?? EXPORT_BATCH_SIZE,
    caches: { apiKeys: createApiKeyCache(clock), eventDetails: eventDetails.cache },
    shutdown: createShutdownState(),
  };
  app.decorate('deps', deps);
  // Not where Fastify writes a line for every request: such a line is the operator's record of it.
  if (!logging.logsEveryRequest)
    fastPath = eventDetailFastPath({
      apiKeys: deps.caches.apiKeys,
      eventDetails: eventDetails.cache,
      rateLimiter,
      shutdown: deps.shutdown,
      clock,
      trustProxy: opts.config.trustProxy,
      observe: metrics ? routeObserver('/v1/events/:id', 'GET', 200) : undefined,
    });
  // Closing, Fastify answers new requests 503 itself: from then on every request is its own.
  app.addHook('preClose', (done) => {
    fastPath = undefined;
    done();
  });
  app.decorateRequest('auth', undefined);
  app.decorateRequest('db', null as never);

  app.addHook('onRequest', (request, reply, done) => {
    // The request id and the CORS headers of every actual response: static (any origin,
    // no credentials), so set here; @fastify/cors answers the preflights only (below).
    setResponseConventions(reply, request.id);
    // Draining before shutdown (docs/deploy.md): every response closes its connection.
    closeConnectionWhileDraining(deps.shutdown, reply);
    request.db = deps.db;
    // HTTP/1.1 requires Host; Node's own check (turned off, server-limits.ts) would answer
    // an empty 400 outside this error path.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(invalid('invalid_request', 'HTTP/1.1 requests must carry a Host header.'));
      return;
    }
    done();
  });
  // Reads that may go to DATABASE_REPLICA_URL (docs/deploy.md, "A read replica"): before any route.
  await routeReads(app, { config: opts.config, primary: opts.database.db, replica: opts.readReplica });

  app.setValidatorCompiler(validatorCompilerFor(compileSchemas));
  // The named schemas every route refers to by $ref (src/http/schemas/components.ts).
  addComponentSchemas(componentSchemas);
  for (const schema of componentSchemas) app.addSchema(schema);
  registerJsonParser(app);
  app.setErrorHandler((error: Parameters<typeof handleError>[0], request, reply) => {
    // Failed before its caller was counted (no key, a wrong scope, no session): the
    // pre-auth bucket's headers, which such a scope keeps until then (docs/rate-limits.md).
    stampPendingPreauthLimit(request, reply);
    return handleError(error, request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    if (metrics) recordUnmatched(request, reply);
    return sendProblem(reply, problem('unknown_endpoint', notFoundDetail(request.url)));
  });

  // Preflights: @fastify/cors in a scope of its own, whose only route is its OPTIONS
  // wildcard, so its per-request hook runs for preflights and costs every other request
  // nothing (bench/README.md).
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
  registerPreauthRateLimit(app, rateLimiter);
  app.addHook('preValidation', refuseUnstorableQueryText);

  // Two documents: /v1 and /admin/v1 in one, /dashboard/v1 in its own (docs/dashboard.md).
  const onDashboard = (url: string) => url.startsWith(DASHBOARD_PREFIX);
  await app.register(swagger, {
    openapi: openApiDocument,
    refResolver,
    transform: ({ schema, url }) => ({ schema: onDashboard(url) ? { ...schema, hide: true } : schema, url }),
  });
  await app.register(swagger, {
    openapi: dashboardOpenApiDocument,
    decorator: 'dashboardSwagger',
    refResolver,
    transform: ({ schema, url }) => ({ schema: onDashboard(url) ? schema : { ...schema, hide: true }, url }),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/v1/openapi.json' } });

  await app.register(healthRoutes);
  await app.register(
    async (v1) => {
      v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      // A door device's claim of its pairing code: no API key yet, so outside v1Routes' hook.
      await v1.register(deviceClaimRoutes);
      await v1.register(v1Routes);
    },
    { prefix: '/v1' },
  );
  await app.register(adminRoutes, { prefix: '/admin/v1' });
  await app.register(dashboardRoutes, { prefix: DASHBOARD_PREFIX });
  // The organizer console at /app/ (docs/console.md), unless CONSOLE_ENABLED=false.
  if (opts.config.consoleEnabled && !(await serveConsole(app)))
    app.log.warn('The console is not built (no dist/console/index.html): run `npm run build` to serve /app/.');

  return app;
}
