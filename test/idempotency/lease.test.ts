/**
 * Crash safety and retention: the in-flight lock is a lease (60 s by default, 5 s here),
 * a retry after a dead request's lease executes, a request that outlives its lease cannot
 * commit over the retry that took it over, and keys are purged after 24 hours.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createTestApp, problemOf, type TestApp, type TestOrganizer } from '../helpers/app.ts';
import { eventBody } from '../helpers/catalog.ts';
import { onPostgres } from '../helpers/database.ts';
import { DEFAULT_IDEMPOTENCY_SETTINGS, IDEMPOTENCY_DETAILS, requestHash } from '../../src/http/plugins/idempotency.ts';
import { idempotencyPurgeJob, purgeExpiredIdempotencyKeys } from '../../src/workers/idempotency-purge.ts';
import { apiKeyIdOf, countRows, isReplayOf, newKey, withKey } from './helpers.ts';

const LEASE_MS = 5_000;
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
    t.database.db.selectFrom('idempotency_keys').selectAll().where('organizer_id', '=', org.id).where('key', '=', key).executeTakeFirst();

  /** What a process that died mid-request leaves behind: an in_progress row under its lease. */
  async function leftBehind(key: string, body: unknown, lockedUntil: Date) {
    const apiKeyId = await apiKeyIdOf(t, org.key);
    await t.database.db.insertInto('idempotency_keys').values({
      organizer_id: org.id, key, request_hash: requestHash(apiKeyId, 'POST', '/v1/events', body), api_key_id: apiKeyId,
      method: 'POST', path: '/v1/events', status: 'in_progress', lease_token: randomUUID(), locked_until: lockedUntil,
      created_at: new Date(lockedUntil.getTime() - LEASE_MS),
    }).execute();
  }

  test('the default lease is 60 seconds and the retention 24 hours', () => {
    assert.equal(DEFAULT_IDEMPOTENCY_SETTINGS.leaseMs, 60_000);
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

  test('while the lease runs a retry answers 409; from the instant it ends the retry executes', async () => {
    const key = newKey();
    const body = eventBody(t);
    const lockedUntil = new Date(t.clock.now().getTime() + LEASE_MS);
    await leftBehind(key, body, lockedUntil);
    const inFlight = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
    assert.deepEqual(inFlight.json(), problemOf(409, IDEMPOTENCY_DETAILS.inFlight));
    t.clock.advance(LEASE_MS - 1);
    assert.equal((await t.api(org.key, 'POST', '/v1/events', body, withKey(key))).statusCode, 409);
    t.clock.advance(1);
    const taken = await t.api(org.key, 'POST', '/v1/events', body, withKey(key));
    assert.equal(taken.statusCode, 201);
    assert.equal(taken.headers['idempotent-replayed'], undefined);
  });

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
        assert.deepEqual(a.json(), problemOf(409, IDEMPOTENCY_DETAILS.leaseLost));
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
    const job = idempotencyPurgeJob({ config: t.config, db: t.database.db, clock: t.clock, logger: pino({ level: 'silent' }) });
    assert.equal(job.name, 'idempotency-purge');
    await job.stop(); // waits for the pass started at start
    assert.equal(await keyRow(key), undefined);
  });
});
