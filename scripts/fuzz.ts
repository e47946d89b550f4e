/**
 * The request fuzzer, run longer than CI does (docs/validation.md, "Fuzzing"):
 *   npm run fuzz -- --runs 20000 --seed 42 [--only createOrder|/v1/orders] [--details]
 * On PostgreSQL with TEST_DATABASE_URL set, else on in-memory PGlite. Prints progress,
 * the seed and, on failure, fast-check's shrunk failing request with its response.
 */
import { parseArgs } from 'node:util';
import { runFuzz } from '../test/fuzz/run.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    only: { type: 'string' },
    details: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- --runs N --seed S [--only operationId|path] [--details]');
  process.exit(2);
}
const engine = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
console.log(`fuzzing ${runs} cases on ${engine}, seed ${seed}${values.only ? `, only ${values.only}` : ''}`);
const started = Date.now();
let lastPrint = 0;
const result = await runFuzz({
  runs,
  seed,
  only: values.only,
  onProgress(done) {
    if (Date.now() - lastPrint < 5000) return;
    lastPrint = Date.now();
    console.log(`  ${done} cases, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  },
});
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const byStatus = new Map<string, number>();
for (const [key, n] of result.stats.statuses) {
  const status = key.split(' ')[1]!;
  byStatus.set(status, (byStatus.get(status) ?? 0) + n);
}
console.log(
  `statuses: ${[...byStatus]
    .sort()
    .map(([s, n]) => `${s}×${n}`)
    .join(' ')}`,
);
if (values.details) {
  console.log('operation statuses:');
  for (const [key, n] of [...result.stats.statuses].sort()) console.log(`  ${key} ×${n}`);
  console.log('4xx details:');
  for (const [detail, n] of [...result.stats.details].sort((a, b) => b[1] - a[1]))
    console.log(`  ${n}× ${detail.slice(0, 200)}`);
}
console.log(result.report);
console.log(
  `${result.failed ? 'FAILED' : 'passed'}: ${result.cases} cases over ${result.operations} operations on ${engine}, seed ${seed}, ${seconds} s`,
);
process.exitCode = result.failed ? 1 : 0;
