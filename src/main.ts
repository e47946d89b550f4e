/**
 * Process entry: read configuration, open and migrate the database, bootstrap, then run
 * the API, the workers or both (ROLE), and drain both on SIGTERM/SIGINT.
 */
import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { buildApp } from './app.ts';
import { ensureDefaultOrganizer, resolveAdminToken } from './bootstrap.ts';
import { ConfigError, loadConfig, loadDotEnv } from './config.ts';
import { databaseOptions, openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { systemClock } from './lib/clock.ts';
import { startWorkers, type Workers } from './workers/index.ts';

async function main(): Promise<void> {
  loadDotEnv();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = pino({ level: config.logLevel });
  const database = await openDatabase(databaseOptions(config, logger));
  const applied = await migrate(database.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  const defaultKey = await ensureDefaultOrganizer(database.db);
  if (defaultKey || admin.generated) {
    const lines = ['', 'Marquee first start:'];
    if (defaultKey) lines.push(`  Default organizer API key (read, write): ${defaultKey.key}`);
    if (admin.generated) lines.push(`  Admin token (stored in ${config.dataDir}/admin-token): ${admin.token}`);
    lines.push('  These are shown once. Keep them secret.', '');
    process.stdout.write(lines.join('\n') + '\n');
  }

  const app = config.role === 'worker' ? undefined : await buildApp({ config, database, adminToken: admin.token, logger });
  const workers: Workers | undefined =
    config.role === 'api' ? undefined : startWorkers({ config, db: database.db, clock: systemClock, logger });

  closeWithGrace({ delay: 20_000 }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down: draining requests and jobs');
    await app?.close();
    await workers?.stop();
    await database.close();
  });

  if (app) {
    const address = await app.listen({ port: config.port, host: config.host });
    logger.info(`Marquee API listening at ${address}/v1 (role ${config.role}, ${database.engine})`);
  } else {
    logger.info(`Marquee worker running (${database.engine})`);
  }
}

main().catch((err) => {
  process.stderr.write(`Marquee failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
