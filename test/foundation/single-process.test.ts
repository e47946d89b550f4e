/**
 * One process per data directory, with real processes: a second start on a DATA_DIR in
 * use gives up, a SIGKILLed holder's lock is taken over, and a restart that overlaps a
 * draining predecessor waits for it instead of running beside it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { launch, start, stop, waitUntilListening, type RunningService } from '../helpers/service-process.ts';

const ADMIN_TOKEN = 'single-process-admin-token-0123';

function freshDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'marquee-data-'));
}

function lockFile(dataDir: string): { pid: number; startedAt: string } {
  return JSON.parse(readFileSync(path.join(dataDir, 'marquee.lock'), 'utf8')) as { pid: number; startedAt: string };
}

async function createOrganizer(service: RunningService, name: string): Promise<string> {
  const response = await fetch(`${service.baseUrl}/admin/v1/organizers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

async function organizerName(service: RunningService, id: string): Promise<string> {
  const response = await fetch(`${service.baseUrl}/admin/v1/organizers/${id}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { name: string }).name;
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('one process per data directory', () => {
  test('a second start on a DATA_DIR in use exits 1 naming the directory and the holder; the first keeps serving', async () => {
    const dataDir = freshDataDir();
    const first = await start({ DATA_DIR: dataDir, ADMIN_TOKEN });
    try {
      const id = await createOrganizer(first, 'Before');
      const { startedAt } = lockFile(dataDir);
      const second = launch({ DATA_DIR: dataDir, ADMIN_TOKEN, DATA_DIR_LOCK_WAIT: '1s' });
      assert.equal(await second.exit, 1);
      assert.equal(
        second.stderr(),
        `Marquee cannot start: DATA_DIR ${dataDir} is in use by process ${first.pid} (another Marquee, started ${startedAt}). ` +
          'Stop it or set DATA_DIR to another directory.\n',
      );
      assert.match(
        second.stdout(),
        new RegExp(`"msg":"waiting for process ${first.pid} to release DATA_DIR ${dataDir}"`),
      );
      assert.doesNotMatch(second.output(), /listening at/);

      assert.equal((await fetch(`${first.baseUrl}/healthz`)).status, 200);
      assert.equal((await fetch(`${first.baseUrl}/readyz`)).status, 200);
      assert.equal(await organizerName(first, id), 'Before');
      await createOrganizer(first, 'After');
      assert.equal(lockFile(dataDir).pid, first.pid, 'the loser left the lock alone');
    } finally {
      assert.equal(await stop(first), 0);
    }
    assert.equal(existsSync(path.join(dataDir, 'marquee.lock')), false, 'a clean exit removes the lock');
  });

  test('the lock of a SIGKILLed process is stale: the next start takes it over and finds the committed data', async () => {
    const dataDir = freshDataDir();
    const killed = await start({ DATA_DIR: dataDir, ADMIN_TOKEN });
    const id = await createOrganizer(killed, 'Committed');
    killed.child.kill('SIGKILL');
    await killed.exit;
    assert.equal(lockFile(dataDir).pid, killed.pid, 'the killed process could not remove its lock');

    const next = await start({ DATA_DIR: dataDir, ADMIN_TOKEN, DATA_DIR_LOCK_WAIT: '1s' });
    try {
      assert.doesNotMatch(next.output(), /waiting for process/);
      assert.equal(lockFile(dataDir).pid, next.pid);
      assert.equal(await organizerName(next, id), 'Committed');
    } finally {
      assert.equal(await stop(next), 0);
    }
  });

  test('a restart that overlaps a draining predecessor waits until it has exited, then serves its data', async () => {
    const dataDir = freshDataDir();
    const old = await start({ DATA_DIR: dataDir, ADMIN_TOKEN });
    const port = Number(new URL(old.baseUrl).port);
    // A request whose body is still arriving keeps the old process draining after SIGTERM.
    const body = JSON.stringify({ name: 'Sold while draining' });
    const socket: Socket = connect(port, '127.0.0.1');
    let response = '';
    socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /admin/v1/organizers HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Authorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 5),
    );
    await until(() => old.output().includes('"url":"/admin/v1/organizers"'), 'the old process to receive the request');

    old.child.kill('SIGTERM');
    await until(() => old.output().includes('shutting down'), 'the old process to start draining');
    const successor = launch({ DATA_DIR: dataDir, ADMIN_TOKEN });
    await until(
      () => successor.output().includes(`waiting for process ${old.pid} to release DATA_DIR`),
      'the successor to wait',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(old.exitedAt(), undefined, 'the old process is still draining');
    assert.doesNotMatch(successor.output(), /listening at/, 'the successor does not run beside it');

    socket.write(body.slice(5));
    assert.equal(await old.exit, 0, 'the drain ended with the last response, well within its 20 s limit');
    assert.match(response, /^HTTP\/1\.1 201 /, 'the in-flight request completed during the drain');
    const id = /"id":"([0-9a-f-]{36})"/.exec(response)?.[1];
    assert.ok(id);
    socket.destroy();

    const running = await waitUntilListening(successor);
    try {
      assert.ok(running.listenedAt()! > old.exitedAt()!, 'the successor listened only after the old process exited');
      assert.equal(await organizerName(running, id), 'Sold while draining');
    } finally {
      assert.equal(await stop(running), 0);
    }
  });
});
