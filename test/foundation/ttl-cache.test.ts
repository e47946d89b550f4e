import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { TtlCache } from '../../src/lib/ttl-cache.ts';

function cache(ttlMs = 1000, maxEntries = 3) {
  const clock = new ManualClock();
  return { clock, cache: new TtlCache<string>({ ttlMs, maxEntries, clock }) };
}

describe('TtlCache', () => {
  test('rejects a TTL or size that cannot work', () => {
    const clock = new ManualClock();
    assert.throws(() => new TtlCache({ ttlMs: 0, maxEntries: 1, clock }), /ttlMs must be positive/);
    assert.throws(() => new TtlCache({ ttlMs: 1, maxEntries: 0, clock }), /maxEntries must be at least 1/);
  });

  test('an entry is served until its TTL has passed on the clock, not at or after it', () => {
    const { clock, cache: c } = cache(1000);
    assert.equal(c.get('a'), undefined);
    assert.equal(c.set('a', 'A'), true);
    assert.equal(c.get('a'), 'A');
    clock.advance(999);
    assert.equal(c.get('a'), 'A');
    clock.advance(1);
    assert.equal(c.get('a'), undefined);
    assert.equal(c.size, 0, 'an expired entry is dropped when read');
  });

  test('a hit does not extend the TTL; storing again does', () => {
    const { clock, cache: c } = cache(1000);
    c.set('a', 'A1');
    clock.advance(600);
    assert.equal(c.get('a'), 'A1');
    clock.advance(400);
    assert.equal(c.get('a'), undefined);
    c.set('a', 'A2');
    clock.advance(999);
    assert.equal(c.get('a'), 'A2');
  });

  test('bounded: one entry over the size evicts the least recently used', () => {
    const { cache: c } = cache(1000, 3);
    c.set('a', 'A');
    c.set('b', 'B');
    c.set('c', 'C');
    assert.equal(c.get('a'), 'A'); // a is now the most recently used; b the least
    c.set('d', 'D');
    assert.equal(c.size, 3);
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((k) => c.get(k)),
      ['A', undefined, 'C', 'D'],
    );
    c.set('c', 'C2'); // storing again refreshes recency too
    c.set('e', 'E');
    assert.deepEqual(
      ['a', 'c', 'd', 'e'].map((k) => c.get(k)),
      [undefined, 'C2', 'D', 'E'],
    );
  });

  test('a key read at least once per maxEntries/2 stores is never evicted', () => {
    const { cache: c } = cache(1000, 4);
    c.set('hot', 'H');
    for (let i = 0; i < 40; i++) {
      c.set(`cold${i}`, 'C');
      if (i % 2 === 1) assert.equal(c.get('hot'), 'H', `after ${i + 1} other stores`);
    }
    assert.equal(c.size, 4);
    assert.equal(c.get('cold0'), undefined);
  });

  test('delete, deleteWhere and clear drop entries', () => {
    const { cache: c } = cache(1000, 10);
    for (const k of ['a1', 'a2', 'b1']) c.set(k, k.toUpperCase());
    c.delete('a1');
    c.delete('missing');
    assert.equal(c.get('a1'), undefined);
    assert.equal(
      c.deleteWhere((value) => value.startsWith('A')),
      1,
    );
    assert.deepEqual([c.get('a2'), c.get('b1')], [undefined, 'B1']);
    c.clear();
    assert.equal(c.size, 0);
  });

  test('a value loaded before an invalidation is not stored (the load raced a change)', () => {
    const { cache: c } = cache(1000, 10);
    for (const invalidate of [() => c.delete('x'), () => c.deleteWhere(() => false), () => c.clear()]) {
      const loadedAt = c.generation;
      invalidate();
      assert.equal(c.set('k', 'stale', loadedAt), false);
      assert.equal(c.get('k'), undefined);
      // A load that starts after the invalidation stores normally.
      assert.equal(c.set('k', 'fresh', c.generation), true);
      assert.equal(c.get('k'), 'fresh');
      c.delete('k');
    }
  });

  describe('load(): one load per miss, however many callers', () => {
    /** A loader whose loads in progress are counted and answered by the test. */
    function gatedLoader(value: string | undefined) {
      const pending: { resolve(v: string | undefined): void; reject(err: Error): void }[] = [];
      const loader = () => new Promise<string | undefined>((resolve, reject) => pending.push({ resolve, reject }));
      return {
        loader,
        get running() {
          return pending.length;
        },
        release: () => pending.shift()!.resolve(value),
        fail: (err: Error) => pending.shift()!.reject(err),
      };
    }

    test('a hit answers synchronously, without calling the loader', () => {
      const { cache: c } = cache(1000, 10);
      c.set('k', 'K');
      assert.equal(
        c.load('k', () => assert.fail('loaded on a hit')),
        'K',
      );
    });

    test('concurrent misses of a key share one load, which is stored for the TTL', async () => {
      const { clock, cache: c } = cache(1000, 10);
      const load = gatedLoader('V1');
      const answers = [1, 2, 3].map(async () => c.load('k', load.loader));
      assert.equal(load.running, 1);
      load.release();
      assert.deepEqual(await Promise.all(answers), ['V1', 'V1', 'V1']);
      assert.equal(c.get('k'), 'V1');
      clock.advance(1000);
      const next = gatedLoader('V2');
      const later = c.load('k', next.loader);
      assert.equal(next.running, 1, 'expired: the next miss loads again');
      next.release();
      assert.equal(await later, 'V2');
    });

    test('after an invalidation a miss does not join the load that began before it', async () => {
      const { cache: c } = cache(1000, 10);
      const before = gatedLoader('old');
      const early = c.load('k', before.loader);
      c.delete('k'); // a change committed while the first load ran
      const after = gatedLoader('new');
      const late = c.load('k', after.loader);
      const later = c.load('k', after.loader);
      assert.deepEqual([before.running, after.running], [1, 1], 'the late callers share a load of their own');
      after.release();
      before.release();
      assert.deepEqual(await Promise.all([early, late, later]), ['old', 'new', 'new']);
      assert.equal(c.get('k'), 'new', 'the load that raced the change stored nothing');
    });

    test('different flight keys load separately; only a defined value is stored', async () => {
      const { cache: c } = cache(1000, 10);
      const mine = gatedLoader(undefined);
      const theirs = gatedLoader(undefined);
      const answers = [
        (async () => c.load('k', mine.loader, 'tenant-a'))(),
        (async () => c.load('k', theirs.loader, 'tenant-b'))(),
      ];
      assert.deepEqual([mine.running, theirs.running], [1, 1]);
      mine.release();
      theirs.release();
      assert.deepEqual(await Promise.all(answers), [undefined, undefined]);
      assert.equal(c.size, 0);
    });

    test('a failed load fails every caller that shared it; the next miss loads again', async () => {
      const { cache: c } = cache(1000, 10);
      const load = gatedLoader('V');
      const shared = [1, 2].map(async () => c.load('k', load.loader));
      load.fail(new Error('connection lost'));
      for (const answer of await Promise.allSettled(shared))
        assert.deepEqual(answer, { status: 'rejected', reason: new Error('connection lost') });
      const retry = c.load('k', load.loader);
      assert.equal(load.running, 1, 'a new load, not the failed one');
      load.release();
      assert.equal(await retry, 'V');
    });
  });
});
