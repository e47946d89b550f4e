/**
 * The helper threads' heap limits (docs/operations.md, "Memory"): the embedded database's
 * thread and the mail renderers start with a young generation of 2 × 4 MiB, while the
 * process itself runs with V8's default.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { HELPER_THREAD_LIMITS } from '../../src/lib/thread-heap.ts';

/** Allocates enough short-lived objects to grow the young generation to its limit, then reports its size. */
const ALLOCATE_AND_REPORT = `
  const v8 = require('node:v8');
  const live = [];
  for (let i = 0; i < 3e6; i++) { live.push({ i }); if (live.length > 2e5) live.length = 0; }
  const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  require('node:worker_threads').parentPort.postMessage(young.space_size);
`;

async function youngSpaceBytes(options: ConstructorParameters<typeof Worker>[1]): Promise<number> {
  const worker = new Worker(ALLOCATE_AND_REPORT, { eval: true, ...options });
  try {
    return await new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

test('a helper thread grows its young generation to 2 × 4 MiB at most, a thread without limits beyond it', async () => {
  const MiB = 1024 * 1024;
  assert.equal(await youngSpaceBytes({ resourceLimits: HELPER_THREAD_LIMITS }), 8 * MiB);
  // Without the limits, and without a semi-space flag on the process, V8's default (2 × 16 MiB).
  assert.ok((await youngSpaceBytes({ execArgv: [] })) > 8 * MiB);
});
