/**
 * The schema-driven request fuzzer in CI (docs/validation.md, "Fuzzing"): a fixed seed
 * and a bounded number of cases on the engine under test. `npm run fuzz -- --runs N
 * --seed S` runs it longer and prints the shrunk failing request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFuzz } from './run.ts';

const CI_SEED = 20240611;
const CI_RUNS = 1500;

test(
  `${CI_RUNS} generated requests over every operation keep every promise (seed ${CI_SEED})`,
  { timeout: 240_000 },
  async () => {
    const result = await runFuzz({ runs: CI_RUNS, seed: CI_SEED });
    assert.equal(result.failed, false, result.report);
    assert.equal(result.cases, CI_RUNS);
    assert.ok(result.operations >= 39, `only ${result.operations} operations in the OpenAPI document`);
    // The generator must reach both outcomes of most operations, or the run proves little.
    const succeeded = new Set(
      [...result.stats.statuses.keys()].filter((k) => / 2\d\d$/.test(k)).map((k) => k.split(' ')[0]),
    );
    assert.ok(succeeded.size >= 30, `only ${succeeded.size} operations answered a 2xx: ${[...succeeded].join(', ')}`);
  },
);
