/**
 * Process entry: read configuration, check what the service depends on, take the data
 * directory (embedded database), open and migrate the database, bootstrap, then run the
 * API, the workers or both (ROLE), and drain both on SIGTERM/SIGINT.
 *
 * A start that fails for an operational reason prints one line naming the setting
 * (src/startup-errors.ts) and exits 1; see docs/operations.md, "Start-up errors".
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadConfig, loadDotEnv, type Config } from './config.ts';
import { databaseOptions, openDatabase, type DatabaseHandle } from './db/client.ts';
import { createLogger, humanReadable } from './logging.ts';
import { systemClock } from './lib/clock.ts';
import { acquireDataDirLock, type DataDirLock } from './lib/data-dir-lock.ts';
import { dataDirError, databaseError, listenError, redisError, startupFailureMessage } from './startup-errors.ts';
import type { Workers } from './workers/index.ts';
import { startMetricsServer, type MetricsServer } from './metrics/server.ts';

/**
 * The rest of the service, loaded while the database opens (docs/architecture.md,
 * "Start-up"): the embedded database boots on a thread of its own, so this thread
 * compiles these modules meanwhile instead of before.
 */
function loadService(servesHttp: boolean) {
  // Each module's members are named here, so the unused-export check sees them used.
  return Promise.all([
    import('./db/migrate.ts').then(({ migrate }) => ({ migrate })),
    import('./bootstrap.ts').then(({ ensureDefaultOrganizer, resolveAdminToken }) => ({
      ensureDefaultOrganizer,
      resolveAdminToken,
    })),
    servesHttp ? import('./app.ts').then(({ buildApp }) => ({ buildApp })) : undefined,
    import('./workers/index.ts').then(({ startWorkers }) => ({ startWorkers })),
  ]);
}

/** Undo steps of a start that fails half-way (newest first): close what was opened, release the lock. */
type Undo = Array<() => unknown>;

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const logger = await createLogger(config);
  const undo: Undo = [];
  try {
    await start(config, logger, undo);
  } catch (err) {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch {
        // Best effort: the start already failed, and that failure is what gets reported.
      }
    }
    throw err;
  }
}

