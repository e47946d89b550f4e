// Compiles src/ to dist/ (tsconfig.build.json) and stamps the build, so `npm start` can
// tell whether a source file changed since. Runs on `npm ci` and `npm install` (the
// `prepare` script) and on `npm run build`. Without TypeScript (a production install
// with --omit=dev), it leaves a prebuilt dist/ as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const stampOf = (root) => join(root, 'dist', '.built');

/** The newest modification time of the files under `dir`, in milliseconds. */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
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
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(build());
