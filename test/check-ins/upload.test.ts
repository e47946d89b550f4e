/**
 * POST /v1/check_ins (docs/check-ins.md): every outcome's exact body, a re-upload answered
 * from the first outcomes, two gates uploading one ticket, the scanned_at order, the
 * limits and malformed bodies; GET /v1/check_ins for both gates of a double entry.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { problemOf, useTestApp } from '../helpers/app.ts';
import { eventsOfType, placeOrder, setupSale } from '../helpers/orders.ts';
import { rowCounts } from '../helpers/row-counts.ts';
import { deviceRef, scanOf, setupDoor, ticketIn, upload, uploaded, type Door } from './helpers.ts';
import { useBefore } from '../helpers/app.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /v1/check_ins', () => {
  const t = useTestApp();
  const door: Door = useBefore(() => setupDoor(t), 'setupDoor');

  /** The body the service answers for a scan, its generated id aside. */
  const withId = (body: Record<string, unknown>, expected: Record<string, unknown>) => {
    assert.match(String(body.id), UUID);
    return { id: body.id, ...expected };
  };

  test('every outcome and reason, exact bodies, in request order', async () => {
    const paid = await ticketIn(t, door, 'paid');
    const checkedIn = await ticketIn(t, door, 'checked_in');
    const checkedInAt = t.clock.now().toISOString();
    t.clock.advance(1000);
    const refunded = await ticketIn(t, door, 'refunded');
    const cancelled = await ticketIn(t, door, 'cancelled');
    const unpaid = await ticketIn(t, door, 'unpaid');
    const otherNight = await ticketIn(t, door, 'paid', door.performances[1]);
    const stranger = await setupSale(t);
    const foreign = (await placeOrder(t, stranger)).transactions[0].items[0];
    const unknownId = randomUUID();
    t.clock.advance(60_000);
    const scans = [
      scanOf(t, paid.id, 30),
      scanOf(t, checkedIn.id, 29),
      scanOf(t, refunded.id, 28),
      scanOf(t, cancelled.id, 27),
      scanOf(t, unpaid.id, 26),
      scanOf(t, otherNight.id, 25),
      scanOf(t, unknownId, 24),
      scanOf(t, foreign.id, 23),
    ];
    const received = t.clock.now().toISOString();
    const data = await uploaded(t, door.north.key, scans);
    const base = (i: number) => ({
      device_scan_id: scans[i]!.device_scan_id,
      ticket_id: scans[i]!.ticket_id,
      scanned_at: scans[i]!.scanned_at,
      received_at: received,
      device: deviceRef(door.north),
    });
    const refused = (i: number, reason: string, ticketNo: string | null, performanceId: string | null) => ({
      ...base(i),
      ticket_no: ticketNo,
      performance_id: performanceId,
      outcome: 'not_admittable',
      reason,
      checked_in_at: null,
      checked_in_by: null,
    });
    const p1 = door.performances[0];
    const expected = [
      {
        ...base(0),
        ticket_no: paid.ticket_no,
        performance_id: p1,
        outcome: 'admitted',
        reason: null,
        checked_in_at: scans[0]!.scanned_at,
        checked_in_by: deviceRef(door.north),
      },
      {
        ...base(1),
        ticket_no: checkedIn.ticket_no,
        performance_id: p1,
        outcome: 'already_checked_in',
        reason: null,
        checked_in_at: checkedInAt,
        checked_in_by: null,
      },
      refused(2, 'refunded', refunded.ticket_no, p1),
      refused(3, 'cancelled', cancelled.ticket_no, p1),
      refused(4, 'unpaid', unpaid.ticket_no, p1),
      refused(5, 'wrong_performance', otherNight.ticket_no, door.performances[1]),
      refused(6, 'unknown', null, null),
      refused(7, 'unknown', null, null),
    ];
    assert.deepEqual(
      data,
      data.map((body, i) => withId(body, expected[i]!)),
    );
    // The admission as the ticket shows it: the scan's time, the device.
    const ticket = (await t.api(door.org.key, 'GET', `/v1/tickets/${paid.id}`)).json();
    assert.equal(ticket.status, 'checked_in');
    assert.equal(ticket.checked_in_at, scans[0]!.scanned_at);
    const row = await t.database.db
      .selectFrom('tickets')
      .select(['checked_in_device_id', 'updated_at'])
      .where('id', '=', paid.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { checked_in_device_id: door.north.id, updated_at: new Date(received) });
    // Nothing else moved: the refused tickets keep their state, the foreign one too.
    const foreignNow = (await t.api(stranger.org.key, 'GET', `/v1/tickets/${foreign.id}`)).json();
    assert.equal(foreignNow.status, 'purchased');
    assert.equal((await eventsOfType(t, stranger.org.id, 'ticket.checked_in')).length, 0);
  });

  test('a re-upload answers the first outcomes and changes nothing', async () => {
    const first = await ticketIn(t, door, 'paid');
    const second = await ticketIn(t, door, 'paid');
    const scans = [scanOf(t, first.id, 20), scanOf(t, first.id, 10), scanOf(t, second.id, 5)];
    const answered = await uploaded(t, door.north.key, scans);
    assert.deepEqual(
      answered.map((scan) => scan.outcome),
      ['admitted', 'already_checked_in', 'admitted'],
    );
    const before = await rowCounts(t.database.db);
    const events = (await eventsOfType(t, door.org.id, 'ticket.checked_in')).length;
    t.clock.advance(30_000);
    assert.deepEqual(await uploaded(t, door.north.key, scans), answered);
    // In another order, and beside a new scan: the stored three answer as before.
    const fresh = scanOf(t, second.id, 1);
    const again = await uploaded(t, door.north.key, [scans[2]!, fresh, scans[0]!]);
    assert.deepEqual(again[0], answered[2]);
    assert.deepEqual(again[2], answered[0]);
    assert.equal(again[1]!.outcome, 'already_checked_in');
    const after = await rowCounts(t.database.db);
    assert.deepEqual(after, { ...before, check_in_scans: before.check_in_scans! + 1, audit_log: after.audit_log! });
    assert.equal((await eventsOfType(t, door.org.id, 'ticket.checked_in')).length, events);
    // The same device_scan_id from another key is another scan.
    const southsOwn = await uploaded(t, door.south.key, [scans[0]!]);
    assert.equal(southsOwn[0]!.outcome, 'already_checked_in');
    assert.notEqual(southsOwn[0]!.id, answered[0]!.id);
  });

  test('two gates, one ticket: the first upload is the admission, the second a double entry; one event', async () => {
    const ticket = await ticketIn(t, door, 'paid');
    // South scanned first (offline) but uploads second: the first upload to arrive admits.
    const northScan = scanOf(t, ticket.id, 120);
    const southScan = scanOf(t, ticket.id, 180);
    const [north] = await uploaded(t, door.north.key, [northScan]);
    t.clock.advance(5000);
    const [south] = await uploaded(t, door.south.key, [southScan]);
    assert.equal(north!.outcome, 'admitted');
    assert.equal(north!.checked_in_at, northScan.scanned_at);
    assert.deepEqual(
      { outcome: south!.outcome, checked_in_at: south!.checked_in_at, checked_in_by: south!.checked_in_by },
      { outcome: 'already_checked_in', checked_in_at: northScan.scanned_at, checked_in_by: deviceRef(door.north) },
    );
    const events = (await eventsOfType(t, door.org.id, 'ticket.checked_in')).filter((e) => e.ticket_id === ticket.id);
    assert.equal(events.length, 1);
    // Both gates see the double entry; the other performance's gate does not.
    for (const gate of [door.north, door.south]) {
      const list = await t.api(gate.key, 'GET', `/v1/check_ins?outcome=already_checked_in&limit=100`);
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().data.filter((scan: { ticket_id: string }) => scan.ticket_id === ticket.id),
        [south],
      );
    }
    const east = (await t.api(door.east.key, 'GET', '/v1/check_ins?limit=100')).json();
    assert.equal(
      east.data.some((scan: { ticket_id: string }) => scan.ticket_id === ticket.id),
      false,
    );
    // The ticket keeps the first admission.
    const row = await t.database.db
      .selectFrom('tickets')
      .select(['checked_in_at', 'checked_in_device_id'])
      .where('id', '=', ticket.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { checked_in_at: new Date(northScan.scanned_at), checked_in_device_id: door.north.id });
  });

  test('scans are applied in scanned_at order within an upload; ties in request order', async () => {
    const ticket = await ticketIn(t, door, 'paid');
    const tied = await ticketIn(t, door, 'paid');
    const later = scanOf(t, ticket.id, 10);
    const earlier = scanOf(t, ticket.id, 50);
    const tieA = scanOf(t, tied.id, 40);
    const tieB = { ...scanOf(t, tied.id, 40), scanned_at: tieA.scanned_at };
    const uploadEntries = () =>
      t.database.db
        .selectFrom('audit_log')
        .select(['id', 'actor_type', 'actor_id', 'action', 'target_type', 'target_id'])
        .where('organizer_id', '=', door.org.id)
        .where('action', '=', 'uploadCheckIns')
        .execute();
    const entriesBefore = await uploadEntries();
    const data = await uploaded(t, door.north.key, [later, tieB, earlier, tieA]);
    assert.deepEqual(
      data.map((scan) => [scan.device_scan_id, scan.outcome, scan.checked_in_at]),
      [
        [later.device_scan_id, 'already_checked_in', earlier.scanned_at],
        [tieB.device_scan_id, 'admitted', tieA.scanned_at],
        [earlier.device_scan_id, 'admitted', earlier.scanned_at],
        [tieA.device_scan_id, 'already_checked_in', tieA.scanned_at],
      ],
    );
    // The upload's audit entry: by the device key, no one target (docs/dashboard.md, "Door devices").
    const added = (await uploadEntries()).filter((entry) => !entriesBefore.some((before) => before.id === entry.id));
    assert.deepEqual(
      added.map(({ id: _id, ...entry }) => entry),
      [
        {
          actor_type: 'api_key',
          actor_id: door.north.apiKeyId,
          action: 'uploadCheckIns',
          target_type: 'check_in_upload',
          target_id: null,
        },
      ],
    );
  });

  test('a scan stamped in the future is admitted now; an integration key uploads without a device', async () => {
    const ticket = await ticketIn(t, door, 'paid');
    const future = { ...scanOf(t, ticket.id), scanned_at: new Date(t.clock.now().getTime() + 3_600_000).toISOString() };
    const [admitted] = await uploaded(t, door.org.key, [future]);
    assert.deepEqual(
      {
        outcome: admitted!.outcome,
        scanned_at: admitted!.scanned_at,
        checked_in_at: admitted!.checked_in_at,
        checked_in_by: admitted!.checked_in_by,
        device: admitted!.device,
      },
      {
        outcome: 'admitted',
        scanned_at: future.scanned_at,
        checked_in_at: t.clock.now().toISOString(),
        checked_in_by: null,
        device: null,
      },
    );
    assert.equal((await upload(t, door.org.readKey, [scanOf(t, ticket.id)])).statusCode, 403);
    assert.equal((await upload(t, door.org.writeKey, [scanOf(t, ticket.id)])).statusCode, 200);
  });

  describe('limits and malformed bodies: 4xx, nothing stored', () => {
    const item = (i: number) => ({
      ticket_id: randomUUID(),
      scanned_at: '2026-11-28T19:00:00.000Z',
      device_scan_id: `device-scan-${i}-${randomUUID()}`,
    });
    const stored = async () =>
      (
        await t.database.db
          .selectFrom('check_in_scans')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;

    test('501 scans: 400 naming data; 10,000: 413 from the body limit; none: 400', async () => {
      const before = await stored();
      const many = Array.from({ length: 501 }, (_, i) => item(i));
      assert.deepEqual(
        (await upload(t, door.north.key, many)).json(),
        problemOf(
          400,
          '`data` must have at most 500 items: at most 500 scans per upload, and this one has 501. Upload the rest in further requests.',
          'parameter_invalid',
          'data',
        ),
      );
      const huge = await upload(
        t,
        door.north.key,
        Array.from({ length: 10_000 }, (_, i) => item(i)),
      );
      assert.equal(huge.statusCode, 413, huge.body);
      assert.equal(huge.json().code, 'payload_too_large');
      // Short scans that fit the body limit: refused by count, before any is validated.
      const compact = Array.from({ length: 10_000 }, (_, i) => ({
        ticket_id: 'x',
        scanned_at: 'y',
        device_scan_id: `${i}`,
      }));
      const counted = await upload(t, door.north.key, compact);
      assert.equal(counted.statusCode, 400, counted.body);
      assert.equal(counted.json().param, 'data');
      assert.deepEqual(
        (await upload(t, door.north.key, [])).json(),
        problemOf(400, '`data` must have at least 1 item.', 'parameter_invalid', 'data'),
      );
      assert.equal(
        (
          await upload(
            t,
            door.north.key,
            Array.from({ length: 500 }, (_, i) => item(i)),
          )
        ).statusCode,
        200,
      );
      assert.equal(await stored(), Number(before) + 500);
    });

    test('a malformed scan answers 400 naming it', async () => {
      const before = await stored();
      const cases: [unknown[], string, string, string][] = [
        [[item(0), { ...item(1), ticket_id: 'nope' }], 'data.1.ticket_id', 'parameter_invalid', 'must be a UUID'],
        [[{ ...item(0), scanned_at: '2026-11-28 19:00' }], 'data.0.scanned_at', 'parameter_invalid', 'RFC 3339'],
        [
          [{ ticket_id: randomUUID(), scanned_at: '2026-11-28T19:00:00Z' }],
          'data.0.device_scan_id',
          'parameter_missing',
          'Missing',
        ],
        [[{ ...item(0), device_scan_id: '' }], 'data.0.device_scan_id', 'parameter_invalid', 'at least 1 character'],
        [
          [{ ...item(0), device_scan_id: 'x'.repeat(101) }],
          'data.0.device_scan_id',
          'parameter_invalid',
          'at most 100',
        ],
        [[{ ...item(0), seat: 'A1' }], 'data.0.seat', 'parameter_unknown', 'Unknown field'],
      ];
      for (const [data, param, code, words] of cases) {
        const res = await upload(t, door.north.key, data);
        assert.equal(res.statusCode, 400, `${param}: ${res.body}`);
        assert.equal(res.json().param, param);
        assert.equal(res.json().code, code);
        assert.ok(res.json().detail.includes(words), res.json().detail);
      }
      const twice = item(2);
      assert.deepEqual(
        (
          await upload(t, door.north.key, [item(0), twice, { ...item(1), device_scan_id: twice.device_scan_id }])
        ).json(),
        problemOf(
          400,
          `\`data.2.device_scan_id\` repeats \`data.1.device_scan_id\` (${JSON.stringify(twice.device_scan_id)}); each scan of an upload needs its own device_scan_id.`,
          'parameter_invalid',
          'data.2.device_scan_id',
        ),
      );
      assert.equal((await t.api(door.north.key, 'POST', '/v1/check_ins', {})).json().param, 'data');
      assert.equal(await stored(), before);
    });
  });

  test('GET /v1/check_ins: newest first, pages, filters; a device sees its performances and its own', async () => {
    const other = await t.createOrganizer();
    const [p1, p2] = door.performances;
    t.clock.advance(60_000);
    const since = t.clock.now().toISOString();
    const a = await ticketIn(t, door, 'paid');
    const b = await ticketIn(t, door, 'paid', p2);
    const [first] = await uploaded(t, door.north.key, [scanOf(t, a.id)]);
    t.clock.advance(1000);
    const [wrong] = await uploaded(t, door.north.key, [scanOf(t, b.id)]);
    t.clock.advance(1000);
    const [eastOwn] = await uploaded(t, door.east.key, [scanOf(t, b.id)]);
    t.clock.advance(1000);
    const [double] = await uploaded(t, door.south.key, [scanOf(t, a.id)]);
    const list = async (key: string, query: string) => {
      const res = await t.api(key, 'GET', `/v1/check_ins?received_gte=${encodeURIComponent(since)}${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    assert.deepEqual(await list(door.org.key, ''), {
      object: 'list',
      data: [double, eastOwn, wrong, first],
      has_more: false,
    });
    const page1 = await list(door.org.readKey, '&limit=2');
    assert.deepEqual(page1, { object: 'list', data: [double, eastOwn], has_more: true });
    assert.deepEqual(await list(door.org.key, `&limit=2&starting_after=${eastOwn!.id}`), {
      object: 'list',
      data: [wrong, first],
      has_more: false,
    });
    assert.deepEqual((await list(door.org.key, '&outcome=already_checked_in')).data, [double]);
    assert.deepEqual((await list(door.org.key, `&performance_id=${p2}`)).data, [eastOwn, wrong]);
    // North: its performance's scans and its own (the wrong-performance one); east: p2's.
    assert.deepEqual((await list(door.north.key, '')).data, [double, wrong, first]);
    assert.deepEqual((await list(door.east.key, '')).data, [eastOwn, wrong]);
    assert.deepEqual((await list(door.east.key, `&performance_id=${p1}`)).data, []);
    assert.deepEqual((await list(other.key, '')).data, []);
    assert.equal((await t.api(other.key, 'GET', `/v1/check_ins?starting_after=${first!.id}`)).statusCode, 400);
    assert.equal((await t.api(door.org.key, 'GET', '/v1/check_ins?outcome=maybe')).json().param, 'outcome');
    assert.equal(
      (await t.api(door.org.key, 'GET', '/v1/check_ins?received_gte=yesterday')).json().param,
      'received_gte',
    );
  });
});
