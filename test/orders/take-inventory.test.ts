/**
 * take_inventory() locks, recounts and moves each counter only within what the recount
 * leaves; a move that does not fit is not made and is reported as `taken: false`, and
 * refuseIfShort words the refusal (docs/inventory.md). Its verdict and refuseIfShort's
 * agree on any state (a property). A sale's inventory step (takeInventoryLast:
 * take_inventory_or_refuse() with the COMMIT behind it in one message when the sale owns
 * its transaction): committed when it fits, refused with the same 400 and nothing left
 * behind when it does not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import pg from 'pg';
import type { TakeInventoryRow } from '../../src/db/repositories/inventory.ts';
import { withTransaction, type Executor } from '../../src/db/transaction.ts';
import { refuseIfShort, takeInventoryLast } from '../../src/domain/inventory/inventory.ts';
import { useTestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { setupSale, soldCount, type Sale } from '../helpers/orders.ts';

/** take_inventory() itself, the database function a sale's refusing call wraps. */
async function callTakeInventory(
  trx: Executor,
  perPerformance: Array<[string, number]>,
  perPrice: Array<[string, string, number]>,
  now: Date,
): Promise<TakeInventoryRow[]> {
  const result = await sql<TakeInventoryRow>`
    SELECT kind, performance_id, status, box_office_sales_enabled, event_status,
           performance_remaining, ticket_type_id, ticket_type_name, sort_order, type_remaining, taken
    FROM take_inventory(${perPerformance.map(([id]) => id)}::uuid[], ${perPerformance.map(([, q]) => q)}::int[],
                        ${perPrice.map(([p]) => p)}::uuid[], ${perPrice.map(([, ty]) => ty)}::uuid[], ${perPrice.map(([, , q]) => q)}::int[],
                        ${now}::timestamptz)
    ORDER BY kind, performance_id, sort_order, ticket_type_id
  `.execute(trx);
  return result.rows;
}

/** The statement texts node-postgres sends while fn runs (PostgreSQL only). */
async function statementsSent(fn: () => Promise<void>): Promise<string[]> {
  const texts: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const { query } = prototype;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [config] = args as [string | { text: string }];
    texts.push(typeof config === 'string' ? config : config.text);
    return query.apply(this, args);
  };
  try {
    await fn();
  } finally {
    prototype.query = query;
  }
  return texts;
}

