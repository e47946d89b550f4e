// `npm test [files…]`: type-checks the TypeScript and compiles it in place
// (tsconfig.test.json: each .js beside its .ts, gitignored), then runs the compiled test
// files with node's test runner, two at a time. Loading TypeScript through a loader hook
// costs every test process seconds of CPU before its first test (bench/README.md, "The
// test suite"); plain JavaScript does not. Given files (test/x/y.test.ts) run alone;
// without them, every test/*/*.test.ts runs.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const compiled = spawnSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.test.json')], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Every test/<area>/<name>.test.ts, from its source, so a compiled file whose source is gone never runs. */
function allTestFiles() {
  const testDir = join(ROOT, 'test');
  return readdirSync(testDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => file.split(/[\\/]/).length === 3)
    .sort();
}

const requested = process.argv.slice(2);
const sources = requested.length > 0 ? requested : allTestFiles();
const files = sources.map((file) => file.replace(/\.ts$/, '.js'));
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { cwd: ROOT, stdio: 'inherit' });
process.exit(run.status ?? 1);
