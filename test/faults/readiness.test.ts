/**
 * /readyz asks the database at most once per READINESS_CACHE_MS of the app clock, however
 * many probes arrive: concurrent probes share one query, and later ones reuse its answer
 * until the second is over. Queries are counted by a Kysely plugin on the app's database
 * handle (test/helpers/counting-plugin.ts).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { READINESS_CACHE_MS } from '../../src/http/routes/health.ts';
import { useTestApp } from '../helpers/app.ts';
import { CountingPlugin } from '../helpers/counting-plugin.ts';
import { onPostgres } from '../helpers/database.ts';

describe(`readiness probes share one database query per second (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  const t = useTestApp();
  const counter = new CountingPlugin();

  before(async () => {
    t.app.deps.db = t.database.db.withPlugin(counter);
  });

  const probes = (n: number) =>
    Promise.all(Array.from({ length: n }, () => t.inject({ method: 'GET', url: '/readyz' })));

  test('50 concurrent probes cost one query; the next second costs one more', async () => {
    const first = await probes(50);
    assert.deepEqual(new Set(first.map((r) => r.statusCode)), new Set([200]));
    assert.deepEqual(first[0]!.json(), { status: 'ready' });
    assert.equal(counter.queries, 1);

    t.clock.advance(READINESS_CACHE_MS - 1);
    assert.deepEqual(new Set((await probes(10)).map((r) => r.statusCode)), new Set([200]));
    assert.equal(counter.queries, 1, 'still within the second: the cached answer');

    t.clock.advance(1);
    assert.deepEqual(new Set((await probes(10)).map((r) => r.statusCode)), new Set([200]));
    assert.equal(counter.queries, 2, 'a new second: one new query');
  });
});
