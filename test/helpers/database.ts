/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new
 * database on the PostgreSQL server named by TEST_DATABASE_URL (dropped at close).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const onPostgres = testDatabaseUrl !== undefined;
/**
 * PgBouncer (transaction pooling) in front of the test server, in the run of the files
 * that go through it (scripts/test.mjs, --through-pgbouncer): test databases are created
 * on the server and used through PgBouncer, as DATABASE_URL with DATABASE_DIRECT_URL.
 */
const testPoolerUrl = process.env.TEST_DATABASE_POOLER_URL || undefined;

export interface TestDatabase extends DatabaseHandle {
  /** Connection string of this database (PostgreSQL only), for a second process or pool. */
  url: string | undefined;
  /** DATABASE_URL and DATABASE_DIRECT_URL of a process using this database as the tests do (through the pooler, if any). */
  urls?: { databaseUrl: string | undefined; databaseDirectUrl: string | undefined };
}

/**
 * Creates a database on the test server and returns its URL (PostgreSQL only): empty, or
 * a copy of `template`.
 */
export async function createEmptyPostgresDatabase(
  template?: string,
): Promise<{ url: string; drop(opts?: { force?: boolean }): Promise<void> }> {
  if (!testDatabaseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    // A commit waits for no disk flush (about 3 ms each on a virtual disk): what a test
    // checks is what was committed, never whether it survives a crash of the server.
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop({ force = false } = {}) {
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      try {
        if (force || !(await onceUnused(client, `DROP DATABASE IF EXISTS ${name}`)))
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Runs a statement that needs a database without sessions (DROP, RENAME): pg's pool.end()
 * resolves before its sockets are gone, and terminating them would make their clients
 * emit an unhandled error, so it waits for them to leave. False if they stay 5 s.
 */
async function onceUnused(client: pg.Client, statement: string): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await client.query(statement);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006') throw err; // object_in_use
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return false;
}

export interface TestDatabaseOptions {
  poolSize?: number;
  /** DATABASE_ACQUIRE_TIMEOUT of this database (default 5 s). */
  acquireTimeoutMs?: number;
  /** DATABASE_STATEMENT_TIMEOUT (default 30 s; PostgreSQL only). */
  statementTimeoutMs?: number;
  /** DATABASE_LOCK_TIMEOUT (default 10 s; PostgreSQL only). */
  lockTimeoutMs?: number;
  /** A transaction pooler in front of the test server to reach the database through (default TEST_DATABASE_POOLER_URL). */
  poolerUrl?: string;
}

export async function createTestDatabase(opts: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const { poolSize: _poolSize, poolerUrl = testPoolerUrl, ...timeouts } = opts;
  if (!testDatabaseUrl) {
    const handle = await openDatabase({ ...timeouts, snapshot: await migratedSnapshot() });
    // Applies nothing on a current snapshot; still checks every checksum.
    await migrate(handle.db);
    return { ...handle, url: undefined, urls: { databaseUrl: undefined, databaseDirectUrl: undefined } };
  }
  const empty = await createEmptyPostgresDatabase(await migratedTemplate());
  const handle = await openDatabase({
    ...timeouts,
    databaseUrl: poolerUrl ? throughPooler(empty.url, poolerUrl) : empty.url,
    transactionPooled: poolerUrl !== undefined,
    poolSize: opts.poolSize ?? 30,
  });
  // Applies nothing on a current template; still checks every checksum.
  await migrate(handle.db);
  return {
    ...handle,
    url: empty.url,
    urls: poolerUrl
      ? { databaseUrl: throughPooler(empty.url, poolerUrl), databaseDirectUrl: empty.url }
      : { databaseUrl: empty.url, databaseDirectUrl: undefined },
    async close() {
      await handle.close();
      // PgBouncer keeps its server connections a while; they hold nothing of the test's.
      await empty.drop({ force: poolerUrl !== undefined });
    },
  };
}

/** A database URL of the test server with the host and port of the pooler in front of it. */
function throughPooler(databaseUrl: string, poolerUrl: string): string {
  const url = new URL(databaseUrl);
  const pooler = new URL(poolerUrl);
  url.hostname = pooler.hostname;
  url.port = pooler.port;
  return url.toString();
}

/** What makes a migrated database: the migrations, and the engine's version when embedded. */
function migrationsKey(...extra: string[]): string {
  return createHash('sha256')
    .update(extra.join('\n'))
    .update(
      readMigrations()
        .map((m) => `${m.name}:${m.checksum}`)
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * The name of a database on the test server with every migration applied, which each test
 * file's database is created from (CREATE DATABASE … TEMPLATE copies files; migrating
 * costs about a second per file). Made once per set of migrations, under an advisory lock
 * so test files starting together wait for one; templates of other migrations are dropped.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `marquee_template_${migrationsKey()}`;
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock(4242002)');
      const { rows } = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE 'marquee\\_template\\_%'",
      );
      if (rows.some((row) => row.datname === name)) return name;
      for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname}`).catch(() => undefined);
      const building = `${name}_building`;
      await admin.query(`CREATE DATABASE ${building}`);
      const url = new URL(testDatabaseUrl!);
      url.pathname = `/${building}`;
      const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
      try {
        await migrate(handle.db);
      } finally {
        await handle.close();
      }
      // Renamed once complete: a run killed while migrating leaves no template behind.
      if (!(await onceUnused(admin, `ALTER DATABASE ${building} RENAME TO ${name}`)))
        throw new Error(`the test template ${building} is still in use after migrating`);
      return name;
    } finally {
      await admin.end(); // ends the session, and its advisory lock with it
    }
  })();
  return template;
}

const SNAPSHOT_DIR = fileURLToPath(new URL('../../node_modules/.cache/marquee-test-database/', import.meta.url));
let snapshot: Promise<Uint8Array> | undefined;

/**
 * An embedded database with every migration applied, as an archive each test file's
 * database starts from: initialising and migrating one costs seconds of WebAssembly per
 * file, loading the archive a fraction of that. It is made once per set of migrations
 * and PGlite version, and kept under node_modules/.cache; test files that find none at
 * once each make one (the last rename wins, all of them equal).
 */
function migratedSnapshot(): Promise<Uint8Array> {
  snapshot ??= (async () => {
    const pgliteVersion = (
      JSON.parse(
        await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
      ) as {
        version: string;
      }
    ).version;
    const file = path.join(SNAPSHOT_DIR, `${migrationsKey(pgliteVersion)}.tar`);
    try {
      return new Uint8Array(await readFile(file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const handle = await openDatabase({});
    try {
      await migrate(handle.db);
      const archive = await handle.dumpEmbedded!();
      await mkdir(SNAPSHOT_DIR, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, archive);
      await rename(partial, file);
      return archive;
    } finally {
      await handle.close();
    }
  })();
  return snapshot;
}
