/**
 * The data directory lock on its own (src/lib/data-dir-lock.ts): holders are real
 * processes (`sleep`), dead PIDs are those of processes that have exited.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  acquireDataDirLock,
  DataDirInUseError,
  LOCK_FILE_NAME,
  processStartTime,
  type LockHolder,
} from '../../src/lib/data-dir-lock.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const sleepers = new Set<ChildProcess>();
after(() => {
  for (const child of sleepers) child.kill('SIGKILL');
});

function freshDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'marquee-lock-'));
}

/** A live process that is not this one. */
function liveProcess(): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  sleepers.add(child);
  child.on('exit', () => sleepers.delete(child));
  return child;
}

/** The PID of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

function writeLock(dir: string, holder: Partial<LockHolder> & { pid: number }): LockHolder {
  const full: LockHolder = {
    hostname: hostname(),
    startedAt: '2026-06-01T12:00:00.000Z',
    processStart: processStartTime(holder.pid),
    nonce: 'feedfacefeedface',
    ...holder,
  };
  writeFileSync(path.join(dir, LOCK_FILE_NAME), JSON.stringify(full) + '\n');
  return full;
}

function lockContent(dir: string): LockHolder {
  return JSON.parse(readFileSync(path.join(dir, LOCK_FILE_NAME), 'utf8')) as LockHolder;
}

describe('data directory lock', () => {
  test('a free directory is created and locked with our PID; release removes the file', async () => {
    const dir = path.join(freshDir(), 'nested', 'data');
    const lock = await acquireDataDirLock(dir, { waitMs: 1000 });
    assert.equal(lock.file, path.join(dir, LOCK_FILE_NAME));
    const content = lockContent(dir);
    assert.equal(content.pid, process.pid);
    assert.equal(content.hostname, hostname());
    assert.equal(content.processStart, processStartTime(process.pid));
    assert.ok(content.processStart !== null, '/proc is available on the test machine');
    assert.deepEqual(content, lock.holder);
    assert.deepEqual(readdirSync(dir), [LOCK_FILE_NAME], 'no temp files left behind');
    lock.release();
    assert.equal(existsSync(lock.file), false);
    lock.release(); // idempotent
  });

  test('a directory held by a live process stays held: the wait ends in DataDirInUseError naming it', async () => {
    const dir = freshDir();
    const holderProcess = liveProcess();
    const holder = writeLock(dir, { pid: holderProcess.pid! });
    const waiting: LockHolder[] = [];
    const startedAt = performance.now();
    await assert.rejects(
      acquireDataDirLock(dir, { waitMs: 300, pollMs: 20, onWaiting: (h) => waiting.push(h) }),
      (err: unknown) =>
        err instanceof DataDirInUseError &&
        err.message ===
          `DATA_DIR ${dir} is in use by process ${holderProcess.pid} (another Marquee, started 2026-06-01T12:00:00.000Z). ` +
            'Stop it or set DATA_DIR to another directory.',
    );
    assert.ok(performance.now() - startedAt >= 290, 'it waited for the bound');
    assert.deepEqual(waiting, [holder], 'the wait is announced once');
    assert.deepEqual(lockContent(dir), holder, 'the holder keeps its lock');
  });

  test('a holder that exits during the wait hands the directory over', async () => {
    const dir = freshDir();
    const holderProcess = liveProcess();
    writeLock(dir, { pid: holderProcess.pid! });
    setTimeout(() => holderProcess.kill('SIGKILL'), 200);
    let announced = 0;
    const lock = await acquireDataDirLock(dir, { waitMs: 5000, pollMs: 20, onWaiting: () => announced++ });
    assert.equal(announced, 1);
    assert.equal(lockContent(dir).pid, process.pid);
    lock.release();
  });

  test('stale locks are taken over at once: dead PID, reused PID, our own PID from a previous life, garbage', async () => {
    const cases: Array<[string, (dir: string) => Promise<void> | void]> = [
      ['dead PID', async (dir) => void writeLock(dir, { pid: await deadPid() })],
      ['PID now running another program', (dir) => void writeLock(dir, { pid: liveProcess().pid!, processStart: '1' })],
      ['our PID, not our lock', (dir) => void writeLock(dir, { pid: process.pid })],
      ['not JSON', (dir) => writeFileSync(path.join(dir, LOCK_FILE_NAME), 'garbage')],
    ];
    for (const [name, prepare] of cases) {
      const dir = freshDir();
      await prepare(dir);
      let announced = 0;
      const lock = await acquireDataDirLock(dir, { waitMs: 0, onWaiting: () => announced++ });
      assert.equal(announced, 0, name);
      assert.deepEqual(lockContent(dir), lock.holder, name);
      assert.deepEqual(readdirSync(dir), [LOCK_FILE_NAME], `${name}: no guard or temp file left`);
      lock.release();
    }
  });

  test('a lock held by this process is not stale to a second acquisition in it', async () => {
    const dir = freshDir();
    const lock = await acquireDataDirLock(dir, { waitMs: 0 });
    await assert.rejects(acquireDataDirLock(dir, { waitMs: 50, pollMs: 10 }), DataDirInUseError);
    lock.release();
  });

  test('a lock from another host counts while its holder refreshes it, and is stale once it stops', async () => {
    const dir = freshDir();
    writeLock(dir, { pid: 4242, hostname: 'other-host', processStart: null });
    await assert.rejects(
      acquireDataDirLock(dir, { waitMs: 50, pollMs: 10 }),
      (err: unknown) =>
        err instanceof DataDirInUseError &&
        err.message.startsWith(`DATA_DIR ${dir} is in use by process 4242 on host other-host (`),
    );
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    utimesSync(path.join(dir, LOCK_FILE_NAME), twoMinutesAgo, twoMinutesAgo);
    const lock = await acquireDataDirLock(dir, { waitMs: 0 });
    assert.equal(lockContent(dir).pid, process.pid);
    lock.release();
  });

  test('release leaves a lock that is no longer ours alone', async () => {
    const dir = freshDir();
    const lock = await acquireDataDirLock(dir, { waitMs: 0 });
    const other = writeLock(dir, { pid: 4242 });
    lock.release();
    assert.deepEqual(lockContent(dir), other);
  });

  test('several processes racing for one stale lock: exactly one wins', async () => {
    const dir = freshDir();
    writeLock(dir, { pid: await deadPid() });
    const script = [
      "import { acquireDataDirLock } from './src/lib/data-dir-lock.ts';",
      'try {',
      `  const lock = await acquireDataDirLock(${JSON.stringify(dir)}, { waitMs: 200, pollMs: 10 });`,
      "  console.log('won');",
      '  setTimeout(() => lock.release(), 4000);',
      "} catch (err) { console.log(err.name === 'DataDirInUseError' ? 'lost' : String(err)); }",
    ].join('\n');
    const results = await Promise.all(
      Array.from({ length: 4 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        sleepers.add(child);
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        // The answer, not the exit: the winner holds the lock a while longer.
        return new Promise<string>((resolve) =>
          child.stdout.on('data', () => out.includes('\n') && resolve(out.trim())),
        );
      }),
    );
    assert.deepEqual(results.sort(), ['lost', 'lost', 'lost', 'won']);
  });
});
