// `npm test [files…]`: type-checks the TypeScript and compiles it in place
// (tsconfig.test.json: each .js beside its .ts, gitignored), then runs the compiled test
// files with node's test runner, two processes at a time. Loading TypeScript through a
// loader hook costs every test process seconds of CPU before its first test, and loading
// the service's modules another second or two (bench/README.md, "The test suite"): plain
// JavaScript, and most files six to a process. Given files (test/orders/sync.test.ts) run alone;
// without them, every test/*/*.test.ts runs (on PostgreSQL, those the engine reaches),
// the timed browser files last.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const typeChecked = spawnSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.test.json')], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (typeChecked.status !== 0) process.exit(typeChecked.status ?? 1);

/** Every test/<area>/<name>.test.ts, from its source, so a compiled file whose source is gone never runs. */
function allTestFiles() {
  const testDir = join(ROOT, 'test');
  return readdirSync(testDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => file.split(/[\\/]/).length === 3)
    .sort();
}

/**
 * Whether a test file needs a process of its own: hooks at its top level (node:test runs
 * them around every test of the process), the process-wide metrics registry, or a browser
 * (long files, which keep the two processes at a time evenly loaded).
 */
function needsOwnProcess(source) {
  const text = readFileSync(join(ROOT, source), 'utf8');
  return (
    /^(?:before|after|beforeEach|afterEach)\(/m.test(text) ||
    /metrics|registry/.test(text) ||
    /useBrowser|useConsoleService/.test(text)
  );
}

/** Test files per process when they share one: each still opens its own app and database. */
const FILES_PER_PROCESS = 6;

/**
 * The files to give the runner: a file that needs a process of its own as itself, the
 * others six to a generated entry that imports them, so a process loads the service's
 * modules once for six files instead of once each.
 */
function entriesFor(sources) {
  const alone = sources.filter(needsOwnProcess);
  const shared = sources.filter((source) => !alone.includes(source));
  rmSync(BATCH_DIR, { recursive: true, force: true });
  mkdirSync(BATCH_DIR, { recursive: true });
  const batches = [];
  for (let i = 0; i < shared.length; i += FILES_PER_PROCESS) {
    const group = shared.slice(i, i + FILES_PER_PROCESS);
    const entry = join(BATCH_DIR, `files-${String(batches.length + 1).padStart(2, '0')}.test.mjs`);
    const imports = group.map(
      (source) => `import ${JSON.stringify(pathToFileURL(join(ROOT, compiledFile(source))).href)};`,
    );
    writeFileSync(entry, `// ${group.join(', ')}\n${imports.join('\n')}\n`);
    batches.push(entry);
  }
  return [...alone.map(compiledFile), ...batches];
}

const BATCH_DIR = join(ROOT, 'node_modules', '.cache', 'marquee-test-batches');
const compiledFile = (source) => source.replace(/\.ts$/, '.js');

/**
 * Files that assert how fast the door answers in a real browser (docs/door.md, "Speed and
 * size"): they run after the rest, one at a time, so no other test file's work lands in
 * their samples.
 */
const TIMED = ['test/door/door-screen.test.ts', 'test/console/door-device.test.ts'];

/**
 * Files whose subject the database engine does not reach: the console's pages and the
 * door's browser code, the SDK, the ticket documents and e-mail templates, hostile
 * request bodies, configuration and the build. They use a database only to set up, so on
 * PostgreSQL (TEST_DATABASE_URL set) they are not run again: the embedded run covers them.
 * Nor are the files that never use the test server at all: the embedded database's own
 * (its thread, turns, transactions, prepared statements, one process per data directory),
 * and units without a database (error mapping, the import graph, passwords, TOTP, the SMTP
 * transport, the webhook sender, signatures and URL vetting).
 */
const ENGINE_INDEPENDENT = [
  /^test\/console\//,
  /^test\/sdk\/(?:browser|client|examples|exports|generated-types)\./,
  /^test\/tickets\//,
  /^test\/door\/(?:door-screen|device-app|scan-queue|qr-video|outcome)\./,
  /^test\/mail\/(?:languages|render-pool)\./,
  /^test\/validation\/hostile-input\./,
  /^test\/foundation\/(?:config|error-codes|openapi-document|ttl-cache|fresh-read-coalescer|group-queue|compiled-build|container|import-cycles|doc-paths)\./,
  /^test\/foundation\/(?:embedded-[a-z]+|single-process|data-dir-lock)\./,
  /^test\/(?:faults\/database-errors|mail\/mail|people\/(?:passwords|totp)|webhooks\/(?:sender|signature|url-vetting))\./,
];

/**
 * The files run a third time, through PgBouncer in transaction pooling mode
 * (`--through-pgbouncer`, with TEST_DATABASE_URL; docs/deploy.md, "PgBouncer"): every way
 * Marquee opens a transaction or sends a statement, each once: the sale with and without an
 * Idempotency-Key and under contention, inventory, check-in races, the exports' batches,
 * sessions, the audit trail, the dashboard's locks, statement and lock timeouts, and a
 * worker's LISTEN on DATABASE_DIRECT_URL. The
 * rest of the suite repeats these paths; all of it a third time would cost CI about
 * six minutes more than its budget has.
 */
const THROUGH_PGBOUNCER = [
  'test/orders/create-order.test.ts',
  'test/orders/concurrency.test.ts',
  'test/orders/take-inventory.test.ts',
  'test/idempotency/concurrency.test.ts',
  'test/idempotency/rules.test.ts',
  'test/check-ins/concurrency.test.ts',
  'test/exports/exports.test.ts',
  'test/people/session.test.ts',
  'test/audit/audit-log.test.ts',
  'test/dashboard-catalog/concurrency.test.ts',
  'test/faults/statement-timeouts.test.ts',
  'test/webhooks/wakeup.test.ts',
];

/** PgBouncer's server connections per test database: fewer than a test pool's 30, so clients queue in it. */
const PGBOUNCER_POOL_SIZE = 8;

/**
 * V8 flags of every test process (the runner passes them on). `--liftoff-only`: the
 * embedded database's WebAssembly stays with V8's baseline compiler. A test process lives
 * seconds, and optimizing PGlite's hot functions cost it more CPU than the optimized code
 * saved: about 30% of a file's CPU (bench/README.md, "The test suite"). The service itself
 * runs with the optimizing tier (docs/operations.md, "Memory: the Node flags of `npm start`").
 */
const V8_FLAGS = ['--liftoff-only'];

/** Runs files with node's test runner, `concurrency` processes at a time; true if all passed. */
function runFiles(files, concurrency, env = process.env) {
  if (files.length === 0) return true;
  const run = spawnSync(process.execPath, [...V8_FLAGS, '--test', `--test-concurrency=${concurrency}`, ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
  return run.status === 0;
}

const requested = process.argv.slice(2);
if (requested[0] === '--through-pgbouncer') {
  if (!process.env.TEST_DATABASE_URL) throw new Error('--through-pgbouncer needs TEST_DATABASE_URL');
  const { startPgBouncer } = await import(pathToFileURL(join(ROOT, 'test/helpers/pgbouncer.js')).href);
  const pgbouncer = await startPgBouncer({ poolSize: PGBOUNCER_POOL_SIZE });
  const env = { ...process.env, TEST_DATABASE_POOLER_URL: pgbouncer.through(process.env.TEST_DATABASE_URL) };
  const passed = runFiles(entriesFor(THROUGH_PGBOUNCER), 2, env);
  await pgbouncer.stop();
  process.exit(passed ? 0 : 1);
}
if (requested.length > 0) {
  // Files named on the command line run as themselves.
  process.exit(runFiles(requested.map(compiledFile), 2) ? 0 : 1);
}
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const sources = allTestFiles().filter(
  (source) => !(onPostgres && ENGINE_INDEPENDENT.some((pattern) => pattern.test(source))),
);
const rest = runFiles(entriesFor(sources.filter((source) => !TIMED.includes(source))), 2);
const timed = runFiles(sources.filter((source) => TIMED.includes(source)).map(compiledFile), 1);
process.exit(rest && timed ? 0 : 1);
