/**
 * The door device app's own logic (packages/console/src/device/), IndexedDB from
 * fake-indexeddb, against a small in-memory stand-in for the /v1 routes the contract gives
 * (docs/door.md, "The door device"): the copy's fill and refresh through the sync cursor,
 * a page and its cursor written together, the offline verdicts (the server's admission
 * rule on the copy), the upload in scanned_at order in batches of 500, an online-only
 * device's unverified scans, a revoked key, the keyboard wedge and the pairing code.
 */
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  CheckInScan,
  DoorDeviceSelf,
  DoorTicket,
  ScanUpload,
} from '../../packages/console/src/device/contract.ts';
import {
  openDeviceDb,
  readSync,
  storePairing,
  type DeviceDb,
  type Pairing,
} from '../../packages/console/src/device/device-db.ts';
import { DeviceSession } from '../../packages/console/src/device/device-session.ts';
import { WedgeBuffer } from '../../packages/console/src/device/keyboard-wedge.ts';
import { pairingTokenOf } from '../../packages/console/src/device/pairing.ts';
import { ageOf, coarseAgeOf, copyLine } from '../../packages/console/src/device/sync-age.ts';
import { copyCounts, findInCopy, syncCopy } from '../../packages/console/src/device/ticket-copy.ts';
import { pendingScans, UploadQueue } from '../../packages/console/src/device/upload-queue.ts';
import { describeScan } from '../../packages/console/src/device/verdict.ts';
import { DeviceApi } from '../../packages/console/src/device/api.ts';
import type { Ticket } from '../../packages/sdk/src/index.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createDevice, type TestDevice } from '../helpers/door-devices.ts';
import { eventsOfType, orderBody, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { seedPaidTickets } from '../helpers/seed-tickets.ts';

const DEVICE_ID = '00000000-0000-4000-8000-00000000d001';
const P1 = '00000000-0000-4000-8000-0000000000a1';
const P2 = '00000000-0000-4000-8000-0000000000b2';

const device: DoorDeviceSelf = {
  id: DEVICE_ID,
  name: 'North gate',
  online_only: false,
  organizer: { id: 'org', name: 'Lighthouse', timezone: 'Europe/Berlin' },
  performances: [
    {
      id: P1,
      event_id: 'e1',
      event_name: 'Night at the Lighthouse',
      starts_at: '2027-05-01T18:00:00.000Z',
      ends_at: '2027-05-01T21:00:00.000Z',
      timezone: 'Europe/Berlin',
    },
  ],
};

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

function ticket(n: number, patch: Partial<DoorTicket> = {}): DoorTicket {
  return {
    id: uuid(n),
    serial_no: `SERIAL${n.toString().padStart(6, '0')}`,
    ticket_no: `A${Math.floor(n / 10)}-${(n % 10).toString().padStart(3, '0')}`,
    performance_id: P1,
    ticket_type_id: 'tt',
    ticket_type_name: 'General',
    holder_name: `Holder ${n}`,
    status: 'purchased',
    paid: true,
    order_cancelled: false,
    checked_in_at: null,
    checked_in_device_id: null,
    updated_at: new Date(Date.UTC(2027, 0, 1) + n * 1000).toISOString(),
    ...patch,
  };
}

/** The /v1 routes the device calls, in memory, answering as the contract says. */
class FakeApi {
  tickets = new Map<string, DoorTicket>();
  calls: string[] = [];
  uploads: ScanUpload[][] = [];
  /** Answers every call with this status (a 401: revoked). */
  refuseWith: number | undefined;
  offline = false;
  failPage: number | undefined;
  admittedBy = new Map<string, { at: string; device: string | null }>();

  constructor(list: DoorTicket[]) {
    for (const t of list) this.tickets.set(t.id, t);
  }

  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (this.offline) throw new TypeError('fetch failed');
    const url = new URL(input instanceof Request ? input.url : input);
    this.calls.push(`${init.method ?? 'GET'} ${url.pathname}${url.search}`);
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (this.refuseWith !== undefined)
      return json(this.refuseWith, { status: this.refuseWith, code: 'unauthorized', detail: 'Invalid API key.' });
    switch (url.pathname) {
      case '/v1/door_device':
        return json(200, device);
      case '/v1/door_tickets': {
        if (
          this.failPage !== undefined &&
          this.calls.filter((c) => c.includes('door_tickets')).length === this.failPage
        )
          throw new TypeError('fetch failed');
        const limit = Number(url.searchParams.get('limit'));
        const gte = url.searchParams.get('updated_gte');
        const after = url.searchParams.get('starting_after');
        const sorted = [...this.tickets.values()]
          .sort((a, b) =>
            a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1,
          )
          .filter((t) => gte === null || t.updated_at > gte || (t.updated_at === gte && t.id > (after ?? '')));
        return json(200, { object: 'list', data: sorted.slice(0, limit), has_more: sorted.length > limit });
      }
      case '/v1/check_ins': {
        if ((init.method ?? 'GET') === 'GET') return json(200, { object: 'list', data: [], has_more: false });
        const scans = (JSON.parse(init.body as string) as { data: ScanUpload[] }).data;
        this.uploads.push(scans);
        const order = [...scans].sort((a, b) =>
          a.scanned_at < b.scanned_at ? -1 : a.scanned_at > b.scanned_at ? 1 : 0,
        );
        const answers = new Map<string, CheckInScan>();
        for (const scan of order) {
          const first = this.admittedBy.get(scan.ticket_id);
          if (!first) this.admittedBy.set(scan.ticket_id, { at: scan.scanned_at, device: DEVICE_ID });
          const current = this.admittedBy.get(scan.ticket_id)!;
          answers.set(scan.device_scan_id, {
            id: `scan-${scan.device_scan_id}`,
            device_scan_id: scan.device_scan_id,
            ticket_id: scan.ticket_id,
            ticket_no: this.tickets.get(scan.ticket_id)?.ticket_no ?? null,
            performance_id: P1,
            scanned_at: scan.scanned_at,
            received_at: '2027-05-01T20:00:00.000Z',
            outcome: first ? 'already_checked_in' : 'admitted',
            reason: null,
            checked_in_at: current.at,
            checked_in_by: current.device
              ? { device_id: current.device, device_name: current.device === DEVICE_ID ? 'North gate' : 'South gate' }
              : null,
            device: { device_id: DEVICE_ID, device_name: 'North gate' },
          });
        }
        return json(200, { object: 'list', data: scans.map((s) => answers.get(s.device_scan_id)) });
      }
      case '/v1/tickets':
        return json(200, { object: 'list', data: [], has_more: false });
    }
    return json(404, { code: 'resource_not_found', detail: 'Not found.' });
  };
}

