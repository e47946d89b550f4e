/**
 * take_inventory() locks, recounts and moves; it never judges the fit (refuseIfShort
 * does, docs/inventory.md). A move past a capacity is not made and is reported as
 * `taken: false`, never raised; a move the constraints allow is made even when holds
 * leave too little, and the sale's refusal rolls it back.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { callTakeInventory } from '../../src/db/repositories/inventory.ts';
import { takeInventory } from '../../src/domain/inventory/inventory.ts';
import { useTestApp } from '../helpers/app.ts';
import { setupSale, type Sale } from '../helpers/orders.ts';

describe('take_inventory()', () => {
  const t = useTestApp();

  async function soldCount(sale: Sale): Promise<number> {
    const row = await t.database.db
      .selectFrom('performances')
      .select('sold_count')
      .where('id', '=', sale.performanceId)
      .executeTakeFirstOrThrow();
    return row.sold_count;
  }

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
    assert.equal(await soldCount(sale), 0, 'rolled back');
  });

  test('a move past the capacity is reported as not taken, and the counters stay', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const { rows, soldInside } = await callAndRollBack(sale, 6);
    const counted = rows.find((r) => r.kind === 'counted');
    assert.equal(counted?.kind === 'counted' && counted.taken, false);
    assert.equal(soldInside, 0);
  });

  test('holds leave too little: the counters move, the fit rule refuses, the rollback undoes the move', async () => {
    const sale = await setupSale(t, { event: smallEvent });
    const hold = await t.admin('POST', `/admin/v1/performances/${sale.performanceId}/holds`, {
      kind: 'allocation',
      quantity: 4,
    });
    assert.equal(hold.statusCode, 201);
    const line = { performanceId: sale.performanceId, ticketTypeId: sale.ticketTypeId, quantity: 2 };
    await assert.rejects(
      t.database.db.transaction().execute((trx) => takeInventory(trx, [line], t.clock.now())),
      (err: { code: string; detail: string }) => {
        assert.equal(err.code, 'insufficient_inventory');
        assert.match(err.detail, /2 "[^"]+" requested, 1 remaining for this performance\.$/);
        return true;
      },
    );
    assert.equal(await soldCount(sale), 0);
  });
});