// eslint-disable-next-line max-lines-per-function -- the start-up sequence of docs/operations.md, step by step
async function start(config: Readonly<Config>, logger: Logger, undo: Undo): Promise<void> {
  const servesHttp = config.role !== 'worker';
  // Redis only backs the API's rate limits; check it first, before taking anything.
  if (servesHttp && config.redisUrl) {
    const { pingRedis } = await import('./startup-checks.ts');
    await explained(
      () => pingRedis(config.redisUrl!),
      (err) => redisError(err, config.redisUrl!),
    );
  }
  if (usesDataDir(config))
    await explained(
      () => prepareDataDir(config.dataDir),
      (err) => dataDirError(err, config.dataDir),
    );

  const lock = config.databaseUrl ? undefined : await lockDataDir(config, logger);
  if (lock) {
    undo.push(() => lock.release());
    // Also on exits that skip the shutdown below (close-with-grace's timeout, process.exit).
    process.on('exit', () => lock.release());
  }

  const opening = explained(
    () => openDatabase(databaseOptions(config, logger)),
    (err) => (config.databaseUrl ? databaseError(err, config.databaseUrl) : dataDirError(err, config.dataDir)),
  );
  const loading = loadService(servesHttp);
  // Whichever fails first is the error; the other is awaited so nothing is left open.
  const [opened, loaded] = await Promise.allSettled([opening, loading]);
  if (opened.status === 'fulfilled') undo.push(() => opened.value.close());
  if (opened.status === 'rejected') throw opened.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  const database = opened.value;
  const [{ migrate }, { ensureDefaultOrganizer, resolveAdminToken }, appModule, { startWorkers }] = loaded.value;
  if (config.databaseUrl) {
    const { checkDatabase } = await import('./startup-checks.ts');
    await explained(
      () => checkDatabase(database.db),
      (err) => databaseError(err, config.databaseUrl!),
    );
  }
  const admin = await explained(
    () => resolveAdminToken(config.adminToken, config.dataDir),
    (err) => dataDirError(err, config.dataDir),
  );
  // Before any work starts, so a taken METRICS_PORT stops the start at once.
  const metrics = await serveMetrics(config, database, logger);
  if (metrics) undo.push(() => metrics.close());
  // The app is built (routes, schemas, serializers: this thread's work) while the
  // migrations and the bootstrap run (the database's work); it serves nothing before
  // listen() below.
  const building = appModule?.buildApp({ config, database, adminToken: admin.token, logger }).then(async (app) => {
    undo.push(() => app.close());
    await app.ready();
    return app;
  });
  const [bootstrapped, built] = await Promise.allSettled([
    (async () => {
      const applied = await onSessionDatabase(config, database, migrate);
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
      return ensureDefaultOrganizer(database.db, config.publicUrl);
    })(),
    building,
  ]);
  if (bootstrapped.status === 'rejected') throw bootstrapped.reason;
  if (built.status === 'rejected') throw built.reason;
  const defaultOrganizer = bootstrapped.value;
  if (defaultOrganizer || admin.generated) {
    const lines = ['', 'Marquee first start:'];
    if (defaultOrganizer) {
      lines.push(`  Default organizer id: ${defaultOrganizer.organizerId}`);
      lines.push(`  Default organizer API key (read, write): ${defaultOrganizer.apiKey.key}`);
      lines.push(`  Owner set-up link (one use, 72 hours): ${defaultOrganizer.ownerSetupUrl}`);
    }
    if (admin.generated) lines.push(`  Admin token (stored in ${config.dataDir}/admin-token): ${admin.token}`);
    lines.push('  These are shown once. Keep them secret.', '');
    process.stdout.write(lines.join('\n') + '\n');
  }

  const app = built.value;
  const workers: Workers | undefined =
    config.role === 'api' ? undefined : startWorkers({ config, db: database.backgroundDb, clock: systemClock, logger });
  if (workers) undo.push(() => workers.stop());

  // The drain period comes on top of the 20 s the requests and jobs have to finish. A
  // worker-only process serves no HTTP and has nothing to drain first; on the embedded
  // database no other process can take the traffic over (one process per data directory),
  // so a drain would only delay the next start, which waits for the data directory.
  const drainPeriodMs = app && config.databaseUrl ? config.shutdownDrainPeriodMs : 0;
  closeWithGrace({ delay: drainPeriodMs + 20_000 }, async ({ signal, err }) => {
    // Only a signal is a planned stop a balancer can route around; after an error, stop now.
    const drainMs = signal ? drainPeriodMs : 0;
    if (err) logger.error({ err }, 'shutting down after an error');
    else if (drainMs > 0)
      logger.info(
        { signal, drainPeriodMs: drainMs },
        'shutting down: /readyz answers 503 for the drain period, then draining requests and jobs',
      );
    else logger.info({ signal }, 'shutting down: draining requests and jobs');
    if (app) await closeDraining(app, drainMs);
    await workers?.stop();
    // Scraped until the work has drained, so the last counts are there to read.
    await metrics?.close();
    await database.close();
    // Only once the database is closed may the next process open it.
    lock?.release();
  });

  if (app) {
    const address = await explained(
      () => app.listen({ port: config.port, host: config.host }),
      (err) => listenError(err, config.host, config.port),
    );
    const urls = {
      api: `${address}/v1`,
      docs: `${address}/docs`,
      healthz: `${address}/healthz`,
      readyz: `${address}/readyz`,
    };
    if (humanReadable(config)) process.stdout.write(banner(urls));
    logger.info(urls, `Marquee API listening at ${urls.api} (role ${config.role}, ${database.engine})`);
  } else {
    logger.info(`Marquee worker running (${database.engine})`);
  }
}

