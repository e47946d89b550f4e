/**
 * The audit log's guarantees (docs/dashboard.md, "Audit log"): a refused request records
 * nothing, an idempotent replay records once, a change whose commit fails records nothing,
 * a change whose entry cannot be written is not kept,
 * the database refuses to change or delete an entry, and the retention purge deletes the
 * expired ones only. On both engines.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useOrganizer, useTestApp, type TestApp } from '../helpers/app.ts';
import { createEvent } from '../helpers/catalog.ts';
import { orderBody, placeOrder, setupSale } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';
import { purgeExpiredAuditEntries } from '../../src/domain/audit/audit-log.ts';

const DAY = 24 * 60 * 60 * 1000;

const entriesOf = (t: TestApp, organizerId: string, action: string) =>
  t.database.db
    .selectFrom('audit_log')
    .select(['action', 'target_id', 'request_id'])
    .where('organizer_id', '=', organizerId)
    .where('action', '=', action)
    .execute();

/**
 * Runs `body` while the row trigger `name` on `table` raises an exception: `create` is the
 * trigger's CREATE statement up to its EXECUTE FUNCTION clause, which this adds.
 */
async function whileTriggerRefuses(
  t: TestApp,
  trigger: { name: string; table: string; create: string },
  body: () => Promise<void>,
) {
  const { name, table, create } = trigger;
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${name}'; END $$;
       ${create} EXECUTE FUNCTION ${name}();`,
    )
    .execute(t.database.db);
  try {
    await body();
  } finally {
    await sql.raw(`DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}();`).execute(t.database.db);
  }
}

describe('the audit log: what is not recorded, and what cannot change', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test('a refused request records nothing', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const event = await createEvent(t, org.key);
    // 409: already published; 400: a bad body; 403: a viewer; 404: another organizer's.
    assert.equal((await t.dash(session, 'POST', `/dashboard/v1/events/${event.id}/publish`)).statusCode, 409);
    assert.equal((await t.dash(session, 'PATCH', `/dashboard/v1/events/${event.id}`, { title: 'B' })).statusCode, 400);
    const viewer = await t.createUser({ organizerId: org.id, role: 'viewer' });
    const viewing = await t.signIn(viewer.email, viewer.password);
    assert.equal(
      (await t.dash(viewing, 'PATCH', `/dashboard/v1/events/${event.id}`, { title: 'Bravo' })).statusCode,
      403,
    );
    const other = await t.createOrganizer();
    assert.equal((await t.api(other.key, 'PATCH', `/v1/events/${event.id}`, { title: 'Bravo' })).statusCode, 404);
    assert.deepEqual(await entriesOf(t, org.id, 'publishEvent'), []);
    assert.deepEqual(await entriesOf(t, org.id, 'updateEvent'), []);
    assert.deepEqual(await entriesOf(t, other.id, 'updateEvent'), []);
  });

  test('an idempotent replay is recorded once, on the dashboard and on /v1', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const sale = await setupSale(t, { org });
    const unpaid = await placeOrder(t, sale, { tender: 'pay_later' });
    const settle = () =>
      t.dash(session, 'POST', `/dashboard/v1/orders/${unpaid.id}/settle`, {}, { 'idempotency-key': 'settle-1' });
    const first = await settle();
    const replay = await settle();
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual([replay.statusCode, replay.headers['idempotent-replayed']], [200, 'true']);
    assert.deepEqual(await entriesOf(t, org.id, 'settleOrder'), [
      { action: 'settleOrder', target_id: unpaid.id, request_id: first.headers['x-request-id'] },
    ]);

    const order = () => t.api(org.key, 'POST', '/v1/orders', orderBody(sale), { 'idempotency-key': 'order-1' });
    const placed = await order();
    const again = await order();
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const orders = (await entriesOf(t, org.id, 'createOrder')).filter((e) => e.target_id === placed.json().id);
    assert.deepEqual(orders, [
      { action: 'createOrder', target_id: placed.json().id, request_id: placed.headers['x-request-id'] },
    ]);
  });

  test('a change whose commit fails leaves no entry', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const event = await createEvent(t, org.key, { title: 'Alpha' });
    // A deferred check that fails at COMMIT, for this event only.
    const refusedAtCommit = {
      name: 'audit_test_refuse',
      table: 'events',
      create: `CREATE CONSTRAINT TRIGGER audit_test_refuse AFTER UPDATE ON events DEFERRABLE INITIALLY DEFERRED
         FOR EACH ROW WHEN (NEW.id = '${event.id}')`,
    };
    await whileTriggerRefuses(t, refusedAtCommit, async () => {
      const res = await t.dash(
        session,
        'PATCH',
        `/dashboard/v1/events/${event.id}`,
        { title: 'Bravo' },
        { 'idempotency-key': 'commit-fails' },
      );
      assert.equal(res.statusCode, 500, res.body);
      assert.equal((await t.api(org.key, 'GET', `/v1/events/${event.id}`)).json().title, 'Alpha');
      assert.deepEqual(await entriesOf(t, org.id, 'updateEvent'), []);
    });
  });

  test('an entry that cannot be written takes its change with it, under an Idempotency-Key', async () => {
    const owner = await t.createUser({ organizerId: org.id, role: 'owner' });
    const session = await t.signIn(owner.email, owner.password);
    const event = await createEvent(t, org.key, { title: 'Delta' });
    // The entry is written in onSend; the idempotency layer commits after it, on both surfaces.
    const refusedEntry = {
      name: 'audit_test_refuse_entry',
      table: 'audit_log',
      create: `CREATE TRIGGER audit_test_refuse_entry BEFORE INSERT ON audit_log
         FOR EACH ROW WHEN (NEW.target_id = '${event.id}')`,
    };
    await whileTriggerRefuses(t, refusedEntry, async () => {
      const onDashboard = await t.dash(
        session,
        'PATCH',
        `/dashboard/v1/events/${event.id}`,
        { title: 'Bravo' },
        { 'idempotency-key': 'entry-refused-dashboard' },
      );
      const onApi = await t.api(
        org.key,
        'PATCH',
        `/v1/events/${event.id}`,
        { title: 'Charlie' },
        { 'idempotency-key': 'entry-refused-api' },
      );
      assert.deepEqual([onDashboard.statusCode, onApi.statusCode], [500, 500]);
      const stored = await t.database.db
        .selectFrom('events')
        .select('title')
        .where('id', '=', event.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.title, 'Delta');
      assert.deepEqual(await entriesOf(t, org.id, 'updateEvent'), []);
    });
  });

  test('the database refuses to change, delete or truncate an entry', async () => {
    const refused = async (statement: string, op: string) => {
      await assert.rejects(sql.raw(statement).execute(t.database.db), (err: Error) => {
        assert.match(err.message, new RegExp(`audit_log is append-only: ${op} is refused`));
        return true;
      });
    };
    assert.ok(
      (await t.database.db.selectFrom('audit_log').select('id').where('organizer_id', '=', org.id).execute()).length >
        0,
    );
    await refused(`UPDATE audit_log SET action = 'forged' WHERE organizer_id = '${org.id}'`, 'UPDATE');
    await refused(`DELETE FROM audit_log WHERE organizer_id = '${org.id}'`, 'DELETE');
    await refused('TRUNCATE audit_log', 'TRUNCATE');
    // The purge's exception covers rows older than its cutoff, and DELETE only.
    await assert.rejects(
      t.database.db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('marquee.audit_purge_before', '2000-01-01T00:00:00Z', true)`.execute(trx);
        await sql`DELETE FROM audit_log`.execute(trx);
      }),
      /audit_log is append-only: DELETE is refused/,
    );
    await assert.rejects(
      t.database.db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('marquee.audit_purge_before', '9999-01-01T00:00:00Z', true)`.execute(trx);
        await sql`UPDATE audit_log SET action = 'forged'`.execute(trx);
      }),
      /audit_log is append-only: UPDATE is refused/,
    );
  });
});

describe('the audit log: retention', () => {
  const t = useTestApp({ env: { ...UNTHROTTLED, AUDIT_LOG_RETENTION_DAYS: '30' } });

  test('entries older than AUDIT_LOG_RETENTION_DAYS go, newer ones stay', async () => {
    assert.equal(t.config.auditLogRetentionDays, 30);
    const org = await t.createOrganizer(); // adminCreateOrganizer and three adminCreateApiKey entries, now
    t.clock.advance(10 * DAY);
    await createEvent(t, org.key); // createEvent, ten days later
    const deps = { db: t.database.db, clock: t.clock, retentionDays: t.config.auditLogRetentionDays };
    const actions = async () =>
      (
        await t.database.db
          .selectFrom('audit_log')
          .select('action')
          .where('organizer_id', '=', org.id)
          .orderBy('action')
          .execute()
      ).map((r) => r.action);
    const all = ['adminCreateApiKey', 'adminCreateApiKey', 'adminCreateApiKey', 'adminCreateOrganizer', 'createEvent'];

    t.clock.advance(20 * DAY); // exactly 30 days after the first entries: not older than the retention
    assert.equal(await purgeExpiredAuditEntries(deps), 0);
    assert.deepEqual(await actions(), all);
    t.clock.advance(1);
    assert.equal(await purgeExpiredAuditEntries(deps), 4);
    assert.deepEqual(await actions(), ['createEvent']);
    t.clock.advance(10 * DAY);
    assert.equal(await purgeExpiredAuditEntries(deps), 1);
    assert.deepEqual(await actions(), []);
  });
});
