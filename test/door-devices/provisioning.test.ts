/**
 * Door devices on the dashboard API (docs/dashboard.md, "Door devices"): create answers the
 * device with a one-time pairing code, its console link and that link's QR code; the list
 * and the device read back exactly; bad performances, names and states are refused and
 * change nothing; a new code replaces the old one while the device is unpaired; the roles
 * without `devices` are refused every operation; every write is in the audit log.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { problemOf, useTestApp, type Method } from '../helpers/app.ts';
import { UNTHROTTLED, UUID } from '../helpers/people.ts';
import {
  claim,
  CLAIM_REFUSED,
  claimKey,
  createDevice,
  listed,
  readSvgQr,
  setupDoors,
  TEN_MINUTES_MS,
  TOKEN_SHAPE,
  type DoorSetup,
} from './fixtures.ts';

const invalidPerformances = (detail: string) => problemOf(400, detail, 'parameter_invalid', 'performance_ids');

describe('door devices on the dashboard', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  let door: DoorSetup;
  before(async () => {
    door = await setupDoors(t);
  });
  const createdBy = () => ({ id: door.owner.id, name: door.owner.name, email: door.owner.email });
  const devicesOf = () =>
    t.database.db.selectFrom('door_devices').selectAll().where('organizer_id', '=', door.org.id).execute();

  test('create answers the device, its pairing code, link and QR code; only the hash is stored', async () => {
    const [p1, p2, p3] = door.performances;
    const res = await t.dash(door.owner.session, 'POST', '/dashboard/v1/door_devices', {
      name: '  North gate 1 ',
      // Given in another order than their starts: performance_ids keeps it, performances sorts.
      performance_ids: [p3!.id, p1!.id],
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body.id, UUID);
    assert.match(body.provisioning_token, TOKEN_SHAPE);
    const url = `${t.config.publicUrl}/app/device#pair=${body.provisioning_token}`;
    assert.deepEqual(body, {
      id: body.id,
      name: 'North gate 1',
      performance_ids: [p3!.id, p1!.id],
      performances: [listed(p1!), listed(p3!)],
      online_only: false,
      status: 'awaiting_pairing',
      provisioning_expires_at: new Date(t.clock.now().getTime() + TEN_MINUTES_MS).toISOString(),
      claimed_at: null,
      revoked_at: null,
      last_seen_at: null,
      last_synced_at: null,
      scans_today: 0,
      created_at: body.created_at,
      created_by: createdBy(),
      provisioning_token: body.provisioning_token,
      provisioning_url: url,
      provisioning_qr: body.provisioning_qr,
    });
    assert.ok(Math.abs(Date.parse(body.created_at) - Date.now()) < 60_000);
    // The QR code, read as a camera would, is the link.
    assert.equal(readSvgQr(body.provisioning_qr), url);
    assert.ok(p2, 'the second performance is not the device’s');

    const [row] = (await devicesOf()).filter((d) => d.id === body.id);
    assert.deepEqual(
      Buffer.from(row!.provisioning_token_hash!),
      createHash('sha256').update(body.provisioning_token).digest(),
    );
    assert.ok(!JSON.stringify(row).includes(body.provisioning_token.slice(4)), 'the token itself is stored nowhere');
    assert.equal(row!.api_key_id, null);
    assert.equal(row!.created_by, door.owner.id);
  });

  test('get and list read the device back exactly, newest first, paginated', async () => {
    const [p1, p2] = door.performances;
    const older = await createDevice(t, door.owner.session, { name: 'Older', performance_ids: [p2!.id] });
    t.clock.advance(1000);
    const newer = await createDevice(t, door.owner.session, {
      name: 'Newer',
      performance_ids: [p1!.id, p2!.id],
      online_only: true,
    });
    const asDevice = ({ provisioning_token: _t, provisioning_url: _u, provisioning_qr: _q, ...device }: typeof newer) =>
      device;
    // Read a second later, each device is as create answered it.
    t.clock.advance(1000);
    const got = await t.dash(door.owner.session, 'GET', `/dashboard/v1/door_devices/${newer.id}`);
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json(), asDevice(newer));
    assert.equal(got.json().online_only, true);

    const page = await t.dash(door.owner.session, 'GET', '/dashboard/v1/door_devices?limit=2');
    assert.equal(page.statusCode, 200, page.body);
    assert.deepEqual(page.json(), { object: 'list', data: [asDevice(newer), asDevice(older)], has_more: true });
    const next = await t.dash(
      door.owner.session,
      'GET',
      `/dashboard/v1/door_devices?limit=100&starting_after=${older.id}`,
    );
    assert.equal(next.statusCode, 200, next.body);
    assert.equal(next.json().has_more, false);
    assert.equal(next.json().data.length, (await devicesOf()).length - 2);
  });

  test('a performance of another organizer, an unknown one or one listed twice: 400, nothing made', async () => {
    const [p1] = door.performances;
    const other = await setupDoors(t);
    const before = (await devicesOf()).length;
    const theirs = other.performances[0]!.id;
    const unknown = randomUUID();
    const cases: [unknown, number, unknown][] = [
      [
        { name: 'Gate', performance_ids: [p1!.id, theirs] },
        400,
        invalidPerformances(`performance_ids: ${theirs} is not a performance of this organizer.`),
      ],
      [
        { name: 'Gate', performance_ids: [unknown] },
        400,
        invalidPerformances(`performance_ids: ${unknown} is not a performance of this organizer.`),
      ],
      [
        { name: 'Gate', performance_ids: [p1!.id, p1!.id] },
        400,
        invalidPerformances(`performance_ids lists ${p1!.id} more than once.`),
      ],
      [
        { name: '   ', performance_ids: [p1!.id] },
        400,
        problemOf(400, 'name must not be blank.', 'parameter_invalid', 'name'),
      ],
    ];
    for (const [body, status, problem] of cases) {
      const res = await t.dash(door.owner.session, 'POST', '/dashboard/v1/door_devices', body);
      assert.deepEqual([res.statusCode, res.json()], [status, problem], JSON.stringify(body));
    }
    // The schema's limits name the field too.
    for (const [body, param] of [
      [{ name: 'Gate', performance_ids: [] }, 'performance_ids'],
      [{ name: 'Gate', performance_ids: Array.from({ length: 51 }, () => randomUUID()) }, 'performance_ids'],
      [{ name: 'x'.repeat(101), performance_ids: [p1!.id] }, 'name'],
      [{ performance_ids: [p1!.id] }, 'name'],
      [{ name: 'Gate', performance_ids: [p1!.id], secret: 1 }, 'secret'],
    ] as const) {
      const res = await t.dash(door.owner.session, 'POST', '/dashboard/v1/door_devices', body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().param, param, res.body);
    }
    assert.equal((await devicesOf()).length, before);
  });

  test('update changes the name, online_only and performances; refusals change nothing', async () => {
    const [p1, p2, p3] = door.performances;
    const device = await createDevice(t, door.owner.session, { name: 'Side door', performance_ids: [p1!.id] });
    const url = `/dashboard/v1/door_devices/${device.id}`;
    const res = await t.dash(door.owner.session, 'PATCH', url, {
      name: 'Side door (east)',
      online_only: true,
      performance_ids: [p2!.id, p3!.id],
    });
    assert.equal(res.statusCode, 200, res.body);
    const { provisioning_token: _t, provisioning_url: _u, provisioning_qr: _q, ...was } = device;
    assert.deepEqual(res.json(), {
      ...was,
      name: 'Side door (east)',
      online_only: true,
      performance_ids: [p2!.id, p3!.id],
      performances: [listed(p2!), listed(p3!)],
    });
    const empty = await t.dash(door.owner.session, 'PATCH', url, {});
    assert.deepEqual(
      [empty.statusCode, empty.json()],
      [400, problemOf(400, 'Send at least one of `name`, `online_only`, `performance_ids`.', 'empty_update')],
    );
    const other = await setupDoors(t);
    const theirs = other.performances[0]!.id;
    const foreign = await t.dash(door.owner.session, 'PATCH', url, { performance_ids: [theirs] });
    assert.deepEqual(
      [foreign.statusCode, foreign.json()],
      [400, invalidPerformances(`performance_ids: ${theirs} is not a performance of this organizer.`)],
    );
    const missing = await t.dash(door.owner.session, 'PATCH', `/dashboard/v1/door_devices/${randomUUID()}`, {
      name: 'x',
    });
    assert.deepEqual(
      [missing.statusCode, missing.json()],
      [404, problemOf(404, 'Door device not found.', 'resource_not_found')],
    );
    // Another organizer's device is not found either.
    const theirDevice = await createDevice(t, other.owner.session, { name: 'Theirs', performance_ids: [theirs] });
    const reach = await t.dash(door.owner.session, 'PATCH', `/dashboard/v1/door_devices/${theirDevice.id}`, {
      name: 'Mine now',
    });
    assert.equal(reach.statusCode, 404, reach.body);

    assert.equal((await t.dash(door.owner.session, 'POST', `${url}/revoke`)).statusCode, 200);
    const revoked = await t.dash(door.owner.session, 'PATCH', url, { name: 'Again' });
    assert.deepEqual(
      [revoked.statusCode, revoked.json()],
      [
        409,
        problemOf(409, 'Door device is revoked and cannot be changed. Create a new device instead.', 'invalid_state'),
      ],
    );
    const after = await t.dash(door.owner.session, 'GET', url);
    assert.equal(after.json().name, 'Side door (east)');
    assert.equal(after.json().status, 'revoked');
  });

  test('a pairing code expires after 10 minutes; a new one replaces it until the device is paired', async () => {
    const [p1] = door.performances;
    const device = await createDevice(t, door.owner.session, { name: 'Box office', performance_ids: [p1!.id] });
    const url = `/dashboard/v1/door_devices/${device.id}`;
    t.clock.advance(TEN_MINUTES_MS);
    assert.equal((await t.dash(door.owner.session, 'GET', url)).json().status, 'pairing_expired');
    assert.deepEqual((await claim(t, device.provisioning_token)).json(), CLAIM_REFUSED);

    const reissued = await t.dash(door.owner.session, 'POST', `${url}/provisioning_token`);
    assert.equal(reissued.statusCode, 201, reissued.body);
    const body = reissued.json();
    assert.match(body.provisioning_token, TOKEN_SHAPE);
    assert.notEqual(body.provisioning_token, device.provisioning_token);
    const link = `${t.config.publicUrl}/app/device#pair=${body.provisioning_token}`;
    const { provisioning_token: _t, provisioning_url: _u, provisioning_qr: _q, ...was } = device;
    assert.deepEqual(body, {
      ...was,
      status: 'awaiting_pairing',
      provisioning_expires_at: new Date(t.clock.now().getTime() + TEN_MINUTES_MS).toISOString(),
      provisioning_token: body.provisioning_token,
      provisioning_url: link,
      provisioning_qr: body.provisioning_qr,
    });
    assert.equal(readSvgQr(body.provisioning_qr), link);

    // A second new code: the first new one stops working.
    const again = (await t.dash(door.owner.session, 'POST', `${url}/provisioning_token`)).json();
    assert.deepEqual((await claim(t, body.provisioning_token)).json(), CLAIM_REFUSED);
    await claimKey(t, again.provisioning_token);
    const paired = await t.dash(door.owner.session, 'POST', `${url}/provisioning_token`);
    assert.deepEqual(
      [paired.statusCode, paired.json()],
      [
        409,
        problemOf(
          409,
          'Door device is already paired: a pairing code is issued only to a device that has not been paired yet. Revoke it and create a new device to pair another one.',
          'invalid_state',
        ),
      ],
    );
    assert.equal((await t.dash(door.owner.session, 'POST', `${url}/revoke`)).statusCode, 200);
    const revoked = await t.dash(door.owner.session, 'POST', `${url}/provisioning_token`);
    assert.deepEqual(
      [revoked.statusCode, revoked.json()],
      [
        409,
        problemOf(
          409,
          'Door device is revoked, so it cannot be paired again. Create a new device instead.',
          'invalid_state',
        ),
      ],
    );
  });

  test('revoke answers the revoked device, once; a second revoke keeps the first time', async () => {
    const [p1] = door.performances;
    const device = await createDevice(t, door.owner.session, { name: 'Gate 9', performance_ids: [p1!.id] });
    const url = `/dashboard/v1/door_devices/${device.id}`;
    const revokedAt = t.clock.now().toISOString();
    const res = await t.dash(door.owner.session, 'POST', `${url}/revoke`);
    assert.equal(res.statusCode, 200, res.body);
    const { provisioning_token: _t, provisioning_url: _u, provisioning_qr: _q, ...was } = device;
    assert.deepEqual(res.json(), { ...was, status: 'revoked', revoked_at: revokedAt });
    t.clock.advance(5000);
    const again = await t.dash(door.owner.session, 'POST', `${url}/revoke`);
    assert.deepEqual([again.statusCode, again.json()], [200, res.json()]);
    // An unused code of a revoked device cannot be claimed.
    assert.deepEqual((await claim(t, device.provisioning_token)).json(), CLAIM_REFUSED);
  });

  test('box office, door and viewer are refused every door device operation; a manager is not', async () => {
    const [p1] = door.performances;
    const device = await createDevice(t, door.owner.session, { name: 'Roles', performance_ids: [p1!.id] });
    const operations: [Method, string, unknown?][] = [
      ['GET', '/dashboard/v1/door_devices'],
      ['POST', '/dashboard/v1/door_devices', { name: 'Mine', performance_ids: [p1!.id] }],
      ['GET', `/dashboard/v1/door_devices/${device.id}`],
      ['PATCH', `/dashboard/v1/door_devices/${device.id}`, { name: 'Mine' }],
      ['POST', `/dashboard/v1/door_devices/${device.id}/provisioning_token`],
      ['POST', `/dashboard/v1/door_devices/${device.id}/revoke`],
    ];
    const before = await devicesOf();
    for (const role of ['box_office', 'door', 'viewer']) {
      const user = await t.createUser({ organizerId: door.org.id, role });
      const session = await t.signIn(user.email, user.password);
      for (const [method, url, body] of operations) {
        const res = await t.dash(session, method, url, body);
        assert.deepEqual(
          [res.statusCode, res.json()],
          [
            403,
            problemOf(
              403,
              `Your role (${role}) does not include the \`devices\` permission this operation needs. An owner can change your role.`,
              'role_forbidden',
              'devices',
            ),
          ],
          `${role} ${method} ${url}`,
        );
      }
    }
    assert.deepEqual(await devicesOf(), before, 'nothing changed');
    const manager = await t.createUser({ organizerId: door.org.id, role: 'manager' });
    const managed = await t.signIn(manager.email, manager.password);
    for (const [method, url, body] of operations) {
      const res = await t.dash(managed, method, url, body);
      assert.ok(res.statusCode < 300, `manager ${method} ${url}: ${res.statusCode} ${res.body}`);
    }
  });
});
