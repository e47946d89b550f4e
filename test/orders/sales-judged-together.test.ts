/**
 * Several sales judged under one lock (the database function take_inventory_for_sales(),
 * whose raising variant production calls through takeInventoryForSalesLast): each sale
 * in turn, as if it had taken inventory alone in that order; a refusal is the 400 a lone
 * sale would have got at its turn, and the counters move once, by the accepted sales. A property holds the batch's verdicts and
 * wording to a sequential model of the fit rule (refuseIfShort).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { selectRemaining, type LockedPerformance, type SaleVerdictRow } from '../../src/db/repositories/inventory.ts';
import { withTransaction, type Executor } from '../../src/db/transaction.ts';
import {
  linesOfSales,
  refuseIfShort,
  refusalsOf,
  takeInventoryLast,
  type InventoryLine,
  type SaleToJudge,
} from '../../src/domain/inventory/inventory.ts';
import { DomainError, invalid } from '../../src/errors/domain-error.ts';
import { useTestApp } from '../helpers/app.ts';
import { setupSale, type Sale } from '../helpers/orders.ts';

/** A sale's sellability check under the lock, as create-order.ts words it. */
function checkSellable(locked: LockedPerformance[]): void {
  for (const performance of locked) {
    if (performance.status !== 'published' || performance.event_status !== 'published')
      throw invalid('not_on_sale', `performance ${performance.id} is not published, so it cannot be sold.`);
    if (!performance.box_office_sales_enabled)
      throw invalid('not_on_sale', `performance ${performance.id} has box-office sales disabled.`);
  }
}

/**
 * take_inventory_for_sales() as an ordinary statement, a row per sale with lines: unlike
 * its raising variant it moves the counters by the accepted sales even when some are
 * refused, which lets a test read them after a mixed batch.
 */
async function takeInventoryForSalesRows(
  trx: Executor,
  lines: Array<{ sale: number; performanceId: string; ticketTypeId: string; quantity: number }>,
  now: Date,
): Promise<SaleVerdictRow[]> {
  const result = await sql<SaleVerdictRow>`
    SELECT sale, accepted, judged
    FROM take_inventory_for_sales(${lines.map((l) => l.sale)}::int[], ${lines.map((l) => l.performanceId)}::uuid[],
                                  ${lines.map((l) => l.ticketTypeId)}::uuid[], ${lines.map((l) => l.quantity)}::int[],
                                  ${now}::timestamptz)
    ORDER BY sale
  `.execute(trx);
  return result.rows;
}

/** Each sale's verdict from take_inventory_for_sales(), worded by the domain (refusalsOf). */
async function takeInventoryForSales(trx: Executor, sales: SaleToJudge[], now: Date) {
  return refusalsOf(sales, await takeInventoryForSalesRows(trx, linesOfSales(sales), now));
}

/** The verdicts as [code, detail] (or 'accepted'), for exact comparison. */
function outcomes(verdicts: Array<DomainError | undefined>): Array<'accepted' | [string, string]> {
  return verdicts.map((v) => (v === undefined ? 'accepted' : [v.code, v.detail]));
}

