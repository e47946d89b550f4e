/**
 * GroupQueue (src/lib/group-queue.ts): an item starts at once while a slot of its key is
 * free; items that arrive while every slot is busy run together in the next batch; each
 * item settles with its own outcome; a batch that throws fails only its own items.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GroupQueue, type Settled } from '../../src/lib/group-queue.ts';

/** Batches the test finishes by hand: every call is recorded with its items. */
function manualRuns() {
  const calls: { items: number[]; finish(outcomes: Settled<string>[]): void; fail(err: Error): void }[] = [];
  const run = (items: number[]) =>
    new Promise<Settled<string>[]>((resolve, reject) => calls.push({ items, finish: resolve, fail: reject }));
  return { calls, run };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));
const ok = (value: string): Settled<string> => ({ ok: true, value });

describe('GroupQueue', () => {
  test('free slots start items alone at once; items that wait run together when a slot frees', async () => {
    const { calls, run } = manualRuns();
    const queue = new GroupQueue(run, { maxRunning: 2, maxBatch: 3 });
    const answers = [1, 2, 3, 4, 5, 6].map((n) => queue.submit('k', n));
    await settled();
    assert.deepEqual(
      calls.map((c) => c.items),
      [[1], [2]],
      'two slots: the first two run alone, nothing waits for a timer',
    );
    calls[0]!.finish([ok('one')]);
    await settled();
    assert.deepEqual(
      calls[2]!.items,
      [3, 4, 5],
      'the freed slot takes the waiting items, up to maxBatch, oldest first',
    );
    calls[1]!.finish([ok('two')]);
    await settled();
    assert.deepEqual(calls[3]!.items, [6]);
    calls[2]!.finish([ok('three'), { ok: false, error: new Error('four refused') }, ok('five')]);
    calls[3]!.finish([ok('six')]);
    const outcomes = await Promise.allSettled(answers);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
      ['one', 'two', 'three', 'four refused', 'five', 'six'],
    );
    await settled();
    assert.equal(queue.size, 0, 'an idle key keeps nothing');
  });

  test('keys do not wait for one another', async () => {
    const { calls, run } = manualRuns();
    const queue = new GroupQueue(run, { maxRunning: 1, maxBatch: 10 });
    void queue.submit('a', 1);
    void queue.submit('b', 2);
    await settled();
    assert.deepEqual(
      calls.map((c) => c.items),
      [[1], [2]],
    );
    calls.forEach((c) => c.finish([ok('done')]));
  });

  test('a batch that throws fails its own items only; the next batch runs', async () => {
    const { calls, run } = manualRuns();
    const queue = new GroupQueue(run, { maxRunning: 1, maxBatch: 10 });
    const first = queue.submit('k', 1);
    await settled();
    const second = queue.submit('k', 2);
    const third = queue.submit('k', 3);
    calls[0]!.fail(new Error('database gone'));
    await assert.rejects(first, /database gone/);
    await settled();
    assert.deepEqual(calls[1]!.items, [2, 3]);
    calls[1]!.finish([ok('two'), ok('three')]);
    assert.deepEqual(await Promise.all([second, third]), ['two', 'three']);
  });

  test('a batch that leaves an item unsettled rejects it rather than hanging', async () => {
    const queue = new GroupQueue<number, string>(async () => [], { maxRunning: 1, maxBatch: 10 });
    await assert.rejects(queue.submit('k', 1), /left an item unsettled/);
  });
});
