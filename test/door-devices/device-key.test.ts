/**
 * What a door device's key may do (docs/dashboard.md, "Door devices"): every /v1 operation
 * of the OpenAPI document, walked with the key, is refused for its scope except the
 * device's own; with those it reaches only its performances' tickets. A change of its
 * performances and a revocation hold from the key's next request on the same instance,
 * whatever the key cache held. The dashboard counts its uploaded scans since midnight in
 * the organizer's time zone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { problemOf, useTestApp, type Method, type TestApp } from '../helpers/app.ts';
import { BUYER } from '../helpers/orders.ts';
import { UNTHROTTLED } from '../helpers/people.ts';
import { claimKey, createDevice, setupDoors, V1_UNAUTHORIZED, type DoorSetup } from './fixtures.ts';

/** The operations a device key opens (the door's contract); every other one is refused. */
const DEVICE_OPERATIONS = new Set([
  'listTickets',
  'getTicket',
  'checkInTicket',
  'uploadCheckIns',
  'listCheckIns',
  'listDoorTickets',
  'getCurrentDoorDevice',
]);

const TICKET_NOT_FOUND = problemOf(404, 'Ticket not found.', 'resource_not_found');

interface OpenApiOperation {
  operationId?: string;
  security?: unknown[];
}

/** Two tickets of each of the performances, sold by the organizer's key; their ids. */
async function ticketsOf(t: TestApp, door: DoorSetup, performanceIndex: number): Promise<string[]> {
  const performance = door.performances[performanceIndex]!;
  const event = door.events.find((e) => e.id === performance.event_id)!;
  const order = await t.api(door.org.key, 'POST', '/v1/orders', {
    items: [{ performance_id: performance.id, ticket_type_id: event.ticket_types[0]!.id, quantity: 2 }],
    buyer: BUYER,
    tender: 'cash',
  });
  assert.equal(order.statusCode, 201, order.body);
  const listed = await t.api(door.org.key, 'GET', `/v1/tickets?order_id=${order.json().id}`);
  return (listed.json().data as { id: string }[]).map((ticket) => ticket.id).sort();
}

const idsOf = (res: { json(): { data: { id: string }[] } }) =>
  res
    .json()
    .data.map((item) => item.id)
    .sort();

