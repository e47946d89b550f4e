/**
 * A door device claims its pairing code (docs/dashboard.md, "Door devices"): POST
 * /v1/device_claims, with no Authorization, answers the device key and the device once;
 * a used, expired, revoked or forged code answers one 400 and changes nothing; of many
 * claims of one code at once exactly one wins (on PostgreSQL, truly at once). The claim
 * and the dashboard's writes are in the audit log. GET /v1/door_device reads the device.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { useTestApp } from '../helpers/app.ts';
import { UNTHROTTLED, UUID } from '../helpers/people.ts';
import { claim, CLAIM_REFUSED, createDevice, listed, setupDoors, TEN_MINUTES_MS, type DoorSetup } from './fixtures.ts';

describe('claiming a pairing code', () => {
  const t = useTestApp({ env: UNTHROTTLED });
  let door: DoorSetup;
  before(async () => {
    door = await setupDoors(t, { timezone: 'Europe/Berlin' });
  });
  const keysOf = () =>
    t.database.db.selectFrom('api_keys').selectAll().where('organizer_id', '=', door.org.id).execute();
  const selfOf = (device: { id: string; name: string; online_only: boolean }, ...performances: number[]) => ({
    id: device.id,
    name: device.name,
    online_only: device.online_only,
    organizer: { id: door.org.id, name: 'Test Organizer', timezone: 'Europe/Berlin' },
    performances: performances.map((i) => door.performances[i]),
  });

  test('a code answers the device key and the device once; the key is a check_in key of its own', async () => {
    const [p1, , p3] = door.performances;
    const device = await createDevice(t, door.owner.session, {
      name: 'North gate',
      performance_ids: [p3!.id, p1!.id],
      online_only: true,
    });
    t.clock.advance(TEN_MINUTES_MS - 1);
    const keysBefore = (await keysOf()).length;
    const res = await claim(t, device.provisioning_token);
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body.api_key, /^mqk_[\w-]{32}$/);
    assert.deepEqual(body, {
      api_key: body.api_key,
      device: selfOf({ id: device.id, name: 'North gate', online_only: true }, 0, 2),
    });

    const keys = await keysOf();
    assert.equal(keys.length, keysBefore + 1);
    const key = keys.find((k) => k.key_preview === body.api_key.slice(0, 10))!;
    assert.deepEqual(
      { name: key.name, scopes: key.scopes, created_by: key.created_by, revoked_at: key.revoked_at },
      { name: 'Door device: North gate', scopes: ['check_in'], created_by: door.owner.id, revoked_at: null },
    );
    const row = await t.database.db
      .selectFrom('door_devices')
      .selectAll()
      .where('id', '=', device.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.api_key_id, key.id);
    assert.equal(row.provisioning_token_hash, null);
    assert.equal(new Date(row.claimed_at!).toISOString(), t.clock.now().toISOString());

    // Developer settings list it as any key, with its one scope.
    const listedKeys = await t.dash(door.owner.session, 'GET', '/dashboard/v1/api_keys?limit=100');
    assert.equal(listedKeys.statusCode, 200, listedKeys.body);
    assert.deepEqual(
      (listedKeys.json().data as { id: string }[]).find((k) => k.id === key.id),
      {
        id: key.id,
        object: 'api_key',
        name: 'Door device: North gate',
        key_preview: body.api_key.slice(0, 10),
        scopes: ['check_in'],
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        created_by: { id: door.owner.id, name: door.owner.name, email: door.owner.email },
        created_at: new Date(key.created_at).toISOString(),
      },
    );

    // The key reads its device.
    const self = await t.api(body.api_key, 'GET', '/v1/door_device');
    assert.equal(self.statusCode, 200, self.body);
    assert.deepEqual(self.json(), body.device);
    // An integration's key has no device: refused for its scope.
    const other = await t.api(door.org.key, 'GET', '/v1/door_device');
    assert.equal(other.statusCode, 403, other.body);
    assert.equal(other.json().code, 'forbidden_scope');

    // The dashboard shows it paired, and its key's first use.
    const shown = await t.dash(door.owner.session, 'GET', `/dashboard/v1/door_devices/${device.id}`);
    const { provisioning_token: _t, provisioning_url: _u, provisioning_qr: _q, ...was } = device;
    assert.deepEqual(shown.json(), {
      ...was,
      status: 'active',
      claimed_at: t.clock.now().toISOString(),
      last_seen_at: t.clock.now().toISOString(),
    });
    assert.deepEqual(shown.json().performances, [listed(p1!), listed(p3!)]);

    // Once only: the same code again, and nothing more is made.
    const again = await claim(t, device.provisioning_token);
    assert.deepEqual([again.statusCode, again.json()], [400, CLAIM_REFUSED]);
    assert.equal((await keysOf()).length, keysBefore + 1);
  });

  test('an expired, revoked, forged or malformed code: the same 400, nothing made', async () => {
    const [p1] = door.performances;
    const expiring = await createDevice(t, door.owner.session, { name: 'Late', performance_ids: [p1!.id] });
    const revoked = await createDevice(t, door.owner.session, { name: 'Revoked', performance_ids: [p1!.id] });
    assert.equal(
      (await t.dash(door.owner.session, 'POST', `/dashboard/v1/door_devices/${revoked.id}/revoke`)).statusCode,
      200,
    );
    t.clock.advance(TEN_MINUTES_MS);
    const keysBefore = await keysOf();
    const devicesBefore = await t.database.db.selectFrom('door_devices').selectAll().execute();
    const forged = `mqd_${randomBytes(32).toString('base64url')}`;
    for (const token of [
      expiring.provisioning_token,
      revoked.provisioning_token,
      forged,
      'mqd_short',
      `mqd_${'a'.repeat(300)}`,
      expiring.provisioning_token.slice(4),
      '',
    ]) {
      const res = await claim(t, token);
      assert.deepEqual([res.statusCode, res.json()], [400, CLAIM_REFUSED], JSON.stringify(token));
    }
    assert.deepEqual(await keysOf(), keysBefore);
    assert.deepEqual(await t.database.db.selectFrom('door_devices').selectAll().execute(), devicesBefore);
  });

  test('twenty claims of one code at once: one 201, nineteen 400, one key', async () => {
    const [p1] = door.performances;
    const device = await createDevice(t, door.owner.session, { name: 'Race', performance_ids: [p1!.id] });
    const keysBefore = (await keysOf()).length;
    const answers: LightMyRequestResponse[] = await Promise.all(
      Array.from({ length: 20 }, () => claim(t, device.provisioning_token)),
    );
    const won = answers.filter((r) => r.statusCode === 201);
    assert.equal(won.length, 1, answers.map((r) => r.statusCode).join(','));
    for (const lost of answers.filter((r) => r.statusCode !== 201))
      assert.deepEqual([lost.statusCode, lost.json()], [400, CLAIM_REFUSED]);
    assert.equal((await keysOf()).length, keysBefore + 1);
    const self = await t.api(won[0]!.json().api_key, 'GET', '/v1/door_device');
    assert.equal(self.json().id, device.id);
  });

  test('the audit log: the dashboard writes by the person, the claim as the device key’s creation', async () => {
    const [p1, p2] = door.performances;
    const device = await createDevice(t, door.owner.session, { name: 'Audited', performance_ids: [p1!.id] });
    const url = `/dashboard/v1/door_devices/${device.id}`;
    // A second between writes: entries of one instant come in id order.
    const tick = () => t.clock.advance(1000);
    tick();
    assert.equal((await t.dash(door.owner.session, 'PATCH', url, { name: 'Audited gate' })).statusCode, 200);
    tick();
    const reissued = await t.dash(door.owner.session, 'POST', `${url}/provisioning_token`);
    tick();
    const claimed = await claim(t, reissued.json().provisioning_token);
    assert.equal(claimed.statusCode, 201, claimed.body);
    tick();
    assert.equal(
      (await t.dash(door.owner.session, 'PATCH', url, { performance_ids: [p2!.id], online_only: true })).statusCode,
      200,
    );
    tick();
    assert.equal((await t.dash(door.owner.session, 'POST', `${url}/revoke`)).statusCode, 200);

    const log = await t.dash(door.owner.session, 'GET', `/dashboard/v1/audit_log?target_id=${device.id}&limit=100`);
    assert.equal(log.statusCode, 200, log.body);
    const person = { type: 'user', id: door.owner.id, label: door.owner.email };
    const entries = (log.json().data as Record<string, unknown>[]).map((e) => ({
      actor: e.actor,
      action: e.action,
      target: e.target,
      changes: e.changes,
    }));
    const target = { type: 'door_device', id: device.id };
    const revokedAt = t.clock.now().toISOString();
    const row = await t.database.db
      .selectFrom('door_devices')
      .select(['api_key_id', 'claimed_at', 'provisioning_expires_at'])
      .where('id', '=', device.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(entries, [
      {
        actor: person,
        action: 'revokeDoorDevice',
        target,
        changes: { revoked_at: { before: null, after: revokedAt } },
      },
      {
        actor: person,
        action: 'updateDoorDevice',
        target,
        changes: {
          performance_ids: { before: [p1!.id], after: [p2!.id] },
          online_only: { before: false, after: true },
        },
      },
      {
        actor: person,
        action: 'reissueDoorDeviceToken',
        target,
        changes: {
          provisioning_expires_at: {
            before: device.provisioning_expires_at,
            after: reissued.json().provisioning_expires_at,
          },
        },
      },
      {
        actor: person,
        action: 'updateDoorDevice',
        target,
        changes: { name: { before: 'Audited', after: 'Audited gate' } },
      },
      {
        actor: person,
        action: 'createDoorDevice',
        target,
        changes: {
          name: { before: null, after: 'Audited' },
          performance_ids: { before: null, after: [p1!.id] },
          online_only: { before: null, after: false },
          provisioning_expires_at: { before: null, after: device.provisioning_expires_at },
          created_by: { before: null, after: door.owner.id },
        },
      },
    ]);
    assert.equal(new Date(row.provisioning_expires_at!).toISOString(), reissued.json().provisioning_expires_at);

    // The claim: the device key made itself, recorded against the key.
    const keyLog = await t.dash(
      door.owner.session,
      'GET',
      `/dashboard/v1/audit_log?target_id=${row.api_key_id}&limit=100`,
    );
    const keyEntries = keyLog.json().data as Record<string, unknown>[];
    assert.deepEqual(
      keyEntries.map((e) => ({ actor: e.actor, action: e.action, target: e.target, changes: e.changes })),
      [
        {
          actor: {
            type: 'api_key',
            id: row.api_key_id,
            label: `Door device: Audited gate (${claimed.json().api_key.slice(0, 10)})`,
          },
          action: 'claimDoorDevice',
          target: { type: 'api_key', id: row.api_key_id },
          changes: {
            name: { before: null, after: 'Door device: Audited gate' },
            key_preview: { before: null, after: claimed.json().api_key.slice(0, 10) },
            scopes: { before: null, after: ['check_in'] },
            created_by: { before: null, after: door.owner.id },
          },
        },
      ],
    );
    assert.match(row.api_key_id!, UUID);
    // Nothing of the pairing code reached the log.
    assert.ok(!log.body.includes(reissued.json().provisioning_token));
    assert.ok(!log.body.includes('provisioning_token_hash'));
  });
});
