/**
 * Start-up errors: the mapping from an error to the one line an operator reads
 * (src/startup-errors.ts), and the service started for real with each fault: exit 1, one
 * line naming the setting, no stack trace.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { closedPort } from '../helpers/ports.ts';
import { ConfigError } from '../../src/config.ts';
import { DataDirInUseError } from '../../src/lib/data-dir-lock.ts';
import { pingRedis } from '../../src/startup-checks.ts';
import {
  dataDirError,
  databaseError,
  listenError,
  redisError,
  StartupError,
  startupFailureMessage,
} from '../../src/startup-errors.ts';
import { onPostgres, testDatabaseUrl } from '../helpers/database.ts';
import { runToExit } from '../helpers/service-process.ts';

const testRedisUrl = process.env.TEST_REDIS_URL || undefined;

function systemError(code: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { code, ...extra });
}

/** The line main.ts prints for `err`. */
function line(err: unknown): string | undefined {
  return startupFailureMessage(err);
}

function freshDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'marquee-start-'));
}

describe('start-up error messages', () => {
  test('DATABASE_URL: refused, unknown host, timeout, refused by the server; never the password', () => {
    const url = 'postgres://marquee:s3cret-pw@db.internal:6432/tickets';
    const cases: Array<[unknown, string]> = [
      [
        systemError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:6432', { syscall: 'connect' }),
        'Marquee cannot start: DATABASE_URL: cannot connect to db.internal:6432 (ECONNREFUSED: connection refused)',
      ],
      // Node's happy-eyeballs connect: an AggregateError with an empty message but a code.
      [
        Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' }),
        'Marquee cannot start: DATABASE_URL: cannot connect to db.internal:6432 (ECONNREFUSED: connection refused)',
      ],
      [
        systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal', { syscall: 'getaddrinfo' }),
        'Marquee cannot start: DATABASE_URL: cannot resolve the host of db.internal:6432 (ENOTFOUND: host not found)',
      ],
      [
        systemError('ETIMEDOUT', 'connect ETIMEDOUT'),
        'Marquee cannot start: DATABASE_URL: cannot connect to db.internal:6432 (ETIMEDOUT: timed out)',
      ],
      [
        new Error('timeout exceeded when trying to connect'),
        'Marquee cannot start: DATABASE_URL: cannot connect to db.internal:6432 (timeout exceeded when trying to connect)',
      ],
      [
        Object.assign(new Error('password authentication failed for user "marquee"'), {
          severity: 'FATAL',
          code: '28P01',
        }),
        'Marquee cannot start: DATABASE_URL: the server at db.internal:6432 refused the connection: password authentication failed for user "marquee" (28P01)',
      ],
      [
        Object.assign(new Error('database "tickets" does not exist'), { severity: 'FATAL', code: '3D000' }),
        'Marquee cannot start: DATABASE_URL: the server at db.internal:6432 refused the connection: database "tickets" does not exist (3D000)',
      ],
    ];
    for (const [err, expected] of cases) {
      const message = line(databaseError(err, url));
      assert.equal(message, expected);
      assert.ok(!message.includes('s3cret-pw'));
    }
    assert.equal(
      line(databaseError(systemError('ECONNREFUSED', 'x'), 'postgres://postgres@127.0.0.1/x')),
      'Marquee cannot start: DATABASE_URL: cannot connect to 127.0.0.1:5432 (ECONNREFUSED: connection refused)',
      'the default port is named',
    );
  });

  test('DATA_DIR: the path and the cause', () => {
    assert.equal(
      line(
        dataDirError(
          systemError('ENOTDIR', "ENOTDIR: not a directory, mkdir '/srv/file/data'", {
            path: '/srv/file/data',
            syscall: 'mkdir',
          }),
          '/srv/file/data',
        ),
      ),
      'Marquee cannot start: DATA_DIR: cannot create or write /srv/file/data (ENOTDIR: a parent is not a directory)',
    );
    assert.equal(
      line(
        dataDirError(
          systemError('EACCES', 'EACCES: permission denied', { path: '/srv/data/marquee.lock.1.tmp' }),
          '/srv/data',
        ),
      ),
      'Marquee cannot start: DATA_DIR: cannot create or write /srv/data/marquee.lock.1.tmp (EACCES: permission denied)',
    );
    assert.equal(
      line(dataDirError(new Error('Aborted(). Build with -sASSERTIONS for more info.\nmore'), './data')),
      'Marquee cannot start: DATA_DIR: ./data: Aborted(). Build with -sASSERTIONS for more info.',
      'the embedded database failing to open is blamed on DATA_DIR, first line only',
    );
    const inUse = new DataDirInUseError('/srv/data', {
      pid: 12345,
      hostname: 'elsewhere',
      startedAt: '2026-06-01T12:00:00.000Z',
      processStart: null,
      nonce: 'n',
    });
    assert.equal(dataDirError(inUse, '/srv/data'), inUse);
    assert.equal(
      line(inUse),
      'Marquee cannot start: DATA_DIR /srv/data is in use by process 12345 on host elsewhere (another Marquee, started 2026-06-01T12:00:00.000Z). ' +
        'Stop it or set DATA_DIR to another directory.',
    );
  });

  test('REDIS_URL, PORT and HOST', () => {
    assert.equal(
      line(redisError(systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'), 'redis://:pw@127.0.0.1:1')),
      'Marquee cannot start: REDIS_URL: cannot connect to 127.0.0.1:1 (ECONNREFUSED: connection refused)',
    );
    assert.equal(
      line(
        redisError(
          Object.assign(new Error('WRONGPASS invalid username-password pair or user is disabled.'), {
            name: 'ReplyError',
          }),
          'redis://:pw@cache',
        ),
      ),
      'Marquee cannot start: REDIS_URL: cannot use cache:6379 (WRONGPASS invalid username-password pair or user is disabled.)',
    );
    assert.equal(
      line(listenError(systemError('EADDRINUSE', 'listen EADDRINUSE'), '127.0.0.1', 3000)),
      'Marquee cannot start: PORT: 127.0.0.1:3000 is already in use by another process (EADDRINUSE: address already in use)',
    );
    assert.equal(
      line(listenError(systemError('EACCES', 'listen EACCES'), '0.0.0.0', 80)),
      'Marquee cannot start: PORT: no permission to listen on 0.0.0.0:80 (EACCES: permission denied)',
    );
    assert.equal(
      line(listenError(systemError('EADDRNOTAVAIL', 'listen EADDRNOTAVAIL'), '10.9.9.9', 3000)),
      'Marquee cannot start: HOST: cannot listen on 10.9.9.9:3000 (EADDRNOTAVAIL: address not available)',
    );
  });

  test('invalid configuration prints its own lines; programming errors get no line (their stack is printed)', () => {
    const config = new ConfigError([
      { variable: 'PORT', message: 'must be an integer from 0 to 65535, got "x".' },
      { variable: 'ROLE', message: 'must be api, worker or all, got "y".' },
    ]);
    assert.equal(
      line(config),
      'Invalid configuration:\n  PORT must be an integer from 0 to 65535, got "x".\n  ROLE must be api, worker or all, got "y".',
    );
    assert.equal(line(new StartupError('DATA_DIR', 'detail')), 'Marquee cannot start: DATA_DIR: detail');
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    assert.equal(line(bug), undefined);
    assert.equal(databaseError(bug, 'postgres://x/y'), bug, 'an error that is not about the connection passes through');
    assert.equal(listenError(bug, '127.0.0.1', 1), bug);
  });

  test('pingRedis rejects with the underlying cause, and resolves against a live Redis', async () => {
    const port = await closedPort();
    await assert.rejects(
      pingRedis(`redis://127.0.0.1:${port}`, 1000),
      (err: unknown) => (err as { code?: string }).code === 'ECONNREFUSED',
    );
    if (testRedisUrl) await pingRedis(testRedisUrl, 1000);
  });
});

describe('start-up errors of the real process', () => {
  /** Asserts exit 1 and exactly `expected` on stderr: one line, no stack trace. */
  async function failsWith(env: Record<string, string>, expected: string): Promise<void> {
    const result = await runToExit(env);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `${expected}\n`);
    assert.doesNotMatch(result.stderr + result.stdout, /^\s+at /m);
  }

  test('an unreachable DATABASE_URL names the variable and the cause, not the password', async () => {
    const port = await closedPort();
    await failsWith(
      { DATA_DIR: freshDir(), DATABASE_URL: `postgres://postgres:s3cret-pw@127.0.0.1:${port}/marquee` },
      `Marquee cannot start: DATABASE_URL: cannot connect to 127.0.0.1:${port} (ECONNREFUSED: connection refused)`,
    );
  });

  test('a DATABASE_URL naming a missing database', { skip: !onPostgres && 'needs TEST_DATABASE_URL' }, async () => {
    const url = new URL(testDatabaseUrl!);
    url.pathname = '/marquee_no_such_database';
    await failsWith(
      { DATA_DIR: freshDir(), DATABASE_URL: url.toString() },
      `Marquee cannot start: DATABASE_URL: the server at ${url.hostname}:${url.port || 5432} refused the connection: ` +
        'database "marquee_no_such_database" does not exist (3D000)',
    );
  });

  test('a DATA_DIR that cannot be created names the variable, the path and the cause', async () => {
    const file = path.join(freshDir(), 'a-file');
    writeFileSync(file, '');
    await failsWith(
      { DATA_DIR: path.join(file, 'data') },
      `Marquee cannot start: DATA_DIR: cannot create or write ${path.join(file, 'data')} (ENOTDIR: a parent is not a directory)`,
    );
  });

  test('an unreachable REDIS_URL names the variable', async () => {
    const port = await closedPort();
    await failsWith(
      { DATA_DIR: freshDir(), REDIS_URL: `redis://127.0.0.1:${port}` },
      `Marquee cannot start: REDIS_URL: cannot connect to 127.0.0.1:${port} (ECONNREFUSED: connection refused)`,
    );
  });

  test('a PORT in use names the variable; the data directory is released for the next start', async () => {
    const dataDir = freshDir();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      await failsWith(
        { DATA_DIR: dataDir, PORT: String(port) },
        `Marquee cannot start: PORT: 127.0.0.1:${port} is already in use by another process (EADDRINUSE: address already in use)`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    assert.equal(existsSync(path.join(dataDir, 'marquee.lock')), false, 'the failed start released its lock');
    assert.equal(existsSync(path.join(dataDir, 'pgdata')), true, 'it got as far as opening the database');
  });

  test('every invalid variable at once, one line each', async () => {
    await failsWith(
      { DATA_DIR: freshDir(), PORT: 'eighty', DATA_DIR_LOCK_WAIT: 'forever' },
      'Invalid configuration:\n' +
        '  PORT must be an integer from 0 to 65535, got "eighty".\n' +
        '  DATA_DIR_LOCK_WAIT must be a duration like 50ms, 2s, 10m or 1h, got "forever".',
    );
  });
});
