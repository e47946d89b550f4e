/**
 * Uploads racing each other (docs/check-ins.md, "Reconciliation"): two gates uploading the
 * same ticket at once, the same scan uploaded twice at once, and an upload racing the online
 * check-in. On PostgreSQL the requests really run together (each scan's transaction queues
 * on the ticket's row lock or on the scan's unique key); on PGlite they take turns.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useBefore, useTestApp } from '../helpers/app.ts';
import { eventsOfType } from '../helpers/orders.ts';
import { deviceRef, scanOf, setupDoor, ticketIn, upload, type ScanBody } from './helpers.ts';

const ROUNDS = 8;

describe('concurrent uploads', () => {
  const t = useTestApp();
  const door = useBefore(() => setupDoor(t), 'setupDoor');

  const checkedInEvents = async (ticketId: string) =>
    (await eventsOfType(t, door.org.id, 'ticket.checked_in')).filter((e) => e.ticket_id === ticketId).length;

  test('two gates upload one ticket at once: exactly one admission, the other sees it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ticket = await ticketIn(t, door);
      const northScan = scanOf(t, ticket.id, 30 + round);
      const southScan = scanOf(t, ticket.id, 20 + round);
      const [north, south] = await Promise.all([
        upload(t, door.north.key, [northScan]),
        upload(t, door.south.key, [southScan]),
      ]);
      assert.equal(north.statusCode, 200, north.body);
      assert.equal(south.statusCode, 200, south.body);
      const answers = [north.json().data[0] as ScanBody, south.json().data[0] as ScanBody];
      const admitted = answers.filter((scan) => scan.outcome === 'admitted');
      assert.equal(admitted.length, 1, `round ${round}: ${JSON.stringify(answers)}`);
      const [first] = admitted;
      const second = answers.find((scan) => scan !== first)!;
      const firstGate = first === answers[0] ? door.north : door.south;
      assert.deepEqual(
        [second.outcome, second.checked_in_at, second.checked_in_by],
        ['already_checked_in', first!.scanned_at, deviceRef(firstGate)],
      );
      const row = await t.database.db
        .selectFrom('tickets')
        .select(['checked_in_at', 'checked_in_device_id'])
        .where('id', '=', ticket.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, {
        checked_in_at: new Date(first!.scanned_at as string),
        checked_in_device_id: firstGate.id,
      });
      assert.equal(await checkedInEvents(ticket.id), 1);
      t.clock.advance(1000);
    }
  });

  test('the same scan uploaded twice at once: one row, both answers the same', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ticket = await ticketIn(t, door);
      const scans = [scanOf(t, ticket.id, 10), scanOf(t, ticket.id, 5)];
      const [a, b] = await Promise.all([upload(t, door.north.key, scans), upload(t, door.north.key, scans)]);
      assert.equal(a.statusCode, 200, a.body);
      assert.deepEqual(b.json(), a.json());
      assert.deepEqual(
        a.json().data.map((scan: ScanBody) => scan.outcome),
        ['admitted', 'already_checked_in'],
      );
      const rows = await t.database.db
        .selectFrom('check_in_scans')
        .select('id')
        .where('ticket_id', '=', ticket.id)
        .execute();
      assert.equal(rows.length, 2);
      assert.equal(await checkedInEvents(ticket.id), 1);
    }
  });

  test('an upload racing the online check-in: one admission, one event', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ticket = await ticketIn(t, door);
      const [online, uploaded] = await Promise.all([
        t.api(door.south.key, 'POST', `/v1/tickets/${ticket.id}/check_in`),
        upload(t, door.north.key, [scanOf(t, ticket.id, 15)]),
      ]);
      const scan = uploaded.json().data[0] as ScanBody;
      if (online.statusCode === 200) {
        assert.deepEqual(
          [scan.outcome, scan.checked_in_at, scan.checked_in_by],
          ['already_checked_in', online.json().checked_in_at, deviceRef(door.south)],
        );
      } else {
        assert.equal(online.statusCode, 409, online.body);
        assert.equal(online.json().detail, 'Ticket is already checked in.');
        assert.equal(scan.outcome, 'admitted');
      }
      assert.equal(await checkedInEvents(ticket.id), 1);
    }
  });

  test('an upload of a scan another transaction is inserting waits for it, then answers its outcome', async () => {
    const ticket = await ticketIn(t, door);
    const scan = scanOf(t, ticket.id, 10);
    const at = new Date(scan.scanned_at);
    let pending: ReturnType<typeof upload> | undefined;
    let settled = false;
    let heldId = '';
    await t.database.db.transaction().execute(async (trx) => {
      const held = await trx
        .insertInto('check_in_scans')
        .values({
          organizer_id: door.org.id,
          api_key_id: door.north.apiKeyId,
          device_id: door.north.id,
          device_scan_id: scan.device_scan_id,
          ticket_id: ticket.id,
          performance_id: door.performances[0],
          scanned_at: at,
          received_at: t.clock.now(),
          outcome: 'not_admittable',
          reason: 'refunded',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      heldId = held.id;
      pending = upload(t, door.north.key, [scan]);
      void pending.then(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(settled, false, 'the upload waits for the transaction holding its scan');
    });
    const res = await pending!;
    assert.equal(res.statusCode, 200, res.body);
    const [answer] = res.json().data as ScanBody[];
    assert.deepEqual([answer!.id, answer!.outcome, answer!.reason], [heldId, 'not_admittable', 'refunded']);
    // The stored outcome stands: the ticket was not admitted.
    assert.equal((await t.api(door.org.key, 'GET', `/v1/tickets/${ticket.id}`)).json().status, 'purchased');
  });
});
