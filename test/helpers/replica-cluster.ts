/**
 * A PostgreSQL primary and its streaming replica of our own, in a temporary directory, on
 * two free loopback ports (the machine's server allows no replication connections). For
 * the read-replica test and the replicareads benchmark: initdb with trust on loopback,
 * wal_level=replica, then pg_basebackup -R -X stream into a hot standby. Built for speed
 * (fsync off, small buffers, a fast checkpoint): a pair is up in a few seconds.
 *
 * PostgreSQL refuses to run as root: as root every command runs as the `postgres` user
 * (runuser), in a directory that user owns.
 */
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { closedPort } from './ports.ts';
import { postgresUserWhenRoot } from './postgres-user.ts';

const run = promisify(execFile);
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

export interface ReplicaCluster {
  /** postgres://…/postgres of the primary. */
  primaryUrl: string;
  /** The same database on the hot standby. */
  replicaUrl: string;
  /** Runs one statement on the replica as the superuser (pg_wal_replay_pause() and friends). */
  onReplica(statement: string): Promise<void>;
  /** Until the replica has replayed everything the primary flushed so far. */
  replicaCaughtUp(): Promise<void>;
  /** Kills the standby at once (`pg_ctl stop -m immediate`), its connections with it. */
  stopReplica(): Promise<void>;
  /** Stops both servers and removes their directory. */
  close(): Promise<void>;
}

/** Runs a PostgreSQL program, as the postgres user when we are root. */
function pgCommand(asPostgres: boolean, program: string, args: string[]) {
  const file = path.join(BIN, program);
  return asPostgres ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
}

/** Server options of both: loopback only, nothing durable, little memory. */
function serverOptions(port: number, socketDir: string): string {
  return [
    `-p ${port}`,
    `-k ${socketDir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c shared_buffers=16MB',
    '-c max_connections=100',
  ].join(' ');
}

export async function startReplicaCluster(): Promise<ReplicaCluster> {
  const ids = postgresUserWhenRoot();
  const asPostgres = ids !== undefined;
  const dir = await mkdtemp(path.join(tmpdir(), 'marquee-replica-'));
  if (ids) await chown(dir, ids.uid, ids.gid);
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const [primaryPort, replicaPort] = [await closedPort(), await closedPort()];
  const started: string[] = [];
  const stop = async (dataDir: string) => {
    await pgCommand(asPostgres, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  };
  const close = async () => {
    for (const dataDir of started.reverse()) await stop(dataDir);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await pgCommand(asPostgres, 'initdb', [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '--no-instructions',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    // initdb's pg_hba.conf with --auth=trust already lets replication in on 127.0.0.1.
    await appendFile(
      path.join(primaryDir, 'postgresql.conf'),
      'wal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n',
    );
    await pgCommand(asPostgres, 'pg_ctl', [
      '-D',
      primaryDir,
      '-w',
      '-l',
      path.join(dir, 'primary.log'),
      '-o',
      serverOptions(primaryPort, dir),
      'start',
    ]);
    started.push(primaryDir);
    await pgCommand(asPostgres, 'pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--checkpoint=fast',
      '--no-sync',
    ]);
    const replicaLog = path.join(dir, 'replica.log');
    if (ids) {
      await writeFile(replicaLog, '');
      await chown(replicaLog, ids.uid, ids.gid);
    }
    await pgCommand(asPostgres, 'pg_ctl', [
      '-D',
      replicaDir,
      '-w',
      '-l',
      replicaLog,
      '-o',
      serverOptions(replicaPort, dir),
      'start',
    ]);
    started.push(replicaDir);
  } catch (err) {
    await close();
    throw err;
  }
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const query = async <T extends pg.QueryResultRow>(url: string, statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(statement)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    primaryUrl,
    replicaUrl,
    async onReplica(statement) {
      await query(replicaUrl, statement);
    },
    async replicaCaughtUp() {
      const [flushed] = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_flush_lsn()::text AS lsn');
      const lsn = flushed!.lsn;
      for (let attempt = 0; attempt < 200; attempt++) {
        const [row] = await query<{ done: boolean }>(
          replicaUrl,
          `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
        );
        if (row?.done) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`the replica did not replay ${lsn} within 5 s`);
    },
    async stopReplica() {
      await stop(replicaDir);
      started.splice(started.indexOf(replicaDir), 1);
    },
    close,
  };
}
