/**
 * One rule, two places (docs/check-ins.md, "Reconciliation"): the verdict a door device
 * reaches offline, admissionOf() on the facts of its copy (GET /v1/door_tickets), is the
 * verdict the server gives the same ticket, by upload and by the online check-in, in every
 * state a ticket can be in.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { admissionOf, type Admission } from '../../src/domain/tickets/admission.ts';
import { useBefore, useTestApp, type TestApp } from '../helpers/app.ts';
import { scanOf, setupDoor, ticketIn, uploaded, type Door } from './helpers.ts';

interface DoorTicketBody {
  id: string;
  status: 'purchased' | 'checked_in' | 'refunded' | 'cancelled';
  paid: boolean;
  order_cancelled: boolean;
  performance_id: string;
}

/** Two tickets in the same state: one is uploaded, the other checked in online. */
type Maker = (t: TestApp, door: Door) => Promise<string>;

const CASES: [string, Maker, Admission][] = [
  ['purchased, paid', async (t, door) => (await ticketIn(t, door, 'paid')).id, { admit: true }],
  ['purchased, unpaid', async (t, door) => (await ticketIn(t, door, 'unpaid')).id, { admit: false, reason: 'unpaid' }],
  [
    // No operation leaves a purchased ticket in a cancelled order (a cancel cancels its
    // tickets); the state is made in SQL so the rule's branch is compared too.
    'order cancelled',
    async (t, door) => {
      const ticket = await ticketIn(t, door, 'paid');
      await t.database.db
        .updateTable('orders')
        .set({ status: 'cancelled' })
        .where('id', '=', ticket.order_id)
        .execute();
      return ticket.id;
    },
    { admit: false, reason: 'cancelled' },
  ],
  [
    'checked in',
    async (t, door) => (await ticketIn(t, door, 'checked_in')).id,
    { admit: false, reason: 'already_checked_in' },
  ],
  ['refunded', async (t, door) => (await ticketIn(t, door, 'refunded')).id, { admit: false, reason: 'refunded' }],
  ['cancelled', async (t, door) => (await ticketIn(t, door, 'cancelled')).id, { admit: false, reason: 'cancelled' }],
  [
    'another performance',
    async (t, door) => (await ticketIn(t, door, 'paid', door.performances[1])).id,
    { admit: false, reason: 'wrong_performance' },
  ],
  ['unknown', () => Promise.resolve(randomUUID()), { admit: false, reason: 'unknown' }],
];

/** The upload's outcome as a verdict. */
function verdictOfScan(scan: Record<string, unknown>): Admission {
  if (scan.outcome === 'admitted') return { admit: true };
  if (scan.outcome === 'already_checked_in') return { admit: false, reason: 'already_checked_in' };
  return { admit: false, reason: scan.reason as 'unknown' };
}

/** The online check-in's answer as a verdict; a 404 is either of the two refusals it hides. */
function verdictOfCheckIn(status: number, detail: string | undefined): Admission | 'not found' {
  if (status === 200) return { admit: true };
  if (status === 404) return 'not found';
  const reasons: Record<string, Admission> = {
    'Ticket is already checked in.': { admit: false, reason: 'already_checked_in' },
    'Ticket cannot be checked in: it was refunded.': { admit: false, reason: 'refunded' },
    'Ticket cannot be checked in: it was cancelled.': { admit: false, reason: 'cancelled' },
    'Ticket cannot be checked in: its order is unpaid.': { admit: false, reason: 'unpaid' },
  };
  return reasons[detail ?? ''] ?? { admit: false, reason: 'unknown' };
}

describe('the door and the server decide alike', () => {
  const t = useTestApp();
  const door = useBefore(() => setupDoor(t), 'setupDoor');

  for (const [name, make, expected] of CASES) {
    test(name, async () => {
      const uploadedId = await make(t, door);
      const checkedInId = await make(t, door);
      t.clock.advance(1000);
      // The copy as an integration's key reads it (a device's holds its performances only).
      const copy = new Map<string, DoorTicketBody>();
      for (let after = ''; ;) {
        const res = await t.api(door.org.key, 'GET', `/v1/door_tickets${after}`);
        const page = res.json<{ data: (DoorTicketBody & { updated_at: string })[]; has_more: boolean }>();
        for (const item of page.data) copy.set(item.id, item);
        if (!page.has_more) break;
        const last = page.data.at(-1)!;
        after = `?updated_gte=${encodeURIComponent(last.updated_at)}&starting_after=${last.id}`;
      }
      const offline = (id: string) => {
        const item = copy.get(id);
        const facts = item && {
          status: item.status,
          paid: item.paid,
          orderCancelled: item.order_cancelled,
          performance_id: item.performance_id,
        };
        return admissionOf(facts, door.north.performanceIds);
      };
      assert.deepEqual(offline(uploadedId), expected);
      assert.deepEqual(offline(checkedInId), expected);

      const [scan] = await uploaded(t, door.north.key, [scanOf(t, uploadedId)]);
      assert.deepEqual(verdictOfScan(scan!), expected);

      const online = await t.api(door.north.key, 'POST', `/v1/tickets/${checkedInId}/check_in`);
      const answer = verdictOfCheckIn(online.statusCode, online.json().detail);
      if (answer === 'not found')
        assert.ok(!expected.admit && ['unknown', 'wrong_performance'].includes(expected.reason));
      else assert.deepEqual(answer, expected);
    });
  }
});
