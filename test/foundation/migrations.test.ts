import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, copyFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/client.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createEmptyPostgresDatabase, onPostgres } from '../helpers/database.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../migrations');

describe('migrations', () => {
  test('apply once, in order, and are recorded with checksums', async () => {
    const handle = onPostgres ? await openPostgresEmpty() : { ...(await openDatabase({})), drop: async () => {} };
    try {
      const first = await migrate(handle.db);
      assert.deepEqual(
        first,
        readMigrations().map((m) => m.name),
      );
      assert.deepEqual(await migrate(handle.db), [], 'a second run applies nothing');
      const rows = await sql<{ version: string }>`SELECT version FROM schema_migrations ORDER BY version`.execute(
        handle.db,
      );
      assert.deepEqual(
        rows.rows.map((r) => r.version),
        readMigrations().map((m) => m.version),
      );
    } finally {
      await handle.close();
      await handle.drop();
    }
  });

  test('a migration edited after it was applied is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'marquee-migrations-'));
    for (const file of readdirSync(MIGRATIONS)) copyFileSync(path.join(MIGRATIONS, file), path.join(dir, file));
    const handle = await openDatabase({});
    try {
      await migrate(handle.db, dir);
      appendFileSync(path.join(dir, '0001_foundation.sql'), '\n-- edited\n');
      await assert.rejects(
        migrate(handle.db, dir),
        /Migration 0001_foundation was changed after it was applied; add a new migration instead\./,
      );
    } finally {
      await handle.close();
    }
  });

  test(
    'two instances migrating one empty PostgreSQL database at once both come up',
    { skip: !onPostgres && 'needs TEST_DATABASE_URL' },
    async () => {
      const empty = await createEmptyPostgresDatabase();
      const a = await openDatabase({ databaseUrl: empty.url, poolSize: 2 });
      const b = await openDatabase({ databaseUrl: empty.url, poolSize: 2 });
      try {
        const [ranA, ranB] = await Promise.all([migrate(a.db), migrate(b.db)]);
        const all = readMigrations().map((m) => m.name);
        // One of them applied everything, the other waited on the advisory lock and found nothing to do.
        assert.deepEqual(
          [ranA, ranB].sort((x, y) => y.length - x.length),
          [all, []],
        );
        const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM schema_migrations`.execute(a.db);
        assert.equal(count.rows[0]!.n, all.length);
      } finally {
        await a.close();
        await b.close();
        await empty.drop();
      }
    },
  );
});

async function openPostgresEmpty() {
  const empty = await createEmptyPostgresDatabase();
  const handle = await openDatabase({ databaseUrl: empty.url, poolSize: 2 });
  return { ...handle, drop: () => empty.drop() };
}
