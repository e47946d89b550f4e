import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { startWorkers } from '../../src/workers/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('WORKER_JOBS: which jobs a worker process runs', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  const cases: Array<[string | undefined, string[]]> = [
    [undefined, ['webhook-delivery', 'email', 'retention-purge', 'idempotency-purge']],
    ['webhooks', ['webhook-delivery']],
    ['email,purge', ['email', 'retention-purge', 'idempotency-purge']],
  ];
  for (const [setting, expected] of cases) {
    test(`WORKER_JOBS=${setting ?? '(unset)'} starts ${expected.join(', ')}`, async () => {
      const config = loadConfig(setting === undefined ? {} : { WORKER_JOBS: setting });
      const workers = startWorkers({
        config,
        db: database.db,
        clock: new ManualClock(new Date()),
        logger: pino({ level: 'silent' }),
      });
      try {
        assert.deepEqual(workers.jobs, expected);
      } finally {
        await workers.stop();
      }
    });
  }
});