describe('take_inventory()', () => {
  const t = useTestApp();

  /** One call inside a transaction that is then rolled back: the rows it returned. */
  async function callAndRollBack(sale: Sale, quantity: number) {
    let rows: Awaited<ReturnType<typeof callTakeInventory>> = [];
    let soldInside = 0;
    await assert.rejects(
      t.database.db.transaction().execute(async (trx) => {
        rows = await callTakeInventory(
          trx,
          [[sale.performanceId, quantity]],
          [[sale.performanceId, sale.ticketTypeId, quantity]],
          t.clock.now(),
        );
        const row = await trx
          .selectFrom('performances')
          .select('sold_count')
          .where('id', '=', sale.performanceId)
          .executeTakeFirstOrThrow();
        soldInside = row.sold_count;
        throw new Error('roll back');
      }),
      /roll back/,
    );
    return { rows, soldInside };
  }

  const smallEvent = { performances: [{ starts_at: '2031-05-01T19:00:00Z', capacity: 5 }] };

  test('a move the constraints allow is made, with the recount from before it', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const { rows, soldInside } = await callAndRollBack(sale, 2);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['counted', 'locked'],
    );
    const counted = rows[0]!;
    assert.equal(counted.kind === 'counted' && counted.performance_remaining, 5, 'the recount from before the move');
    assert.equal(counted.kind === 'counted' && counted.taken, true);
    assert.equal(soldInside, 2);
    assert.equal(await soldCount(t, sale), 0, 'rolled back');
  });

  test('a move past the capacity is reported as not taken, and the counters stay', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const { rows, soldInside } = await callAndRollBack(sale, 6);
    const counted = rows.find((r) => r.kind === 'counted');
    assert.equal(counted?.kind === 'counted' && counted.taken, false);
    assert.equal(soldInside, 0);
  });

  test('holds leave too little: no counter moves, and the fit rule words the refusal', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const hold = await t.admin('POST', `/admin/v1/performances/${sale.performanceId}/holds`, {
      kind: 'allocation',
      quantity: 4,
    });
    assert.equal(hold.statusCode, 201);
    const line = { performanceId: sale.performanceId, ticketTypeId: sale.ticketTypeId, quantity: 2 };
    await assert.rejects(
      withTransaction(t.database.db, (trx) => takeInventoryLast(trx, [line], t.clock.now())),
      (err: { code: string; detail: string }) => {
        assert.equal(err.code, 'insufficient_inventory');
        assert.match(err.detail, /2 "[^"]+" requested, 1 remaining for this performance\.$/);
        return true;
      },
    );
    const { rows, soldInside } = await callAndRollBack(sale, 2);
    const counted = rows.find((r) => r.kind === 'counted');
    assert.equal(counted?.kind === 'counted' && counted.taken, false);
    assert.equal(soldInside, 0);
    assert.equal(await soldCount(t, sale), 0);
  });

  /** The transaction each session of the pool would see: none left open on the connection. */
  async function openTransactions(): Promise<number> {
    const row = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`
      .execute(t.database.db)
      .then((r) => r.rows[0]!);
    return row.n;
  }

  test('with the COMMIT in the same message: a sale that fits is committed by that message', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const line = { performanceId: sale.performanceId, ticketTypeId: sale.ticketTypeId, quantity: 3 };
    const messages = await statementsSent(() =>
      withTransaction(t.database.db, (trx) => takeInventoryLast(trx, [line], t.clock.now())),
    );
    if (onPostgres) {
      assert.equal(messages.length, 2, 'BEGIN, then the inventory step with the COMMIT behind it');
      // BEGIN (through a transaction pooler with its SET LOCALs in the same message).
      assert.match(messages[0]!, /^BEGIN(?:; SET LOCAL .*)?$/s);
      assert.match(messages[1]!, /^SELECT take_inventory_or_refuse\(.*\); COMMIT$/s);
    }
    assert.equal(await soldCount(t, sale), 3, 'committed: another connection sees the move');
    if (onPostgres) assert.equal(await openTransactions(), 0);
  });

  test('with the COMMIT in the same message: a refusal is the same 400, and nothing is left behind', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const hold = await t.admin('POST', `/admin/v1/performances/${sale.performanceId}/holds`, {
      kind: 'allocation',
      quantity: 4,
    });
    assert.equal(hold.statusCode, 201);
    const line = { performanceId: sale.performanceId, ticketTypeId: sale.ticketTypeId, quantity: 2 };
    await assert.rejects(
      withTransaction(t.database.db, async (conn) => {
        // Written before the inventory step, as a sale writes its order: rolled back with it.
        await sql`UPDATE organizers SET name = 'written by the refused sale' WHERE id = ${sale.org.id}`.execute(conn);
        await takeInventoryLast(conn, [line], t.clock.now());
      }),
      (err: { code: string; detail: string }) => {
        assert.equal(err.code, 'insufficient_inventory');
        assert.match(err.detail, /^Not enough tickets left: 2 "[^"]+" requested, 1 remaining for this performance\.$/);
        return true;
      },
    );
    assert.equal(await soldCount(t, sale), 0);
    const organizer = await t.database.db
      .selectFrom('organizers')
      .select('name')
      .where('id', '=', sale.org.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(organizer.name, 'written by the refused sale');
    if (onPostgres) assert.equal(await openTransactions(), 0);
    // The connection is clean: the next sale on the same pool commits.
    await withTransaction(t.database.db, (trx) => takeInventoryLast(trx, [{ ...line, quantity: 1 }], t.clock.now()));
    assert.equal(await soldCount(t, sale), 1);
  });

  test('take_inventory() moves exactly when refuseIfShort accepts the recount (any sold counts, holds and quantities)', async () => {
    const sale = await setupSale(t, {
      event: {
        performances: [{ starts_at: '2031-05-02T19:00:00Z', capacity: 10 }],
        ticket_types: [
          { name: 'General', price_minor: 1000 },
          { name: 'Box', price_minor: 5000, quantity: 4 },
        ],
      },
    });
    const [general, box] = sale.ticketTypeIds as [string, string];
    const state = fc.record({
      soldGeneral: fc.integer({ min: 0, max: 10 }),
      soldBox: fc.integer({ min: 0, max: 4 }),
      heldPerformance: fc.integer({ min: 0, max: 4 }),
      heldBox: fc.integer({ min: 0, max: 3 }),
      wantGeneral: fc.integer({ min: 0, max: 6 }),
      wantBox: fc.integer({ min: 0, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(state, async (s) => {
        fc.pre(s.soldGeneral + s.soldBox <= 10 && s.wantGeneral + s.wantBox > 0);
        const lines = [
          { performanceId: sale.performanceId, ticketTypeId: general, quantity: s.wantGeneral },
          { performanceId: sale.performanceId, ticketTypeId: box, quantity: s.wantBox },
        ].filter((line) => line.quantity > 0);
        const perPrice = lines
          .map((l) => [l.performanceId, l.ticketTypeId, l.quantity] as [string, string, number])
          .sort();
        let taken: boolean | undefined;
        let counted: Parameters<typeof refuseIfShort>[1] = [];
        await t.database.db
          .transaction()
          .execute(async (trx) => {
            await sql`UPDATE performances SET sold_count = ${s.soldGeneral + s.soldBox} WHERE id = ${sale.performanceId}`.execute(
              trx,
            );
            await sql`UPDATE prices SET sold_count = CASE ticket_type_id WHEN ${box}::uuid THEN ${s.soldBox}::int ELSE ${s.soldGeneral}::int END
                      WHERE performance_id = ${sale.performanceId}`.execute(trx);
            if (s.heldPerformance > 0)
              await sql`INSERT INTO holds (organizer_id, performance_id, kind, quantity)
                        VALUES (${sale.org.id}, ${sale.performanceId}, 'allocation', ${s.heldPerformance})`.execute(
                trx,
              );
            if (s.heldBox > 0)
              await sql`INSERT INTO holds (organizer_id, performance_id, ticket_type_id, kind, quantity)
                        VALUES (${sale.org.id}, ${sale.performanceId}, ${box}, 'allocation', ${s.heldBox})`.execute(
                trx,
              );
            const rows = await callTakeInventory(
              trx,
              [[sale.performanceId, s.wantGeneral + s.wantBox]],
              perPrice,
              t.clock.now(),
            );
            for (const row of rows) {
              if (row.kind !== 'counted') continue;
              counted.push(row);
              taken = row.taken;
            }
            throw new Error('roll back');
          })
          .catch((err: Error) => {
            if (err.message !== 'roll back') throw err;
          });
        let fits = true;
        try {
          refuseIfShort(lines, counted);
        } catch {
          fits = false;
        }
        counted = [];
        assert.equal(taken, fits, JSON.stringify(s));
      }),
      { numRuns: 60 },
    );
  });
});
