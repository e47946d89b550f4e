/**
 * Idempotency key retention (docs/idempotency.md, Retention and purge): deletes keys created
 * 24 hours ago or earlier, in bounded batches, skipping rows a request holds locked. Runs at
 * start and then every PURGE_INTERVAL_MS. Several workers running it at once only skip
 * each other's rows. Expiry itself does not depend on this job: the idempotency layer
 * treats a key older than 24 hours as free even before its row is purged.
 */
import { IDEMPOTENCY_RETENTION_MS, purgeIdempotencyKeysCreatedBy } from '../db/repositories/idempotency.ts';
import type { Db } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import type { JobFactory } from '../background-job.ts';

const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000;
const BATCH = 5000;

/** One purge pass as of the clock's now; returns how many keys went. */
export async function purgeExpiredIdempotencyKeys(
  deps: { db: Db; clock: Clock },
  retentionMs: number = IDEMPOTENCY_RETENTION_MS,
): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - retentionMs);
  let purged = 0;
  for (;;) {
    const n = await purgeIdempotencyKeysCreatedBy(deps.db, cutoff, BATCH);
    purged += n;
    if (n < BATCH) return purged;
  }
}

export const idempotencyPurgeJob: JobFactory = (deps) => {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    if (stopped) return;
    running = purgeExpiredIdempotencyKeys(deps).then(
      (purged) => {
        if (purged > 0) deps.logger.info({ purged }, 'idempotency keys purged');
      },
      (err: unknown) => deps.logger.error({ err }, 'idempotency key purge failed'),
    );
  };
  run();
  const timer = setInterval(run, IDEMPOTENCY_PURGE_INTERVAL_MS);
  timer.unref();
  return {
    name: 'idempotency-purge',
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