let dbs = 0;
const opened: Array<{ close(): void }> = [];
after(() => {
  for (const handle of opened) handle.close();
});

async function freshDb(): Promise<DeviceDb> {
  const db = await openDeviceDb(`device-test-${++dbs}`);
  opened.push(db);
  return db;
}

const pairing: Pairing = { api_key: 'mqk_test', device, paired_at: '2027-05-01T17:00:00.000Z' };

describe('the local copy', () => {
  test('the first fill pages through the sync cursor; a refresh asks only from it', async () => {
    const db = await freshDb();
    const fake = new FakeApi(Array.from({ length: 2500 }, (_, i) => ticket(i + 1)));
    const api = new DeviceApi('mqk_test', { baseUrl: 'http://device.test', fetch: fake.fetch });
    let clock = 1_000;
    const filled = await syncCopy(db, api, DEVICE_ID, () => clock);
    assert.deepEqual([filled.pages, filled.items], [3, 2500]);
    const last1000 = ticket(1000);
    const last2000 = ticket(2000);
    assert.deepEqual(fake.calls, [
      'GET /v1/door_tickets?limit=1000',
      `GET /v1/door_tickets?limit=1000&updated_gte=${encodeURIComponent(last1000.updated_at)}&starting_after=${last1000.id}`,
      `GET /v1/door_tickets?limit=1000&updated_gte=${encodeURIComponent(last2000.updated_at)}&starting_after=${last2000.id}`,
    ]);
    assert.deepEqual(await copyCounts(db), { total: 2500, admitted: 0, sold: 2500 });
    const state = await readSync(db);
    assert.deepEqual(state.cursor, { updated_at: ticket(2500).updated_at, id: ticket(2500).id });
    assert.equal(state.synced_at, 1_000);

    // Two changes later: a refund and a check-in elsewhere; the refresh reads just them.
    fake.calls = [];
    clock = 16_000;
    fake.tickets.set(uuid(7), ticket(7, { status: 'refunded', updated_at: '2027-06-01T00:00:00.000Z' }));
    fake.tickets.set(
      uuid(8),
      ticket(8, {
        status: 'checked_in',
        checked_in_at: '2027-06-01T00:00:01.000Z',
        updated_at: '2027-06-01T00:00:01.000Z',
      }),
    );
    const refreshed = await syncCopy(db, api, DEVICE_ID, () => clock);
    assert.deepEqual([refreshed.pages, refreshed.items], [1, 2]);
    assert.equal(fake.calls.length, 1);
    assert.equal((await findInCopy(db, ticket(7).serial_no.toLowerCase()))?.status, 'refunded');
    assert.equal((await findInCopy(db, ` ${ticket(8).ticket_no.toLowerCase()} `))?.status, 'checked_in');
    assert.deepEqual(await copyCounts(db), { total: 2500, admitted: 1, sold: 2499 });
    assert.deepEqual((await readSync(db)).cursor, { updated_at: '2027-06-01T00:00:01.000Z', id: uuid(8) });
    assert.equal((await readSync(db)).synced_at, 16_000);
  });

  test('a fill cut after its first page keeps that page with its cursor and resumes from it', async () => {
    const db = await freshDb();
    const fake = new FakeApi(Array.from({ length: 1500 }, (_, i) => ticket(i + 1)));
    fake.failPage = 2;
    const api = new DeviceApi('mqk_test', { baseUrl: 'http://device.test', fetch: fake.fetch });
    await assert.rejects(syncCopy(db, api, DEVICE_ID), { name: 'NoAnswer' });
    assert.equal((await copyCounts(db)).total, 1000);
    assert.deepEqual(await readSync(db), {
      cursor: { updated_at: ticket(1000).updated_at, id: ticket(1000).id },
      synced_at: null,
      doubles_since: null,
      counts: { total: 1000, admitted: 0, sold: 1000 },
    });
    fake.failPage = undefined;
    fake.calls = [];
    const rest = await syncCopy(db, api, DEVICE_ID);
    assert.deepEqual([rest.pages, rest.items], [1, 500]);
    assert.match(fake.calls[0]!, new RegExp(`starting_after=${ticket(1000).id}$`));
    assert.equal((await copyCounts(db)).total, 1500);
  });
});

