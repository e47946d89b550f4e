/**
 * The door's decisions as plain functions (packages/console/src/door/outcome.ts and
 * repeat-filter.ts): what a lookup settles, what a 409 means once the ticket is read, the
 * sentences the screen shows (times in the event's zone), and repeats of one code.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Ticket } from '../../packages/sdk/src/index.ts';
import {
  conflictReason,
  describeOutcome,
  formatTimeAt,
  lookupOf,
  precheck,
} from '../../packages/console/src/door/outcome.ts';
import { RepeatFilter } from '../../packages/console/src/door/repeat-filter.ts';
import { EXAMPLES } from '../../src/http/schemas/examples.ts';

// The OpenAPI document's example ticket (src/http/schemas/examples.ts), purchased.
const EXAMPLE = EXAMPLES.ticket as Ticket;
const PERFORMANCE = EXAMPLE.performance_id;
const OTHER = '22222222-2222-4222-8222-222222222222';
const { ticket_no: TICKET_NO, order_no: ORDER_NO } = EXAMPLE;

function ticket(overrides: Partial<Ticket> = {}): Ticket {
  return { ...EXAMPLE, ...overrides };
}

describe('door decisions', () => {
  test('a code is asked for as a serial, or as a ticket number when it has a hyphen', () => {
    assert.deepEqual(lookupOf(' jbswy3dpehpk3pxp\n'), { serial_no: 'JBSWY3DPEHPK3PXP' });
    assert.deepEqual(lookupOf('k7m2p9qx-001'), { ticket_no: 'K7M2P9QX-001' });
    assert.equal(lookupOf('   '), undefined);
    assert.equal(lookupOf('A'.repeat(65)), undefined);
  });

  test('the lookup settles unknown, another performance and the final states without a write', () => {
    assert.deepEqual(precheck(undefined, 'NOPE', PERFORMANCE), { kind: 'refused', reason: 'unknown', code: 'NOPE' });
    const elsewhere = ticket({ performance_id: OTHER });
    assert.deepEqual(precheck(elsewhere, 'X', PERFORMANCE), { kind: 'other_performance', ticket: elsewhere });
    const admitted = ticket({ status: 'checked_in', checked_in_at: '2027-05-01T18:59:30.000Z' });
    assert.deepEqual(precheck(admitted, 'X', PERFORMANCE), {
      kind: 'refused',
      reason: 'already_checked_in',
      ticket: admitted,
      checkedInAt: '2027-05-01T18:59:30.000Z',
    });
    const refunded = ticket({ status: 'refunded' });
    assert.deepEqual(precheck(refunded, 'X', PERFORMANCE), { kind: 'refused', reason: 'refunded', ticket: refunded });
    const cancelled = ticket({ status: 'cancelled' });
    assert.deepEqual(precheck(cancelled, 'X', PERFORMANCE), {
      kind: 'refused',
      reason: 'cancelled',
      ticket: cancelled,
    });
    const purchased = ticket();
    assert.deepEqual(precheck(purchased, 'X', PERFORMANCE), { kind: 'check_in', ticket: purchased });
  });

  test('a 409 is explained by the ticket read after it, and by its order while purchased', () => {
    const admitted = ticket({ status: 'checked_in', checked_in_at: '2027-05-01T19:01:00.000Z' });
    assert.deepEqual(conflictReason(admitted, undefined), {
      kind: 'refused',
      reason: 'already_checked_in',
      ticket: admitted,
      checkedInAt: '2027-05-01T19:01:00.000Z',
    });
    const purchased = ticket();
    assert.deepEqual(conflictReason(purchased, { status: 'unpaid' }), {
      kind: 'refused',
      reason: 'unpaid',
      ticket: purchased,
    });
    assert.deepEqual(conflictReason(purchased, { status: 'cancelled' }), {
      kind: 'refused',
      reason: 'cancelled',
      ticket: purchased,
    });
    // Paid by now: a settlement raced the check-in, which is worth another try.
    assert.equal(conflictReason(purchased, { status: 'placed' }), undefined);
    const refunded = ticket({ status: 'refunded' });
    assert.deepEqual(conflictReason(refunded, undefined), { kind: 'refused', reason: 'refunded', ticket: refunded });
  });

  test('what the screen says, with times in the event’s zone', () => {
    const at = '2027-05-01T19:04:05.000Z';
    assert.equal(formatTimeAt(at, 'Europe/Berlin', 'en-GB'), '21:04:05 CEST');
    assert.equal(formatTimeAt(at, 'America/New_York', 'en-US'), '03:04:05 PM EDT');
    const admitted = ticket({ status: 'checked_in', checked_in_at: at });
    assert.deepEqual(
      describeOutcome({ kind: 'refused', reason: 'already_checked_in', ticket: admitted, checkedInAt: at }, 'UTC'),
      { headline: 'Already checked in', detail: `Ticket ${TICKET_NO} was checked in at ${formatTimeAt(at, 'UTC')}.` },
    );
    assert.deepEqual(describeOutcome({ kind: 'refused', reason: 'unpaid', ticket: ticket() }, 'UTC'), {
      headline: 'Not paid',
      detail: `The order ${ORDER_NO} is not paid yet.`,
    });
    assert.deepEqual(
      describeOutcome(
        { kind: 'refused', reason: 'other_performance', ticket: ticket(), performanceLabel: 'Sun 2 May, 19:00' },
        'UTC',
      ),
      { headline: 'Wrong performance', detail: `Ticket ${TICKET_NO} is for Sun 2 May, 19:00.` },
    );
    assert.deepEqual(describeOutcome({ kind: 'refused', reason: 'unknown', code: 'NOPE' }, 'UTC'), {
      headline: 'Unknown ticket',
      detail: 'No ticket has the code NOPE.',
    });
    assert.deepEqual(describeOutcome({ kind: 'error', detail: 'Missing scope.', requestId: 'r-1' }, 'UTC'), {
      headline: 'Not checked',
      detail: 'Missing scope. (request r-1)',
    });
  });

  test('a code held in view is passed on once, and again only after it left the view for the window', () => {
    let now = 0;
    const filter = new RepeatFilter(3000, () => now);
    const seen: boolean[] = [];
    for (const at of [0, 100, 2900, 5800, 9000, 9100]) {
      now = at;
      seen.push(filter.accept('A'));
    }
    // Seen every < 3 s until 5800, so ignored throughout; gone 3.2 s, then accepted once.
    assert.deepEqual(seen, [true, false, false, false, true, false]);
    now = 9200;
    assert.equal(filter.accept('B'), true);
  });
});
