/**
 * Retention (docs/webhooks.md, Retention: delivery logs and event payloads are kept for 30 days): deletes
 * webhook deliveries (with their attempt log) and domain events older than 30 days, in
 * bounded batches so no statement holds locks for long. Runs at start and then every
 * PURGE_INTERVAL_MS; several workers running it at once only repeat each other's
 * deletes. Ended dashboard sessions and old one-time links go too (./people-purge.ts), and
 * audit log entries older than AUDIT_LOG_RETENTION_DAYS (docs/dashboard.md, "Audit log").
 * (Idempotency keys are purged by the idempotency layer, not here.)
 */
import { purgeDomainEventsBefore } from '../db/repositories/domain-events.ts';
import { purgeDeliveriesBefore } from '../db/repositories/webhook-deliveries.ts';
import type { Db } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import type { JobFactory } from '../background-job.ts';
import { purgeEndedPeopleRecords } from './people-purge.ts';
import { purgeExpiredAuditEntries } from '../domain/audit/audit-log.ts';

const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5000;

interface PurgeResult {
  deliveries: number;
  domainEvents: number;
}

/** One purge pass as of the clock's now; returns how many rows went. */
export async function purgeExpired(deps: { db: Db; clock: Clock }): Promise<PurgeResult> {
  const cutoff = new Date(deps.clock.now().getTime() - RETENTION_MS);
  const result: PurgeResult = { deliveries: 0, domainEvents: 0 };
  for (;;) {
    const n = await purgeDeliveriesBefore(deps.db, cutoff, BATCH);
    result.deliveries += n;
    if (n < BATCH) break;
  }
  // An event's remaining deliveries (e.g. a recent redelivery of an old event) go with it.
  for (;;) {
    const n = await purgeDomainEventsBefore(deps.db, cutoff, BATCH);
    result.domainEvents += n;
    if (n < BATCH) break;
  }
  return result;
}

export const retentionPurgeJob: JobFactory = (deps) => {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = Promise.all([
      purgeExpired(deps),
      purgeEndedPeopleRecords({ ...deps, sessions: deps.config.sessions }),
      purgeExpiredAuditEntries({ ...deps, retentionDays: deps.config.auditLogRetentionDays }),
    ]).then(
      ([result, people, auditEntries]) => {
        if (result.deliveries + result.domainEvents + people.sessions + people.links + auditEntries > 0)
          deps.logger.info({ ...result, ...people, auditEntries }, 'retention purge');
      },
      (err: unknown) => deps.logger.error({ err }, 'retention purge failed'),
    );
  };
  run();
  const timer = setInterval(run, PURGE_INTERVAL_MS);
  timer.unref();
  return {
    name: 'retention-purge',
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
};
