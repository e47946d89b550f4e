/**
 * Opens the database: embedded PGlite under DATA_DIR when no DATABASE_URL is set,
 * otherwise a node-postgres pool. Both are one Kysely<Database> to the rest of the code.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { preparedStatementName } from './prepared.ts';

export type Db = Kysely<Database>;
export type Engine = 'pglite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  close(): Promise<void>;
}

// bigint (int8) columns and count(*) hold money and counts far below 2^53: read them as
// numbers. numeric stays a string (we never use it for money).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * Connections per process. Small on purpose: an on-sale funnels every sale through one
 * performance row lock, and measured on 2 cores (bench/README.md) 4 to 10 backends sell
 * about 2.7x faster than 64 do, because waiters cost the lock holder CPU.
 */
export const DEFAULT_POOL_SIZE = 10;

/**
 * A node-postgres client that sends SQL marked with PREPARED (src/db/prepared.ts) as a
 * named prepared statement: node-postgres parses it once per connection and binds it
 * afterwards. Kysely calls query(text, values); everything else passes through unchanged.
 */
class PreparingClient extends pg.Client {
  override query(...args: unknown[]): any {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = preparedStatementName(text);
      if (name !== undefined) return super.query({ name, text, values });
    }
    return Reflect.apply(super.query, this, args);
  }
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  /** Directory of the embedded database; omitted means in-memory (tests). */
  dataDir?: string;
  poolSize?: number;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      Client: PreparingClient,
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? DEFAULT_POOL_SIZE,
      // A transaction must never wait forever on a row lock held by a stuck peer.
      options: '-c lock_timeout=10000 -c statement_timeout=30000',
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', close: () => db.destroy() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let dataDir: string | undefined;
  if (opts.dataDir) {
    dataDir = path.resolve(opts.dataDir, 'pgdata');
    mkdirSync(dataDir, { recursive: true });
  }
  const pglite = await PGlite.create(dataDir);
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    engine: 'pglite',
    async close() {
      await db.destroy();
      await pglite.close();
    },
  };
}
