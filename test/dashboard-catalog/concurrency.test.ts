/**
 * Races of the dashboard's order operations, on PostgreSQL only (PGlite runs one
 * statement at a time, so nothing races there): a refund racing a check-in of the same
 * ticket ends in exactly one of the two, never both, round after round; twenty settles of
 * one order sharing an Idempotency-Key give one order.paid, and a retry with the key
 * answers the same 200.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useOrganizer, useTestApp, type DashboardSession, type TestApp } from '../helpers/app.ts';
import { eventsOfType, placeOrder, setupSale } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';

const ON_POSTGRES = process.env.TEST_DATABASE_URL !== undefined;
const ROUNDS = 30;

async function sessionOf(t: TestApp, organizerId: string): Promise<DashboardSession> {
  const user = await t.createUser({ organizerId, role: 'manager' });
  return t.signIn(user.email, user.password);
}

describe('races of the order operations on the dashboard', { skip: !ON_POSTGRES }, () => {
  const t = useTestApp({ env: UNTHROTTLED });
  const org = useOrganizer(t);

  test(`a refund racing a check-in of the same ticket: exactly one wins, ${ROUNDS} rounds`, async (ctx) => {
    const sale = await setupSale(t, { org });
    const session = await sessionOf(t, org.id);
    const soldCount = async () =>
      (
        await t.database.db
          .selectFrom('performances')
          .select('sold_count')
          .where('id', '=', sale.performanceId)
          .executeTakeFirstOrThrow()
      ).sold_count;
    const wins = { refund: 0, checkIn: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const order = await placeOrder(t, sale);
      const ticket = (await t.api(org.key, 'GET', `/v1/tickets?order_id=${order.id}`)).json().data[0] as {
        id: string;
      };
      const sold = await soldCount();
      // Half the rounds name the ticket, half refund "every purchased ticket".
      const refundBody = round % 2 === 0 ? { ticket_ids: [ticket.id] } : {};
      const [refund, checkIn] = await Promise.all([
        t.dash(session, 'POST', `/dashboard/v1/orders/${order.id}/refund`, refundBody),
        t.dash(session, 'POST', `/dashboard/v1/tickets/${ticket.id}/check_in`, {}),
      ]);
      const cell = `round ${round}: refund ${refund.statusCode} ${refund.body} / check-in ${checkIn.statusCode} ${checkIn.body}`;
      const refundWon = refund.statusCode === 201;
      const checkInWon = checkIn.statusCode === 200;
      assert.ok(refundWon !== checkInWon, `exactly one succeeds: ${cell}`);
      const loser = refundWon ? checkIn : refund;
      assert.equal(loser.statusCode, 409, cell);
      assert.ok(['invalid_state', 'concurrent_modification'].includes(loser.json().code as string), cell);

      const row = await t.database.db
        .selectFrom('tickets')
        .select(['status', 'refund_id', 'checked_in_at'])
        .where('id', '=', ticket.id)
        .executeTakeFirstOrThrow();
      const refunds = await t.database.db.selectFrom('refunds').select('id').where('order_id', '=', order.id).execute();
      const refunded = (await eventsOfType(t, org.id, 'order.refunded')).filter(
        (e) => (e as { order_id: string }).order_id === order.id,
      );
      const checkedIn = (await eventsOfType(t, org.id, 'ticket.checked_in')).filter(
        (e) => (e as { ticket_id: string }).ticket_id === ticket.id,
      );
      if (refundWon) {
        wins.refund++;
        assert.deepEqual(row, { status: 'refunded', refund_id: refund.json().id, checked_in_at: null }, cell);
        assert.deepEqual(refunds, [{ id: refund.json().id }], cell);
        assert.equal(refunded.length, 1, cell);
        assert.equal(checkedIn.length, 0, cell);
        assert.equal(await soldCount(), sold - 1, `${cell}: the seat is back on sale`);
      } else {
        wins.checkIn++;
        assert.equal(row.status, 'checked_in', cell);
        assert.equal(row.refund_id, null, cell);
        assert.deepEqual(refunds, [], `${cell}: the refund left nothing behind`);
        assert.equal(refunded.length, 0, cell);
        assert.equal(checkedIn.length, 1, cell);
        assert.equal(await soldCount(), sold, cell);
      }
    }
    assert.equal(wins.refund + wins.checkIn, ROUNDS);
    ctx.diagnostic(`refund won ${wins.refund} rounds, check-in ${wins.checkIn}`);
  });

  test('twenty settles sharing an Idempotency-Key: one order.paid, every answer the first 200 or "in flight"; a retry replays it', async () => {
    const sale = await setupSale(t, { org });
    const session = await sessionOf(t, org.id);
    const order = await placeOrder(t, sale, { tender: 'pay_later' });
    const headers = { 'idempotency-key': `settle-${order.id}` };
    const url = `/dashboard/v1/orders/${order.id}/settle`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.dash(session, 'POST', url, { tender: 'cash' }, headers)),
    );
    const ok = answers.filter((a) => a.statusCode === 200);
    const others = answers.filter((a) => a.statusCode !== 200);
    assert.ok(ok.length >= 1, 'the first one settles');
    for (const answer of ok) assert.equal(answer.body, ok[0]!.body, 'a replay is the first answer, byte for byte');
    for (const answer of others) {
      assert.equal(answer.statusCode, 409, answer.body);
      assert.equal(answer.json().code, 'idempotency_key_in_flight', answer.body);
    }
    assert.equal(ok[0]!.json().status, 'placed');
    const paid = () =>
      eventsOfType(t, org.id, 'order.paid').then((rows) =>
        rows.filter((e) => (e as { order_id: string }).order_id === order.id),
      );
    assert.equal((await paid()).length, 1);

    const retry = await t.dash(session, 'POST', url, { tender: 'cash' }, headers);
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body, ok[0]!.body);
    assert.equal((await paid()).length, 1);
    const payments = await t.database.db.selectFrom('payments').select('id').where('order_id', '=', order.id).execute();
    assert.equal(payments.length, 1);
    // Without the key, a second settle says the order is no longer unpaid.
    const plain = await t.dash(session, 'POST', url, { tender: 'cash' });
    assert.deepEqual([plain.statusCode, plain.json().code], [409, 'invalid_state']);
    assert.equal((await paid()).length, 1);
  });
});