/** A session on a fresh database, offline unless `online`, whose clock moves a second a scan. */
async function sessionFor(tickets: DoorTicket[], { online = false, onlineOnly = false } = {}) {
  const db = await freshDb();
  const fake = new FakeApi(tickets);
  const paired = { ...pairing, device: { ...device, online_only: onlineOnly } };
  await storePairing(db, paired);
  let clock = Date.parse('2027-05-01T18:30:00.000Z');
  const network = { online };
  await syncCopy(db, new DeviceApi('mqk_test', { baseUrl: 'http://device.test', fetch: fake.fetch }), DEVICE_ID);
  const session = new DeviceSession(db, paired, {
    baseUrl: 'http://device.test',
    fetch: fake.fetch,
    browserOnline: () => network.online,
    now: () => (clock += 1000),
    refreshEveryMs: 3_600_000,
  });
  opened.push({ close: () => session.stop() });
  return { db, fake, session, network };
}

describe('offline verdicts from the copy', () => {
  test('each verdict, and a second scan of a ticket admitted here', async () => {
    const tickets = [
      ticket(1),
      ticket(2, { status: 'refunded' }),
      ticket(3, { status: 'cancelled' }),
      ticket(4, { paid: false }),
      ticket(5, { order_cancelled: true }),
      ticket(6, { performance_id: P2 }),
      ticket(7, { status: 'checked_in', checked_in_at: '2027-05-01T18:05:00.000Z', checked_in_device_id: null }),
    ];
    const { db, session } = await sessionFor(tickets);
    const words = async (code: string) => {
      const scan = await session.scan(code);
      const view = describeScan(scan, device, 'en-US');
      return `${view.kind}/${view.tone}: ${view.headline}: ${view.detail}`;
    };
    assert.equal(
      await words(ticket(1).serial_no.toLowerCase()),
      'admitted/admitted: Admitted · offline: General · Holder 1 · A0-001',
    );
    assert.equal(
      await words(ticket(1).ticket_no),
      'refused/refused: Already admitted on this device: Ticket A0-001 was admitted on this device at 08:30:01 PM GMT+2.',
    );
    assert.equal(await words(ticket(2).serial_no), 'refused/refused: Refunded: Ticket A0-002 was refunded.');
    assert.equal(await words(ticket(3).serial_no), 'refused/refused: Cancelled: Ticket A0-003 was cancelled.');
    assert.equal(await words(ticket(4).serial_no), 'refused/refused: Not paid: The order A0 is not paid yet.');
    assert.equal(await words(ticket(5).serial_no), 'refused/refused: Cancelled: Ticket A0-005 was cancelled.');
    assert.equal(
      await words(ticket(6).serial_no),
      'refused/refused: Another performance: Ticket A0-006 is for a performance this device does not admit.',
    );
    assert.equal(
      await words(ticket(7).serial_no),
      'refused/refused: Already checked in: Ticket A0-007 was checked in at 08:05:00 PM GMT+2.',
    );
    assert.equal(await words('nope'), 'refused/refused: Unknown ticket: No ticket has the code NOPE.');
    // Only the admission waits for the upload; the copy says it at once.
    assert.deepEqual(
      (await pendingScans(db)).map((s) => s.code),
      [ticket(1).serial_no],
    );
    const admitted = await findInCopy(db, ticket(1).serial_no);
    assert.deepEqual(
      [admitted?.status, admitted?.checked_in_at, admitted?.checked_in_device_id],
      ['checked_in', '2027-05-01T18:30:01.000Z', DEVICE_ID],
    );
  });

  test('an online-only device queues offline scans unverified; the upload gives the verdict', async () => {
    const { session, network } = await sessionFor([ticket(1), ticket(2, { status: 'refunded' })], { onlineOnly: true });
    const queued = await session.scan(ticket(2).serial_no);
    assert.deepEqual((({ kind, headline, detail }) => ({ kind, headline, detail }))(describeScan(queued, device)), {
      kind: 'queued',
      headline: 'Queued, not verified',
      detail: `${ticket(2).serial_no} will be checked when the network is back. Do not count it as admitted yet.`,
    });
    assert.equal(queued.pending, 1);
    network.online = true;
    session.setBrowserOnline(true);
    await session.refresh();
    const settled = session.state.log.find((s) => s.device_scan_id === queued.device_scan_id)!;
    assert.equal(settled.pending, 0);
    assert.equal(describeScan(settled, device).kind, 'admitted');
  });
});