/** The metrics listener of METRICS_PORT, in every role (docs/operations.md, "Metrics"); none when unset. */
async function serveMetrics(
  config: Readonly<Config>,
  database: DatabaseHandle,
  logger: Logger,
): Promise<MetricsServer | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const server = await explained(
    () => startMetricsServer({ host: config.metricsHost, port: config.metricsPort!, database, clock: systemClock }),
    (err) => listenError(err, config.metricsHost, config.metricsPort!, { port: 'METRICS_PORT', host: 'METRICS_HOST' }),
  );
  const host = config.metricsHost.includes(':') ? `[${config.metricsHost}]` : config.metricsHost;
  logger.info({ metrics: `http://${host}:${server.port}/metrics` }, 'metrics listening');
  return server;
}

/** Where to go next, for a person at a terminal (the JSON log line carries the same URLs). */
function banner(urls: { api: string; docs: string; healthz: string; readyz: string }): string {
  return [
    '',
    `  API         ${urls.api}`,
    `  Docs        ${urls.docs}   (the OpenAPI document, with "Try it out")`,
    `  Liveness    ${urls.healthz}`,
    `  Readiness   ${urls.readyz}`,
    '',
    '',
  ].join('\n');
}

/**
 * Stops the API. First the drain period (docs/deploy.md, "Rolling restarts behind a load
 * balancer"): /readyz answers 503 and every other request is still served, each response
 * closing its connection, so the balancer's health check takes this process out of
 * rotation before it stops accepting. Then no new connections, in-flight requests finish.
 * A keep-alive connection whose request was in flight when closing began would otherwise
 * stay open after its response until its keep-alive timeout and hold the whole drain (and
 * the data directory) that long; closing idle connections as they turn idle lets the
 * drain end with the last response.
 */
async function closeDraining(app: FastifyInstance, drainPeriodMs: number): Promise<void> {
  app.deps.shutdown.beginDraining();
  if (drainPeriodMs > 0) await new Promise((resolve) => setTimeout(resolve, drainPeriodMs));
  const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}

/**
 * Runs `step` (the migrations) on a database connection that keeps its session: behind a
 * transaction pooler a direct one of its own (DATABASE_DIRECT_URL, docs/deploy.md), closed
 * after; otherwise the process's database.
 */
async function onSessionDatabase<T>(
  config: Readonly<Config>,
  database: DatabaseHandle,
  step: (db: DatabaseHandle['db']) => Promise<T>,
): Promise<T> {
  if (config.databaseDirectUrl === undefined) return step(database.db);
  const direct = await explained(
    () =>
      openDatabase({
        ...databaseOptions(config),
        databaseUrl: config.databaseDirectUrl,
        transactionPooled: false,
        poolSize: 1,
      }),
    (err) => databaseError(err, config.databaseDirectUrl!),
  );
  try {
    return await step(direct.db);
  } finally {
    await direct.close();
  }
}

/** Runs one start-up step and turns its failure into the error that names the setting. */
async function explained<T>(step: () => T | Promise<T>, explain: (err: unknown) => unknown): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw explain(err);
  }
}

/**
 * Whether this process writes under DATA_DIR: the embedded database, a generated admin
 * token, or the `.eml` outbox of a process that sends e-mail without SMTP_URL.
 */
function usesDataDir(config: Readonly<Config>): boolean {
  const writesOutbox = !config.smtpUrl && config.role !== 'api' && config.workerJobs.includes('email');
  return !config.databaseUrl || !config.adminToken || writesOutbox;
}

/** Creates DATA_DIR if missing and checks it is writable, so a bad path fails now, not at the first e-mail. */
function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  accessSync(dataDir, constants.W_OK);
}

async function lockDataDir(config: Readonly<Config>, logger: Logger): Promise<DataDirLock> {
  return explained(
    () =>
      acquireDataDirLock(config.dataDir, {
        waitMs: config.dataDirLockWaitMs,
        onWaiting: (holder) =>
          logger.warn(
            { dataDir: path.resolve(config.dataDir), holderPid: holder.pid, waitMs: config.dataDirLockWaitMs },
            `waiting for process ${holder.pid} to release DATA_DIR ${path.resolve(config.dataDir)}`,
          ),
      }),
    (err) => dataDirError(err, config.dataDir),
  );
}

main().catch((err) => {
  const message = startupFailureMessage(err);
  if (message !== undefined) process.stderr.write(`${message}\n`);
  else
    process.stderr.write(
      `Marquee failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  process.exit(1);
});