describe('a door device key', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  let door: DoorSetup;
  /** Tickets of the device's performance (the first) and of another (the third). */
  let mine: string[];
  let theirs: string[];
  before(async () => {
    door = await setupDoors(t);
    mine = await ticketsOf(t, door, 0);
    theirs = await ticketsOf(t, door, 2);
  });

  const pairedDevice = async (name: string, performanceIndexes = [0]) => {
    const device = await createDevice(t, door.owner.session, {
      name,
      performance_ids: performanceIndexes.map((i) => door.performances[i]!.id),
    });
    return { id: device.id, key: await claimKey(t, device.provisioning_token) };
  };

  test('every /v1 operation but the device’s own answers 403 forbidden_scope', async () => {
    const { key } = await pairedDevice('Walker');
    const doc = t.app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
    const walked: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, operation] of Object.entries(methods)) {
        if (!['get', 'post', 'patch', 'delete', 'put'].includes(method)) continue;
        const id = operation.operationId!;
        // The claim needs no key at all.
        if (Array.isArray(operation.security) && operation.security.length === 0) {
          assert.equal(id, 'claimDoorDevice');
          continue;
        }
        walked.push(id);
        const verb = method.toUpperCase() as Method;
        const url = path.replace(/\{[^}]+\}/g, () => randomUUID());
        const res = await t.api(key, verb, url, verb === 'GET' || verb === 'DELETE' ? undefined : {});
        const cell = `${id} (${verb} ${url}): ${res.statusCode} ${res.body}`;
        if (DEVICE_OPERATIONS.has(id)) {
          assert.ok(![401, 403].includes(res.statusCode) && res.statusCode < 500, cell);
          continue;
        }
        const scope = verb === 'GET' ? 'read' : 'write';
        assert.deepEqual(
          [res.statusCode, res.json()],
          [
            403,
            problemOf(403, `This API key lacks the \`${scope}\` scope that ${verb} requests need.`, 'forbidden_scope'),
          ],
          cell,
        );
      }
    }
    // The walk saw the device's operations and many others (orders, events, webhooks, exports, the key).
    for (const id of ['listTickets', 'getTicket', 'checkInTicket', 'getCurrentDoorDevice'])
      assert.ok(walked.includes(id), id);
    for (const id of ['createOrder', 'listEvents', 'createWebhookEndpoint', 'exportEventTickets', 'getCurrentApiKey'])
      assert.ok(walked.includes(id), id);
    assert.ok(walked.length > 25, `${walked.length} operations walked`);
  });

  test('it reads and admits only its performances’ tickets', async () => {
    const device = await pairedDevice('Reader');
    const [p1, , p3] = door.performances;
    const all = await t.api(device.key, 'GET', '/v1/tickets?limit=100');
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(idsOf(all), mine);
    const other = await t.api(device.key, 'GET', `/v1/tickets?performance_id=${p3!.id}`);
    assert.deepEqual([other.statusCode, other.json()], [200, { object: 'list', data: [], has_more: false }]);
    assert.deepEqual(idsOf(await t.api(device.key, 'GET', `/v1/tickets?performance_id=${p1!.id}`)), mine);

    const got = await t.api(device.key, 'GET', `/v1/tickets/${mine[0]}`);
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json().performance_id, p1!.id);
    const refused = await t.api(device.key, 'GET', `/v1/tickets/${theirs[0]}`);
    assert.deepEqual([refused.statusCode, refused.json()], [404, TICKET_NOT_FOUND]);

    const notMine = await t.api(device.key, 'POST', `/v1/tickets/${theirs[0]}/check_in`);
    assert.deepEqual([notMine.statusCode, notMine.json()], [404, TICKET_NOT_FOUND]);
    const admitted = await t.api(device.key, 'POST', `/v1/tickets/${mine[0]}/check_in`);
    assert.equal(admitted.statusCode, 200, admitted.body);
    assert.equal(admitted.json().status, 'checked_in');
    const rows = await t.database.db
      .selectFrom('tickets')
      .select(['id', 'status', 'checked_in_device_id'])
      .where('id', 'in', [mine[0]!, theirs[0]!])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows,
      [
        { id: mine[0], status: 'checked_in', checked_in_device_id: device.id },
        { id: theirs[0], status: 'purchased', checked_in_device_id: null },
      ].sort((a, b) => a.id!.localeCompare(b.id!)),
    );
  });

  test('a change of its performances holds from its next request, with the old lookup cached', async () => {
    const device = await pairedDevice('Mover');
    const [, , p3] = door.performances;
    // The key's lookup is cached now (2 s), with the first performance.
    assert.equal((await t.api(device.key, 'GET', `/v1/tickets/${mine[1]}`)).statusCode, 200);
    const moved = await t.dash(door.owner.session, 'PATCH', `/dashboard/v1/door_devices/${device.id}`, {
      performance_ids: [p3!.id],
    });
    assert.equal(moved.statusCode, 200, moved.body);
    // No time passes: the same instance forgot the cached lookup at the commit.
    const before = await t.api(device.key, 'GET', `/v1/tickets/${mine[1]}`);
    assert.deepEqual([before.statusCode, before.json()], [404, TICKET_NOT_FOUND]);
    assert.equal((await t.api(device.key, 'GET', `/v1/tickets/${theirs[1]}`)).statusCode, 200);
    assert.deepEqual(idsOf(await t.api(device.key, 'GET', '/v1/tickets?limit=100')), theirs);
    const self = await t.api(device.key, 'GET', '/v1/door_device');
    assert.deepEqual(
      self.json().performances.map((p: { id: string }) => p.id),
      [p3!.id],
    );
  });

  test('revoked, it answers 401 from its next request', async () => {
    const device = await pairedDevice('Lost phone');
    assert.equal((await t.api(device.key, 'GET', '/v1/door_device')).statusCode, 200);
    const revoked = await t.dash(door.owner.session, 'POST', `/dashboard/v1/door_devices/${device.id}/revoke`);
    assert.equal(revoked.statusCode, 200, revoked.body);
    for (const [method, url] of [
      ['GET', '/v1/door_device'],
      ['GET', `/v1/tickets/${mine[1]}`],
      ['POST', `/v1/tickets/${mine[1]}/check_in`],
    ] as const) {
      const res = await t.api(device.key, method, url);
      assert.deepEqual([res.statusCode, res.json()], [401, V1_UNAUTHORIZED], `${method} ${url}`);
    }
    const key = await t.database.db
      .selectFrom('api_keys')
      .innerJoin('door_devices', 'door_devices.api_key_id', 'api_keys.id')
      .select(['api_keys.revoked_at', 'door_devices.revoked_at as device_revoked_at'])
      .where('door_devices.id', '=', device.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(key.revoked_at, key.device_revoked_at);
    assert.notEqual(key.revoked_at, null);
  });
});

