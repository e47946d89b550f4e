/**
 * FreshReadCoalescer (src/lib/fresh-read-coalescer.ts): callers of one key share a read,
 * but never one that began before they asked; a failed read fails only its own batch.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreshReadCoalescer } from '../../src/lib/fresh-read-coalescer.ts';

/** A load the test finishes by hand: every call is recorded with its inputs. */
function manualLoads<V>() {
  const calls: { inputs: number[]; finish(value: V): void; fail(err: Error): void }[] = [];
  const load = (inputs: number[]) =>
    new Promise<V>((resolve, reject) => calls.push({ inputs, finish: resolve, fail: reject }));
  return { calls, load };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('FreshReadCoalescer', () => {
  test('callers that ask while a read runs wait for the next read, which they share', async () => {
    const reads = new FreshReadCoalescer<number, string>();
    const { calls, load } = manualLoads<string>();
    const first = reads.read('k', 1, load);
    await settled();
    assert.equal(calls.length, 1);
    // These ask while the first read runs: it began before them, so they must not get its value.
    const second = reads.read('k', 2, load);
    const third = reads.read('k', 3, load);
    await settled();
    assert.equal(calls.length, 1, 'no second read while the first runs');
    calls[0]!.finish('as of read 1');
    assert.equal(await first, 'as of read 1');
    await settled();
    assert.equal(calls.length, 2, 'the next read starts as soon as the first ends');
    assert.deepEqual(calls[1]!.inputs, [2, 3]);
    calls[1]!.finish('as of read 2');
    assert.deepEqual(await Promise.all([second, third]), ['as of read 2', 'as of read 2']);
    assert.equal(reads.size, 0, 'an idle key keeps nothing');
  });

  test('keys are independent, and a failed read fails only the callers of its batch', async () => {
    const reads = new FreshReadCoalescer<number, string>();
    const { calls, load } = manualLoads<string>();
    const a1 = reads.read('a', 1, load);
    const b1 = reads.read('b', 1, load);
    await settled();
    assert.equal(calls.length, 2, 'one read per key, at once');
    const a2 = reads.read('a', 2, load);
    calls[0]!.fail(new Error('connection lost'));
    await assert.rejects(a1, /connection lost/);
    await settled();
    calls[2]!.finish('a after the failure');
    calls[1]!.finish('b');
    assert.deepEqual(await Promise.all([a2, b1]), ['a after the failure', 'b']);
  });

  test('a load that throws instead of rejecting fails its batch; the key is usable after', async () => {
    const reads = new FreshReadCoalescer<number, string>();
    await assert.rejects(
      reads.read('k', 1, () => {
        throw new Error('bad input');
      }),
      /bad input/,
    );
    assert.equal(await reads.read('k', 2, async (inputs) => `inputs ${inputs.join(',')}`), 'inputs 2');
  });
});
