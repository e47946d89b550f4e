/**
 * The migration runner: applies migrations/NNNN_name.sql in order, each once, all in
 * one transaction under an advisory lock, so several instances starting against one
 * empty database serialize here and all come up. A file changed after it was applied
 * is refused by checksum: migrations are append-only.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from './client.ts';
import { withTransaction } from './transaction.ts';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
/** Arbitrary constant naming "the Marquee migration lock" among advisory locks. */
const MIGRATION_LOCK_KEY = 4_242_001;

interface MigrationFile {
  version: string;
  name: string;
  checksum: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      return {
        version: file.slice(0, 4),
        name: file.replace(/\.sql$/, ''),
        checksum: createHash('sha256').update(text).digest('hex'),
        sql: text,
      };
    });
}

export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readMigrations(dir);
  return withTransaction(db, async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(trx);
    const applied = await sql<{ version: string; name: string; checksum: string }>`
      SELECT version, name, checksum FROM schema_migrations ORDER BY version`.execute(trx);
    const byVersion = new Map(applied.rows.map((row) => [row.version, row]));
    const ran: string[] = [];
    for (const file of files) {
      const done = byVersion.get(file.version);
      if (done) {
        if (done.checksum !== file.checksum) {
          throw new Error(`Migration ${file.name} was changed after it was applied; add a new migration instead.`);
        }
        continue;
      }
      await sql.raw(file.sql).execute(trx);
      await sql`INSERT INTO schema_migrations (version, name, checksum)
        VALUES (${file.version}, ${file.name}, ${file.checksum})`.execute(trx);
      ran.push(file.name);
    }
    return ran;
  });
}