describe('the upload', () => {
  test('pending scans go up in scanned_at order, 500 at most a request, each settled', async () => {
    const db = await freshDb();
    const fake = new FakeApi(Array.from({ length: 1203 }, (_, i) => ticket(i + 1)));
    await syncCopy(db, new DeviceApi('k', { baseUrl: 'http://device.test', fetch: fake.fetch }), DEVICE_ID);
    // Written in a shuffled order: the queue orders by scanned_at, not by when stored.
    const ids = Array.from({ length: 1203 }, (_, i) => i + 1).sort((a, b) => ((a * 7919) % 1203) - ((b * 7919) % 1203));
    for (const n of ids)
      await db.put('scans', {
        device_scan_id: `scan-${n.toString().padStart(5, '0')}`,
        code: ticket(n).serial_no,
        scanned_at: new Date(Date.UTC(2027, 4, 1, 18) + n * 10).toISOString(),
        ticket: {
          id: uuid(n),
          ticket_no: ticket(n).ticket_no,
          holder_name: '',
          ticket_type_name: '',
          performance_id: P1,
        },
        mode: 'offline',
        local: { admit: true },
        pending: 1,
      });
    const settled: string[] = [];
    const queue = new UploadQueue(
      db,
      new DeviceApi('k', { baseUrl: 'http://device.test', fetch: fake.fetch }),
      DEVICE_ID,
      (scans) => settled.push(...scans.map((s) => s.device_scan_id)),
    );
    const outcomes = await queue.flush();
    assert.deepEqual(
      fake.uploads.map((batch) => batch.length),
      [500, 500, 203],
    );
    const sent = fake.uploads.flat();
    assert.deepEqual(
      sent.map((s) => s.scanned_at),
      [...sent.map((s) => s.scanned_at)].sort(),
    );
    assert.equal(new Set(sent.map((s) => s.device_scan_id)).size, 1203);
    assert.equal(outcomes.length, 1203);
    assert.deepEqual(
      settled,
      sent.map((s) => s.device_scan_id),
    );
    assert.equal((await pendingScans(db)).length, 0);
    assert.deepEqual(await copyCounts(db), { total: 1203, admitted: 1203, sold: 1203 });
  });

  test('two flushes at once send each scan once', async () => {
    const { db, fake, session, network } = await sessionFor([ticket(1), ticket(2), ticket(3)]);
    for (const n of [1, 2, 3]) await session.scan(ticket(n).serial_no);
    assert.equal((await pendingScans(db)).length, 3);
    network.online = true;
    session.setBrowserOnline(true);
    await Promise.all([session.refresh(), session.refresh()]);
    assert.deepEqual(
      fake.uploads.flat().map((s) => s.ticket_id),
      [uuid(1), uuid(2), uuid(3)],
    );
    assert.equal((await pendingScans(db)).length, 0);
  });

  test('a double entry: admitted here offline, another gate first', async () => {
    const { session, fake, network } = await sessionFor([ticket(1)]);
    const scan = await session.scan(ticket(1).serial_no);
    fake.admittedBy.set(uuid(1), { at: '2027-05-01T18:20:00.000Z', device: 'south' });
    network.online = true;
    session.setBrowserOnline(true);
    await session.refresh();
    const settled = session.state.log.find((s) => s.device_scan_id === scan.device_scan_id)!;
    const view = describeScan(settled, device, 'en-US');
    assert.deepEqual(
      [view.kind, view.headline, view.detail],
      [
        'double',
        'Double entry',
        'Ticket A0-001 was admitted here at 08:30:01 PM GMT+2, and South gate admitted it at 08:20:00 PM GMT+2.',
      ],
    );
  });
});