describe('take_inventory_for_sales(): sales judged together under one lock', () => {
  const t = useTestApp();

  /** An event with performances of the given capacities, a "General" type (uncapped) and a "Box" type capped at `boxCap`. */
  async function setup(capacities: number[], boxCap = 4) {
    const sale = await setupSale(t, {
      event: {
        performances: capacities.map((capacity, i) => ({ starts_at: `2031-06-0${i + 1}T19:00:00Z`, capacity })),
        ticket_types: [
          { name: 'General', price_minor: 1000 },
          { name: 'Box', price_minor: 5000, quantity: boxCap },
        ],
      },
    });
    const performances = await t.database.db
      .selectFrom('performances')
      .select('id')
      .where('event_id', '=', sale.event.id)
      .orderBy('starts_at')
      .execute();
    const [general, box] = sale.ticketTypeIds as [string, string];
    return { sale, performanceIds: performances.map((p) => p.id), general, box };
  }

  async function soldCounts(db: Executor, sale: Sale) {
    const performances = await db
      .selectFrom('performances')
      .select(['id', 'sold_count'])
      .where('event_id', '=', sale.event.id)
      .execute();
    const prices = await db
      .selectFrom('prices')
      .select(['performance_id', 'ticket_type_id', 'sold_count'])
      .where(
        'performance_id',
        'in',
        performances.map((p) => p.id),
      )
      .execute();
    return {
      performance: new Map(performances.map((p) => [p.id, p.sold_count])),
      price: new Map(prices.map((p) => [`${p.performance_id}/${p.ticket_type_id}`, p.sold_count])),
    };
  }

  const line = (performanceId: string, ticketTypeId: string, quantity: number): InventoryLine => ({
    performanceId,
    ticketTypeId,
    quantity,
  });

  test('all fit: every sale accepted, committed, the counters moved by the sum', async () => {
    const { sale, performanceIds, general, box } = await setup([10]);
    const [p] = performanceIds as [string];
    const verdicts = await withTransaction(t.database.db, (trx) =>
      takeInventoryForSales(
        trx,
        [
          { lines: [line(p, general, 2)] },
          { lines: [line(p, general, 1), line(p, box, 2)] },
          { lines: [line(p, box, 1), line(p, general, 3)] },
        ],
        t.clock.now(),
      ),
    );
    assert.deepEqual(verdicts, [undefined, undefined, undefined]);
    const sold = await soldCounts(t.database.db, sale);
    assert.equal(sold.performance.get(p), 9);
    assert.equal(sold.price.get(`${p}/${general}`), 6);
    assert.equal(sold.price.get(`${p}/${box}`), 3);
  });

  test('the 2nd of 3 does not fit at its turn, the smaller 3rd does', async () => {
    const { sale, performanceIds, general } = await setup([5]);
    const [p] = performanceIds as [string];
    const verdicts = await withTransaction(t.database.db, (trx) =>
      takeInventoryForSales(
        trx,
        [{ lines: [line(p, general, 2)] }, { lines: [line(p, general, 4)] }, { lines: [line(p, general, 1)] }],
        t.clock.now(),
      ),
    );
    assert.deepEqual(outcomes(verdicts), [
      'accepted',
      ['insufficient_inventory', 'Not enough tickets left: 4 "General" requested, 3 remaining for this performance.'],
      'accepted',
    ]);
    assert.ok(verdicts[1] instanceof DomainError);
    const sold = await soldCounts(t.database.db, sale);
    assert.equal(sold.performance.get(p), 3);
    assert.equal(sold.price.get(`${p}/${general}`), 3);
  });

  test('types that each fit but together exceed the performance: the performance-wide refusal', async () => {
    const { sale, performanceIds, general, box } = await setup([6]);
    const [p] = performanceIds as [string];
    const verdicts = await withTransaction(t.database.db, (trx) =>
      takeInventoryForSales(
        trx,
        [{ lines: [line(p, general, 3)] }, { lines: [line(p, box, 2), line(p, general, 2)] }],
        t.clock.now(),
      ),
    );
    assert.deepEqual(outcomes(verdicts), [
      'accepted',
      [
        'insufficient_inventory',
        'Not enough tickets left: 4 tickets of "General", "Box" requested, 3 remaining for this performance.',
      ],
    ]);
    const sold = await soldCounts(t.database.db, sale);
    assert.equal(sold.performance.get(p), 3);
    assert.equal(sold.price.get(`${p}/${box}`), 0);
  });

  test('a capped type sells out mid-batch while the other type still sells', async () => {
    const { sale, performanceIds, general, box } = await setup([10], 2);
    const [p] = performanceIds as [string];
    const verdicts = await withTransaction(t.database.db, (trx) =>
      takeInventoryForSales(
        trx,
        [
          { lines: [line(p, box, 1)] },
          { lines: [line(p, box, 2)] },
          { lines: [line(p, box, 1)] },
          { lines: [line(p, general, 3)] },
          { lines: [line(p, box, 1)] },
          { lines: [line(p, general, 1), line(p, box, 1)] },
          { lines: [line(p, general, 2)] },
        ],
        t.clock.now(),
      ),
    );
    assert.deepEqual(outcomes(verdicts), [
      'accepted',
      ['insufficient_inventory', 'Not enough tickets left: 2 "Box" requested, 1 remaining for this performance.'],
      'accepted',
      'accepted',
      ['insufficient_inventory', 'Not enough tickets left: 1 "Box" requested, 0 remaining for this performance.'],
      ['insufficient_inventory', 'Not enough tickets left: 1 "Box" requested, 0 remaining for this performance.'],
      'accepted',
    ]);
    const sold = await soldCounts(t.database.db, sale);
    assert.equal(sold.performance.get(p), 7);
    assert.equal(sold.price.get(`${p}/${box}`), 2);
    assert.equal(sold.price.get(`${p}/${general}`), 5);
  });

  test('an unsellable performance refuses every sale naming it; the other performance still sells', async () => {
    const { sale, performanceIds, general } = await setup([10, 10]);
    const [closed, open] = performanceIds as [string, string];
    await sql`UPDATE performances SET box_office_sales_enabled = false WHERE id = ${closed}`.execute(t.database.db);
    const seen: LockedPerformance[][] = [];
    const checkLocked = (locked: LockedPerformance[]) => {
      seen.push(locked);
      checkSellable(locked);
    };
    const sales: SaleToJudge[] = [
      { lines: [line(closed, general, 1)], checkLocked },
      { lines: [line(open, general, 2)], checkLocked },
      { lines: [line(open, general, 1), line(closed, general, 1)], checkLocked },
      { lines: [line(open, general, 3)], checkLocked },
    ];
    const verdicts = await withTransaction(t.database.db, (trx) => takeInventoryForSales(trx, sales, t.clock.now()));
    const disabled = ['not_on_sale', `performance ${closed} has box-office sales disabled.`];
    assert.deepEqual(outcomes(verdicts), [disabled, 'accepted', disabled, 'accepted']);
    // Only the refused sales are judged, each with the locked rows of its own performances.
    assert.deepEqual(
      seen.map((locked) => locked.map((l) => [l.id, l.box_office_sales_enabled]).sort()),
      [
        [[closed, false]],
        [
          [closed, false],
          [open, true],
        ].sort(),
      ],
    );
    const sold = await soldCounts(t.database.db, sale);
    assert.equal(sold.performance.get(closed), 0);
    assert.equal(sold.performance.get(open), 5);
    assert.equal(sold.price.get(`${open}/${general}`), 5);
  });

  test("a refused sale's rows are take_inventory_or_refuse()'s for the same sale alone at that turn", async () => {
    const { performanceIds, general, box } = await setup([7, 9], 3);
    const [p, q] = performanceIds as [string, string];
    const first = [line(p, general, 2), line(p, box, 2), line(q, box, 1)];
    const second = [line(q, general, 2), line(p, box, 2)];
    let judged: unknown;
    await t.database.db
      .transaction()
      .execute(async (trx) => {
        const rows = await takeInventoryForSalesRows(
          trx,
          [...first.map((l) => ({ ...l, sale: 1 })), ...second.map((l) => ({ ...l, sale: 2 }))],
          t.clock.now(),
        );
        assert.deepEqual(
          rows.map((r) => [r.sale, r.accepted, r.judged === null]),
          [
            [1, true, true],
            [2, false, false],
          ],
        );
        judged = rows[1]!.judged;
        throw new Error('roll back');
      })
      .catch((err: Error) => {
        if (err.message !== 'roll back') throw err;
      });
    // The same two sales one after the other, each alone.
    await withTransaction(t.database.db, (trx) => takeInventoryLast(trx, first, t.clock.now()));
    const perPerformance = [[p, 2] as const, [q, 2] as const].sort();
    const perPrice = [[p, box, 2] as const, [q, general, 2] as const].sort();
    const detail = await t.database.db
      .transaction()
      .execute(async (trx) => {
        await sql`SELECT take_inventory_or_refuse(
                    ${perPerformance.map(([id]) => id)}::uuid[], ${perPerformance.map(([, n]) => n)}::int[],
                    ${perPrice.map(([id]) => id)}::uuid[], ${perPrice.map(([, type]) => type)}::uuid[],
                    ${perPrice.map(([, , n]) => n)}::int[], ${t.clock.now()}::timestamptz)`.execute(trx);
      })
      .then(
        () => assert.fail('the second sale alone fits'),
        (err: { code?: string; detail?: string }) => {
          assert.equal(err.code, 'MQ001');
          return err.detail;
        },
      );
    assert.ok(typeof detail === 'string');
    assert.deepEqual(judged, JSON.parse(detail));
  });

  test('the batch judges as the fit rule would, sale after sale (any sold counts, holds and batches)', async () => {
    const capacities = [14, 10];
    const boxCap = 5;
    const { sale, performanceIds, general, box } = await setup(capacities, boxCap);
    const types = [general, box];
    const perPerformance = fc.record({
      soldGeneral: fc.integer({ min: 0, max: 5 }),
      soldBox: fc.integer({ min: 0, max: 3 }),
      held: fc.integer({ min: 0, max: 2 }),
      heldBox: fc.integer({ min: 0, max: 1 }),
    });
    const saleLines = (performances: number) =>
      fc.array(
        fc.record({
          performance: fc.integer({ min: 0, max: performances - 1 }),
          type: fc.integer({ min: 0, max: 1 }),
          quantity: fc.integer({ min: 1, max: 3 }),
        }),
        { minLength: 1, maxLength: 3 },
      );
    const scenario = fc.integer({ min: 1, max: 2 }).chain((performances) =>
      fc.record({
        states: fc.tuple(perPerformance, perPerformance),
        batch: fc.array(saleLines(performances), { minLength: 1, maxLength: 12 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ states, batch }) => {
        const sales = batch.map((lines) =>
          lines.map((l) => line(performanceIds[l.performance]!, types[l.type]!, l.quantity)),
        );
        await t.database.db
          .transaction()
          .execute(async (trx) => {
            for (const [i, s] of states.entries()) {
              const id = performanceIds[i]!;
              const soldGeneral = Math.min(s.soldGeneral, capacities[i]! - s.soldBox);
              await sql`UPDATE performances SET sold_count = ${soldGeneral + s.soldBox} WHERE id = ${id}`.execute(trx);
              await sql`UPDATE prices SET sold_count = CASE ticket_type_id WHEN ${box}::uuid THEN ${s.soldBox}::int ELSE ${soldGeneral}::int END
                        WHERE performance_id = ${id}`.execute(trx);
              if (s.held > 0)
                await sql`INSERT INTO holds (organizer_id, performance_id, kind, quantity)
                          VALUES (${sale.org.id}, ${id}, 'allocation', ${s.held})`.execute(trx);
              if (s.heldBox > 0)
                await sql`INSERT INTO holds (organizer_id, performance_id, ticket_type_id, kind, quantity)
                          VALUES (${sale.org.id}, ${id}, ${box}, 'allocation', ${s.heldBox})`.execute(trx);
            }
            const now = t.clock.now();
            const before = await soldCounts(trx, sale);
            const counts = await selectRemaining(trx, performanceIds, now);

            // The model: each sale alone, in order, on the counts the sales accepted before it left.
            const performanceLeft = new Map(counts.map((c) => [c.performance_id, c.performance_remaining]));
            const typeLeft = new Map(counts.map((c) => [`${c.performance_id}/${c.ticket_type_id}`, c.type_remaining!]));
            const expected: Array<'accepted' | [string, string]> = [];
            const taken = new Map<string, number>();
            for (const lines of sales) {
              const atTurn = counts.map((c) => {
                const left = performanceLeft.get(c.performance_id)!;
                return {
                  ...c,
                  performance_remaining: left,
                  type_remaining: Math.min(left, typeLeft.get(`${c.performance_id}/${c.ticket_type_id}`)!),
                };
              });
              try {
                refuseIfShort(lines, atTurn);
              } catch (err) {
                assert.ok(err instanceof DomainError);
                expected.push([err.code, err.detail]);
                continue;
              }
              expected.push('accepted');
              for (const l of lines) {
                const key = `${l.performanceId}/${l.ticketTypeId}`;
                performanceLeft.set(l.performanceId, performanceLeft.get(l.performanceId)! - l.quantity);
                typeLeft.set(key, typeLeft.get(key)! - l.quantity);
                taken.set(l.performanceId, (taken.get(l.performanceId) ?? 0) + l.quantity);
                taken.set(key, (taken.get(key) ?? 0) + l.quantity);
              }
            }

            const verdicts = await takeInventoryForSales(
              trx,
              sales.map((lines) => ({ lines })),
              now,
            );
            const context = JSON.stringify({ states, batch });
            assert.deepEqual(outcomes(verdicts), expected, context);
            const after = await soldCounts(trx, sale);
            for (const [id, sold] of before.performance)
              assert.equal(after.performance.get(id), sold + (taken.get(id) ?? 0), context);
            for (const [key, sold] of before.price)
              assert.equal(after.price.get(key), sold + (taken.get(key) ?? 0), context);
            throw new Error('roll back');
          })
          .catch((err: Error) => {
            if (err.message !== 'roll back') throw err;
          });
      }),
      { numRuns: 40 },
    );
  });
});