describe("a device's scans today, in the organizer's time zone", () => {
  // 03:30 UTC is 22:30 the day before in New York (UTC−5 in November): its day began at 05:00 UTC.
  const t = useTestApp({ env: UNTHROTTLED, clock: new ManualClock('2026-11-28T03:30:00.000Z') });

  test('scans received since local midnight count; earlier ones and other devices’ do not', async () => {
    const door = await setupDoors(t, { timezone: 'America/New_York' });
    const device = await createDevice(t, door.owner.session, {
      name: 'Counted',
      performance_ids: [door.performances[0]!.id],
    });
    const other = await createDevice(t, door.owner.session, {
      name: 'Other',
      performance_ids: [door.performances[0]!.id],
    });
    await claimKey(t, device.provisioning_token);
    await claimKey(t, other.provisioning_token);
    const keyOf = async (id: string) =>
      (
        await t.database.db
          .selectFrom('door_devices')
          .select('api_key_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).api_key_id!;
    let n = 0;
    const scan = async (deviceId: string, receivedAt: string) =>
      t.database.db
        .insertInto('check_in_scans')
        .values({
          organizer_id: door.org.id,
          api_key_id: await keyOf(deviceId),
          device_id: deviceId,
          device_scan_id: `scan-${++n}`,
          ticket_id: randomUUID(),
          scanned_at: receivedAt,
          outcome: 'admitted',
          received_at: receivedAt,
        })
        .execute();
    await scan(device.id, '2026-11-27T04:59:59.999Z'); // 23:59:59.999 the day before, local
    await scan(device.id, '2026-11-27T05:00:00.000Z'); // local midnight
    await scan(device.id, '2026-11-27T23:59:00.000Z'); // before UTC midnight, today locally
    await scan(device.id, '2026-11-28T03:29:00.000Z');
    await scan(other.id, '2026-11-28T03:00:00.000Z');
    const counted = async () =>
      (
        (await t.dash(door.owner.session, 'GET', '/dashboard/v1/door_devices?limit=100')).json().data as {
          id: string;
          scans_today: number;
        }[]
      ).map((d) => [d.id, d.scans_today]);
    assert.deepEqual(await counted(), [
      [other.id, 1],
      [device.id, 3],
    ]);
    // At 05:00 UTC a new local day begins: nothing received since.
    t.clock.set('2026-11-28T05:00:00.000Z');
    assert.deepEqual(await counted(), [
      [other.id, 0],
      [device.id, 0],
    ]);
  });
});