describe('a revoked key', () => {
  test('a 401 deletes the copy and keeps the count of scans not uploaded', async () => {
    const { db, fake, session, network } = await sessionFor([ticket(1), ticket(2)]);
    await session.scan(ticket(1).serial_no);
    await session.scan(ticket(2).serial_no);
    fake.refuseWith = 401;
    network.online = true;
    session.setBrowserOnline(true);
    await session.refresh();
    assert.equal(session.state.revoked, true);
    assert.equal(session.state.pending, 2);
    assert.deepEqual(await copyCounts(db), { total: 0, admitted: 0, sold: 0 });
    assert.deepEqual(
      (await pendingScans(db)).map((s) => s.ticket?.holder_name),
      ['', ''],
    );
  });
});

describe('small parts', () => {
  test('the keyboard wedge: a fast burst ended by Enter is a code; typing by hand is not', () => {
    const wedge = new WedgeBuffer(50);
    let at = 1000;
    const burst = (text: string, gap: number) => {
      let out: string | undefined;
      for (const key of [...text, 'Enter']) out = wedge.key(key, (at += gap));
      return out;
    };
    assert.equal(burst('ABC123', 8), 'ABC123');
    assert.equal(burst('ABC123', 200), undefined);
    at += 1000;
    assert.equal(wedge.key('Shift', (at += 5)), undefined);
    assert.equal(burst('A-001', 5), 'A-001');
  });

  test("the copy's age in words: by the second on the line, by the minute in the offline banner", () => {
    const at = Date.parse('2027-05-01T18:00:00Z');
    assert.equal(copyLine(null, 0, at), 'Loading the tickets…');
    assert.equal(copyLine(at - 12_400, 20_000, at), 'Tickets as of 12 s ago · 20,000 tickets');
    assert.equal(copyLine(at - 185_000, 1, at), 'Tickets as of 3 min ago · 1 ticket');
    assert.equal(ageOf(at - 3_725_000, at), '1 h 2 min ago');
    assert.equal(coarseAgeOf(at - 59_000, at), 'less than a minute ago');
    assert.equal(coarseAgeOf(at - 125_000, at), '2 min ago');
  });

  test('the pairing token from a QR link, a pasted link or a bare code', () => {
    const token = `mqd_${'a'.repeat(43)}`;
    assert.equal(pairingTokenOf(`https://marquee.test/app/device#pair=${token}`), token);
    assert.equal(pairingTokenOf(`  ${token}\n`), token);
    assert.equal(pairingTokenOf('#pair=' + token), token);
    assert.equal(pairingTokenOf('hello'), undefined);
  });
});

