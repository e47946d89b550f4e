/** Scratch PostgreSQL databases on the machine's server: created per scenario, dropped after. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function urlFor(database: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface ScratchDb {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDb(label: string): Promise<ScratchDb> {
  const name = `marquee_bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: urlFor(name),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Runs fn with a short-lived client on `url`. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function postgresVersion(): Promise<string> {
  return withClient(
    PG_ADMIN_URL,
    async (c) => (await c.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version,
  );
}
