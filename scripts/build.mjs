// Compiles src/ to dist/ (tsconfig.build.json) and the organizer console (packages/console,
// Vite) to dist/console, and stamps each build, so `npm start` can tell whether a source
// file changed since. Runs on `npm ci` and `npm install` (the `prepare` script) and on
// `npm run build`. Without TypeScript or Vite (a production install with --omit=dev), it
// leaves a prebuilt dist/ as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { templateIsCurrent } from './embedded-template.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const stampOf = (root) => join(root, 'dist', '.built');

/** The newest modification time of the files under `dir` (none under a `skip` folder), in milliseconds. */
function newestMtime(dir, skip = []) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    // A .js beside its .ts is npm test's compiled copy (scripts/test.mjs), not a source.
    if (!entry.isFile() || compiledCopy(entry)) continue;
    const path = join(entry.parentPath, entry.name);
    if (skip.some((folder) => path.slice(dir.length).split(/[\\/]/).includes(folder))) continue;
    newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function compiledCopy(entry) {
  if (!entry.name.endsWith('.js')) return false;
  const stem = join(entry.parentPath, entry.name.slice(0, -'.js'.length));
  return existsSync(`${stem}.ts`) || existsSync(`${stem}.tsx`);
}

/** True when dist/ is missing or older than a source file or the build settings. */
export function needsBuild(root = ROOT) {
  const stamp = stampOf(root);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const inputs = [
    newestMtime(join(root, 'src')),
    statSync(join(root, 'tsconfig.build.json')).mtimeMs,
    statSync(join(root, 'tsconfig.json')).mtimeMs,
  ];
  return inputs.some((mtime) => mtime > built);
}

/** Compiles; returns the exit status. */
export function build(root = ROOT) {
  const stamp = stampOf(root);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    console.error(
      existsSync(stamp)
        ? 'TypeScript is not installed: using the existing dist/.'
        : 'TypeScript is not installed and there is no dist/: run npm ci.',
    );
    return existsSync(stamp) ? 0 : 1;
  }
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return buildEmbeddedTemplate(root);
}

/**
 * Makes the embedded database's template (./embedded-template.mjs) when it is missing or
 * was made by another PGlite, in a process of its own so initdb's memory is given back.
 * A failure only costs the first start the time of initdb, so it warns and goes on.
 */
function buildEmbeddedTemplate(root) {
  if (templateIsCurrent(root)) return 0;
  const script = join(root, 'scripts', 'embedded-template.mjs');
  const result = spawnSync(process.execPath, [script, root], { stdio: 'inherit' });
  if (result.status !== 0)
    console.error('Could not make the embedded database template; a first start will run initdb.');
  return 0;
}

// The console bundles the SDK's sources, so they are its inputs too.
const CONSOLE_INPUTS = ['packages/console', 'packages/sdk/src'];
const consoleStampOf = (root) => join(root, 'dist', 'console', '.built');

/** True when the console has sources and dist/console is missing or older than one of them. */
export function consoleNeedsBuild(root = ROOT) {
  if (!existsSync(join(root, 'packages', 'console', 'package.json'))) return false;
  const stamp = consoleStampOf(root);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return CONSOLE_INPUTS.some(
    (dir) => existsSync(join(root, dir)) && newestMtime(join(root, dir), ['node_modules']) > built,
  );
}

/** Builds the console with Vite into dist/console (packages/console/vite.config.ts); returns the exit status. */
export function buildConsole(root = ROOT) {
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const stamp = consoleStampOf(root);
  if (!existsSync(vite)) {
    console.error(
      existsSync(stamp)
        ? 'Vite is not installed: using the existing dist/console/.'
        : 'Vite is not installed and there is no dist/console/: run npm ci (the console at /app/ stays off until then).',
    );
    return 0;
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: join(root, 'packages', 'console'),
    stdio: 'inherit',
  });
  if (result.status !== 0) return result.status ?? 1;
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const status = build();
  process.exit(status === 0 ? buildConsole() : status);
}
