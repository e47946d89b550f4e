/**
 * The check-ins tests' door: an organizer, an event with two performances, and door devices
 * made in the database (test/helpers/door-devices.ts); shortcuts to sell a ticket in a given
 * state and to upload scans.
 */
import assert from 'node:assert/strict';
import type { TestApp, TestOrganizer } from '../helpers/app.ts';
import { createDevice, type TestDevice } from '../helpers/door-devices.ts';
import { placeOrder, setupSale, type Sale } from '../helpers/orders.ts';

export interface Door {
  sale: Sale;
  org: TestOrganizer;
  /** The event's two performances, in schedule order. */
  performances: [string, string];
  /** Two gates of the first performance. */
  north: TestDevice;
  south: TestDevice;
  /** A gate of the second performance. */
  east: TestDevice;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function setupDoor(t: TestApp): Promise<Door> {
  const at = (days: number) => new Date(t.clock.now().getTime() + days * DAY_MS).toISOString();
  const sale = await setupSale(t, {
    event: {
      performances: [
        { starts_at: at(7), capacity: 500 },
        { starts_at: at(8), capacity: 500 },
      ],
    },
  });
  const performances = sale.event.ticket_types[0]!.prices.map((p) => p.performance_id) as [string, string];
  return {
    sale,
    org: sale.org,
    performances,
    north: await createDevice(t, sale.org.id, [performances[0]], 'North gate'),
    south: await createDevice(t, sale.org.id, [performances[0]], 'South gate'),
    east: await createDevice(t, sale.org.id, [performances[1]], 'East gate'),
  };
}

type TicketState = 'paid' | 'unpaid' | 'checked_in' | 'refunded' | 'cancelled';

/** A ticket of the performance (the first by default) in the given state; returns the ticket as sold. */
export async function ticketIn(
  t: TestApp,
  door: Door,
  state: TicketState = 'paid',
  performanceId = door.performances[0],
): Promise<{ id: string; ticket_no: string; order_id: string; serial_no: string }> {
  const sold = await placeOrder(t, door.sale, {
    tender: state === 'unpaid' || state === 'cancelled' ? 'pay_later' : 'cash',
    items: [{ performance_id: performanceId, ticket_type_id: door.sale.ticketTypeId, quantity: 2 }],
  });
  const ticket = sold.transactions[0].items[0];
  const ok = (status: number, expected: number) => assert.equal(status, expected, `making a ${state} ticket`);
  switch (state) {
    case 'checked_in':
      ok((await t.api(door.org.key, 'POST', `/v1/tickets/${ticket.id}/check_in`)).statusCode, 200);
      break;
    case 'refunded':
      ok((await t.admin('POST', `/admin/v1/orders/${sold.id}/refund`, { ticket_ids: [ticket.id] })).statusCode, 201);
      break;
    case 'cancelled':
      ok((await t.admin('POST', `/admin/v1/orders/${sold.id}/cancel`)).statusCode, 200);
      break;
  }
  return { id: ticket.id, ticket_no: ticket.ticket_no, order_id: sold.id, serial_no: ticket.serial_no };
}

interface Scan {
  ticket_id: string;
  scanned_at: string;
  device_scan_id: string;
}

let scans = 0;
/** A scan of the ticket `secondsAgo` before the clock's now, with a fresh device_scan_id. */
export function scanOf(t: TestApp, ticketId: string, secondsAgo = 60, deviceScanId?: string): Scan {
  return {
    ticket_id: ticketId,
    scanned_at: new Date(t.clock.now().getTime() - secondsAgo * 1000).toISOString(),
    device_scan_id: deviceScanId ?? `scan-${++scans}`,
  };
}

export function upload(t: TestApp, key: string, data: unknown) {
  return t.api(key, 'POST', '/v1/check_ins', { data });
}

/** A CheckInScan as answered (docs/check-ins.md). */
export type ScanBody = { id: string; outcome: string } & Record<string, unknown>;

/** The upload's answer; throws unless 200. */
export async function uploaded(t: TestApp, key: string, data: Scan[]): Promise<ScanBody[]> {
  const res = await upload(t, key, data);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

export const deviceRef = (device: TestDevice) => ({ device_id: device.id, device_name: device.name });
