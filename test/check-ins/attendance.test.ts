/**
 * GET /dashboard/v1/performances/{id}/attendance (docs/check-ins.md, "Attendance"): sold and
 * admitted, per gate, per minute over the last quarter hour, the double entries; another
 * organizer's performance is not found.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { problemOf, useTestApp, type DashboardSession } from '../helpers/app.ts';
import { setupSale } from '../helpers/orders.ts';
import { deviceRef, scanOf, setupDoor, ticketIn, uploaded, type Door } from './helpers.ts';

// 19:07:30 UTC: the current minute is 19:07, the first one shown 18:52.
const NOW = new Date('2030-03-01T19:07:30.000Z');
const minute = (hh: number, mm: number) =>
  `2030-03-01T${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:00.000Z`;

describe('attendance', () => {
  const t = useTestApp({ clock: new ManualClock(new Date(NOW.getTime() - 3_600_000)) });
  let door: Door;
  let owner: DashboardSession;
  let expected: Record<string, unknown>;

  before(async () => {
    door = await setupDoor(t);
    const user = await t.createUser({ organizerId: door.org.id, role: 'viewer' });
    owner = await t.signIn(user.email, user.password);
    const [a, b, c, d, old] = [
      await ticketIn(t, door),
      await ticketIn(t, door),
      await ticketIn(t, door),
      await ticketIn(t, door),
      await ticketIn(t, door),
    ];
    await ticketIn(t, door, 'unpaid'); // sold, not admitted (2 tickets: the order holds two)
    await ticketIn(t, door, 'refunded'); // one refunded, the other still sold
    await ticketIn(t, door, 'cancelled'); // neither sold
    await ticketIn(t, door, 'paid', door.performances[1]); // another performance
    t.clock.set(NOW);
    const at = (iso: string) => ({ scanned_at: iso });
    // North: one admission 30 minutes ago (outside the minutes shown), two at 19:02.
    const [oldScan, aScan, bScan] = [
      { ...scanOf(t, old.id), ...at('2030-03-01T18:37:00.000Z') },
      { ...scanOf(t, a.id), ...at('2030-03-01T19:02:30.000Z') },
      { ...scanOf(t, b.id), ...at('2030-03-01T19:02:40.000Z') },
    ];
    await uploaded(t, door.north.key, [oldScan, aScan, bScan]);
    // South: one at 19:05, and a second scan of a (a double entry).
    const cScan = { ...scanOf(t, c.id), ...at('2030-03-01T19:05:01.000Z') };
    const again = { ...scanOf(t, a.id), ...at('2030-03-01T19:06:00.000Z') };
    const [, double] = await uploaded(t, door.south.key, [cScan, again]);
    // The console admits d now (19:07:30).
    assert.equal((await t.api(door.org.key, 'POST', `/v1/tickets/${d.id}/check_in`)).statusCode, 200);
    const perMinute = Array.from({ length: 16 }, (_, i) => ({
      minute: minute(18 + Math.floor((52 + i) / 60), (52 + i) % 60),
      admitted: 0,
    }));
    perMinute[10]!.admitted = 2; // 19:02
    perMinute[13]!.admitted = 1; // 19:05
    perMinute[15]!.admitted = 1; // 19:07, the current minute
    expected = {
      performance_id: door.performances[0],
      // 5 orders of 2 paid tickets, 2 unpaid, 1 of the refunded order's.
      sold: 13,
      admitted: 5,
      gates: [
        { device_id: door.north.id, name: 'North gate', admitted: 3, last_admitted_at: bScan.scanned_at },
        { device_id: door.south.id, name: 'South gate', admitted: 1, last_admitted_at: cScan.scanned_at },
        { device_id: null, name: 'Console and API', admitted: 1, last_admitted_at: NOW.toISOString() },
      ],
      per_minute: perMinute,
      double_entries: [
        {
          ticket_id: a.id,
          ticket_no: a.ticket_no,
          first: { ...deviceRef(door.north), checked_in_at: aScan.scanned_at },
          second: { ...deviceRef(door.south), scanned_at: again.scanned_at, received_at: double!.received_at },
        },
      ],
    };
  });

  const get = (id: string, session = owner) => t.dash(session, 'GET', `/dashboard/v1/performances/${id}/attendance`);

  test('exact figures: sold, admitted, gates, per minute, double entries', async () => {
    const res = await get(door.performances[0]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), expected);
  });

  test('a quiet performance: zeros, no gates, no double entries', async () => {
    const res = await get(door.performances[1]);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(
      { ...body, per_minute: body.per_minute.map((m: { admitted: number }) => m.admitted) },
      {
        performance_id: door.performances[1],
        sold: 2,
        admitted: 0,
        gates: [],
        per_minute: new Array(16).fill(0),
        double_entries: [],
      },
    );
  });

  test("another organizer's, unknown and malformed performances are not found; the door role is refused", async () => {
    const stranger = await setupSale(t);
    const notFound = problemOf(404, 'Performance not found.', 'resource_not_found');
    assert.deepEqual((await get(stranger.performanceId)).json(), notFound);
    assert.deepEqual((await get(randomUUID())).json(), notFound);
    assert.deepEqual((await get('nope')).json(), notFound);
    const doorUser = await t.createUser({ organizerId: door.org.id, role: 'door' });
    const res = await get(door.performances[0], await t.signIn(doorUser.email, doorUser.password));
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'role_forbidden');
  });
});
