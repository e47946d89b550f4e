/**
 * Debian's PgBouncer in transaction pooling mode in front of the test server, as a managed
 * PostgreSQL is usually reached (docs/deploy.md, "PgBouncer"): every database name of the
 * server, trust authentication, `pool_size` server connections per database and user.
 * PgBouncer refuses to run as root, so a root test process starts it as `postgres`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closedPort } from './ports.ts';
import { postgresUserWhenRoot } from './postgres-user.ts';

const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** `databaseUrl` (a database of the test server) reached through PgBouncer. */
  through(databaseUrl: string): string;
  /** PgBouncer's log so far. */
  log(): string;
  stop(): Promise<void>;
}

interface PgBouncerOptions {
  /** The PostgreSQL server behind it (default the test server's, 127.0.0.1:5432). */
  serverPort?: number;
  /** Server connections per database and user. */
  poolSize: number;
}

export async function startPgBouncer(opts: PgBouncerOptions): Promise<PgBouncer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'marquee-pgbouncer-'));
  const port = await closedPort();
  const config = [
    '[databases]',
    `* = host=127.0.0.1 port=${opts.serverPort ?? 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${opts.poolSize}`,
    'max_client_conn = 1000',
    // A dropped test database's server connections go at once, not after ten minutes.
    'server_idle_timeout = 5',
    'server_lifetime = 3600',
    'server_reset_query =',
    'ignore_startup_parameters = extra_float_digits',
    `logfile = ${path.join(dir, 'pgbouncer.log')}`,
    'pidfile =',
    'log_connections = 0',
    'log_disconnections = 0',
  ].join('\n');
  writeFileSync(path.join(dir, 'pgbouncer.ini'), `${config}\n`);
  writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  const user = postgresUserWhenRoot();
  if (user) chownSync(dir, user.uid, user.gid);
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], {
    // Its log goes to a file: a pipe nobody reads (a runner blocked in spawnSync) would stall it.
    stdio: 'ignore',
    ...user,
  });
  // A failed test must not leave PgBouncer running, nor wait for it.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const output = () => {
    try {
      return readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const exited = once(child, 'exit');
  await waitForPort(port, () => child.exitCode !== null, output);
  return {
    port,
    through(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    log: output,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        // SIGTERM: immediate shutdown (SIGINT would wait for the clients to leave).
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `port` accepts connections; rejects if the process exits first or after 10 s. */
async function waitForPort(port: number, exited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`PgBouncer exited: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`PgBouncer did not listen on ${port} within 10 s: ${output()}`);
}