/** The service's clock follows the wall clock: rows seeded in SQL are stamped by it too (docs/sync.md). */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

describe('against a live service', () => {
  let t: TestApp;
  let s: Sale;
  let baseUrl: string;
  let north: TestDevice;
  let south: TestDevice;
  before(async () => {
    t = await createTestApp({ clock: new WallClock() });
    s = await setupSale(t);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    north = await createDevice(t, s.org.id, [s.performanceId], 'North gate');
    south = await createDevice(t, s.org.id, [s.performanceId], 'South gate');
  });
  after(() => t?.close());

  const sold = async (quantity = 1): Promise<Ticket[]> => {
    const order = await postOrder(t, s.org.key, orderBody(s, {}, quantity));
    assert.equal(order.statusCode, 201, order.body);
    // A stamp shows in a sync list once the clock has passed it (docs/sync.md).
    await sleep(5);
    return (await t.api(s.org.key, 'GET', `/v1/tickets?order_id=${order.json().id}`)).json().data.reverse();
  };

  /** A device's session on a database of its own, paired as a claim would leave it. */
  const deviceSession = async (gate: TestDevice, network = { online: true }) => {
    const db = await freshDb();
    const self = (await t.api(gate.key, 'GET', '/v1/door_device')).json<DoorDeviceSelf>();
    const paired: Pairing = { api_key: gate.key, device: self, paired_at: new Date(Date.now() - 60_000).toISOString() };
    await storePairing(db, paired);
    const session = new DeviceSession(db, paired, {
      baseUrl,
      browserOnline: () => network.online,
      refreshEveryMs: 3_600_000,
    });
    opened.push({ close: () => session.stop() });
    return { db, session, network, self };
  };

  test('the copy fills in pages of 1000 through the cursor; a refund reaches it on the next refresh', async () => {
    await seedPaidTickets(t, {
      organizerId: s.org.id,
      eventId: s.event.id,
      performanceId: s.performanceId,
      ticketTypeId: s.ticketTypeId,
      count: 2100,
      prefix: 'S',
    });
    const [refunded] = await sold();
    const db = await freshDb();
    const api = new DeviceApi(north.key, { baseUrl });
    const filled = await syncCopy(db, api, north.id);
    assert.deepEqual([filled.pages, filled.items], [3, 2101]);
    assert.deepEqual(await copyCounts(db), { total: 2101, admitted: 0, sold: 2101 });
    const copied = await findInCopy(db, refunded!.serial_no);
    assert.deepEqual(copied, {
      id: refunded!.id,
      serial_no: refunded!.serial_no,
      ticket_no: refunded!.ticket_no,
      performance_id: s.performanceId,
      ticket_type_name: s.event.ticket_types[0]!.name,
      holder_name: 'Ada Lovelace',
      status: 'purchased',
      paid: true,
      order_cancelled: false,
      checked_in_at: null,
      checked_in_device_id: null,
    });

    assert.equal((await t.admin('POST', `/admin/v1/orders/${refunded!.order_id}/refund`, {})).statusCode, 201);
    await sleep(5);
    const refreshed = await syncCopy(db, api, north.id);
    assert.deepEqual([refreshed.pages, refreshed.items], [1, 1]);
    assert.equal((await findInCopy(db, refunded!.ticket_no))?.status, 'refunded');
    assert.deepEqual(await copyCounts(db), { total: 2101, admitted: 0, sold: 2100 });
  });

  test('online the server decides, a ticket sold after the last refresh included', async () => {
    const { session } = await deviceSession(north);
    await session.refresh();
    const [later] = await sold();
    const scan = await session.scan(later!.serial_no);
    assert.deepEqual([scan.mode, scan.pending, scan.outcome?.outcome], ['server', 0, 'admitted']);
    const again = await session.scan(later!.ticket_no);
    assert.equal(again.outcome?.outcome, 'already_checked_in');
    assert.equal(describeScan(again, session.state.device, 'en-US').headline, 'Already checked in');
    const ticketNow = (await t.api(s.org.key, 'GET', `/v1/tickets/${later!.id}`)).json();
    assert.equal(ticketNow.status, 'checked_in');
    assert.equal(
      (await eventsOfType(t, s.org.id, 'ticket.checked_in')).filter((e: any) => e.ticket_id === later!.id).length,
      1,
    );
  });

  test('two devices admit one ticket offline: one admitted, the other a double entry both see', async () => {
    const [shared] = await sold();
    const a = await deviceSession(north);
    const b = await deviceSession(south);
    await a.session.refresh();
    await b.session.refresh();
    a.network.online = false;
    b.network.online = false;
    a.session.setBrowserOnline(false);
    b.session.setBrowserOnline(false);
    const first = await a.session.scan(shared!.serial_no);
    await sleep(20);
    const second = await b.session.scan(shared!.serial_no);
    assert.deepEqual(
      [first.mode, first.local, second.mode, second.local],
      ['offline', { admit: true }, 'offline', { admit: true }],
    );
    // The north gate reconnects first: its upload admits, the south gate's is the double entry.
    a.network.online = true;
    a.session.setBrowserOnline(true);
    await a.session.refresh();
    b.network.online = true;
    b.session.setBrowserOnline(true);
    await b.session.refresh();
    const settledA = a.session.state.log.find((x) => x.device_scan_id === first.device_scan_id)!;
    const settledB = b.session.state.log.find((x) => x.device_scan_id === second.device_scan_id)!;
    assert.equal(settledA.outcome?.outcome, 'admitted');
    assert.equal(settledA.outcome?.checked_in_at, first.scanned_at);
    assert.equal(settledB.outcome?.outcome, 'already_checked_in');
    const viewB = describeScan(settledB, b.session.state.device, 'en-US');
    assert.equal(viewB.headline, 'Double entry');
    assert.match(viewB.detail, /North gate admitted it at/);
    // The north gate learns of it on its next refresh.
    await a.session.refresh();
    assert.deepEqual(
      a.session.state.doubles.map((d) => [d.ticket_no, d.gate, d.admitted_at, d.scanned_at]),
      [[shared!.ticket_no, 'South gate', first.scanned_at, second.scanned_at]],
    );
    assert.equal(
      (await eventsOfType(t, s.org.id, 'ticket.checked_in')).filter((e: any) => e.ticket_id === shared!.id).length,
      1,
    );
  });
});
