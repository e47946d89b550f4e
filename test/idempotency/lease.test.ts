/**
 * Crash safety and retention: the in-flight state is a lease (5 s by default, renewed by a
 * heartbeat while the request runs, on PostgreSQL) or, on PGlite, a lease token held by
 * this process; a retry after a dead request's lease executes, a running request keeps its
 * key however long it runs, a request that outlives its lease cannot commit over the retry
 * that took it over, and keys are purged after 24 hours. test/idempotency/crash.test.ts
 * kills a real process mid-request.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createTestApp, problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { onPostgres } from '../helpers/database.ts';
import { IDEMPOTENCY_DETAILS, requestHash } from '../../src/http/plugins/idempotency.ts';
import { DEFAULT_IDEMPOTENCY_SETTINGS } from '../../src/http/plugins/idempotency-settings.ts';
import { idempotencyPurgeJob, purgeExpiredIdempotencyKeys } from '../../src/workers/idempotency-purge.ts';
import { apiKeyIdOf, countRows, isReplayOf, newKey, withKey } from './helpers.ts';

// Long enough that no heartbeat (every third of a lease) fires while a test below runs.
const LEASE_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('idempotency leases and retention', () => {
  let t: TestApp;
  let org: TestOrganizer;
  let hook: ((n: number) => Promise<void>) | undefined;
  let calls = 0;
  before(async () => {
    t = await createTestApp({
      appOptions: { idempotency: { leaseMs: LEASE_MS, beforeExecute: async () => hook?.(++calls) } },
    });
    org = await t.createOrganizer();
  });
  after(() => t.close());

  const keyRow = (key: string) =>
    t.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organizer_id', '=', org.id)
      .where('key', '=', key)
      .executeTakeFirst();

  /** What a process that died mid-request leaves behind: an in_progress row under its lease. */
  async function leftBehind(key: string, body: unknown, lockedUntil: Date) {
    const apiKeyId = await apiKeyIdOf(t, org.key);
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        organizer_id: org.id,
        key,
        request_hash: requestHash(apiKeyId, 'POST', '/v1/events', body),
        api_key_id: apiKeyId,
        method: 'POST',
        path: '/v1/events',
        status: 'in_progress',
        lease_token: randomUUID(),
        locked_until: lockedUntil,
        created_at: new Date(lockedUntil.getTime() - LEASE_MS),
      })
      .execute();
  }

  test('the default lease is 5 seconds and the retention 24 hours', () => {
    assert.equal(DEFAULT_IDEMPOTENCY_SETTINGS.leaseMs, 5_000);
    assert.equal(t.config.idempotencyLeaseMs, 5_000);
    assert.equal(DEFAULT_IDEMPOTENCY_SETTINGS.retentionMs, DAY_MS);
  });

  test('a dead request (in_progress, lease expired) does not hold its key: the retry executes', async () => {
    const key = newKey();
    const body = eventBody(t);
    await leftBehind(key, body, new Date(t.clock.now().getTime() - 1));
    const before = await countRows(t, 'events', org.id);
    const retry = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(await countRows(t, 'events', org.id), before + 1);
    const row = await keyRow(key);
    assert.equal(row?.status, 'completed');
    assert.equal(row?.response_body, retry.body);
    // And from now on the key replays that response.
    assert.equal(isReplayOf(await t.api(org.key, 'POST', '/v1/events', body, withKey(key)), retry), undefined);
  });

  test(
    'PGlite: a key left in progress by another process (one that died) is taken over at once',
    { skip: onPostgres },
    async () => {
      // The embedded database belongs to one process: a lease this process does not hold
      // was left by a process that died, however far its locked_until lies ahead.
      const key = newKey();
      const body = eventBody(t);
      await leftBehind(key, body, new Date(t.clock.now().getTime() + LEASE_MS));
      const retry = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
      assert.equal(retry.statusCode, 201);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
      assert.equal((await keyRow(key))?.response_body, retry.body);
    },
  );

  test(
    'PostgreSQL: while the lease runs a retry answers 409; from the instant it ends the retry executes',
    { skip: !onPostgres },
    async () => {
      const key = newKey();
      const body = eventBody(t);
      const lockedUntil = new Date(t.clock.now().getTime() + LEASE_MS);
      await leftBehind(key, body, lockedUntil);
      const inFlight = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
      assert.deepEqual(inFlight.json(), problemOf(409, IDEMPOTENCY_DETAILS.inFlight, 'idempotency_key_in_flight'));
      t.clock.advance(LEASE_MS - 1);
      assert.equal((await t.api(org.key, 'POST', '/v1/events', body, withKey(key))).statusCode, 409);
      t.clock.advance(1);
      const taken = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
      assert.equal(taken.statusCode, 201);
      assert.equal(taken.headers['idempotent-replayed'], undefined);
    },
  );

  test('a take-over never makes a second change: the request that outlived its lease rolls back', async () => {
    const key = newKey();
    const body = eventBody(t);
    const before = await countRows(t, 'events', org.id);
    const holdFirst = gate();
    const firstEntered = gate();
    const secondEntered = gate();
    const holdSecond = gate();
    calls = 0;
    hook = async (n) => {
      if (n === 1) {
        firstEntered.open();
        await holdFirst.opened; // the first request hangs inside its transaction
      } else {
        secondEntered.open();
        await holdSecond.opened; // the retry has taken the key over and waits inside its transaction
      }
    };
    try {
      const first = t.api(org.key, 'POST', '/v1/events', body, withKey(key));
      await firstEntered.opened;
      t.clock.advance(LEASE_MS + 1); // the first one's lease ends: it counts as dead
      const second = t.api(org.key, 'POST', '/v1/events', body, withKey(key));
      if (onPostgres) {
        // The retry takes the key over and executes while the first still hangs.
        await secondEntered.opened;
        holdFirst.open();
        // The first one finishes its work but cannot store its response: it rolls back.
        const a = await first;
        holdSecond.open();
        const b = await second;
        assert.equal(a.statusCode, 409);
        assert.deepEqual(a.json(), problemOf(409, IDEMPOTENCY_DETAILS.leaseLost, 'idempotency_key_lease_lost'));
        assert.equal(b.statusCode, 201);
        assert.equal(b.headers['idempotent-replayed'], undefined);
        assert.equal((await keyRow(key))?.response_body, b.body);
      } else {
        // PGlite has one connection: the retry waits for the first transaction, then replays it.
        holdFirst.open();
        holdSecond.open();
        const [a, b] = await Promise.all([first, second]);
        assert.equal(a.statusCode, 201);
        assert.equal(isReplayOf(b, a), undefined);
      }
    } finally {
      hook = undefined;
      holdFirst.open();
      holdSecond.open();
    }
    assert.equal(await countRows(t, 'events', org.id), before + 1, 'exactly one event');
  });

  test('purge: keys older than 24 hours are deleted, younger ones kept; a purged key is free again', async () => {
    // Clear the earlier tests' keys first, so the counts below are this test's alone.
    t.clock.advance(DAY_MS + 1);
    await purgeExpiredIdempotencyKeys({ db: t.database.db, clock: t.clock });
    const oldKey = newKey();
    const body = eventBody(t);
    const first = await t.api(org.key, 'POST', '/v1/events', body, withKey(oldKey));
    assert.equal(first.statusCode, 201);
    t.clock.advance(12 * 60 * 60 * 1000);
    const youngKey = newKey();
    assert.equal((await t.api(org.key, 'POST', '/v1/events', eventBody(t), withKey(youngKey))).statusCode, 201);

    t.clock.advance(12 * 60 * 60 * 1000 - 1);
    assert.equal(await purgeExpiredIdempotencyKeys({ db: t.database.db, clock: t.clock }), 0, 'not yet 24 hours');
    assert.notEqual(await keyRow(oldKey), undefined);
    t.clock.advance(1);
    assert.equal(await purgeExpiredIdempotencyKeys({ db: t.database.db, clock: t.clock }), 1);
    assert.equal(await keyRow(oldKey), undefined);
    assert.equal((await keyRow(youngKey))?.status, 'completed');
    const reused = await t.api(org.key, 'POST', '/v1/events', eventBody(t), withKey(oldKey));
    assert.equal(reused.statusCode, 201);
    assert.equal(reused.headers['idempotent-replayed'], undefined);
  });

  test('the purge runs as a worker job at start and stops cleanly', async () => {
    const key = newKey();
    await t.api(org.key, 'POST', '/v1/events', eventBody(t), withKey(key));
    t.clock.advance(DAY_MS + 1);
    const job = idempotencyPurgeJob({
      config: t.config,
      db: t.database.db,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
    });
    assert.equal(job.name, 'idempotency-purge');
    await job.stop(); // waits for the pass started at start
    assert.equal(await keyRow(key), undefined);
  });
});

