/**
 * The service as an operator runs it: `node src/main.ts` in its own process, on the
 * embedded database under a temp DATA_DIR (and on PostgreSQL when available).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createEmptyPostgresDatabase, onPostgres } from '../helpers/database.ts';
import { FROM_SOURCES, start, stop } from '../helpers/service-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the service process', () => {
  test('first start prints the Default key and admin token once; data survives a restart; SIGTERM exits 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'marquee-data-'));
    // On the embedded database no other process could take the traffic: no drain period,
    // whatever SHUTDOWN_DRAIN_PERIOD says (docs/operations.md, "Shutdown: the drain period").
    const first = await start({ DATA_DIR: dataDir, SHUTDOWN_DRAIN_PERIOD: '1m' });
    const key = /Default organizer API key \(read, write\): (mqk_\S+)/.exec(first.output())?.[1];
    const adminToken = /Admin token \(stored in .*\): (mqa_\S+)/.exec(first.output())?.[1];
    const organizerId = /Default organizer id: (\S+)/.exec(first.output())?.[1];
    assert.ok(key, 'the key is printed');
    assert.ok(adminToken, 'the admin token is printed');
    const organizers = await fetch(`${first.baseUrl}/admin/v1/organizers`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const listed = ((await organizers.json()) as { data: { id: string; name: string }[] }).data;
    assert.deepEqual(
      listed.map((o) => [o.id, o.name]),
      [[organizerId, 'Default']],
    );
    // Not a terminal: JSON lines, and the listening line carries the URLs to go to.
    const listening = first
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"Marquee API listening'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(listening.length, 1);
    assert.deepEqual(
      [listening[0]!.api, listening[0]!.docs, listening[0]!.healthz, listening[0]!.readyz],
      ['/v1', '/docs', '/healthz', '/readyz'].map((p) => `${first.baseUrl}${p}`),
    );
    const list = await fetch(`${first.baseUrl}/v1/events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(list.status, 200);
    assert.ok(list.headers.get('x-request-id'));
    const created = await fetch(`${first.baseUrl}/admin/v1/organizers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Survivor' }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    assert.ok(/"reqId"/.test(first.output()), 'request log lines carry the request id');
    // The owner set-up link (docs/dashboard.md, "One-time links") creates the first owner, once.
    const setupToken = /Owner set-up link \(one use, 72 hours\): http:\/\/\S+\/app\/setup\?token=(\S+)/.exec(
      first.output(),
    )?.[1];
    assert.ok(setupToken, 'the set-up link is printed');
    const setUp = () =>
      fetch(`${first.baseUrl}/dashboard/v1/setup`, {
        method: 'POST',
        headers: { origin: first.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({
          token: setupToken,
          email: 'owner@example.com',
          name: 'First Owner',
          password: 'a long and unusual passphrase',
        }),
      });
    const owner = await setUp();
    assert.equal(owner.status, 201);
    assert.match(
      owner.headers.get('set-cookie') ?? '',
      /^marquee_session=[\w-]{43}; Path=\/; Expires=.*; HttpOnly; SameSite=Strict$/,
    );
    assert.deepEqual(((await owner.json()) as { role: string; organizer_id: string }).role, 'owner');
    assert.equal((await setUp()).status, 400, 'the link works once');
    const stoppedAt = performance.now();
    assert.equal(await stop(first), 0);
    assert.ok(first.exitedAt()! - stoppedAt < 30_000, 'no drain period of a minute');
    assert.doesNotMatch(first.output(), /answers 503 for the drain period/);

    const second = await start({ DATA_DIR: dataDir });
    assert.ok(!second.output().includes('mqk_'), 'the key is not printed again');
    assert.ok(!second.output().includes('Admin token'), 'the admin token is not printed again');
    assert.ok(!second.output().includes('set-up link'), 'the set-up link is not printed again');
    const again = await fetch(`${second.baseUrl}/admin/v1/organizers/${id}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { name: string }).name, 'Survivor');
    const stillValid = await fetch(`${second.baseUrl}/v1/events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(stillValid.status, 200);
    assert.equal(await stop(second), 0);
  });

  test('LOG_FORMAT=pretty: readable lines and a banner of where to go, no JSON', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'marquee-data-'));
    const run = await start({ DATA_DIR: dataDir, LOG_FORMAT: 'pretty' });
    try {
      const output = run.output();
      assert.doesNotMatch(output, /^\{"level"/m);
      assert.match(output, /INFO.*Marquee API listening at/);
      for (const [label, p] of [
        ['API', '/v1'],
        ['Docs', '/docs'],
        ['Liveness', '/healthz'],
        ['Readiness', '/readyz'],
      ] as const)
        assert.match(output, new RegExp(`^  ${label} +${run.baseUrl.replaceAll('.', '\\.')}${p}(?: |$)`, 'm'));
    } finally {
      assert.equal(await stop(run), 0);
    }
  });

  test('invalid configuration stops the process with a message naming the variable', async () => {
    const child = spawn(process.execPath, FROM_SOURCES, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.equal(stderr.trim(), 'Invalid configuration: PORT must be an integer from 0 to 65535, got "eighty".');
  });

  test(
    'two instances started at once on one empty PostgreSQL database both come up',
    { skip: !onPostgres && 'needs TEST_DATABASE_URL' },
    async () => {
      const empty = await createEmptyPostgresDatabase();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'marquee-data-'));
      const env = { DATABASE_URL: empty.url, DATA_DIR: dataDir, ADMIN_TOKEN: 'shared-admin-token-0123456789' };
      const [a, b] = await Promise.all([start(env), start(env)]);
      try {
        const printed = [a, b].filter((r) => r.output().includes('Default organizer API key')).length;
        assert.equal(printed, 1, 'exactly one instance created the Default organizer');
        for (const r of [a, b]) assert.equal((await fetch(`${r.baseUrl}/readyz`)).status, 200);
      } finally {
        assert.equal(await stop(a), 0);
        assert.equal(await stop(b), 0);
        await empty.drop();
      }
    },
  );
});