describe('a running request keeps its key (rule 5) however long it runs', () => {
  // A short lease, so the heartbeat (every third of it, in real time) beats within the test.
  const SHORT_LEASE_MS = 300;
  let t: TestApp;
  let org: TestOrganizer;
  let hook: (() => Promise<void>) | undefined;
  before(async () => {
    t = await createTestApp({
      appOptions: { idempotency: { leaseMs: SHORT_LEASE_MS, beforeExecute: async () => hook?.() } },
    });
    org = await t.createOrganizer();
  });
  after(() => t.close());

  const lockedUntil = async (key: string) =>
    (
      await t.database.db
        .selectFrom('idempotency_keys')
        .select('locked_until')
        .where('organizer_id', '=', org.id)
        .where('key', '=', key)
        .executeTakeFirstOrThrow()
    ).locked_until;

  test(
    'PostgreSQL: held for 5 lease periods, the first keeps renewing; every retry answers 409; then it completes and replays',
    { skip: !onPostgres },
    async () => {
      const key = newKey();
      const body = eventBody(t);
      const before = await countRows(t, 'events', org.id);
      const entered = gate();
      const release = gate();
      hook = async () => {
        entered.open();
        await release.opened;
      };
      try {
        const first = t.api(org.key, 'POST', '/v1/events', body, withKey(key));
        await entered.opened;
        for (let period = 0; period < 5; period++) {
          // A whole lease passes: without a renewal the key would be free from now on.
          t.clock.advance(SHORT_LEASE_MS);
          const deadline = Date.now() + 2_000;
          while ((await lockedUntil(key))!.getTime() <= t.clock.now().getTime()) {
            assert.ok(Date.now() < deadline, `period ${period}: the heartbeat did not renew the lease`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          const retry = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
          assert.equal(retry.statusCode, 409, `period ${period}`);
          assert.deepEqual(retry.json(), problemOf(409, IDEMPOTENCY_DETAILS.inFlight, 'idempotency_key_in_flight'));
        }
        release.open();
        const done = await first;
        assert.equal(done.statusCode, 201);
        assert.equal(done.headers['idempotent-replayed'], undefined);
        assert.equal(isReplayOf(await t.api(org.key, 'POST', '/v1/events', body, withKey(key)), done), undefined);
      } finally {
        hook = undefined;
        release.open();
      }
      assert.equal(await countRows(t, 'events', org.id), before + 1, 'exactly one event');
    },
  );

  test('a completed request stops renewing: its key row keeps no lease', async () => {
    const key = newKey();
    const res = await t.api(org.key, 'POST', '/v1/events', eventBody(t), withKey(key));
    assert.equal(res.statusCode, 201);
    // Several heartbeat periods later, nothing has put a lease back on the completed key.
    await new Promise((resolve) => setTimeout(resolve, SHORT_LEASE_MS));
    const row = await t.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organizer_id', '=', org.id)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.status, row.lease_token, row.locked_until], ['completed', null, null]);
  });

  test(
    'PGlite: a retry queued behind the running request never takes it over, however far the clock moves; it replays',
    { skip: onPostgres },
    async () => {
      const key = newKey();
      const body = eventBody(t);
      const entered = gate();
      const release = gate();
      hook = async () => {
        entered.open();
        await release.opened;
      };
      try {
        const first = t.api(org.key, 'POST', '/v1/events', body, withKey(key));
        await entered.opened;
        t.clock.advance(10 * SHORT_LEASE_MS);
        const retry = t.api(org.key, 'POST', '/v1/events', body, withKey(key));
        await new Promise((resolve) => setTimeout(resolve, 2 * SHORT_LEASE_MS));
        release.open();
        const [a, b] = await Promise.all([first, retry]);
        assert.equal(a.statusCode, 201);
        assert.equal(isReplayOf(b, a), undefined);
      } finally {
        hook = undefined;
        release.open();
      }
    },
  );
});
